#!/bin/bash
# LFTs made for other LIDs (another LMC, another SM's assignment) name
# them: the dump's switch headers and its port GUID comments. Checked
# against the topology's LIDs they are an error that says so (exit 2), not
# a report of every pair unreachable.
. "$(dirname "$0")/lib.sh"

hint="tables made for other LIDs; give --lids FILE or --dump-dir"
"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/lmc0" || exit 1
"$croute" route -q -t "$tmp/k.topo" -e updn --lmc 1 -o "$tmp/lmc1" || exit 1

expect 0 "result: +OK" "the dump of the topology's LIDs" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc0"
expect 0 "result: +OK" "an LMC 1 dump with --lmc 1" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc1" --lmc 1
expect 2 "lmc1:[0-9]+: .*$hint" "an LMC 1 dump read with LMC 0" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc1"
expect 2 "lmc0:[0-9]+: .*$hint" "an LMC 0 dump read with LMC 1" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc0" --lmc 1
expect 2 "$hint" "estimate with an LMC 1 dump" \
	"$croute" estimate -t "$tmp/k.topo" --lfts "$tmp/lmc1"

# Tables of the LIDs another LMC gives say which: LMC 1 and 2 dumps read
# without --lmc or with a wrong one.
"$croute" route -q -t "$tmp/k.topo" -e updn --lmc 2 -o "$tmp/lmc2" || exit 1
expect 2 "lmc1:[0-9]+: .*$hint; looks like LMC 1: give --lmc 1" \
	"an LMC 1 dump without --lmc names LMC 1" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc1"
expect 2 "lmc2:[0-9]+: .*$hint; looks like LMC 2: give --lmc 2" \
	"an LMC 2 dump without --lmc names LMC 2" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc2"
expect 2 "lmc2:[0-9]+: .*$hint; looks like LMC 2: give --lmc 2" \
	"an LMC 2 dump with --lmc 1 names LMC 2" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc2" --lmc 1
expect 2 "lmc0:[0-9]+: .*$hint; looks like LMC 0: give --lmc 0" \
	"an LMC 0 dump with --lmc 2 names LMC 0" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc0" --lmc 2
expect 0 "result: +OK" "an LMC 2 dump with --lmc 2" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lmc2" --lmc 2

# A switch's header with another LID.
awk 'NR > 1 && /^Unicast lids/ && !done {
	sub(/switch Lid [0-9]+ /, "switch Lid 58 "); done = 1 } { print }' \
	"$tmp/lmc0" >"$tmp/hdr"
line=$(grep -n "switch Lid 58 " "$tmp/hdr" | cut -d: -f1)
expect 2 "hdr:$line: .*LID 58 here.*$hint" "a header with another LID" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/hdr"

# One LID whose comment names another port (two CAs' LIDs swapped).
first=$(grep -m 1 -n "Channel Adapter portguid" "$tmp/lmc0" | cut -d: -f1)
sed "${first}s/portguid 0x\([0-9a-f]*\)[0-9a-f]:/portguid 0x\19:/" \
	"$tmp/lmc0" >"$tmp/guid"
cmp -s "$tmp/guid" "$tmp/lmc0" && fail "the port GUID edit changed nothing"
expect 2 "guid:$first: .*$hint\$" "an entry naming another port" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/guid"

# ibroute's format names them the same way.
sed -e 's/^\(Unicast lids \[\)0-\([0-9]*\)\]/\10x0-0x\2]/' \
	-e 's/^\(0x[0-9a-f]* [0-9]*\) # \(.*\)$/\1 : (\2)/' \
	"$tmp/lmc1" >"$tmp/ibroute"
expect 2 "ibroute:[0-9]+: .*$hint" "ibroute tables of other LIDs" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/ibroute"

# OpenSM's guid2lid keeps the LIDs of ports that lost their cable; no
# table routes them, so they are no destinations (port 2 of h0001 here).
"$croute" gen two-level --leaves 2 --hosts 2 --uplinks 2 --spines 2 |
	sed '0,/^Ca\t1 /s//Ca\t2 /' >"$tmp/2port.topo"
cat >"$tmp/guid2lid" <<'G2L'
0x0002c90200000000 0x0001 0x0001
0x0002c90200000001 0x0002 0x0002
0x0002c90300000001 0x0003 0x0003
0x0002c90200000002 0x0004 0x0004
0x0002c90200000003 0x0005 0x0005
0x0002c90300000003 0x0006 0x0006
0x0002c90300000005 0x0007 0x0007
0x0002c90300000007 0x0008 0x0008
G2L
cp "$tmp/guid2lid" "$tmp/guid2lid-cached"
echo "0x0002c90300000002 0x0009 0x0009" >>"$tmp/guid2lid-cached"
"$croute" route -q -t "$tmp/2port.topo" --lids "$tmp/guid2lid" -e minhop \
	-o "$tmp/2port.dump" || fail "route of the 2-port topology failed"
expect 0 "unreachable: +0" "a cached LID of a port without a cable" \
	"$croute" check -t "$tmp/2port.topo" --lids "$tmp/guid2lid-cached" \
	--lfts "$tmp/2port.dump"

exit $failed
