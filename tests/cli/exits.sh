#!/bin/bash
# Exit status and output files: a run that printed "error:" does not exit
# 0; a report that cannot be written exits 2; an output file is written
# whole or not at all, through a symlink to its target, keeping its mode.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/lfts" || exit 1

# Roots that strand CAs: cr-updn's tables are written, with an error.
sed -n 's/^switchguid=\(0x[0-9a-f]*\).*/\1/p' "$tmp/k.topo" | tail -n 2 \
	>"$tmp/leaves"
expect_exit 1 route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/leaves" \
	-o "$tmp/stranded"
grep -q "error: cr-updn:" "$tmp/err" || fail "no error for stranded CAs"
[ -s "$tmp/stranded" ] || fail "the stranded routing's tables are missing"

# Reports that cannot be written.
if [ -w /dev/full ]; then
	for args in "check -t $tmp/k.topo --lfts $tmp/lfts" \
		"check --json -t $tmp/k.topo --lfts $tmp/lfts" \
		"compare -t $tmp/k.topo --engines updn" \
		"compare --json -t $tmp/k.topo --engines updn"; do
		"$croute" $args -q >/dev/full 2>"$tmp/err"
		rc=$?
		[ $rc = 2 ] || fail "croute $args >/dev/full: exit $rc, not 2"
		grep -q "cannot write" "$tmp/err" ||
			fail "croute $args >/dev/full: no message"
	done
fi

exit $failed
