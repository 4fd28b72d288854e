#!/bin/sh
# cr-dfp through the command: on a generated dragonfly+, intact and less
# three global cables, the routing is complete, free of credit loops on
# its path SLs (croute check --sl --sl2vl, the files route writes for
# ibdmchk) and uses two SLs, SL i on VL i; shortest paths between hosts
# on the intact fabric; on a fabric that is no dragonfly+ (a torus) it
# says it falls back to up*-down* and still checks clean; cr-auto with
# --qos qualifies it.

. "$(dirname "$0")/lib.sh"

"$croute" gen dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts 2 \
	--global 2 -o "$tmp/d.topo" || fail "croute gen dragonfly-plus"
# The first global cable of each of the first three groups' spines.
awk -v count=3 -f "$top_srcdir/bench/modern/drop-global.awk" \
	"$tmp/d.topo" "$tmp/d.topo" >"$tmp/cut.topo"
[ "$(grep -c '^\[' "$tmp/cut.topo")" -eq \
	"$(($(grep -c '^\[' "$tmp/d.topo") - 6))" ] ||
	fail "drop-global.awk did not remove 3 cables"

for t in d cut; do
	route_ranked dfp "cr-dfp: 72 switches in 9 groups routed on 2 VL" $t
	sls=$(path_sls $t)
	[ "$sls" = "0 1 " ] || fail "dfp's $t path SLs are '$sls', not 0 1"
done
# Minimal between hosts: every non-minimal pair starts or ends at a spine.
"$croute" check -t "$tmp/d.topo" --lfts "$tmp/d.lfts" --sl "$tmp/d.sl" \
	--sl2vl "$tmp/d.sl2vl" --max-report 100000 >"$tmp/out" 2>&1
grep '^non-minimal:' "$tmp/out" | grep -v "spine-[0-9]*' (" >"$tmp/nm"
[ -s "$tmp/nm" ] && fail "dfp: non-minimal paths between hosts: \
$(head -n 2 "$tmp/nm")"

# Not a dragonfly+: up*-down* on one VL, said so, and still clean.
"$croute" gen torus 3 3 --hosts 1 -o "$tmp/t.topo" || fail "gen torus"
expect 0 "cr-dfp: .*up\*/down\* on one VL instead" "dfp falls back" \
	"$croute" route -t "$tmp/t.topo" -e dfp -o "$tmp/t.lfts" \
	--lash-sl "$tmp/t.sl" --lash-sl2vl "$tmp/t.sl2vl"
expect 0 "result: +OK" "the fall-back checks clean" "$croute" check \
	-t "$tmp/t.topo" --lfts "$tmp/t.lfts" --sl "$tmp/t.sl" \
	--sl2vl "$tmp/t.sl2vl"

# cr-auto tries it with QoS.
expect 0 "cr-auto: +[0-9]+ +[0-9]+ +dfp .*(qualifies|WINNER)" \
	"cr-auto qualifies dfp" "$croute" route -v -t "$tmp/d.topo" -e auto \
	--qos -o "$tmp/a.lfts"
exit $failed
