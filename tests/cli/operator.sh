#!/bin/bash
# Operator files that were silently ignored or mistaken: a node-name map,
# an LFT dump, a topology or a guid2lid given as a GUID file; GUIDs and
# port orders for nodes the fabric lacks; GUID 0; LIDs with a leading 0.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/lfts" || exit 1
# The switches' names by GUID, as a node-name map has them.
sed -n 's/^switchguid=\(0x[0-9a-f]*\).*/\1/p' "$tmp/k.topo" | head -n 4 |
	awk '{ printf "%s \"sw%d\"\n", $1, NR }' >"$tmp/names"
sed 's/ .*//' "$tmp/names" >"$tmp/roots"
printf '0x0002c90200000000 1 1\n0x0002c90200000001 2 2\n' >"$tmp/guid2lid"

# Files of another kind where GUIDs are expected say what they are.
expect 0 "" "the switches' GUIDs as roots" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/roots"
expect 2 "names:1: this is a node-name map.*--node-name-map" \
	"a node-name map as --root-guids" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/names"
expect 2 "lfts:1: this is an LFT dump; give it to --lfts" \
	"an LFT dump as --root-guids" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/lfts"
expect 2 "k.topo:[0-9]+: this is a topology; give it to --topo" \
	"a topology as --cn-guids" \
	"$croute" route -q -t "$tmp/k.topo" -e ftree --cn-guids "$tmp/k.topo"
expect 2 "guid2lid:1: this is a guid2lid file; give it to --lids" \
	"a guid2lid as --root-guids" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/guid2lid"
expect 2 "names:1: this is a node-name map" "a node-name map as --port-order" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --port-order "$tmp/names"
expect 2 "lfts:1: this is an LFT dump" "an LFT dump as --port-order" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --port-order "$tmp/lfts"
# One GUID with a word after it: OpenSM ignores the word; so do we, aloud.
{ head -n 1 "$tmp/names"; sed -n 2p "$tmp/roots"; } >"$tmp/mixed"
expect 0 "warning: .*mixed:1: text after the GUID" "a word after one GUID" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/mixed"

# GUIDs the fabric lacks: each a warning; none at all, an error.
printf '0x0002c90300000001\n0x0000000000abcdef\n' >"$tmp/cn"
expect 0 "warning: .*cn:2: 0x0000000000abcdef is no node or port" \
	"a --cn-guids GUID not in the fabric" \
	"$croute" route -q -t "$tmp/k.topo" -e ftree --cn-guids "$tmp/cn"
printf '0x0000000000abcdef\n0x0000000000abcdee\n' >"$tmp/cn2"
expect 2 "cn2: none of its 2 GUIDs is a node or port of the fabric" \
	"--cn-guids of another fabric" \
	"$croute" route -q -t "$tmp/k.topo" -e ftree --cn-guids "$tmp/cn2"
expect 2 "none of its" "--root-guids of another fabric" \
	"$croute" route -q -t "$tmp/k.topo" -e updn --root-guids "$tmp/cn2"

# Port orders for switches or ports the fabric lacks: warnings.
sw=$(sed -n 1p "$tmp/roots")
printf '%s 2 1\n0x0000000000abcdef 1 2\n%s 9 1\n' "$sw" "$sw" >"$tmp/po"
expect 0 "warning: .*po:2: 0x0000000000abcdef is no switch" \
	"a port order for an unknown switch" \
	"$croute" route -q -t "$tmp/k.topo" -e minhop --port-order "$tmp/po"
grep -E -q "warning: .*po:3: switch 0x[0-9a-f]+ has no port 9" "$tmp/out" ||
	fail "a port order for a port the switch lacks: no warning"

# GUID 0 is no node's GUID.
sed '0,/^switchguid=0x[0-9a-f]*(\([0-9a-f]*\))/s//switchguid=0x0(\1)/' \
	"$tmp/k.topo" >"$tmp/zero.topo"
expect 2 "zero.topo:[0-9]+: .*GUID 0" "a switch with GUID 0" \
	"$croute" route -q -t "$tmp/zero.topo" -e minhop
lst=$top_srcdir/tests/fabrics/two-level/opensm-subnet.lst
sed '1s/NodeGUID:0002c90200000000/NodeGUID:0000000000000000/' "$lst" \
	>"$tmp/zero.lst"
expect 2 "zero.lst:1: .*GUID 0" "opensm-subnet.lst with NodeGUID 0" \
	"$croute" route -q -t "$tmp/zero.lst" -e minhop

# ibnetdiscover prints LIDs in decimal: "lid 0200" is LID 200.
cat >"$tmp/lid0.topo" <<'TOPO'
switchguid=0x2c90200000000(2c90200000000)
Switch	2 "S-0002c90200000000"	# "sw" base port 0 lid 0200 lmc 0
[1]	"H-0002c90300000000"[1](2c90300000001)	# "h1" lid 010 4xQDR
[2]	"H-0002c90300000002"[1](2c90300000003)	# "h2" lid 011 4xQDR

caguid=0x2c90300000000
Ca	1 "H-0002c90300000000"	# "h1"
[1](2c90300000001)	"S-0002c90200000000"[1]	# lid 010 lmc 0 "sw" lid 0200 4xQDR

caguid=0x2c90300000002
Ca	1 "H-0002c90300000002"	# "h2"
[1](2c90300000003)	"S-0002c90200000000"[2]	# lid 011 lmc 0 "sw" lid 0200 4xQDR
TOPO
expect 0 "" "a topology with LIDs 0200, 010, 011" \
	"$croute" route -q -t "$tmp/lid0.topo" -e minhop -o "$tmp/lid0.lfts"
grep -q "switch Lid 200 " "$tmp/lid0.lfts" ||
	fail "lid 0200 is not LID 200: $(head -n 1 "$tmp/lid0.lfts")"
grep -q "^0x000a 001 " "$tmp/lid0.lfts" || fail "lid 010 is not LID 10"

exit $failed
