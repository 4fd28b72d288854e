#!/bin/sh
# croute estimate and croute compare, offline: exit statuses (0 fine, 1
# flows without a path, 2 bad input), errors that name the file and line of
# a bad flows file, the same figures from --engine and from the LFTs it
# writes (--lfts), JSON and HTML output, and compare's table with an
# engine that refuses the fabric.

. "$(dirname "$0")/lib.sh"


"$croute" gen two-level --leaves 4 --hosts 4 --uplinks 4 --spines 4 \
	--scramble 1 >"$tmp/tree.topo" || fail "croute gen"
"$croute" gen two-level --leaves 2 --hosts 2 --uplinks 1 --spines 1 \
	>"$tmp/small.topo" || fail "croute gen"
T=$tmp/tree.topo

# --- fine: exit 0, every pattern reported ----------------------------------
expect_exit 0 estimate --topo "$T" --engine minhop \
	--pattern shift,bisect:3,alltoall,fanin:2
for p in "shift: 15 of 15" "bisect:3: 3 of 3" "alltoall: 1 of 1" \
	"fanin:2: 2 of 2"; do
	grep -q "^pattern $p phase" "$tmp/out" || fail "no report of $p"
done
grep -q "^  average rate" "$tmp/out" || fail "no average rate"

# --- --engine and --lfts of the same routing give the same figures ---------
expect_exit 0 route --topo "$T" --engine updn --remote-guid-sorting \
	-o "$tmp/tree.lfts"
expect_exit 0 estimate --topo "$T" --engine updn --remote-guid-sorting \
	--pattern shift,bisect --seed 7
sed -n '/^pattern [^ ]*: /,$p' "$tmp/out" | sed 's/ ([0-9.]* s)$//' \
	>"$tmp/engine.norm"
expect_exit 0 estimate --topo "$T" --lfts "$tmp/tree.lfts" \
	--pattern shift --pattern bisect --seed 7
sed -n '/^pattern [^ ]*: /,$p' "$tmp/out" | sed 's/ ([0-9.]* s)$//' \
	>"$tmp/lfts.norm"
cmp -s "$tmp/engine.norm" "$tmp/lfts.norm" ||
	fail "--engine and --lfts of the same routing differ"
grep -q "seed 7" "$tmp/lfts.norm" || fail "--seed not applied"

# --- Gb/s, and a host order of one's own ------------------------------------
expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift --gbps
grep -q "(rates Gb/s)" "$tmp/out" || fail "--gbps: the summary is not in Gb/s"
# 4x QDR: 32 Gb/s at most, above 1 (the most a fraction can be) here
awk '$1 == "shift" && $4 > 1 && $4 <= 32 { ok = 1 } END { exit !ok }' \
	"$tmp/out" || fail "--gbps: the average is not in Gb/s"
printf '"h%04d HCA-1"\n' 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 \
	>"$tmp/hosts"
expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift \
	--hosts "$tmp/hosts"
grep -q "in the order of host list" "$tmp/out" || fail "--hosts not used"
expect_exit 2 estimate --topo "$T" --engine minhop --hosts "$tmp/hosts" \
	--ca-order "$tmp/hosts"

# --- sampled phases ---------------------------------------------------------
expect_exit 0 estimate --topo "$T" --engine minhop --pattern shift --phases 4
grep -q "^pattern shift:4: 4 of 15 phases" "$tmp/out" ||
	fail "--phases 4 did not sample 4 phases"

# --- flows file: a good one, a bad one, one without a path -----------------
printf '# comment\n"h0001 HCA-1" "h0004 HCA-1"\n6 4\n' >"$tmp/good.flows"
expect_exit 0 estimate --topo "$tmp/small.topo" --engine minhop \
	--pattern "flows:$tmp/good.flows"
grep -q "^pattern flows:good.flows: " "$tmp/out" ||
	fail "no report of the flows file"

