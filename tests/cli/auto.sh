#!/bin/bash
# cr-auto through the command: the improvement pass on the winner scores
# what cr-auto ranked its candidates on (the hosts in node-description
# order), not the winning engine's own CA order. On a fat tree with
# two-port hosts cr-ftree's CA order lists every port, and the pass used
# to start from .5334 where cr-auto had scored the winner 1.0.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 4 3 --hca-ports 2 -o "$tmp/k.topo" || fail "croute gen"
# On the own order alone, the figure estimate --lfts reports.
"$croute" route -v -t "$tmp/k.topo" -e auto --auto-objective \
	"shift:avg~1%,bisect:avg" -o "$tmp/k.lft" 2>"$tmp/err" ||
	fail "croute route -e auto"
# "optimize: cr-ENGINE shift:avg A -> B" and "cr-auto: chose ENGINE (S on"
start=$(sed -n 's/.*optimize: cr-[a-z]* [a-z]*:[a-z]* \([0-9.]*\) ->.*/\1/p' \
	"$tmp/err" | head -n 1)
chose=$(sed -n 's/.*cr-auto: chose [^ ]* (\([0-9.]*\) on.*/\1/p' "$tmp/err")
[ -n "$start" ] && [ -n "$chose" ] || {
	cat "$tmp/err"
	fail "no pass or no choice in the log"
}
[ "$start" = "$chose" ] ||
	fail "the pass started from $start, cr-auto scored the winner $chose"
# and the report of the installed tables agrees
shift=$("$croute" estimate -t "$tmp/k.topo" --lfts "$tmp/k.lft" \
	--pattern shift | awk '$1 == "shift" { print $4 }')
[ "$shift" = "$chose" ] ||
	fail "estimate --lfts says $shift, cr-auto said $chose"

# hosts --order auto exports an order at least as good for cr-auto's
# routing as the default one it tuned on, and says which it exported.
# Here the leaf order lists both ports of every host and scores .5188.
"$croute" hosts -t "$tmp/k.topo" --order auto --score -o "$tmp/h" \
	2>"$tmp/err"
got=$(sed -n 's/.*shift over this order .* avg \([0-9.]*\) .*/\1/p' \
	"$tmp/err")
def=$("$croute" estimate -t "$tmp/k.topo" -e auto --pattern shift -q |
	awk '$1 == "shift" { print $4 }')
[ -n "$got" ] && [ -n "$def" ] && awk -v a="$got" -v b="$def" \
	'BEGIN { exit !(a >= b) }' ||
	fail "hosts --order auto exports an order scoring $got, default $def"
grep -q "over the default order .*: exporting the" "$tmp/err" ||
	fail "hosts --order auto does not say which order it exported"

# A plan whose candidates are all refused (cr-ftree on a torus, the only
# one a tiny budget plans) runs the next in list order until one
# qualifies, instead of failing with no candidate.
"$croute" gen torus 3 3 3 --hosts 1 -o "$tmp/t3.topo" || fail "gen torus"
"$croute" route -t "$tmp/t3.topo" -e auto --auto-candidates ftree,updn \
	--auto-budget 0.000001 -o "$tmp/t3.lft" -v 2>"$tmp/err" ||
	fail "cr-auto failed when its plan's only candidate was refused"
grep -q "no planned candidate qualified: updn runs beyond the plan" \
	"$tmp/err" || fail "no candidate ran beyond a refused plan"
exit $failed
