#!/bin/sh
# cr-hyperx through the command: on a generated 4 x 4 x 3 HyperX, intact
# it routes on one VL, minimal between hosts, and checks clean; less
# three switch-to-switch cables it uses two SLs (SL i on VL i), stays
# complete and free of credit loops on its path SLs, as it does less six
# cables drawn at random without trunks (croute check --sl
# --sl2vl, the files route writes for ibdmchk); cr-auto with --qos
# qualifies it (the unit test covers the fall-back to up*-down*); a fat
# tree and a dragonfly+ it refuses with exit status 2, saying why.

. "$(dirname "$0")/lib.sh"

"$croute" gen hyperx 4 4 3 --hosts 2 --trunk 2 -o "$tmp/h.topo" ||
	fail "croute gen hyperx"
# Both port lines of each cable between the named switches (a>b).
awk -v cuts="sw-0-0-0>sw-1-0-0 sw-1-1-1>sw-1-2-1 sw-2-3-2>sw-2-3-0" '
BEGIN {
	n = split(cuts, c, " ")
	for (i = 1; i <= n; i++) {
		split(c[i], ab, ">")
		cut[ab[1] ">" ab[2]] = cut[ab[2] ">" ab[1]] = 1
	}
}
/^Switch/ { split($0, q, "\""); me = q[4] }
/^Ca/ { me = "" }
/^\[/ && me != "" {
	k = split($0, q, "\"")
	if ((me ">" q[k - 1]) in cut)
		next
}
{ print }' "$tmp/h.topo" >"$tmp/cut.topo"
[ "$(grep -c '^\[' "$tmp/cut.topo")" -eq \
	"$(($(grep -c '^\[' "$tmp/h.topo") - 12))" ] ||
	fail "the awk script did not remove 3 double cables"

# Six switch cables of a HyperX without trunks cut at random (the
# switches kept connected), several draws.
"$croute" gen hyperx 4 4 3 --hosts 2 -o "$tmp/h1.topo" ||
	fail "croute gen hyperx without trunks"
for seed in 1 2 3 4 5; do
	python3 "$top_srcdir/bench/modern/cut-random.py" --count 6 \
		--seed $seed "$tmp/h1.topo" >"$tmp/r6-$seed.topo" \
		2>"$tmp/cuts" || fail "cut-random.py seed $seed: $(cat "$tmp/cuts")"
	[ "$(grep -c '^cut' "$tmp/cuts")" -eq 6 ] ||
		fail "cut-random.py seed $seed did not cut 6 cables"
done

for t in h cut r6-1 r6-2 r6-3 r6-4 r6-5; do
	route_ranked hyperx "cr-hyperx: 48 switches in 3 dimension" $t
done
for t in r6-1 r6-2 r6-3 r6-4 r6-5; do
	sls=$(path_sls $t)
	case $sls in "0 " | "0 1 ") ;;
	*) fail "hyperx's $t path SLs are '$sls', not within 0 1" ;;
	esac
done
sls=$(path_sls h)
[ "$sls" = "0 " ] || fail "hyperx's intact path SLs are '$sls', not 0"
sls=$(path_sls cut)
[ "$sls" = "0 1 " ] || fail "hyperx's cut path SLs are '$sls', not 0 1"
expect 0 "non-minimal paths: +0$" "hyperx is minimal when intact" \
	"$croute" check -t "$tmp/h.topo" --lfts "$tmp/h.lfts"

# Not a HyperX (trees, a dragonfly+): refused, saying why, exit 2, no
# tables.
"$croute" gen fat-tree 8 -o "$tmp/ft.topo" || fail "gen fat-tree"
"$croute" gen dragonfly-plus --groups 5 --leaves 2 --spines 2 --hosts 2 \
	--global 2 -o "$tmp/df.topo" || fail "gen dragonfly-plus"
for t in ft df; do
	expect 2 "cr-hyperx: not a HyperX: its cables make [0-9]+ dimensions.* switch '[^']+' \(0x[0-9a-f]{16}\) has no CAs" \
		"hyperx refuses $t" "$croute" route -t "$tmp/$t.topo" \
		-e hyperx -o "$tmp/$t.lfts"
	[ -e "$tmp/$t.lfts" ] && fail "hyperx wrote tables for $t"
done

# cr-auto tries it with QoS.
expect 0 "cr-auto: +[0-9]+ +[0-9]+ +hyperx .*(qualifies|WINNER)" \
	"cr-auto qualifies hyperx" "$croute" route -v -t "$tmp/h.topo" -e auto \
	--qos --auto-candidates hyperx,updn -o "$tmp/a.lfts"
exit $failed
