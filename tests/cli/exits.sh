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

# A file rewritten keeps its mode; through a symlink, its target is
# written and the link stays.
"$croute" route -q -t "$tmp/k.topo" -e minhop -o "$tmp/mode" || exit 1
chmod 640 "$tmp/mode"
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/mode" ||
	fail "rewrite of a 640 file"
[ "$(stat -c %a "$tmp/mode")" = 640 ] ||
	fail "a 640 file rewritten is $(stat -c %a "$tmp/mode")"
cmp -s "$tmp/mode" "$tmp/lfts" || fail "the 640 file was not rewritten"
: >"$tmp/target"
ln -s target "$tmp/link"
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/link" ||
	fail "writing through a symlink"
[ -L "$tmp/link" ] || fail "the symlink was replaced"
cmp -s "$tmp/target" "$tmp/lfts" || fail "the symlink's target not written"

# A run ended by a signal while it writes leaves no FILE.tmp.PID.N. The
# signal must come while the temporary exists: tried until it does. (Job
# control, so that background jobs do not ignore SIGINT.)
"$croute" gen ktree 12 3 -o "$tmp/m.topo" || exit 1
set -m
for sig in TERM INT HUP; do
	caught=false
	for try in 1 2 3 4 5 6 7 8; do
		"$croute" route -q -t "$tmp/m.topo" -e minhop -o "$tmp/sig" &
		pid=$!
		while kill -0 $pid 2>/dev/null; do
			set -- "$tmp"/sig.tmp.*
			if [ -e "$1" ]; then
				kill -$sig $pid && caught=true
				break
			fi
		done
		wait $pid
		rc=$?
		rm -f "$tmp/sig"
		$caught && [ $rc -gt 128 ] && break
		caught=false
	done
	set -- "$tmp"/sig.tmp.*
	[ -e "$1" ] && fail "SIG$sig left $*"
	$caught || echo "note: SIG$sig never came while the file was written"
	rm -f "$tmp"/sig.tmp.*
done
set +m

# The loop above signals from outside and may never hit the moment just
# after open() made the temporary; tests/cli/sigopen.la raises SIGTERM at
# exactly that moment. Under ASan its runtime must load first.
shim=$top_builddir/tests/cli/.libs/sigopen.so
if [ -f "$shim" ]; then
	pre=$shim
	asan=$(ldd "$croute" 2>/dev/null |
		sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\) .*/\1/p')
	[ -n "$asan" ] && pre="$asan $shim"
	LD_PRELOAD=$pre "$croute" route -q -t "$tmp/m.topo" -e minhop \
		-o "$tmp/shim" 2>"$tmp/shim.err"
	rc=$?
	[ $rc = 143 ] || fail "SIGTERM just after open(): exit $rc, not 143"
	set -- "$tmp"/shim.tmp.*
	[ -e "$1" ] && fail "SIGTERM just after open() left $*"
	[ -e "$tmp/shim" ] && fail "SIGTERM just after open() wrote the file"
else
	fail "$shim is not built"
fi

exit $failed
