#!/bin/sh
# croute estimate and croute compare --orders: each pattern also on seeded
# random host orders. On the production tree, minhop's figures on its own
# host order and on random orders differ; the same seed gives the same
# figures, another seed others; --orders 0 changes nothing; JSON carries
# the columns; a bad count is a usage error. cr-auto's plan budgets the
# random orders of an objective's "@K" term, and its log gives the held-out
# figures.

. "$(dirname "$0")/lib.sh"

T=$top_srcdir/tests/fabrics/prod-tree.topo

expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift,bisect:4
sed '/^# routing time/d; s/ ([0-9.]* s)$//' "$tmp/out" >"$tmp/plain"
expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift,bisect:4 \
	--orders 0
sed '/^# routing time/d; s/ ([0-9.]* s)$//' "$tmp/out" >"$tmp/zero"
cmp -s "$tmp/plain" "$tmp/zero" || fail "--orders 0 changed the report"

expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift,bisect:4 \
	--orders 3
grep -q "^# on 3 random host orders (seed 1)" "$tmp/out" ||
	fail "no table of random orders"
awk '$1 == "shift" && NF == 7 { print $2, $3, $4 }' "$tmp/out" >"$tmp/a"
read -r own mean worst <"$tmp/a" || fail "no shift row on random orders"
[ "${own:-x}" != "${mean:-x}" ] ||
	fail "own order and random orders give the same shift ($own)"
awk -v m="${mean:-0}" -v w="${worst:-1}" 'BEGIN { exit !(w <= m) }' ||
	fail "the worst order ($worst) is above the mean ($mean)"

expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift,bisect:4 \
	--orders 3
awk '$1 == "shift" && NF == 7 { print $2, $3, $4 }' "$tmp/out" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "the same seed gave other figures"
expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift,bisect:4 \
	--orders 3 --seed 5
awk '$1 == "shift" && NF == 7 { print $2, $3, $4 }' "$tmp/out" >"$tmp/c"
grep -q "(seed 5)" "$tmp/out" || fail "--seed not reported"
cmp -s "$tmp/a" "$tmp/c" && fail "another seed gave the same random orders"

expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift --orders 2 \
	--json
python3 - "$tmp/out" <<'PY' || fail "JSON without the orders"
import json, sys
d = json.load(open(sys.argv[1]))
o = d["orders"]
assert o["count"] == 2 and o["seed"] == 1
p = o["patterns"][0]
assert p["pattern"] == "shift"
assert p["worst"]["avg_frac"] <= p["mean"]["avg_frac"]
assert p["own"]["avg_frac"] == d["patterns"][0]["avg_frac"]
PY

expect_exit 0 compare --topo "$T" --engines minhop,updn --pattern shift \
	--orders 2
grep -q "rnd mean" "$tmp/out" || fail "compare: no random-order columns"
awk '$1 == "minhop" { exit !(NF == 8 && $5 != $7) }' "$tmp/out" ||
	fail "compare: minhop's row lacks differing random-order figures"

# cr-auto's plan counts an "@K" term's K + 1 orders against its budget.
for o in shift:avg shift:avg@8; do
	expect_exit 0 route -v --topo "$T" --engine auto --auto-objective "$o" \
		--auto-budget 0.02 --no-auto-optimize -o "$tmp/auto.lfts"
	grep "cr-auto: plan:" "$tmp/err" |
		sed 's/ will be scored.*//; s/.* //' \
		>"$tmp/plan-$o"
done
[ "$(cat "$tmp/plan-shift:avg@8")" -lt "$(cat "$tmp/plan-shift:avg")" ] ||
	fail "the plan does not count the random orders' work"

# cr-auto's pass reports its held-out figures beside the training ones
# (a budget with room for the pass after the candidates, shift's every
# phase and the held-out ranking).
expect_exit 0 route -v --topo "$T" --engine auto --auto-budget 2 \
	-o "$tmp/auto.lfts"
grep -q "improvement pass took .* to .*(held-out [0-9./]* -> [0-9./]*)" \
	"$tmp/err" || fail "cr-auto's log lacks the held-out figures"

expect_exit 2 estimate --topo "$T" --engine minhop --orders x
grep -q -- "--orders" "$tmp/err" || fail "a bad --orders is not named"

exit $failed
