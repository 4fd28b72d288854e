#!/bin/bash
# Warnings are a level of their own: "warning:" on stderr, still there
# with -q, and in a "warnings" array with --json.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/lfts" || exit 1
# The second switch's table left out: a warning, and its routes missing.
awk '/^Unicast/ { n++ } n != 2 { print }' "$tmp/lfts" >"$tmp/mid"
warn="croute: warning: .*mid: 1 of 12 switches have no table"

for q in "" -q; do
	"$croute" check $q -t "$tmp/k.topo" --lfts "$tmp/mid" \
		>"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] || fail "check $q of a dump without a table: not exit 1"
	grep -E -q "$warn" "$tmp/err" || {
		cat "$tmp/err"
		fail "check $q: no warning on stderr"
	}
done
"$croute" check -q -t "$tmp/k.topo" --lfts "$tmp/lfts" >"$tmp/out" \
	2>"$tmp/err" || fail "check -q of the whole dump"
[ -s "$tmp/err" ] && fail "check -q of the whole dump: stderr not empty"

json_warn='"warnings": \["[^"]*mid: 1 of 12 switches have no table'
for cmd in check estimate; do
	"$croute" $cmd -q --json -t "$tmp/k.topo" --lfts "$tmp/mid" \
		>"$tmp/out" 2>"$tmp/err"
	grep -E -q "$json_warn" "$tmp/out" || {
		head -c 300 "$tmp/out"
		fail "$cmd --json: no warnings array with the warning"
	}
	"$croute" $cmd -q --json -t "$tmp/k.topo" --lfts "$tmp/lfts" \
		>"$tmp/out" 2>"$tmp/err"
	grep -q '"warnings": \[\]' "$tmp/out" ||
		fail "$cmd --json of the whole dump: no empty warnings array"
done
"$croute" compare -q --json -t "$tmp/k.topo" --engines updn \
	>"$tmp/out" 2>"$tmp/err" || fail "compare --json"
grep -q '"warnings": \[\]}$' "$tmp/out" ||
	fail "compare --json: no warnings array at its end"

exit $failed
