#!/bin/sh
# One command line across the commands: the same options mean the same
# thing everywhere, conflicts are refused, and engine names are explained.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 2 2 -o "$tmp/k.topo" || fail "gen"

# An unknown engine lists the known ones.
expect_exit 2 route --topo "$tmp/k.topo" -e dfsssp
grep -q "'dfsssp' (known: minhop, updn, ftree, lash, dfp, hyperx, auto)" \
	"$tmp/err" || fail "route -e dfsssp: $(cat "$tmp/err")"

# hosts takes --dump-dir, as check and estimate do.
mkdir "$tmp/dump"
cp "$tmp/k.topo" "$tmp/dump/opensm-subnet.lst"
"$croute" route --topo "$tmp/k.topo" -e updn -o "$tmp/dump/opensm-lfts.dump" \
	2>/dev/null || fail "route"
expect_exit 0 hosts --dump-dir "$tmp/dump"
grep -q "LFTs from $tmp/dump/opensm-lfts.dump" "$tmp/out" ||
	fail "hosts --dump-dir: $(cat "$tmp/out" "$tmp/err")"
expect_exit 0 hosts --topo "$tmp/k.topo" --lfts "$tmp/dump/opensm-lfts.dump"
cmp -s "$tmp/out" /dev/null && fail "hosts --lfts wrote nothing"

# compare takes --threads, as route, check and estimate do.
expect_exit 0 compare --topo "$tmp/k.topo" --engines minhop --threads 2 -q

# --order and --engine that disagree are refused, not the last one kept.
expect_exit 2 hosts --topo "$tmp/k.topo" --order updn --engine minhop
grep -q "order updn and --engine minhop name different engines" \
	"$tmp/err" || fail "hosts --order/--engine: $(cat "$tmp/err")"
expect_exit 2 hosts --topo "$tmp/k.topo" --engine minhop --order updn
expect_exit 0 hosts --topo "$tmp/k.topo" --order updn --engine cr-updn

# -R in OpenSM's list syntax: the first cr- engine, said; a plain name is
# OpenSM's engine.
expect_exit 0 route --topo "$tmp/k.topo" -R updn,cr-minhop -o "$tmp/r.dump"
grep -q "updn is OpenSM's engine, not one of croute's; routing with cr-minhop" \
	"$tmp/err" || fail "-R updn,cr-minhop: $(cat "$tmp/err")"
"$croute" route --topo "$tmp/k.topo" -e minhop -o "$tmp/e.dump" 2>/dev/null
cmp -s "$tmp/r.dump" "$tmp/e.dump" || fail "-R updn,cr-minhop is not cr-minhop"
expect_exit 0 route --topo "$tmp/k.topo" --routing-engine cr-updn,updn \
	-o /dev/null
grep -q "routing with cr-updn, the first croute engine" "$tmp/err" ||
	fail "-R cr-updn,updn: $(cat "$tmp/err")"
expect_exit 2 route --topo "$tmp/k.topo" -R updn,minhop
grep -q "no croute engine in the list; updn is OpenSM's engine" "$tmp/err" ||
	fail "-R updn,minhop: $(cat "$tmp/err")"
expect_exit 2 route --topo "$tmp/k.topo" -R cr-dfsssp,updn
grep -q "unknown croute engine 'cr-dfsssp' (croute's: cr-minhop," "$tmp/err" ||
	fail "-R cr-dfsssp: $(cat "$tmp/err")"

# -F: routing_engine follows the -R rule.
printf 'routing_engine updn,cr-minhop,minhop\n' >"$tmp/osm.conf"
expect_exit 0 route --topo "$tmp/k.topo" -F "$tmp/osm.conf" -o "$tmp/f.dump"
grep -q "routing_engine updn,cr-minhop,minhop: updn is OpenSM's engine, not" \
	"$tmp/err" || fail "-F updn,cr-minhop: $(cat "$tmp/err")"
cmp -s "$tmp/f.dump" "$tmp/e.dump" || fail "-F updn,cr-minhop is not cr-minhop"
printf 'routing_engine updn,minhop\n' >"$tmp/osm.conf"
expect_exit 2 route --topo "$tmp/k.topo" -F "$tmp/osm.conf" -o /dev/null
grep -q "routing_engine updn is not one of croute's" "$tmp/err" ||
	fail "-F updn,minhop: $(cat "$tmp/err")"
# compare: every toggle is applied and shown, cr-auto's row names its
# winner, and the legend explains every option.
expect_exit 0 compare --topo "$tmp/k.topo" --auto \
	--engines minhop,minhop+first,updn+glob+roots=ecc
grep -q "^minhop *first " "$tmp/out" || fail "compare: no minhop first row"
[ "$(awk '$1 == "minhop" { print $5, $6, $7, $8 }' "$tmp/out" |
	uniq | wc -l)" = 2 ] ||
	fail "compare: minhop+first is routed as minhop: $(cat "$tmp/out")"
grep -q "^auto *=ftree " "$tmp/out" ||
	fail "compare --auto: the winner is not named: $(cat "$tmp/out")"
[ "$(awk '/^engine/ { on = 1 } /^$/ { on = 0 } on { print length($0) }' \
	"$tmp/out" | sort -u | wc -l)" = 1 ] ||
	fail "compare: the table's columns are not aligned: $(cat "$tmp/out")"
for o in glob first roots=; do
	grep -q "^#.* $o" "$tmp/out" || fail "compare: no $o in the legend"
done
exit $failed
