#!/bin/bash
# cr-auto's ranking through the command: compare --auto names the winner,
# its legend covers every option and says the ranking's samples are not
# the rows', its default list has the variants cr-auto picks, and the
# same fabric and options give the same tables and ranking.
. "$(dirname "$0")/lib.sh"

"$croute" gen torus 3 3 3 --hosts 1 -o "$tmp/t.topo" || fail "croute gen"
expect_exit 0 compare --topo "$tmp/t.topo" --auto
grep -q "^auto *=[a-z]" "$tmp/out" ||
	fail "compare --auto: the winner is not named: $(cat "$tmp/out")"
for o in glob first roots= "the ranking after the table"; do
	grep -q "^#.*$o" "$tmp/out" || fail "compare: no $o in the legend"
done
grep -q "^# cr-auto: .* shift on [a-z0-9 ]* phases* of 27 hosts" \
	"$tmp/out" || fail "compare: the ranking does not give shift's phases"
for v in "updn *glob+roots=top" "lash *bal+glob" "lash *glob"; do
	grep -q "^$v " "$tmp/out" || fail "compare: no $v row by default"
done
# The ranking samples shift as the rows do: on a plain shift objective
# the winner's score is its row's figure.
"$croute" gen torus 4 4 --hosts 2 -o "$tmp/t4.topo" || fail "croute gen"
expect_exit 0 compare --topo "$tmp/t4.topo" --engines updn --auto \
	--auto-objective shift:avg --auto-candidates updn,updn+ps \
	--no-auto-optimize --phases 7 --seed 5
grep -q "^# cr-auto: .* shift on 7 sampled phases of 32 hosts" "$tmp/out" ||
	fail "compare: the ranking's phases are not the rows': $(cat "$tmp/out")"
row=$(awk '$1 == "auto" { print $5 }' "$tmp/out")
won=$(awk '/ WINNER$/ { for (i = 1; i < NF; i++)
	if ($i == "shift:avg") print $(i + 1) }' "$tmp/out")
[ -n "$row" ] && [ "$row" = "$won" ] ||
	fail "compare: the auto row's shift $row, the ranking's $won"

# Determinism: the tables and the improve step's ranking (times aside)
# twice over; the fast step's wall-clock guard may differ, and says so.
for i in 1 2; do
	"$croute" route -v -t "$tmp/t.topo" -e auto --qos --auto-budget 1 \
		-o "$tmp/r$i.lft" 2>"$tmp/log$i" || fail "croute route -e auto"
	awk '/cr-auto: plan:/ { on = 1 } on' "$tmp/log$i" |
		sed -n 's/^croute: [a-z]*: cr-auto: *\([0-9][0-9]* .*\)/\1/p' |
		sed 's/ | VLs [0-9]*, credit loops.*| / | /; s/ | [0-9.]* s | / | /' \
			>"$tmp/rank$i"
done
[ -s "$tmp/rank1" ] || fail "cr-auto: no ranking in the log"
cmp -s "$tmp/r1.lft" "$tmp/r2.lft" || fail "cr-auto: two runs, two tables"
cmp -s "$tmp/rank1" "$tmp/rank2" ||
	fail "cr-auto: two runs, two rankings: $(diff "$tmp/rank1" "$tmp/rank2")"
grep -q "| held-out " "$tmp/rank1" ||
	fail "cr-auto: no held-out figures in the ranking"
grep -q "cr-auto: chose .*, held-out [0-9.]*)" "$tmp/log1" ||
	fail "cr-auto: the log line has no held-out figure: $(cat "$tmp/log1")"
exit $failed
