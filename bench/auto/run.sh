#!/bin/sh
# cr-auto against OpenSM's built-in engines, on five fabrics of different
# kinds, each in one ibsim run (same LIDs for every engine):
#   random    croute gen random --switches 64 --links 8 --hosts 4 --seed 1
#   torus     croute gen torus 6 6 6 --hosts 2
#   prod-tree tests/fabrics/prod-tree.topo (irregular two-level tree)
#   director  croute gen two-level --leaves 36 --hosts 18 --uplinks 18
#             --spines 18 --scramble 1 (the scrambled 648-port director)
#   ktree-1   croute gen ktree 8 3 without the spine sw-l0-00
# Engines: cr-auto without QoS, cr-auto with -Q (layered candidates
# qualify), cr-auto with -Q and croute_optimize TRUE (the improvement pass
# on the winner), OpenSM's minhop, updn, ftree, and lash and dfsssp with
# -Q. cr-auto's objective is its default, shift:avg~1%,bisect:avg.
# Each opensm-lfts.dump is scored with `croute estimate --lfts` (shift and
# bisect averages, fractions of injection) and checked with `croute check`
# (credit loops on one VL: layered routings, lash and dfsssp, are free of
# them only with their SLs; cr-auto's lash winners are checked with
# ibdmchk on the SL dumps when ibdmchk is installed). A built-in OpenSM
# could not use shows "fell back to X". cr-auto runs both its steps in
# the sweep (croute_auto_background FALSE) and its time is the sweep's
# routing step, as for the others; "single" is the routing time of the
# fastest candidate it ran.
#
# usage: bench/auto/run.sh [FABRIC...]   (default: all five)
# A FABRIC may also be a topology file (ibnetdiscover or croute format) or
# "gen:ARGS", the arguments of `croute gen` (e.g. "gen:torus 4 4 4"), to
# compare cr-auto with the built-ins on any fabric.
# Environment: as tests/ibsim/lib.sh; CR_AUTO_CONF: extra opensm.conf
# lines for cr-auto, one per line.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"
here=$top_srcdir/bench/auto

cr_init bench-auto
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- random torus prod-tree director ktree-1

# make_fabric NAME FILE
make_fabric() {
	case $1 in
	random) cr_gen "$2" random --switches 64 --links 8 --hosts 4 \
		--seed 1 ;;
	torus) cr_gen "$2" torus 6 6 6 --hosts 2 ;;
	prod-tree) cp "$top_srcdir/tests/fabrics/prod-tree.topo" "$2" ;;
	director) cr_gen "$2" two-level --leaves 36 --hosts 18 --uplinks 18 \
		--spines 18 --scramble 1 ;;
	ktree-1)
		cr_gen "$2.full" ktree 8 3
		awk -v desc=sw-l0-00 -f "$here/drop-switch.awk" "$2.full" \
			>"$2" || cr_fail "cannot drop the spine" ;;
	gen:*)
		# shellcheck disable=SC2086
		cr_gen "$2" ${1#gen:} ;;
	*)
		[ -f "$1" ] || cr_fail "unknown fabric $1 (not a file either)"
		cp "$1" "$2" ;;
	esac
}

# score TOPO: "shift-avg bisect-avg credit-loops"
score() {
	est=$("$CROUTE" estimate -t "$1" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" --pattern shift,bisect \
		2>/dev/null | awk '
		/^shift / && !s { s = $4 }
		/^bisect/ && !b { b = $4 }
		END { printf "%s %s", (s == "" ? "-" : s), (b == "" ? "-" : b) }')
	loops=$("$CROUTE" check -t "$1" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" 2>/dev/null |
		awk '/^credit loops:/ { print $3 }')
	echo "$est ${loops:--}"
}

# ibdmchk on cr-auto's layered winner, told the layers: "none" (no credit
# loop), "loops" or "unknown" (as tests/ibsim/lash.sh reads its report).
ibdm() {
	[ -f "$CR_DUMP/croute-lash-sl.dump" ] || { echo -; return; }
	command -v ibdmchk >/dev/null 2>&1 || { echo "not-installed"; return; }
	(cd "$CR_DUMP" && timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
		ibdmchk -s opensm-subnet.lst -f opensm.fdbs \
		-m opensm.mcfdbs -c croute-lash-sl.dump \
		-d croute-lash-sl2vl.dump
	true) >"$CR_DIR/ibdmchk.out" 2>&1
	if grep -q -i -- "-I- no credit loops found" "$CR_DIR/ibdmchk.out"; then
		echo none
	elif grep -q -i -- "-E- .*credit loop" "$CR_DIR/ibdmchk.out"; then
		echo loops
	else
		echo unknown
	fi
}

results=$CR_DIR/results
: >"$results"
nfab=0
for arg in "$@"; do
	nfab=$((nfab + 1))
	case $arg in
	gen:*) fab=$(echo "${arg#gen:}" | tr -s ' ' '-') ;;
	*/* | *.*) fab=$(basename "$arg" | sed 's/\.[^.]*$//') ;;
	*) fab=$arg ;;
	esac
	topo=$CR_DIR/fabric$nfab.topo
	make_fabric "$arg" "$topo"
	cr_ibsim_start "$topo"
	# row LABEL ENGINE QOS [conf lines]
	row() {
		label=$1
		engine=$2
		q=$3
		shift 3
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
			single=$(awk '/cr-auto: +[0-9]+ / && / routed in / {
				s = $0; sub(/.* routed in /, "", s); sub(/ .*/, "", s)
				if (m == "" || s + 0 < m) m = s + 0 }
				END { print (m == "" ? "-" : m) }' "$CR_LOG")
			win=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' \
				"$CR_LOG" | tail -n 1)
			extra="winner $win single $single s"
			# Only when the clock cut candidates may the choice
			# differ from `croute route -e auto` offline.
			cut=$(sed -n 's/.*the wall clock cut \([0-9]*\) .*/\1/p' \
				"$CR_LOG" | tail -n 1)
			[ -z "$cut" ] || extra="$extra wall-clock-cut $cut"
			case $win in lash*) extra="$extra ibdmchk-loops $(ibdm)" ;; esac
		fi
		printf "%-10s %-34s %s %8s  %s\n" "$fab" "$label" \
			"$(score "$topo")" "${t:--}" "$extra" >>"$results"
	}
	# One opensm.conf line per line of CR_AUTO_CONF.
	old_ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2086
	set -- ${CR_AUTO_CONF:-}
	IFS=$old_ifs
	# Both steps in the sweep: the tables the background installs in
	# the end, timed as one sweep (bench/auto/latency.sh times the sweep
	# with the improve step in the background).
	bg="croute_auto_background FALSE"
	row cr-auto cr-auto - "$bg" "$@"
	row "cr-auto -Q" cr-auto Q "$bg" "$@"
	row "cr-auto -Q optimize" cr-auto Q "croute_optimize TRUE" "$bg" "$@"
	row minhop minhop -
	row updn updn -
	row ftree ftree -
	row "lash -Q" lash Q
	row "dfsssp -Q" dfsssp Q
	cr_ibsim_stop
done

printf "%-10s %-34s %s %s %s %8s\n" fabric engine shift bisect loops \
	"time s"
echo "(loops: credit loops on one VL by croute check on the LFTs alone;"
echo " layered routings are judged by ibdmchk with their SLs)"
cat "$results"
CR_STATUS=0
exit 0
