#!/bin/sh
# OpenSM's built-in minhop against cr-minhop on the same fabric, in one
# ibsim run: routing time of each from opensm's verbose log (best of
# CR_BENCH_REPEAT runs, default 3) and their ratio, `croute check` of each
# routing, and the offline time of `croute route -e minhop`.
#
# usage: bench/minhop/run.sh [croute gen arguments]
#   default: ktree 12 3 (1728 hosts, 432 switches)
# Environment: as tests/ibsim/lib.sh (top_builddir, top_srcdir, CR_KEEP).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_init bench-minhop
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
repeat=${CR_BENCH_REPEAT:-3}
[ $# -gt 0 ] || set -- ktree 12 3
topo=$CR_DIR/topo
cr_gen "$topo" "$@"

cr_conf
cr_ibsim_start "$topo"
for e in minhop cr-minhop; do
	times=
	i=0
	while [ $i -lt "$repeat" ]; do
		cr_opensm_once -R "$e" -D 0x47
		cr_expect_log ": $e tables configured" "$e did not route"
		times="$times $(bench_routing_time "$CR_LOG" "$e")"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	eval "t_$(echo "$e" | tr - _)=$(bench_min $times)"
	"$CROUTE" check -t "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/check-$e" 2>&1
	eval "c_$(echo "$e" | tr - _)=\"$(awk '
		/^unreachable:/ { u = $2 } /^credit loops:/ { c = $3 }
		/^hops:/ { h = $0; sub(/^hops: */, "", h) }
		END { printf "unreachable %s, VLs with credit loops %s, hops %s",
		      u, c, h }' "$CR_DIR/check-$e")\""
done
cr_ibsim_stop

start=$(date +%s.%N)
"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" -e minhop -o /dev/null \
	2>/dev/null
offline=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.3f", $1 - $2 }')

echo "fabric: croute gen $*"
printf "%-10s %12s  %s\n" engine "routing (s)" "croute check"
printf "%-10s %12s  %s\n" minhop "$t_minhop" "$c_minhop"
printf "%-10s %12s  %s\n" cr-minhop "$t_cr_minhop" "$c_cr_minhop"
echo "ratio cr-minhop/minhop: $(bench_ratio "$t_cr_minhop" "$t_minhop")"
echo "offline croute route -e minhop (whole command): $offline s"
CR_STATUS=0
exit 0
