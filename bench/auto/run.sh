#!/bin/sh
# cr-auto against OpenSM's built-in engines, on six fabrics of different
# kinds, each in one ibsim run (same LIDs for every engine):
#   random    croute gen random --switches 64 --links 8 --hosts 4 --seed 1
#   torus     croute gen torus 6 6 6 --hosts 2
#   prod-tree tests/fabrics/prod-tree.topo (irregular two-level tree)
#   director  croute gen two-level --leaves 36 --hosts 18 --uplinks 18
#             --spines 18 --scramble 1 (the scrambled 648-port director)
#   ktree-1   croute gen ktree 8 3 without the spine sw-l0-00
#   slim      croute gen two-level --leaves 12 --hosts 16 --uplinks 8
#             --spines 8 (a 2:1 slimmed two-level tree)
# Engines: OpenSM's minhop, updn and ftree, dfsssp and nue with -Q, in
# opensm under ibsim; cr-auto in opensm with -Q, both steps in the sweep
# (croute_auto_background FALSE: its time and winner);
# and the tables cr-auto ends with, routed offline on the same fabric and
# LIDs: `croute route -e auto --qos` (the tables the plugin installs once
# its improvement work is done), and the same with --auto-hosts SCHED.
#
# Every routing is scored with `croute estimate` (shift and bisect
# averages, fractions of injection) on the fabric's own host order and on
# ORDERS (6) random host orders of seed ORDERS_SEED (101), which no
# objective tunes on: "own" and "rand" columns (their mean), and on SCHED,
# a seeded random host order standing for a scheduler's (the "sched"
# columns: the order cr-auto --auto-hosts tuned to). `croute check` counts
# credit loops on one VL, or with the SL files for cr-auto's layered
# winners (--sl, --sl2vl); OpenSM's layered dfsssp and nue are free of
# them only with their SLs ("-" for them). A built-in OpenSM could not use
# shows "fell back to X".
#
# usage: bench/auto/run.sh [FABRIC...]   (default: all six)
# A FABRIC may also be a topology file (ibnetdiscover or croute format) or
# "gen:ARGS", the arguments of `croute gen` (e.g. "gen:torus 4 4 4"), to
# compare cr-auto with the built-ins on any fabric.
# Environment: as tests/ibsim/lib.sh; CR_AUTO_CONF: extra opensm.conf
# lines for cr-auto, one per line; CR_AUTO_ARGS: extra `croute route`
# options for the offline cr-auto rows; ORDERS (6), ORDERS_SEED,
# SCHED_SEED (7).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_init bench-auto
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- random torus prod-tree director ktree-1 slim
ORDERS_SEED=${ORDERS_SEED:-101}
# A 6-order mean of bisect moves by about .006 from one seed to the
# next on prod-tree: ORDERS=96 tells apart routings that 6 cannot.
ORDERS=${ORDERS:-6}
SCHED_SEED=${SCHED_SEED:-7}

