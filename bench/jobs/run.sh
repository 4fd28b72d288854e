#!/bin/sh
# Job-aware routing (croute route --jobs) against cr-auto without jobs and
# croute's offline built-in engines, on job mixes of a busy machine
# (mixgen.py), scored by the jobs term: every job runs shift among its
# own hosts, all jobs at once, on Slurm's order and EVAL_ORDERS (4)
# random orders within each job of seed EVAL_SEED (101, not the seed
# the tuning's objective draws its orders with); the term is the mean of
# the per-flow averages over those 5 orders.
#
# usage: bench/jobs/run.sh [FABRIC...]  (random prod-tree torus director)
# Environment: CROUTE (the built command), SEEDS (mix seeds: training
# 1 2 3, held out 11..20), JOBS_ARGS (extra `croute route --jobs` options),
# OUT (a directory kept for inspection; default a temporary one), OSM (a
# directory bench/jobs/opensm.sh filled: then each fabric found there is
# taken with its ibsim LIDs, and OpenSM's built-ins are scored too).
# Prints one line per mix: fabric seed jobs hosts, the jobs term of
# cr-auto, of the best built-in (and its name), of the tuned tables,
# the tuned tables' gains over both, shift (default order) of cr-auto and
# of the tuned tables, credit loops of the tuned tables and whether
# their SLs are cr-auto's; with OSM, the best OpenSM built-in (and its
# name) and the tuned tables' gain over it. A line "# FABRIC ENGINE
# credit loops N" per engine of the comparison first.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
CROUTE=${CROUTE:-$top/build/src/cli/croute}
SEEDS=${SEEDS:-"1 2 3 11 12 13 14 15 16 17 18 19 20"}
EVAL_ORDERS=${EVAL_ORDERS:-4}
EVAL_SEED=${EVAL_SEED:-101}
JOBS_ARGS=${JOBS_ARGS:-}
# cr-auto's options, for both its rows (--qos lets layered engines win)
AUTO_ARGS=${AUTO_ARGS:-}
OUT=${OUT:-$(mktemp -d)}
OSM=${OSM:-}
LIDS=
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- random prod-tree torus director

. "$top/bench/jobs/lib.sh"

# term TOPO LFTS MIX: the jobs term (own order and the random ones).
term() {
	# shellcheck disable=SC2086
	"$CROUTE" estimate -t "$1" $LIDS --lfts "$2" --jobs "$3" \
		--orders "$EVAL_ORDERS" --seed "$EVAL_SEED" 2>/dev/null |
		awk -v k="$EVAL_ORDERS" '
		/^jobs / && NF == 7 { own = $2; mean = $3 }
		END { printf "%.4f", (own + k * mean) / (k + 1) }'
}

shift_of() {
	# shellcheck disable=SC2086
	"$CROUTE" estimate -t "$1" $LIDS --lfts "$2" --pattern shift \
		2>/dev/null |
		awk '/^shift / { print $4; exit }'
}

loops_of() {
	if [ -s "$3" ]; then
		set -- "$1" "$2" --sl "$3" --sl2vl "$4"
	else
		set -- "$1" "$2"
	fi
	_t=$1 _l=$2
	shift 2
	# shellcheck disable=SC2086
	"$CROUTE" check -t "$_t" $LIDS --lfts "$_l" "$@" 2>/dev/null |
		awk '/^credit loops:/ { print $3 }'
}

# best TOPO MIX FILE...: "term(engine)" of the best of the tables given.
best_of() {
	_t=$1 _m=$2 _b=0 _n=-
	shift 2
	for _f in "$@"; do
		[ -f "$_f" ] || continue
		_v=$(term "$_t" "$_f" "$_m")
		if awk -v a="$_v" -v b="$_b" 'BEGIN{exit !(a > b)}'; then
			_b=$_v _n=${_f##*/}
		fi
	done
	echo "$_b(${_n%.lfts})"
}

gain() {
	awk -v a="$1" -v b="${2%%(*}" 'BEGIN {
		if (b + 0 <= 0) print "-"
		else printf "%+.2f%%", 100 * (a / b - 1) }'
}

echo "# fabric seed jobs hosts auto best(engine) tuned vs-auto vs-best" \
	"shift-auto shift-tuned loops sl-same osm(engine) vs-osm"
for fab in "$@"; do
	fabric_dir "$fab"
	# shellcheck disable=SC2086
	"$CROUTE" route -q -t "$t" $LIDS -e auto $AUTO_ARGS -o "$d/auto.lfts" \
		--lash-sl "$d/auto.sl" --lash-sl2vl "$d/auto.sl2vl" \
		2>/dev/null || true
	for e in minhop updn ftree; do
		# shellcheck disable=SC2086
		"$CROUTE" route -q -t "$t" $LIDS -e "$e" -o "$d/$e.lfts" \
			2>/dev/null || rm -f "$d/$e.lfts"
	done
	for l in "$d"/minhop.lfts "$d"/updn.lfts "$d"/ftree.lfts \
		${osm:+"$osm"/lfts.*}; do
		[ -f "$l" ] || continue
		echo "# $fab ${l##*/} credit loops $(loops_of "$t" "$l" "" "")"
	done
	for s in $SEEDS; do
		m=$d/mix$s.jobs
		python3 "$top/bench/jobs/mixgen.py" "$t" "$s" >"$m"
		# shellcheck disable=SC2086
		"$CROUTE" route -t "$t" $LIDS -e auto $AUTO_ARGS --jobs "$m" \
			$JOBS_ARGS -o "$d/tuned$s.lfts" --lash-sl "$d/tuned$s.sl" \
			--lash-sl2vl "$d/tuned$s.sl2vl" 2>"$d/tuned$s.log" ||
			true
		a=$(term "$t" "$d/auto.lfts" "$m")
		j=$(term "$t" "$d/tuned$s.lfts" "$m")
		best=$(best_of "$t" "$m" "$d/minhop.lfts" "$d/updn.lfts" \
			"$d/ftree.lfts")
		o="-(-)"
		if [ -n "$osm" ]; then
			o=$(best_of "$t" "$m" "$osm"/lfts.*)
			o=$(echo "$o" | sed 's/(lfts\./(/')
		fi
		same=yes
		if [ -s "$d/auto.sl" ] || [ -s "$d/tuned$s.sl" ]; then
			cmp -s "$d/auto.sl" "$d/tuned$s.sl" || same=no
		fi
		echo "$fab $s $(grep -vc '^#' "$m") \
$(awk '/^#/ { print $8 }' "$m") $a $best $j $(gain "$j" "$a") \
$(gain "$j" "$best") \
$(shift_of "$t" "$d/auto.lfts") $(shift_of "$t" "$d/tuned$s.lfts") \
$(loops_of "$t" "$d/tuned$s.lfts" "$d/tuned$s.sl" "$d/tuned$s.sl2vl") $same \
$o $(gain "$j" "$o")"
	done
done
