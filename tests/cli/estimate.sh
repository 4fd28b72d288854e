#!/bin/sh
# croute estimate and croute compare, offline: exit statuses (0 fine, 1
# flows without a path, 2 bad input), errors that name the file and line of
# a bad flows file, the same figures from --engine and from the LFTs it
# writes (--lfts), JSON and HTML output, and compare's table with an
# engine that refuses the fabric.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
CROUTE=$top_builddir/src/cli/croute
[ -x "$CROUTE" ] || {
	echo "FAIL: $CROUTE is not built"
	exit 1
}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/croute-cli-estimate.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect STATUS ARGS...: croute ARGS exits with STATUS; output in $DIR/out,
# $DIR/err.
expect() {
	want=$1
	shift
	"$CROUTE" "$@" >"$DIR/out" 2>"$DIR/err"
	rc=$?
	[ "$rc" = "$want" ] || {
		cat "$DIR/err"
		fail "croute $* exited $rc, not $want"
	}
}

"$CROUTE" gen two-level --leaves 4 --hosts 4 --uplinks 4 --spines 4 \
	--scramble 1 >"$DIR/tree.topo" || fail "croute gen"
"$CROUTE" gen two-level --leaves 2 --hosts 2 --uplinks 1 --spines 1 \
	>"$DIR/small.topo" || fail "croute gen"
T=$DIR/tree.topo

# --- fine: exit 0, every pattern reported ----------------------------------
expect 0 estimate --topo "$T" --engine minhop \
	--pattern shift,bisect:3,alltoall,fanin:2
for p in "shift: 15 of 15" "bisect:3: 3 of 3" "alltoall: 1 of 1" \
	"fanin:2: 2 of 2"; do
	grep -q "^pattern $p phase" "$DIR/out" || fail "no report of $p"
done
grep -q "^  average rate" "$DIR/out" || fail "no average rate"

# --- --engine and --lfts of the same routing give the same figures ---------
expect 0 route --topo "$T" --engine updn --remote-guid-sorting \
	-o "$DIR/tree.lfts"
expect 0 estimate --topo "$T" --engine updn --remote-guid-sorting \
	--pattern shift,bisect --seed 7
sed -n '/^pattern [^ ]*: /,$p' "$DIR/out" | sed 's/ ([0-9.]* s)$//' \
	>"$DIR/engine.norm"
expect 0 estimate --topo "$T" --lfts "$DIR/tree.lfts" \
	--pattern shift --pattern bisect --seed 7
sed -n '/^pattern [^ ]*: /,$p' "$DIR/out" | sed 's/ ([0-9.]* s)$//' \
	>"$DIR/lfts.norm"
cmp -s "$DIR/engine.norm" "$DIR/lfts.norm" ||
	fail "--engine and --lfts of the same routing differ"
grep -q "seed 7" "$DIR/lfts.norm" || fail "--seed not applied"

# --- Gb/s, and a host order of one's own ------------------------------------
expect 0 estimate --topo "$T" --engine minhop --pattern shift --gbps
grep -q "(rates Gb/s)" "$DIR/out" || fail "--gbps: the summary is not in Gb/s"
# 4x QDR: 32 Gb/s at most, above 1 (the most a fraction can be) here
awk '$1 == "shift" && $4 > 1 && $4 <= 32 { ok = 1 } END { exit !ok }' \
	"$DIR/out" || fail "--gbps: the average is not in Gb/s"
printf '"h%04d HCA-1"\n' 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 \
	>"$DIR/hosts"
expect 0 estimate --topo "$T" --engine minhop --pattern shift \
	--hosts "$DIR/hosts"
grep -q "in the order of host list" "$DIR/out" || fail "--hosts not used"
expect 2 estimate --topo "$T" --engine minhop --hosts "$DIR/hosts" \
	--ca-order "$DIR/hosts"