# sched_order TOPO SEED: the hosts (their descriptions) in a seeded
# random order (a linear congruential shuffle, the same with any
# awk).
sched_order() {
	awk -v seed="$2" '
	/^(Ca|Hca)[ \t]/ {
		d = $0; sub(/^[^#]*# *"/, "", d); sub(/".*/, "", d)
		if (d != "") h[n++] = d
	}
	END {
		x = seed
		for (i = n - 1; i > 0; i--) {
			x = (x * 1103515245 + 12345) % 2147483648
			k = int(x / 65536) % (i + 1)
			t = h[i]; h[i] = h[k]; h[k] = t
		}
		for (i = 0; i < n; i++) print "\"" h[i] "\""
	}' "$1"
}

# estimate TOPO LFTS [OPTIONS]: "shift bisect" on the order the options
# give, then the means over the random orders: "shift bisect" again.
estimate() {
	_t=$1
	_l=$2
	shift 2
	"$CROUTE" estimate -t "$_t" --lids "$CR_GUID2LID" --lfts "$_l" \
		--pattern shift,bisect "$@" 2>/dev/null | awk '
		/^shift / && !s { s = $4 }
		/^bisect/ && !b { b = $4 }
		/^# on [0-9]+ random host orders/ { r = 1 }
		r && /^shift / { rs = $3 }
		r && /^bisect/ { rb = $3 }
		END { printf "%s %s %s %s", (s == "" ? "-" : s),
			(b == "" ? "-" : b), (rs == "" ? "-" : rs),
			(rb == "" ? "-" : rb) }'
}

# score TOPO LFTS [SL SL2VL | -]: "own-shift own-bisect rand-shift
# rand-bisect sched-shift sched-bisect credit-loops" ("-": not counted).
score() {
	own=$(estimate "$1" "$2" --orders "$ORDERS" --seed "$ORDERS_SEED")
	sched=$(estimate "$1" "$2" --hosts "$CR_DIR/sched.hosts" |
		cut -d' ' -f1,2)
	if [ "${3:-}" = - ]; then
		loops=-
	elif [ -n "${3:-}" ] && [ -f "$3" ]; then
		loops=$("$CROUTE" check -t "$1" --lids "$CR_GUID2LID" \
			--lfts "$2" --sl "$3" --sl2vl "$4" 2>/dev/null |
			awk '/^credit loops:/ { print $3 }')
	else
		loops=$("$CROUTE" check -t "$1" --lids "$CR_GUID2LID" \
			--lfts "$2" 2>/dev/null |
			awk '/^credit loops:/ { print $3 }')
	fi
	echo "$own $sched ${loops:--}"
}

results=$CR_DIR/results
: >"$results"
# row FABRIC LABEL SCORE TIME EXTRA
put_row() {
	printf "%-9s %-26s %s %7s  %s\n" "$1" "$2" "$3" "$4" "$5" >>"$results"
	tail -n 1 "$results" >&2
}
nfab=0
for arg in "$@"; do
	nfab=$((nfab + 1))
	case $arg in
	gen:*) fab=$(echo "${arg#gen:}" | tr -s ' ' '-') ;;
	*/* | *.*) fab=$(basename "$arg" | sed 's/\.[^.]*$//') ;;
	*) fab=$arg ;;
	esac
	topo=$CR_DIR/fabric$nfab.topo
	bench_fabric "$arg" "$topo"
	sched_order "$topo" "$SCHED_SEED" >"$CR_DIR/sched.hosts"
	cr_ibsim_start "$topo"
	# row LABEL ENGINE QOS [conf lines]
	row() {
		label=$1
		engine=$2
		q=$3
		shift 3
		# cr-auto's layered winners leave their SLs in the dump
		rm -f "$CR_DUMP/croute-lash-sl.dump" \
			"$CR_DUMP/croute-lash-sl2vl.dump"
		if [ "$q" = Q ]; then
			cr_conf "qos TRUE" "$@"
			cr_opensm_once -Q -R "$engine" -D 0x47
		else
			cr_conf "$@"
			cr_opensm_once -R "$engine" -D 0x47
		fi
		used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
			"$CR_LOG" | tail -n 1)
		[ "$used" = "$engine" ] || label="$label (fell back to ${used:-?})"
		t=$(bench_routing_time "$CR_LOG" "$used")
		extra=
		if [ "$engine" = cr-auto ]; then
			win=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' \
				"$CR_LOG" | tail -n 1)
			extra="winner $win"
		fi
		cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/lfts.$fab.$engine"
		sls=
		case $used in
		dfsssp | nue) sls=- ;;
		cr-auto)
			[ -f "$CR_DUMP/croute-lash-sl.dump" ] &&
				sls="$CR_DUMP/croute-lash-sl.dump $CR_DUMP/croute-lash-sl2vl.dump"
			;;
		esac
		# shellcheck disable=SC2086
		put_row "$fab" "$label" \
			"$(score "$topo" "$CR_DUMP/opensm-lfts.dump" $sls)" \
			"${t:--}" "$extra"
	}
	# The tables cr-auto ends with, offline on the same LIDs; kept as
	# auto.FABRIC.TAG.* (CR_KEEP=1).
	offline() {
		label=$1
		out=$CR_DIR/auto.$fab.$2
		shift 2
		t0=$(date +%s.%N)
		rm -f "$out.sl" "$out.sl2vl"
		# shellcheck disable=SC2086
		"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" -e auto \
			--qos -o "$out.lfts" --lash-sl "$out.sl" \
			--lash-sl2vl "$out.sl2vl" ${CR_AUTO_ARGS:-} "$@" \
			2>"$out.log" ||
			grep -q "an engine without layers" "$out.log" ||
			cr_fail "croute route -e auto failed"
		t1=$(date +%s.%N)
		win=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' "$out.log" |
			tail -n 1)
		put_row "$fab" "$label" \
			"$(score "$topo" "$out.lfts" "$out.sl" "$out.sl2vl")" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
			"winner $win"
	}
	# One opensm.conf line per line of CR_AUTO_CONF.
	old_ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2086
	set -- ${CR_AUTO_CONF:-}
	IFS=$old_ifs
	row minhop minhop -
	row updn updn -
	row ftree ftree -
	row "dfsssp -Q" dfsssp Q
	row "nue -Q" nue Q
	row "cr-auto -Q (opensm)" cr-auto Q "croute_auto_background FALSE" "$@"
	offline "cr-auto offline" default
	if "$CROUTE" route --help 2>&1 | grep -q -- --auto-hosts; then
		offline "cr-auto --auto-hosts" sched \
			--auto-hosts "$CR_DIR/sched.hosts"
	fi
	cr_ibsim_stop
done

echo "own: the fabric's own host order; rand: mean over $ORDERS random orders"
echo "(seed $ORDERS_SEED); sched: a random order (seed $SCHED_SEED), the one"
echo "--auto-hosts tunes to; loops: credit loops (with the SLs for cr-auto;"
echo "-: OpenSM's layered dfsssp and nue, free of them only with their SLs)"
heads="own-shift own-bisect rand-shift rand-bisect sched-shift sched-bisect"
printf "%-9s %-26s %s\n" fabric engine "$heads loops time"
cat "$results"
CR_STATUS=0
exit 0
