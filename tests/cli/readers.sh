#!/bin/bash
# The readers' limits and formats: a gzip-compressed topology on standard
# input reads as the file does; a line over the length limit (a binary
# file, a runaway line) is an error naming the file and line, not memory
# for the whole line; text that is not UTF-8 gives valid JSON.
. "$(dirname "$0")/lib.sh"
command -v gzip >/dev/null || { echo "SKIP: no gzip"; exit 77; }

"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/lfts" || exit 1

gzip -c "$tmp/k.topo" | "$croute" route -q -t - -e updn -o "$tmp/gz.lfts" ||
	fail "a gzip topology on stdin"
cmp -s "$tmp/gz.lfts" "$tmp/lfts" || fail "stdin gzip routes differently"
lst=$top_srcdir/tests/fabrics/two-level/opensm-subnet.lst
"$croute" route -q -t "$lst" -e minhop -o "$tmp/lst.lfts" || exit 1
gzip -c "$lst" | "$croute" route -q -t - -e minhop -o "$tmp/lstgz.lfts" ||
	fail "a gzip opensm-subnet.lst on stdin"
cmp -s "$tmp/lstgz.lfts" "$tmp/lst.lfts" ||
	fail "stdin gzip opensm-subnet.lst routes differently"

# A 2 MB line in the middle of each kind of input.
long() {
	head -n 3 "$1"
	head -c 2000000 /dev/zero | tr '\0' a
	echo
	tail -n +4 "$1"
}
long "$tmp/k.topo" >"$tmp/long.topo"
expect_exit 2 route -q -t "$tmp/long.topo" -e updn
grep -q "long.topo:4: a line longer than" "$tmp/err" ||
	fail "topology: no message naming line 4: $(cat "$tmp/err")"
long "$tmp/lfts" >"$tmp/long.lfts"
expect_exit 2 check -q -t "$tmp/k.topo" --lfts "$tmp/long.lfts"
grep -q "long.lfts:4: a line longer than" "$tmp/err" ||
	fail "LFTs: no message naming line 4: $(cat "$tmp/err")"
sed -n 's/^switchguid=\(0x[0-9a-f]*\).*/\1/p' "$tmp/k.topo" >"$tmp/roots"
long "$tmp/roots" >"$tmp/long.roots"
expect_exit 2 route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/long.roots"
grep -q "long.roots:4: a line longer than" "$tmp/err" ||
	fail "root GUIDs: no message naming line 4: $(cat "$tmp/err")"

# Node descriptions that are not UTF-8, or hold control characters, still
# give valid JSON (strict UTF-8 and JSON).
if command -v python3 >/dev/null; then
	sed 's/"h0001 HCA-1"/"h0001 \xff\xfe caf\xc3\xa9 \x1b[31m \xc0\xaf"/' \
		"$tmp/k.topo" >"$tmp/u8.topo"
	grep -q "caf" "$tmp/u8.topo" || fail "no description edited"
	for cmd in estimate check; do
		"$croute" $cmd -q --json -t "$tmp/u8.topo" -e updn >"$tmp/out" \
			2>"$tmp/err"
		grep -q "h0001" "$tmp/out" || continue
		python3 -c 'import json, sys
json.loads(sys.stdin.buffer.read().decode("utf-8"))' <"$tmp/out" ||
			fail "$cmd --json: invalid JSON from a non-UTF-8 description"
	done
	"$croute" estimate -q --json -t "$tmp/u8.topo" -e updn >"$tmp/out"
	grep -q 'h0001 \\u00ff\\u00fe café \\u001b\[31m \\u00c0\\u00af' \
		"$tmp/out" || fail "the description is not escaped as expected"
fi

# ... and in every other output: text reports, logs, HTML, LFT dumps and
# topologies hold no control character and no byte that is not UTF-8.
# People see \xNN; files other tools read get spaces, as OpenSM and
# infiniband-diags clean descriptions.
if command -v python3 >/dev/null; then
	"$croute" gen two-level --leaves 2 --hosts 2 --uplinks 2 --spines 2 |
		python3 -c 'import sys
s = sys.stdin.buffer.read()
s = s.replace(b"leaf-0", b"leaf\x1b[31m-0\xff")
s = s.replace(b"h0001 HCA-1", b"h\x07\xfe\xc2\x9b 1\x7f")
sys.stdout.buffer.write(s)' >"$tmp/esc.topo"
	e=$tmp/esc
	"$croute" route -t "$tmp/esc.topo" -e minhop -o "$e.dump" 2>"$e.r.err" ||
		fail "route of a topology with raw bytes failed"
	"$croute" estimate -t "$tmp/esc.topo" --lfts "$e.dump" --html "$e.html" \
		>"$e.est" 2>"$e.est.err" || fail "estimate failed"
	"$croute" convert -t "$tmp/esc.topo" -o "$e.conv" 2>"$e.conv.err" ||
		fail "convert failed"
	# cut inside leaf-0's table
	sed '/of switch .*leaf /{n;q}' "$e.dump" >"$e.cut"
	"$croute" check -t "$tmp/esc.topo" --lfts "$e.cut" >"$e.chk" \
		2>"$e.chk.err"
	grep -q "inside the table of switch 'leaf\\\\x1b\[31m-0\\\\xff'" \
		"$e.chk.err" || fail "the log does not escape: $(cat "$e.chk.err")"
	grep -q "'h\\\\x07\\\\xfe\\\\xc2\\\\x9b 1\\\\x7f' (port GUID 0x" "$e.est" ||
		fail "the text report does not escape the host's description"
	grep -q "'leaf \[31m-0 '" "$e.dump" ||
		fail "the LFT dump does not clean the description"
	grep -q '"leaf \[31m-0 "' "$e.conv" ||
		fail "the topology does not clean the description"
	for f in "$e.dump" "$e.r.err" "$e.html" "$e.est" "$e.est.err" \
		"$e.conv" "$e.conv.err" "$e.chk" "$e.chk.err"; do
		python3 -c 'import re, sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8")
sys.exit(1 if re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", t) else 0)' "$f" ||
			fail "$(basename "$f"): raw control or non-UTF-8 bytes"
	done
fi

exit $failed
