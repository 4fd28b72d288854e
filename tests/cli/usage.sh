#!/bin/bash
# The command's contract with scripts: --help of every command exits 0 and
# prints its usage; usage errors exit 2 with a message; `croute check`
# exits 1 when it finds problems and 0 when it finds none.
. "$(dirname "$0")/lib.sh"

for cmd in gen route check estimate compare hosts export bound; do
	expect 0 "" "$cmd --help" "$croute" "$cmd" --help
	grep -q '^Usage: croute '"$cmd" "$tmp/out" ||
		{ echo "FAIL: $cmd --help prints no usage"; failed=1; }
	expect 0 "" "help $cmd" "$croute" help "$cmd"
	expect 2 "" "$cmd --no-such-option" "$croute" "$cmd" --no-such-option
done
expect 0 "" "--help" "$croute" --help
expect 0 "" "--version" "$croute" --version
expect 2 "" "no command" "$croute"
expect 2 "" "unknown command" "$croute" no-such-command
expect 2 "" "route without --topo" "$croute" route
expect 2 "" "route with an operand" "$croute" route -t /dev/null extra
expect 2 "" "unknown engine" "$croute" route -t /dev/null -e nosuch

"$croute" gen torus 5 5 -o "$tmp/torus" || failed=1
"$croute" gen ktree 2 3 -o "$tmp/tree" || failed=1
expect 2 "" "check with neither --lfts nor --engine" "$croute" check \
	-t "$tmp/tree"
# min-hop has credit loops on a torus; up/down has none.
expect 1 "" "check finds credit loops" "$croute" check -t "$tmp/torus" -e minhop
grep -q '^credit loop' "$tmp/out" ||
	{ echo "FAIL: check names no credit loop"; failed=1; }
# Each credit loop is printed as its whole cycle of cables: every cable
# starts at the switch the previous one ends at, the last closes the cycle,
# and each end names the switch's GUID and port.
awk '
/^credit loop: VL [0-9]+, a cycle of [0-9]+ cables:$/ {
	close_cycle(); n = $7 + 0; seen = 0; first = ""; prev = ""; next }
/^  cable / {
	if (!match($0, /\(node GUID 0x[0-9a-f]+ LID [0-9]+\) port [0-9]+ -> /)) bad = 1
	split($0, half, " -> ")
	from = half[1]; sub(/^  cable /, "", from); sub(/ port [0-9]+$/, "", from)
	to = half[2]; sub(/ port [0-9]+$/, "", to)
	if (prev != "" && from != prev) bad = 1
	if (first == "") first = from
	prev = to; seen++; cycles++; next }
function close_cycle() {
	if (n && (seen != n || prev != first)) bad = 1
	n = 0 }
END { close_cycle(); exit bad || !cycles }' "$tmp/out" ||
	{ echo "FAIL: credit loops are not printed as cycles of cables"
	  grep -A5 '^credit loop' "$tmp/out" | head; failed=1; }
expect 0 "" "check of a clean routing" "$croute" check -t "$tmp/torus" -e updn
expect 0 "" "route to a file" "$croute" route -t "$tmp/tree" -e ftree \
	-o "$tmp/lfts"
expect 0 "" "check of a dumped routing" "$croute" check -t "$tmp/tree" \
	--lfts "$tmp/lfts"

for opt in --skip-credit-loops --no-credit-loops; do
	expect 0 "" "check $opt" "$croute" check -t "$tmp/torus" -e minhop $opt
	grep -q '^credit loops: *not checked' "$tmp/out" ||
		{ echo "FAIL: check $opt still searched"; failed=1; }
done

# ibsim's own format: CAs with a second, uncabled port, which OpenSM never
# gives a LID: the routing checks clean.
cat >"$tmp/net" <<'NET'
Switch 8 "Switch1"
[1] "Hca1"[1]
[2] "Hca2"[2]
[3] "Switch2"[3]

Switch 8 "Switch2"
[1] "Hca3"[1]
[3] "Switch1"[3]

Hca 2 "Hca1"
[1] "Switch1"[1]

Hca 2 "Hca2"
[2] "Switch1"[2]

Hca 2 "Hca3"
[1] "Switch2"[1]
NET
for e in minhop updn lash; do
	expect 0 "" "check -e $e of an ibsim net with half-cabled CAs" \
		"$croute" check -t "$tmp/net" -e $e
done
expect 2 "" "--sm-port of no port" "$croute" route -t "$tmp/net" \
	--sm-port 0x123

[ $failed = 0 ] && echo "PASS: usage and exit status"
exit $failed
