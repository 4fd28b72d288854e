#!/bin/bash
# croute bound through the command: a full fat tree's shift bound is 1;
# a routing's estimate never exceeds the bound (estimate --bound, compare
# --bound); the edge-form LP it writes, solved by glpsol (an independent
# run of another formulation), gives the same throughput.
set -u
croute=${top_builddir:-.}/src/cli/croute
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}

"$croute" gen ktree 4 2 -o "$tmp/k42.topo" || exit 1
"$croute" bound --topo "$tmp/k42.topo" --pattern shift >"$tmp/out" ||
	fail "bound on ktree 4 2"
awk '$1 == "shift" { found = 1; if ($4 != "1.0000" || $5 != "1.0000")
	exit 1 } END { exit !found }' "$tmp/out" ||
	{ fail "ktree 4 2 shift bound is not 1"; cat "$tmp/out"; }

"$croute" gen random --switches 10 --links 4 --hosts 3 --seed 3 \
	-o "$tmp/r.topo" || exit 1
"$croute" bound --topo "$tmp/r.topo" --pattern shift --phases 3 \
	--write-lp "$tmp/r.lp" >"$tmp/b" || fail "bound on a random fabric"
# estimate --bound: every "of bound" figure is at most 1
"$croute" estimate --topo "$tmp/r.topo" -e minhop --pattern shift \
	--phases 3 --bound >"$tmp/e" || fail "estimate --bound"
awk '/^# against croute bound/ { on = 1; next } on && $1 ~ /^shift/ {
	n++; if ($4 > 1.0005 || $7 > 1.0005) bad = 1 }
	END { exit bad || n != 1 }' "$tmp/e" ||
	{ fail "estimate --bound above 1"; cat "$tmp/e"; }
"$croute" compare --topo "$tmp/r.topo" --engines minhop,updn \
	--pattern shift --phases 3 --bound >"$tmp/c" || fail "compare --bound"
awk '$1 == "minhop" || $1 == "updn" { n++; if ($7 > 1.0005 || $7 <= 0)
	bad = 1 } END { exit bad || n != 2 }' "$tmp/c" ||
	{ fail "compare --bound column"; cat "$tmp/c"; }

# --paths minimal and --unsplittable nest under the all-path bound (on
# this fabric minimal paths lose: .6 against .7), and min-hop's estimate
# (minimal paths, one a flow) stays under the tightest
avg() { awk '$1 ~ /^shift/ { print $4; exit }' "$1"; }
"$croute" bound --topo "$tmp/r.topo" --pattern shift --phases 3 \
	--paths minimal >"$tmp/bm" || fail "bound --paths minimal"
"$croute" bound --topo "$tmp/r.topo" --pattern shift --phases 3 \
	--paths minimal --unsplittable >"$tmp/bu" ||
	fail "bound --paths minimal --unsplittable"
"$croute" bound --topo "$tmp/r.topo" --pattern shift --phases 3 \
	--unsplittable --max-extra-hops 1 >"$tmp/ba" ||
	fail "bound --unsplittable --max-extra-hops 1"
est=$(awk '/^# against croute bound/ { on = 1; next } on && $1 ~ /^shift/ {
	print $2; exit }' "$tmp/e")
awk -v all="$(avg "$tmp/b")" -v min="$(avg "$tmp/bm")" \
	-v un="$(avg "$tmp/bu")" -v a1="$(avg "$tmp/ba")" -v est="$est" \
	'BEGIN { exit !(est != "" && un != "" && a1 != "" &&
		est <= un + 1e-4 && un <= min + 1e-4 && min < all - 1e-3 &&
		un <= a1 + 1e-4 && a1 <= all + 1e-4) }' ||
	fail "bounds do not nest: est $est <= unsplit minimal $(avg "$tmp/bu")" \
		"<= minimal $(avg "$tmp/bm") <= all $(avg "$tmp/b")"
grep -q "^# on minimal paths: a MIP per phase" "$tmp/bu" ||
	fail "--unsplittable does not say what it bounds"
# one routing for all phases: at most the per-phase bound it prints
"$croute" bound --topo "$tmp/r.topo" --pattern shift --phases 3 \
	--paths minimal --one-routing >"$tmp/bo" ||
	fail "bound --paths minimal --one-routing"
awk -v min="$(avg "$tmp/bm")" -v est="$est" '$1 ~ /^shift/ { n++
	if (!($4 <= $7 + 1e-4 && $7 == min && est <= $4 + 1e-4)) bad = 1 }
	END { exit bad || n != 1 }' "$tmp/bo" ||
	{ fail "--one-routing above its per-phase bound or the estimate"
	  cat "$tmp/bo"; }
"$croute" bound --topo "$tmp/r.topo" --one-routing --unsplittable \
	>/dev/null 2>&1
[ $? -eq 2 ] || fail "--one-routing with --unsplittable accepted"
# too big for the MIP, or options that do not go together: exit 2
"$croute" gen torus 4 4 4 --hosts 1 -o "$tmp/t.topo" || exit 1
"$croute" bound --topo "$tmp/t.topo" --pattern shift \
	--paths minimal --unsplittable >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "candidate paths" "$tmp/err" ||
	fail "--unsplittable on a 4x4x4 torus is not refused with status 2"
"$croute" bound --topo "$tmp/r.topo" --max-extra-hops 1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--max-extra-hops without --unsplittable accepted"

if command -v glpsol >/dev/null; then
	# the first phase's avg bound x its flows = the LP's optimum
	want=$(awk '/^## shift/ { on = 1; next } on && $1 ~ /^[0-9]+$/ {
		printf "%.6f", $2 * $3; exit }' "$tmp/b")
	glpsol --lp "$tmp/r.lp" -o "$tmp/sol" >/dev/null ||
		fail "glpsol on the written LP"
	got=$(awk '/^Objective:/ { print $4; exit }' "$tmp/sol")
	awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; if (d < 0) d = -d
		exit !(b != "" && d <= 1e-3 * (a > 1 ? a : 1)) }' ||
		fail "glpsol says $got, croute bound $want"
else
	fail "glpsol not found (glpk-utils, scripts/deps)"
fi
exit $failed