printf '"h0001 HCA-1" "h0004 HCA-1"\n"h0001 HCA-1" nosuchhost\n' \
	>"$tmp/bad.flows"
expect_exit 2 estimate --topo "$tmp/small.topo" --engine minhop \
	--pattern "flows:$tmp/bad.flows"
grep -q "bad.flows:2" "$tmp/err" || {
	cat "$tmp/err"
	fail "the error does not name bad.flows:2"
}

# leaf-0, h0001's switch, loses its entry for LID 7 (h0004): h0001 ->
# h0004 has no path. (No switch forwards LID 7 to leaf-0: a hole where one
# does reads as a deleted line, an input error.)
expect_exit 0 route --topo "$tmp/small.topo" --engine minhop -o "$tmp/small.lfts"
awk '/^0x0007 / && ++n == 2 { next } { print }' "$tmp/small.lfts" \
	>"$tmp/hole.lfts"
expect_exit 1 estimate --topo "$tmp/small.topo" --lfts "$tmp/hole.lfts" \
	--pattern "flows:$tmp/good.flows"
grep -q "flows without path (1" "$tmp/out" ||
	fail "the flow without a path is not reported"

# --- usage and input errors: exit 2 ----------------------------------------
expect_exit 2 estimate --engine minhop
expect_exit 2 estimate --topo "$T"
expect_exit 2 estimate --topo "$T" --engine minhop --lfts "$tmp/tree.lfts"
expect_exit 2 estimate --topo "$T" --engine minhop --pattern shift,nonsense
expect_exit 2 estimate --topo "$T" --engine minhop --penalty "1;2"
grep -q -- "--penalty" "$tmp/err" || fail "the error does not name --penalty"
expect_exit 2 estimate --topo "$T" --engine minhop --phases 0
expect_exit 2 estimate --topo "$tmp/nosuchfile" --engine minhop
expect_exit 2 estimate --topo "$T" --lfts "$tmp/nosuchfile"

# --- JSON and HTML -----------------------------------------------------------
expect_exit 0 estimate --topo "$T" --engine minhop --json --matrix \
	--html "$tmp/report.html"
# python3 is in scripts/deps: an independent JSON parser.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert [p["name"] for p in d["patterns"]] == ["shift", "bisect:10"]
assert d["patterns"][0]["matrix"]["dim"] == 16' "$tmp/out" ||
	fail "--json output is not the expected JSON"

head -n 1 "$tmp/report.html" | grep -q '^<!DOCTYPE html>' ||
	fail "--html did not write an HTML file"
grep -q 'src="data:image/png;base64,' "$tmp/report.html" ||
	fail "the HTML report has no inline PNG"

# --- compare ----------------------------------------------------------------
expect_exit 0 compare --topo "$T" --phases 4
for e in minhop updn ftree lash; do
	grep -q "^$e " "$tmp/out" || fail "compare: no row for $e"
done
[ "$(grep -c '^minhop ' "$tmp/out")" = 6 ] ||
	fail "compare: minhop is not run with each toggle set"
# the default list has the variants cr-auto picks
for v in "minhop *glob" "minhop *first" "updn *glob" "updn *glob+roots=ecc"; do
	grep -q "^$v " "$tmp/out" || fail "compare: no $v row by default"
done
"$croute" gen torus 3 3 --hosts 1 >"$tmp/torus.topo" || fail "croute gen"
expect_exit 0 compare --topo "$tmp/torus.topo" --engines minhop,ftree,lash+ps
grep -q "^ftree .*refused: " "$tmp/out" ||
	fail "compare: ftree does not show as refused on a torus"
grep -q "^lash  *ps " "$tmp/out" || fail "compare: no lash+ps row"
expect_exit 2 compare --topo "$T" --engines minhop+nonsense
expect_exit 1 compare --topo "$tmp/torus.topo" --engines ftree

echo "all OK"
exit $failed