# --- sampled phases ---------------------------------------------------------
expect 0 estimate --topo "$T" --engine minhop --pattern shift --phases 4
grep -q "^pattern shift:4: 4 of 15 phases" "$DIR/out" ||
	fail "--phases 4 did not sample 4 phases"

# --- flows file: a good one, a bad one, one without a path -----------------
printf '# comment\n"h0001 HCA-1" "h0004 HCA-1"\n6 4\n' >"$DIR/good.flows"
expect 0 estimate --topo "$DIR/small.topo" --engine minhop \
	--pattern "flows:$DIR/good.flows"
grep -q "^pattern flows:good.flows: " "$DIR/out" ||
	fail "no report of the flows file"

printf '"h0001 HCA-1" "h0004 HCA-1"\n"h0001 HCA-1" nosuchhost\n' \
	>"$DIR/bad.flows"
expect 2 estimate --topo "$DIR/small.topo" --engine minhop \
	--pattern "flows:$DIR/bad.flows"
grep -q "bad.flows:2" "$DIR/err" || {
	cat "$DIR/err"
	fail "the error does not name bad.flows:2"
}

# spine-0 loses its entry for LID 7 (h0004): h0001 -> h0004 has no path.
expect 0 route --topo "$DIR/small.topo" --engine minhop -o "$DIR/small.lfts"
awk '/^0x0007 / && !done { done = 1; next } { print }' "$DIR/small.lfts" \
	>"$DIR/hole.lfts"
expect 1 estimate --topo "$DIR/small.topo" --lfts "$DIR/hole.lfts" \
	--pattern "flows:$DIR/good.flows"
grep -q "flows without path (1" "$DIR/out" ||
	fail "the flow without a path is not reported"

# --- usage and input errors: exit 2 ----------------------------------------
expect 2 estimate --engine minhop
expect 2 estimate --topo "$T"
expect 2 estimate --topo "$T" --engine minhop --lfts "$DIR/tree.lfts"
expect 2 estimate --topo "$T" --engine minhop --pattern shift,nonsense
expect 2 estimate --topo "$T" --engine minhop --penalty "1;2"
grep -q -- "--penalty" "$DIR/err" || fail "the error does not name --penalty"
expect 2 estimate --topo "$T" --engine minhop --phases 0
expect 2 estimate --topo "$DIR/nosuchfile" --engine minhop
expect 2 estimate --topo "$T" --lfts "$DIR/nosuchfile"

# --- JSON and HTML -----------------------------------------------------------
expect 0 estimate --topo "$T" --engine minhop --json --matrix \
	--html "$DIR/report.html"
# python3 is in scripts/deps: an independent JSON parser.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert [p["name"] for p in d["patterns"]] == ["shift", "bisect:10"]
assert d["patterns"][0]["matrix"]["dim"] == 16' "$DIR/out" ||
	fail "--json output is not the expected JSON"

head -n 1 "$DIR/report.html" | grep -q '^<!DOCTYPE html>' ||
	fail "--html did not write an HTML file"
grep -q 'src="data:image/png;base64,' "$DIR/report.html" ||
	fail "the HTML report has no inline PNG"

# --- compare ----------------------------------------------------------------
expect 0 compare --topo "$T" --phases 4
for e in minhop updn ftree lash; do
	grep -q "^$e " "$DIR/out" || fail "compare: no row for $e"
done
[ "$(grep -c '^minhop ' "$DIR/out")" = 4 ] ||
	fail "compare: minhop is not run with each toggle set"
"$CROUTE" gen torus 3 3 --hosts 1 >"$DIR/torus.topo" || fail "croute gen"
expect 0 compare --topo "$DIR/torus.topo" --engines minhop,ftree,lash+ps
grep -q "^ftree .*refused: " "$DIR/out" ||
	fail "compare: ftree does not show as refused on a torus"
grep -q "^lash  *ps " "$DIR/out" || fail "compare: no lash+ps row"
expect 2 compare --topo "$T" --engines minhop+nonsense
expect 1 compare --topo "$DIR/torus.topo" --engines ftree

echo "all OK"
exit 0
