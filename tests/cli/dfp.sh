#!/bin/sh
# cr-dfp through the command: on a generated dragonfly+, intact, less
# three global cables, and less switch cables of any kind drawn at random
# (three sets of three that cut a cable of a group's first leaf, its turn
# leaf when intact, and two of six), the routing is complete, free of
# credit loops on its path SLs (croute check --sl --sl2vl, the files route writes for
# ibdmchk) and uses two SLs, SL i on VL i; shortest paths between hosts
# on the intact fabric; a fabric that is no dragonfly+ (a torus, trees)
# it refuses with exit status 2, saying why; cr-auto with --qos
# qualifies it.

. "$(dirname "$0")/lib.sh"

"$croute" gen dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts 2 \
	--global 2 -o "$tmp/d.topo" || fail "croute gen dragonfly-plus"
# The first global cable of each of the first three groups' spines.
awk -v count=3 -f "$top_srcdir/bench/modern/drop-global.awk" \
	"$tmp/d.topo" "$tmp/d.topo" >"$tmp/cut.topo"
[ "$(grep -c '^\[' "$tmp/cut.topo")" -eq \
	"$(($(grep -c '^\[' "$tmp/d.topo") - 6))" ] ||
	fail "drop-global.awk did not remove 3 cables"

# Random cuts that take a cable of the first leaf of a group (g4 and g7,
# g5, g1 and g8) and sets of six; the switches stay connected.
for c in 3:9 3:16 3:21 6:1 6:2; do
	python3 "$top_srcdir/bench/modern/cut-random.py" --count ${c%:*} \
		--seed ${c#*:} "$tmp/d.topo" >"$tmp/r${c%:*}-${c#*:}.topo" \
		2>"$tmp/cuts${c%:*}-${c#*:}" ||
		fail "cut-random.py $c: $(cat "$tmp/cuts${c%:*}-${c#*:}")"
done
grep -q "g4-leaf-0" "$tmp/cuts3-9" ||
	fail "the cables cut with seed 9 spare the first leaves: $(cat \
"$tmp/cuts3-9")"

for t in d cut r3-9 r3-16 r3-21 r6-1 r6-2; do
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

# Not a dragonfly+ (a torus: leaves cabled to leaves; trees: one group,
# or groups without leaves): refused, saying why, exit 2, no tables.
"$croute" gen torus 3 3 --hosts 1 -o "$tmp/t.topo" || fail "gen torus"
"$croute" gen two-level --leaves 4 --hosts 2 --uplinks 2 --spines 2 \
	-o "$tmp/t2.topo" || fail "gen two-level"
"$croute" gen fat-tree 4 -o "$tmp/t3.topo" || fail "gen fat-tree"
for t in "t:leaf 'sw[^']*' .* is cabled to leaf" \
	"t2:.*leaf-spine cables make 1 group" "t3:.*group of switch .* has no leaf"; do
	rm -f "$tmp/${t%%:*}.lfts"
	expect 2 "cr-dfp: not a dragonfly\+: ${t#*:}" "dfp refuses ${t%%:*}" \
		"$croute" route -t "$tmp/${t%%:*}.topo" -e dfp \
		-o "$tmp/${t%%:*}.lfts"
	[ -e "$tmp/${t%%:*}.lfts" ] && fail "dfp wrote tables for ${t%%:*}"
done

# cr-auto tries it with QoS.
expect 0 "cr-auto: +[0-9]+ +[0-9]+ +dfp .*(qualifies|WINNER)" \
	"cr-auto qualifies dfp" "$croute" route -v -t "$tmp/d.topo" -e auto \
	--qos -o "$tmp/a.lfts"
exit $failed
