#!/bin/sh
# cr-dfp through the command: on a generated dragonfly+, intact, less
# three global cables, and less switch cables of any kind drawn at random
# (three sets of three that cut a cable of a group's first leaf, its turn
# leaf when intact, and two of six), with torn groups (no leaf reaching
# all the group's spines) and whole switches gone, the routing is
# complete, free of
# credit loops on its path SLs (croute check --sl --sl2vl, the files route writes for
# ibdmchk) and uses two SLs, SL i on VL i; shortest paths between hosts
# on the intact fabric; a fabric that is no dragonfly+ (a torus, trees)
# it refuses with exit status 2, saying why; cr-auto with --qos
# qualifies it. Where pairs of groups share uneven numbers of global
# cables, it balances path loads and stays ahead of cr-lash, and
# cr-auto does not route its dfp+glob candidate again.

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

# Torn groups: every leaf of a group loses a spine, so that no leaf
# reaches them all (one group along the diagonal; two or three groups
# drawn at random, with two cables more of any kind); and whole switches
# gone: a spine and a leaf, with a torn group; a group left with two
# spines, each leaf on one of them (the group splits in two).
python3 "$top_srcdir/bench/modern/cut-named.py" "$tmp/d.topo" \
	g3-leaf-0,g3-spine-0 g3-leaf-1,g3-spine-1 g3-leaf-2,g3-spine-2 \
	g3-leaf-3,g3-spine-3 >"$tmp/diag.topo" 2>"$tmp/cuts" ||
	fail "cut-named.py: $(cat "$tmp/cuts")"
python3 "$top_srcdir/bench/modern/cut-named.py" --drop g2-spine-1 \
	--drop g5-leaf-0 "$tmp/diag.topo" g4-leaf-0,g4-spine-1 \
	g4-leaf-1,g4-spine-1 g4-leaf-2,g4-spine-0 g4-leaf-3,g4-spine-2 \
	>"$tmp/whole.topo" 2>"$tmp/cuts" ||
	fail "cut-named.py: $(cat "$tmp/cuts")"
python3 "$top_srcdir/bench/modern/cut-named.py" --drop g0-spine-0 \
	--drop g0-spine-1 "$tmp/d.topo" g0-leaf-0,g0-spine-2 \
	g0-leaf-1,g0-spine-3 g0-leaf-2,g0-spine-3 g0-leaf-3,g0-spine-2 \
	>"$tmp/split.topo" 2>"$tmp/cuts" ||
	fail "cut-named.py: $(cat "$tmp/cuts")"
