#!/bin/bash
# croute compare --lmc: each engine at each LMC. On a 4-ary 3-tree less a
# top switch, the share of host pairs with distinct paths equals a
# reference count from the topology and the LFTs `croute route` writes at
# that LMC (tests/cli/lmc_ref.py); the LID, LID space and LFT columns
# follow from the LFTs' LID range; each model's score equals `croute
# estimate --paths` on the same engine and LMC. cr-hyperx, which routes
# every LID of a port on one path, refuses LMC 1 in its row and in croute
# route. An LMC without LIDs enough is refused (exit 2) with the count it
# needs; bad lists and --bound are usage errors. The production tree and
# a random fabric give a whole JSON table.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 4 3 -o "$tmp/kt" || fail "gen ktree 4 3"
awk -v desc=sw-l0-00 -f "$top_srcdir/bench/auto/drop-switch.awk" "$tmp/kt" \
	>"$tmp/kt1" || fail "drop-switch"

# field JSON ENGINE LMC EXPR: a Python expression on that row (r)
field() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    if r["engine"] == sys.argv[2] and r["lmc"] == int(sys.argv[3]):
        print(eval(sys.argv[4]))' "$@"
}

# the shift average estimate gives
est_shift() {
	"$croute" estimate --topo "$tmp/kt1" --pattern shift "$@" 2>/dev/null |
		awk '$1 == "shift" && $2 ~ /\// { print $4; exit }'
}

expect_exit 0 compare --topo "$tmp/kt1" --lmc 0,1,2 --pattern shift \
	--engines updn,ftree,minhop,lash --json
cp "$tmp/out" "$tmp/kt1.json"
sw=$(grep -c '^Switch' "$tmp/kt1")
for e in updn ftree minhop lash; do
	for l in 1 2; do
		"$croute" route --topo "$tmp/kt1" -e $e --lmc $l \
			-o "$tmp/lfts" 2>/dev/null || fail "route -e $e --lmc $l"
		ref=$(python3 "$top_srcdir/tests/cli/lmc_ref.py" "$tmp/kt1" \
			"$tmp/lfts")
		got=$(field "$tmp/kt1.json" $e $l \
			'"%d %d" % (r["host_pairs"], r["distinct_pairs"])')
		[ "$got" = "$ref" ] ||
			fail "$e LMC $l: pairs, distinct $got, reference $ref"
		top=$(sed -n '1s/^Unicast lids \[0-\([0-9]*\)\].*/\1/p' \
			"$tmp/lfts")
		want="$top $((49151 - top)) $((sw * (top + 1)))"
		want="$want $((sw * ((top + 64) / 64)))"
		got=$(field "$tmp/kt1.json" $e $l '"%d %d %d %d" % (r["top_lid"],
			r["lids_left"], r["lft_entries"], r["lft_blocks"])')
		[ "$got" = "$want" ] ||
			fail "$e LMC $l: LIDs, left, entries, blocks $got, not $want"
	done
	for l in 0 2; do
		for m in base split indep; do
			want=$(est_shift -e $e --lmc $l --paths $m)
			got=$(field "$tmp/kt1.json" $e $l \
				'"%.4f" % r["patterns"][0]["paths"]["'$m'"]["avg_frac"]')
			[ "$got" = "$want" ] ||
				fail "$e LMC $l $m: compare $got, estimate $want"
		done
	done
done
# LMC 0: one path a pair, every pair distinct
[ "$(field "$tmp/kt1.json" updn 0 'r["distinct_share"]')" = 1 ] ||
	fail "LMC 0: not every pair counted distinct"

# --paths: that model alone
expect_exit 0 compare --topo "$tmp/kt1" --lmc 2 --pattern shift \
	--engines updn --paths split:2
grep -q 'shift split' "$tmp/out" || fail "--paths split: no split column"
grep -q 'shift indep' "$tmp/out" && fail "--paths split: an indep column"
grep -q 'at most 2 lanes' "$tmp/out" || fail "--paths split:2: lanes unsaid"

"$croute" gen hyperx 4 4 --hosts-per-leaf 2 -o "$tmp/hx" || fail "gen hyperx"
expect_exit 0 compare --topo "$tmp/hx" --lmc 0,1 --pattern shift \
	--engines hyperx
grep -E -q '^hyperx +- +0 +[0-9]' "$tmp/out" || fail "hyperx LMC 0 not routed"
grep -E -q '^hyperx +- +1 refused: cr-hyperx: LMC 1 ' "$tmp/out" ||
	fail "hyperx LMC 1: no refusal naming the LMC"
expect 1 "cr-hyperx: LMC 1 asks for 2 paths" "route -e hyperx --lmc 1" \
	"$croute" route --topo "$tmp/hx" -e hyperx --lmc 1 -o "$tmp/hx.lfts"

# 512 hosts at LMC 7 need 128 LIDs each: more than 49151
"$croute" gen ktree 8 3 -o "$tmp/kt8" || fail "gen ktree 8 3"
expect 2 "--lmc 7: the fabric would need [0-9]+ LIDs" "LMC 7" \
	"$croute" compare --topo "$tmp/kt8" --lmc 0,7
need=$(sed -n 's/.*would need \([0-9]*\) LIDs.*/\1/p' "$tmp/out")
[ "${need:-0}" -ge $((512 * 128)) ] ||
	fail "LMC 7 on 512 hosts: needs '$need' LIDs, fewer than 65536"
grep -q '^engine' "$tmp/out" && fail "LMC 7: a table before the refusal"

for bad in "--lmc 8" "--lmc 1,1" "--lmc 1," "--lmc x" "--lmc 0,1 --bound"; do
	# shellcheck disable=SC2086
	expect 2 "--lmc" "$bad" "$croute" compare --topo "$tmp/kt1" $bad
done

for t in "$top_srcdir/tests/fabrics/prod-tree.topo" random; do
	if [ "$t" = random ]; then
		"$croute" gen random --switches 64 --links 8 --hosts 4 \
			--seed 1 -o "$tmp/rnd" || fail "gen random"
		t=$tmp/rnd
	fi
	expect_exit 0 compare --topo "$t" --lmc 0,1,2 --pattern shift --json
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert len(d["rows"]) == 18, len(d["rows"])' "$tmp/out" ||
		fail "$t: not a JSON table of 6 engines at 3 LMCs"
done
exit $failed
