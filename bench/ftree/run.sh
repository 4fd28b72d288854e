#!/bin/sh
# OpenSM's built-in ftree against cr-ftree on the same fabric, in one ibsim
# run (same LIDs): routing time of each, from opensm's own log ("building
# routing with 'X'" to "X tables configured on all switches", so both
# include everything the engine does), then reachability, minimal paths
# and credit loops of each by `croute check`, the shift and bisect averages
# of each by `croute estimate` (hosts in generator order: leaf by leaf, the
# order both engines index; up to 64 sampled shift phases), and the
# offline time of `croute route -e ftree` on the same topology.
#
# usage: bench/ftree/run.sh [croute gen arguments]   (default: ktree 8 3)
#   bench/ftree/run.sh ktree 16 3    4096 hosts, 768 switches
# Environment: as tests/ibsim/lib.sh (top_builddir, top_srcdir,
# CR_TEST_TIMEOUT, CR_KEEP).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_init bench-ftree
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- ktree 8 3
topo=$CR_DIR/topo
cr_gen "$topo" "$@"

cr_conf
cr_ibsim_start "$topo"
for e in ftree cr-ftree; do
	cr_opensm_once -R "$e" -D 0x47
	cr_expect_log ": $e tables configured" "$e did not route the fabric"
	eval "time_$(echo "$e" | tr - _)=$(bench_routing_time "$CR_LOG" "$e")"
	cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/lfts-$e"
	"$CROUTE" check -t "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DIR/lfts-$e" --max-report 3 \
		>"$CR_DIR/check-$e.out" 2>&1
	"$CROUTE" estimate -q -t "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DIR/lfts-$e" --pattern shift,bisect --phases 64 \
		>"$CR_DIR/estimate-$e.out" 2>&1
done
cr_ibsim_stop

offline=$( { "$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" -e ftree \
	-o /dev/null; } 2>&1 | tail -n 1)

echo "fabric: croute gen $*"
printf "%-10s %12s %6s %6s  %s\n" engine "routing (s)" shift bisect check
for e in ftree cr-ftree; do
	v=$(eval "echo \$time_$(echo "$e" | tr - _)")
	est=$(awk '$1 ~ /^(shift|bisect)(:|$)/ { a[$1 ~ /^b/] = $4 }
		END { printf "%6s %6s", a[0] ? a[0] : "?", a[1] ? a[1] : "?" }' \
		"$CR_DIR/estimate-$e.out")
	printf "%-10s %12s %s  %s\n" "$e" "$v" "$est" "$(awk '
		/unreachable:/ { u = $2 } /non-minimal/ { m = $3 }
		/credit loops:/ { c = $3 } /result:/ { r = $2 }
		END { printf "unreachable %s, non-minimal %s, credit loops %s: %s",
		      u, m, c, r }' "$CR_DIR/check-$e.out")"
done
echo "ratio cr-ftree/ftree: $(bench_ratio "$time_cr_ftree" "$time_ftree")"
echo "offline croute route -e ftree: $offline"

CR_STATUS=0
exit 0