for c in 2:3 2:5 3:7 3:11; do
	python3 "$top_srcdir/bench/modern/cut-random.py" --tear ${c%:*} \
		--count 2 --seed ${c#*:} "$tmp/d.topo" \
		>"$tmp/t${c%:*}-${c#*:}.topo" 2>"$tmp/cuts" ||
		fail "cut-random.py --tear $c: $(cat "$tmp/cuts")"
	[ "$(grep -c leaf "$tmp/cuts")" -ge $((4 * ${c%:*})) ] ||
		fail "cut-random.py --tear $c cut too few leaf cables"
done

for t in d cut r3-9 r3-16 r3-21 r6-1 r6-2 diag t2-3 t2-5 t3-7 t3-11; do
	route_ranked dfp "cr-dfp: 72 switches in 9 groups routed on 2 VL" $t
	sls=$(path_sls $t)
	[ "$sls" = "0 1 " ] || fail "dfp's $t path SLs are '$sls', not 0 1"
done
route_ranked dfp "cr-dfp: 70 switches in 9 groups routed on 2 VL" whole
route_ranked dfp "cr-dfp: 70 switches in 10 groups routed on 2 VL" split
for t in whole split; do
	sls=$(path_sls $t)
	[ "$sls" = "0 1 " ] || fail "dfp's $t path SLs are '$sls', not 0 1"
done
# The torn group's own leaves keep their shortest paths to each other.
"$croute" check -t "$tmp/diag.topo" --lfts "$tmp/diag.lfts" \
	--sl "$tmp/diag.sl" --sl2vl "$tmp/diag.sl2vl" --max-report 100000 \
	>"$tmp/out" 2>&1
grep "^non-minimal: from 'g3-leaf-[0-9]*' .* to LID [0-9]* ('g3-leaf" \
	"$tmp/out" >"$tmp/nm"
[ -s "$tmp/nm" ] && fail "dfp: torn group's leaves not minimal: \
$(head -n 2 "$tmp/nm")"
# Minimal between hosts: every non-minimal pair starts or ends at a spine.
"$croute" check -t "$tmp/d.topo" --lfts "$tmp/d.lfts" --sl "$tmp/d.sl" \
	--sl2vl "$tmp/d.sl2vl" --max-report 100000 >"$tmp/out" 2>&1
grep '^non-minimal:' "$tmp/out" | grep -v "spine-[0-9]*' (" >"$tmp/nm"
[ -s "$tmp/nm" ] && fail "dfp: non-minimal paths between hosts: \
$(head -n 2 "$tmp/nm")"

# Uneven global cables: 6 groups of 4 x 4 with 2 global cables a spine
# give a group one cable to three groups and two to two. There cr-dfp
# balances path loads (its tables are --balance global's, intact and
# less three cables of any kind) and its random-order shift and bisect
# are at least 1.02 x cr-lash's; where every pair shares one cable
# (the 9-group fabric above) flow balance stays.
"$croute" gen dragonfly-plus --groups 6 --leaves 4 --spines 4 --hosts 2 \
	--global 2 -o "$tmp/u.topo" || fail "croute gen dragonfly-plus 6"
python3 "$top_srcdir/bench/modern/cut-random.py" --count 3 --seed 1 \
	"$tmp/u.topo" >"$tmp/u3.topo" 2>"$tmp/cuts" ||
	fail "cut-random.py: $(cat "$tmp/cuts")"
# shift_bisect TOPO LFTS: the random-order means of shift and bisect
shift_bisect() {
	"$croute" estimate -t "$1" --lfts "$2" --pattern shift,bisect:10 \
		--phases 16 --orders 6 2>/dev/null |
		awk '/^pattern +own avg/ { on = 1; next }
		     on && /^shift/ { s = $3 } on && /^bisect/ { b = $3 }
		     END { print s + 0, b + 0 }'
}
for t in u u3; do
	route_ranked dfp "cr-dfp: .* balancing path loads" $t
	[ "$(path_sls $t)" = "0 1 " ] || fail "dfp's $t path SLs not 0 1"
	"$croute" route -t "$tmp/$t.topo" -e dfp --balance global \
		-o "$tmp/$t.glob" 2>/dev/null || fail "dfp --balance global $t"
	cmp -s "$tmp/$t.lfts" "$tmp/$t.glob" ||
		fail "dfp's $t tables are not --balance global's"
	"$croute" route -t "$tmp/$t.topo" -e lash -o "$tmp/$t.lash" \
		2>/dev/null || fail "lash routes $t"
	set -- $(shift_bisect "$tmp/$t.topo" "$tmp/$t.lfts") \
		$(shift_bisect "$tmp/$t.topo" "$tmp/$t.lash")
	awk -v d="$1" -v e="$2" -v l="$3" -v m="$4" \
		'BEGIN { exit !(d >= 1.02 * l && e >= 1.02 * m) }' ||
		fail "dfp on $t: shift/bisect $1/$2 below 1.02 x lash's $3/$4"
done
"$croute" route -v -t "$tmp/d.topo" -e dfp -o /dev/null 2>"$tmp/err" ||
	fail "dfp routes d"
grep -q "balancing path loads" "$tmp/err" &&
	fail "dfp balances path loads where every group pair shares a cable"
# There cr-auto's dfp+glob would route dfp's tables again: it takes
# dfp's results instead; where flow balance stays, it routes its own.
for t in u:"the tables of dfp \(not routed again\)" d:"routed in"; do
	expect 0 "cr-auto: +[0-9]+ +[0-9]+ +dfp\+glob .*${t#*:}" \
		"cr-auto's dfp+glob on ${t%%:*}" "$croute" route -v \
		-t "$tmp/${t%%:*}.topo" -e auto --qos --no-auto-optimize \
		--auto-candidates dfp,dfp+glob -o /dev/null
done

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
