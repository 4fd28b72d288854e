#!/bin/sh
# The ceiling of job-aware routing: per fabric and job mix, an upper
# bound on the jobs term (bench/jobs/run.sh's score: Slurm's order and
# EVAL_ORDERS random orders within each job of seed EVAL_SEED, weighted
# 1 and EVAL_ORDERS) that no routing croute may install for the jobs can
# pass, against what cr-auto without jobs, the best OpenSM built-in and
# (with TUNED) the tuned tables score.
#
# The bounds (croute bound --jobs --orders, GLPK), each an upper bound
# per host order, combined with the score's weights:
#   all:  splittable multi-commodity flow over any path: every routing;
#   min:  the same over fewest-hop paths: every minimal routing (cr-lash,
#         cr-minhop, and cr-updn / cr-ftree where their paths are minimal:
#         the "nonmin" columns count the tables' non-minimal paths);
#   one:  with ONE (fabrics, default prod-tree), min with one path share
#         per (source switch, destination) for all phases of an order
#         (--one-routing --paths minimal), as LFTs are.
# The estimate is a max-min fair allocation, so a routing's score can sit
# below the best throughput its own paths allow: these are ceilings, not
# figures some routing is known to reach.
#
# usage: bench/jobs/ceiling.sh [FABRIC...]  (random prod-tree torus director)
# Environment: CROUTE, SEEDS (default held out 11..20), OSM (a directory
# bench/jobs/opensm.sh filled: LIDs and OpenSM's tables), QOS (fabrics
# where cr-auto takes --qos, as in bench/jobs/README: random torus),
# TUNED (a run.sh OUT directory: score its tuned tables too), ONE, OUT,
# SAMPLE (FABRIC:K words: there the score and the bounds both take the
# same K sampled phases, --pattern jobs:K, default director:12 torus:12,
# the LPs of all phases being hours there; "s" after the seed says so;
# SAMPLE= for every phase everywhere),
# SCORES (a file of run.sh's lines, bench/jobs/README's held-out ones
# included: take cr-auto's, the best OpenSM's and the tuned tables'
# scores from there instead of scoring them again),
# NOALL (fabrics without the all-path bound: default random torus
# director).
# One line per mix: fabric seed auto osm(engine) tuned, the bounds all,
# min, one, target = 1.05 x max(auto, osm), the best bound over the
# target's base (ceil/base), the tuned tables over the best bound, the
# non-minimal paths of cr-auto's and the tuned tables, and "unreachable"
# where the tightest bound that holds for the tuned tables is below the
# target. Each line is printed as its mix is done, and kept in
# OUT/FABRIC/ceilSEED (partial runs count).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
CROUTE=${CROUTE:-$top/build/src/cli/croute}
SEEDS=${SEEDS:-"11 12 13 14 15 16 17 18 19 20"}
EVAL_ORDERS=${EVAL_ORDERS:-4}
EVAL_SEED=${EVAL_SEED:-101}
QOS=${QOS:-"random torus"}
ONE=${ONE:-prod-tree}
SAMPLE=${SAMPLE-"director:12 torus:12"}
# fabrics whose all-path LPs take minutes a phase (croute(1)): "-" there,
# the minimal bound then being the one that holds (cr-lash with --qos)
NOALL=${NOALL:-"random torus director"}
TUNED=${TUNED:-}
SCORES=${SCORES:-}
OSM=${OSM:-}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- random prod-tree torus director

. "$top/bench/jobs/lib.sh"

# the score's weights over the "own mean" of an orders table
# shellcheck disable=SC2016
weigh='{ printf "%.4f", ($2 + k * $3) / (k + 1) }'

# term TOPO LFTS MIX: run.sh's score
term() {
	# shellcheck disable=SC2086
	"$CROUTE" estimate -t "$1" $LIDS --lfts "$2" --jobs "$3" $PAT \
		--orders "$EVAL_ORDERS" --seed "$EVAL_SEED" 2>/dev/null |
		awk -v k="$EVAL_ORDERS" '/random host orders/ { on = 1; next }
		on && $1 ~ /^jobs/ '"$weigh"
}

