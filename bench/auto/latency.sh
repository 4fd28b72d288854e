#!/bin/sh
# How long OpenSM's sweep waits for cr-auto: in one opensm -o sweep under
# ibsim, the routing step (opensm's "building routing with" to "tables
# configured", bench_routing_time) of cr-updn, of cr-auto -Q (qos TRUE)
# with its improve step in the background (the default) and with both
# steps in the sweep (croute_auto_background FALSE), on the same fabric
# and LIDs. The limit is 2 x cr-updn's step + 0.25 s; "ratio" is cr-auto's
# step over that limit (at most 1 meets it).
#   prod-tree tests/fabrics/prod-tree.topo
#   random    croute gen random --switches 64 --links 8 --hosts 4 --seed 1
#   torus     croute gen torus 6 6 6 --hosts 2
#
# usage: bench/auto/latency.sh [FABRIC...]   (default: all three; a FABRIC
# may be "gen:ARGS" or a topology file, as in bench/auto/run.sh)

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_init bench-latency
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- prod-tree random torus

# step ENGINE [conf lines]: the routing step of one -Q sweep, in seconds,
# into $t.
step() {
	e=$1
	shift
	cr_conf "qos TRUE" "$@"
	cr_opensm_once -Q -R "$e" -D 0x47
	t=$(bench_routing_time "$CR_LOG" "$e")
}

results=$CR_DIR/results
: >"$results"
n=0
for arg in "$@"; do
	n=$((n + 1))
	case $arg in
	gen:*) fab=$(echo "${arg#gen:}" | tr -s ' ' '-') ;;
	*/* | *.*) fab=$(basename "$arg" | sed 's/\.[^.]*$//') ;;
	*) fab=$arg ;;
	esac
	topo=$CR_DIR/fabric$n.topo
	bench_fabric "$arg" "$topo"
	cr_ibsim_start "$topo"
	step cr-updn
	updn=$t
	step cr-auto
	fast=$t
	win=$(sed -n 's/.*cr-auto: fast step chose \([^ ]*\).*/\1/p' \
		"$CR_LOG" | tail -n 1)
	left=$(sed -n 's/.*; \([0-9]*\) candidate(s).* left to the improve step.*/\1/p' \
		"$CR_LOG" | tail -n 1)
	step cr-auto "croute_auto_background FALSE"
	both=$t
	limit=$(awk -v u="$updn" 'BEGIN {
		if (u == "-") print "-"; else printf "%.4f", 2 * u + 0.25 }')
	printf "%-10s %8s %8s %8s %6s %10s %s\n" "$fab" "$updn" "$fast" \
		"$limit" "$(bench_ratio "$fast" "$limit")" "$both" \
		"fast winner ${win:-?}, ${left:-?} left to the background" \
		>>"$results"
	cr_ibsim_stop
done

printf "%-10s %8s %8s %8s %6s %10s\n" fabric "updn s" "auto s" "limit s" \
	ratio "in-sweep s"
echo "(auto: cr-auto -Q, improve step in the background; in-sweep: both"
echo " steps in the sweep, croute_auto_background FALSE; limit: 2 x updn"
echo " + 0.25 s; ratio: auto / limit)"
cat "$results"
CR_STATUS=0
exit 0
