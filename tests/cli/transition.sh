#!/bin/bash
# croute check --transition: its verdict on changes an operator meets
# (OpenSM's up/down after a cable is pulled, other roots, another engine)
# agrees with an independent oracle (tests/cli/transcheck.py), its reason
# names the LID of a loop the oracle finds, SL changes are refused, and
# bad input exits 2 naming the file.
. "$(dirname "$0")/lib.sh"

oracle() {
	python3 "$top_srcdir/tests/cli/transcheck.py" "$@" >"$tmp/oracle" ||
		fail "the oracle failed on $*"
}

# verdict TOPO OLD NEW: croute's exit status agrees with the oracle's
# finding, and so does the count of LFT entries changed.
verdict() {
	topo=$1
	old=$2
	new=$3
	oracle "$topo" "$old" "$new"
	"$croute" check -t "$topo" --transition "$old" "$new" >"$tmp/out" \
		2>"$tmp/err"
	rc=$?
	want=0
	grep -q '^loops [0-9]' "$tmp/oracle" && want=1
	grep -q '^credit yes' "$tmp/oracle" && want=1
	[ "$rc" = "$want" ] || {
		sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -n 8
		fail "$old -> $new: exit $rc, the oracle says $want"
	}
	n=$(awk '/^changed/ { print $2 }' "$tmp/oracle")
	grep -Eq "^LFT entries changed: +$n\$" "$tmp/out" ||
		fail "$old -> $new: not $n LFT entries changed"
	# A forwarding loop is reported toward a LID the oracle finds.
	lid=$(sed -n 's/^forwarding loop toward LID \([0-9]*\) .*/\1/p' \
		"$tmp/out")
	if [ -n "$lid" ]; then
		grep -Eq "^loops( [0-9]+)* $lid( |\$)" "$tmp/oracle" ||
			fail "$old -> $new: LID $lid has no loop by the oracle"
	fi
	return "$rc"
}

"$croute" gen ktree 4 3 -o "$tmp/tree.topo" || fail "gen"
for e in updn ftree; do
	"$croute" route -q -t "$tmp/tree.topo" -e "$e" -o "$tmp/$e.lfts" ||
		fail "route $e"
done
"$croute" route -q -t "$tmp/tree.topo" -e updn --port-shifting \
	-o "$tmp/shift.lfts" || fail "route updn --port-shifting"
# Another root: a middle switch, up/down again.
echo 0x0002c90200000010 >"$tmp/root"
"$croute" route -q -t "$tmp/tree.topo" -e updn --root-guids "$tmp/root" \
	-o "$tmp/root.lfts" || fail "route updn --root-guids"
for t in updn shift root ftree; do
	expect 0 "result: +OK" "$t alone is clean" "$croute" check \
		-t "$tmp/tree.topo" --lfts "$tmp/$t.lfts"
done

verdict "$tmp/tree.topo" "$tmp/updn.lfts" "$tmp/shift.lfts" ||
	fail "port shifting on up/down is unsafe"
verdict "$tmp/tree.topo" "$tmp/updn.lfts" "$tmp/ftree.lfts"
# Clean tables, an unsafe change: the mixes of two root choices loop.
verdict "$tmp/tree.topo" "$tmp/updn.lfts" "$tmp/root.lfts" &&
	fail "a change of up/down roots passes"
grep -q '^result: *UNSAFE (forwarding loop)' "$tmp/out" ||
	fail "the change of roots is not refused for a forwarding loop"
grep -Eq "^  '[^']*' \((node GUID )?0x[0-9a-f]+ LID [0-9]+\) port [0-9]+ \((old|new)" \
	"$tmp/out" || fail "the loop's switches, GUIDs, ports are not named"

# A cable pulled: OpenSM's up/down before and after, on the fabric after.
grep -Pv '^\[1\]\t"S-0002c90200000010"\[5\]|^\[5\]\t"S-0002c90200000000"\[1\]' \
	"$tmp/tree.topo" >"$tmp/cut.topo"
[ "$(wc -l <"$tmp/cut.topo")" = $(($(wc -l <"$tmp/tree.topo") - 2)) ] ||
	fail "the cable was not cut"
"$croute" route -q -t "$tmp/cut.topo" -e updn -o "$tmp/cut.lfts" ||
	fail "route the cut fabric"
verdict "$tmp/cut.topo" "$tmp/updn.lfts" "$tmp/cut.lfts"
verdict "$tmp/cut.topo" "$tmp/cut.lfts" "$tmp/updn.lfts"

# Parts of the LIDs checked on threads of their own: the same report on
# 1, 2 and 4 threads, and the oracle's verdict. New tables with a loop
# toward the highest LID only (the last part's): reported there.
"$croute" gen ktree 4 4 -o "$tmp/t44.topo" || fail "gen ktree 4 4"
for e in updn ftree minhop; do
	"$croute" route -q -t "$tmp/t44.topo" -e "$e" -o "$tmp/t44$e.lfts" ||
		fail "route $e"
done
python3 - "$tmp/t44.topo" "$tmp/t44updn.lfts" "$tmp/t44loop.lfts" <<'PY' ||
import re, sys
from collections import defaultdict
cables, sw = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"', line)
    if m:
        sw = int(m.group(1), 16)
        continue
    m = re.match(r'^\[(\d+)\]\s+"S-([0-9a-f]+)"\[(\d+)\]', line)
    if m and sw is not None:
        cables[(sw, int(m.group(1)))] = (int(m.group(2), 16), int(m.group(3)))
