#!/bin/bash
# Files cut short or edited: an LFT dump cut at a table's end, a deleted
# or moved LID line, a changed count, a path SL file with only its
# header. Each is an error naming the file and line (exit 2), not a
# routing with holes.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
for e in updn ftree; do
	"$croute" route -q -t "$tmp/k.topo" -e $e -o "$tmp/$e" || exit 1
	expect 0 "result: +OK" "$e: the whole dump" \
		"$croute" check -t "$tmp/k.topo" --lfts "$tmp/$e"

	# Cut after the sixth of its twelve tables.
	awk '{ print } / lids dumped$/ && ++n == 6 { exit }' "$tmp/$e" \
		>"$tmp/cut"
	expect 2 "cut:[0-9]+: .*without the table of switch.*cut short" \
		"$e: a dump cut at a table's end" \
		"$croute" check -t "$tmp/k.topo" --lfts "$tmp/cut"

	# One CA's LID line deleted: in the first table (a spine's), and in
	# the last one (a leaf's), its last CA's, one of the leaf's own.
	for t in 1 12; do
		line=$(awk -v t=$t '/^Unicast/ { n++ }
			n == t && /Channel Adapter/ { l = NR; if (t == 1) exit }
			END { print l }' "$tmp/$e")
		sed "${line}d" "$tmp/$e" >"$tmp/del"
		expect 2 "del:[0-9]+: .*has no entry for LID.*line deleted" \
			"$e: LID line $line deleted" \
			"$croute" check -t "$tmp/k.topo" --lfts "$tmp/del"
	done
done

# Two lines swapped, and a changed count.
awk 'NR == 3 { held = $0; next } { print } NR == 4 { print held }' \
	"$tmp/updn" >"$tmp/swap"
expect 2 "swap:4: .*out of order" "two LID lines swapped" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/swap"
sed '0,/^20 lids dumped$/s//19 lids dumped/' "$tmp/updn" >"$tmp/count"
line=$(grep -n "^19 lids dumped" "$tmp/count" | cut -d: -f1)
expect 2 "count:$line: .*lids dumped" "a changed count" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/count"

# ibroute counts its lines: one deleted is noticed in any table.
sed -e 's/^\(Unicast lids \[\)0-\([0-9]*\)\]/\10x0-0x\2]/' \
	-e 's/^\(0x[0-9a-f]* [0-9]*\) # \(.*\)$/\1 : (\2)/' "$tmp/updn" |
	awk '/lids dumped/ { print n " valid lids dumped "; n = 0; next }
		/^0x/ { n++ } { print }' >"$tmp/ibroute"
expect 0 "result: +OK" "ibroute tables" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/ibroute"
line=$(grep -n "Switch portguid" "$tmp/ibroute" | sed -n 5p | cut -d: -f1)
sed "${line}d" "$tmp/ibroute" >"$tmp/ibdel"
expect 2 "ibdel:[0-9]+: .*lids dumped\" closes a table of [0-9]+ entries" \
	"ibroute with a line deleted" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/ibdel"

# Path SLs: only the header, or cut short.
"$croute" route -q -t "$tmp/k.topo" -e lash -o "$tmp/lash" \
	--lash-sl "$tmp/sl" --lash-sl2vl "$tmp/sl2vl" || exit 1
expect 0 "result: +OK" "lash with its SLs" "$croute" check \
	-t "$tmp/k.topo" --lfts "$tmp/lash" --sl "$tmp/sl" --sl2vl "$tmp/sl2vl"
head -n 1 "$tmp/sl" >"$tmp/slhead"
expect 2 "slhead:1: .*only a header" "an SL file with only its header" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lash" \
	--sl "$tmp/slhead" --sl2vl "$tmp/sl2vl"
head -n 100 "$tmp/sl" >"$tmp/slcut"
expect 2 "slcut:100: .*no SL for switch.*cut short" "an SL file cut short" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lash" \
	--sl "$tmp/slcut" --sl2vl "$tmp/sl2vl"

exit $failed