# ceil TOPO MIX ARGS...: the bound with the score's weights; the score
# is a mean of averages, so only the avg LPs are solved (--stat avg)
ceil() {
	_t=$1 _m=$2
	shift 2
	# shellcheck disable=SC2086
	"$CROUTE" bound -t "$_t" --jobs "$_m" $PAT --orders "$EVAL_ORDERS" \
		--seed "$EVAL_SEED" --stat avg "$@" 2>/dev/null |
		awk -v k="$EVAL_ORDERS" '/random host orders/ { on = 1; next }
		on && $1 ~ /^jobs/ '"$weigh"
}

nonmin() {
	[ -f "$2" ] || { echo -; return; }
	# shellcheck disable=SC2086
	"$CROUTE" check -t "$1" $LIDS --lfts "$2" 2>/dev/null |
		awk '/^non-minimal paths:/ { print $3 }'
}

# verdict: a mix's line with its target, ceiling and verdict
# shellcheck disable=SC2016
verdict='{
	base = $3; o = $4; sub(/\(.*/, "", o)
	if (o + 0 > base) base = o + 0
	target = 1.05 * base
	# the tightest bound that holds for the tuned tables: the
	# minimal ones only where those tables are minimal
	c = $6 == "-" ? 1e9 : $6
	minok = ($10 == "0" || ($10 == "-" && $9 == "0"))
	if (minok && $7 + 0 < c) c = $7 + 0
	if (minok && $8 != "-" && $8 + 0 < c) c = $8 + 0
	tc = $5 == "-" ? "-" : sprintf("%.3f", $5 / c)
	printf "%s %s %s %s %s %s %s %s %.4f %.3f %s %s %s %s\n",
		$1, $2, $3, $4, $5, $6, $7, $8, target, c / base, tc,
		$9, $10, c < target ? "unreachable" : "room"
}'

echo "# fabric seed auto osm(engine) tuned all min one target" \
	"ceil/base tuned/ceil nonmin-auto nonmin-tuned verdict"
for fab in "$@"; do
	fabric_dir "$fab"
	PAT='' tag=''
	for w in $SAMPLE; do
		[ "${w%%:*}" = "$fab" ] && PAT="--pattern jobs:${w#*:}" tag=s
	done
	qos=
	case " $QOS " in *" $fab "*) qos=--qos ;; esac
	# shellcheck disable=SC2086
	"$CROUTE" route -q -t "$t" $LIDS -e auto $qos -o "$d/auto.lfts" \
		2>/dev/null
	na=$(nonmin "$t" "$d/auto.lfts")
	for s in $SEEDS; do
		m=$d/mix$s.jobs
		python3 "$top/bench/jobs/mixgen.py" "$t" "$s" >"$m"
		row=
		[ -z "$SCORES" ] || row=$(awk -v f="$fab" -v s="$s" \
			'$1 == f && $2 == s && NF >= 15 { print $5, $14, $7 }' \
			"$SCORES" | head -n 1)
		[ -z "$PAT" ] || row=
		if [ -n "$row" ]; then
			# shellcheck disable=SC2086
			set -- $row
			a=$1 o=$2 j=$3 nt=- on=
			[ -z "$TUNED" ] ||
				nt=$(nonmin "$t" "$TUNED/$fab/tuned$s.lfts")
		else
			a=$(term "$t" "$d/auto.lfts" "$m")
			o=0 on=- j=- nt=-
			for l in ${osm:+"$osm"/lfts.*}; do
				v=$(term "$t" "$l" "$m")
				if awk -v a="$v" -v b="$o" \
					'BEGIN{exit !(a > b)}'; then
					o=$v on=${l##*/lfts.}
				fi
			done
			if [ -n "$TUNED" ] &&
				[ -f "$TUNED/$fab/tuned$s.lfts" ]; then
				j=$(term "$t" "$TUNED/$fab/tuned$s.lfts" "$m")
				nt=$(nonmin "$t" "$TUNED/$fab/tuned$s.lfts")
			fi
		fi
		ba=-
		case " $NOALL " in *" $fab "*) ;; *) ba=$(ceil "$t" "$m") ;; esac
		bm=$(ceil "$t" "$m" --paths minimal)
		b1=-
		case " $ONE " in *" $fab "*)
			b1=$(ceil "$t" "$m" --paths minimal --one-routing) ;;
		esac
		echo "$fab $s$tag $a $o${on:+($on)} $j $ba $bm $b1 $na $nt" |
			awk "$verdict" | tee "$d/ceil$s"
	done
done
