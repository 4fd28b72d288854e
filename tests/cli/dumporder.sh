#!/bin/sh
# croute route writes the switches in the order OpenSM writes
# opensm-lfts.dump: the order of its switch table, keyed by the node GUID
# in network byte order compared as a host integer. On a little-endian
# host that is the order of the byte-reversed GUIDs, here worked out by
# hand on GUIDs whose plain order differs.
. "$(dirname "$0")/lib.sh"

"$croute" gen two-level --leaves 2 --hosts 2 --uplinks 2 --spines 2 \
	-o "$tmp/plain.topo" || fail "gen"
# spine-0 spine-1 leaf-0 leaf-1, in the forms ibnetdiscover writes them
sed -e 's/2c90200000000/8f10400a10203/g' -e 's/2c90200000001/2c90300ff0101/g' \
	-e 's/2c90200000002/8f10400a102ff/g' -e 's/2c90200000003/2c90300000103/g' \
	"$tmp/plain.topo" >"$tmp/real.topo"
expect_exit 0 route --topo "$tmp/real.topo" -o "$tmp/lfts.dump"
sed -n "s/^Unicast lids .* guid \(0x[0-9a-f]*\) ('\(.*\)'):$/\2 \1/p" \
	"$tmp/lfts.dump" >"$tmp/order"
if [ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ]; then
	# last byte first: 01 01, 03 01, 03 02, ff
	want="spine-1 0x0002c90300ff0101
leaf-1 0x0002c90300000103
spine-0 0x0008f10400a10203
leaf-0 0x0008f10400a102ff"
else
	want="leaf-1 0x0002c90300000103
spine-1 0x0002c90300ff0101
spine-0 0x0008f10400a10203
leaf-0 0x0008f10400a102ff"
fi
[ "$(cat "$tmp/order")" = "$want" ] ||
	fail "switch order: $(cat "$tmp/order"), not: $want"

# The order does not change the tables: read back, they check the same.
expect_exit 0 check --topo "$tmp/real.topo" --lfts "$tmp/lfts.dump"
exit $failed
