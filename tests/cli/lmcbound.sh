#!/bin/bash
# croute bound at LMC > 0: its header says the bounds hold for flows
# striped over the port's LIDs, and JSON gives the LMC and the lanes
# (2^LMC, or --lanes). The unsplittable bound with k lanes (each flow on
# at most k paths, each at most 1/k of its injection) is at least the
# one-path bound and at least what estimate's split and indep models give
# cr-updn, cr-ftree and cr-minhop at LMC 2 on the same phases of a 4-ary
# 3-tree less a top switch.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 4 3 -o "$tmp/kt" || fail "gen ktree 4 3"
awk -v desc=sw-l0-00 -f "$top_srcdir/bench/auto/drop-switch.awk" "$tmp/kt" \
	>"$tmp/kt1" || fail "drop-switch"
P="--pattern shift:3,bisect:2 --seed 3"

# avg JSON: each pattern's avg bound, one a line
avg() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["lmc"], d["lanes"])
for p in d["patterns"]:
    print("%.6f" % p["avg_frac"])' "$1"
}

# shellcheck disable=SC2086
"$croute" bound --topo "$tmp/kt1" $P --unsplittable --paths minimal \
	--lmc 0 --json >"$tmp/b0" 2>/dev/null || fail "bound --lmc 0"
# shellcheck disable=SC2086
"$croute" bound --topo "$tmp/kt1" $P --unsplittable --paths minimal \
	--lmc 2 --json >"$tmp/b2" 2>/dev/null || fail "bound --lmc 2"
# shellcheck disable=SC2086
"$croute" bound --topo "$tmp/kt1" $P --unsplittable --paths minimal \
	--lmc 2 --lanes 2 --json >"$tmp/b22" 2>/dev/null ||
	fail "bound --lmc 2 --lanes 2"
[ "$(avg "$tmp/b0" | head -n 1)" = "0 1" ] || fail "LMC 0: not 1 lane"
[ "$(avg "$tmp/b2" | head -n 1)" = "2 4" ] || fail "LMC 2: not 4 lanes"
[ "$(avg "$tmp/b22" | head -n 1)" = "2 2" ] || fail "--lanes 2: not 2 lanes"
paste <(avg "$tmp/b0" | tail -n +2) <(avg "$tmp/b2" | tail -n +2) |
	awk '$2 < $1 - 1e-6 { exit 1 }' ||
	fail "the 4-lane bound is below the one-path bound"

# shellcheck disable=SC2086
"$croute" bound --topo "$tmp/kt1" $P --lmc 2 >"$tmp/txt" 2>/dev/null ||
	fail "bound --lmc 2 (text)"
grep -q '^# LMC 2: the bounds also hold for flows striped over up to 4' \
	"$tmp/txt" || fail "the header does not say what LMC 2 covers"

for e in updn ftree minhop; do
	for m in split indep; do
		# shellcheck disable=SC2086
		"$croute" estimate --topo "$tmp/kt1" -e $e --lmc 2 \
			--paths $m $P --json >"$tmp/est" 2>/dev/null ||
			fail "estimate -e $e --paths $m"
		python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
for x, y in zip(e["patterns"], b["patterns"]):
    if x["avg_frac"] > y["avg_frac"] + 1e-6:
        sys.exit("%s: %s %.4f above the bound %.4f" % (x["name"],
                 sys.argv[3], x["avg_frac"], y["avg_frac"]))' \
			"$tmp/est" "$tmp/b2" "$e $m" ||
			fail "$e --paths $m above the 4-lane bound"
	done
done
exit $failed