lines = open(sys.argv[2]).read().split('\n')
top, at = 0, defaultdict(dict)
cur = None
for i, line in enumerate(lines):
    m = re.match(r'^Unicast lids .* guid (0x[0-9a-f]+)', line)
    if m:
        cur = int(m.group(1), 16)
    m = re.match(r'^(0x[0-9a-f]+) (\d+)', line)
    if m and cur is not None:
        lid = int(m.group(1), 16)
        top = max(top, lid)
        at[lid][cur] = (i, int(m.group(2)))
for a, (i, p) in sorted(at[top].items()):
    if (a, p) in cables:
        b, q = cables[(a, p)]
        j, _ = at[top][b]
        lines[j] = re.sub(r'^(0x[0-9a-f]+) \d+', r'\g<1> %03d' % q, lines[j])
        break
open(sys.argv[3], 'w').write('\n'.join(lines))
PY
	fail "no loop made"
top=$(awk '/^0x/ { l = $1 } END { print l }' "$tmp/t44updn.lfts")
top=$((top))
for nt in ftree minhop loop; do
	verdict "$tmp/t44.topo" "$tmp/t44updn.lfts" "$tmp/t44$nt.lfts"
	cp "$tmp/out" "$tmp/th1"
	for th in 1 2 4; do
		"$croute" check --threads "$th" -t "$tmp/t44.topo" --transition \
			"$tmp/t44updn.lfts" "$tmp/t44$nt.lfts" >"$tmp/th"
		cmp -s "$tmp/th1" "$tmp/th" ||
			fail "updn -> $nt: another report on $th threads"
	done
done
grep -q "^forwarding loop toward LID $top " "$tmp/out" ||
	fail "the loop toward the highest LID, $top, is not the one reported"

# JSON: the same verdict.
"$croute" check -t "$tmp/tree.topo" --transition "$tmp/updn.lfts" \
	"$tmp/root.lfts" --json >"$tmp/json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "UNSAFE" and d["fault"] == "forwarding loop", d
assert d["problems"] and d["lid"] > 0, d
' "$tmp/json" || fail "--json does not report the forwarding loop"

# Path SLs (cr-lash on a mesh): the same SLs are safe, one moved is not.
"$croute" gen mesh 3 3 -o "$tmp/mesh.topo" || fail "gen mesh"
"$croute" route -q -t "$tmp/mesh.topo" -e lash -o "$tmp/lash.lfts" \
	--lash-sl "$tmp/sl" --lash-sl2vl "$tmp/sl2vl" || fail "route lash"
expect 0 "result: +SAFE" "the same layered tables" "$croute" check \
	-t "$tmp/mesh.topo" --transition "$tmp/lash.lfts" "$tmp/lash.lfts" \
	--sl "$tmp/sl" "$tmp/sl" --sl2vl "$tmp/sl2vl" "$tmp/sl2vl"
# The pairs of switch sw-0-0 and its host h0001 toward the file's last
# LID move to SL 15 (the reader wants a switch and its CAs to agree).
sw=0x0002c90200000000
ca=0x0002c90300000000
lid=$(awk '$1 ~ /^0x/ { l = $2 } END { print l }' "$tmp/sl")
awk -v sw=$sw -v ca=$ca -v l="$lid" \
	'($1 == sw || $1 == ca) && $2 == l { $3 = 15 } { print }' "$tmp/sl" \
	>"$tmp/sl.new"
expect 1 "^SL changes: from 'sw-0-0' \\(node GUID $sw LID [0-9]+\\) to LID $lid " \
	"a pair's SL moved" "$croute" check -t "$tmp/mesh.topo" \
	--transition "$tmp/lash.lfts" "$tmp/lash.lfts" \
	--sl "$tmp/sl" "$tmp/sl.new" --sl2vl "$tmp/sl2vl" "$tmp/sl2vl"

# Each option's second file follows its first, whatever the options'
# order.
expect 1 "^SL changes: from 'sw-0-0' " "options in another order" \
	"$croute" check --sl "$tmp/sl" "$tmp/sl.new" -t "$tmp/mesh.topo" \
	--sl2vl "$tmp/sl2vl" "$tmp/sl2vl" --transition "$tmp/lash.lfts" \
	"$tmp/lash.lfts"
expect 0 "result: +SAFE" "options in another order, the same SLs" \
	"$croute" check --sl "$tmp/sl.new" "$tmp/sl.new" -t "$tmp/mesh.topo" \
	--sl2vl "$tmp/sl2vl" "$tmp/sl2vl" --transition "$tmp/lash.lfts" \
	"$tmp/lash.lfts"

# Bad input: exit 2, the file named.
t="$tmp/tree.topo"
expect 2 "two files" "NEW missing" "$croute" check -t "$t" \
	--transition "$tmp/updn.lfts"
expect 2 "two files" "one SL file" "$croute" check -t "$t" \
	--transition "$tmp/updn.lfts" "$tmp/updn.lfts" --sl "$tmp/sl"
expect 2 "nosuch" "NEW absent" "$croute" check -t "$t" \
	--transition "$tmp/updn.lfts" "$tmp/nosuch"
expect 2 "exclude|files" "with --engine" "$croute" check -t "$t" \
	-e updn --transition "$tmp/updn.lfts" "$tmp/updn.lfts"
expect 2 "needs --topo" "without --topo" "$croute" check \
	--transition "$tmp/updn.lfts" "$tmp/updn.lfts"
sed '3s/.*/0x0003 banana/' "$tmp/updn.lfts" >"$tmp/bad.lfts"
expect 2 "bad.lfts.*(line )?3" "a malformed line" "$croute" check -t "$t" \
	--transition "$tmp/updn.lfts" "$tmp/bad.lfts"
exit "$failed"
