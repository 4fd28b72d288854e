#!/bin/sh
# OpenSM's built-in lash against cr-lash on the same fabric, in one ibsim
# run (same LIDs), with cr-minhop as the (deadlock-prone) bandwidth
# reference. For each: whether the engine routed the fabric or OpenSM fell
# back, the routing time from opensm's log ("building routing with 'X'" to
# "X tables configured on all switches"), the layers (VLs) used, and the
# average shift and bisect bandwidth as fractions of the injection rate
# (`croute estimate`; without it, bench/updn/shiftload.awk's flow count on
# opensm's dumps). Then
# cr-lash offline (`croute route`), whose summary line has its own time.
#
# usage: bench/lash/run.sh [croute gen arguments]
#   default: random --switches 32 --links 4 --hosts 2 --seed 1
#   bench/lash/run.sh torus 6 6 6 --hosts 1    built-in lash needs 9 VLs
#   bench/lash/run.sh random --switches 1000 --links 10 --hosts 1 --seed 1
# Environment: as tests/ibsim/lib.sh (top_builddir, top_srcdir,
# CR_TEST_TIMEOUT, CR_KEEP); CR_BENCH_REPEAT=N routes each configuration
# N times and reports the shortest routing time (default 1).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_init bench-lash
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- random --switches 32 --links 4 --hosts 2 --seed 1
topo=$CR_DIR/topo
cr_gen "$topo" "$@"

# layers LOG ENGINE: VLs the engine used, or what it said it needed.
layers() {
	case $2 in
	lash)
		awk '
		/Lanes needed: / { n = $0; sub(/.*Lanes needed: /, "", n)
				   sub(/,.*/, "", n) }
		/Lane requirements \(/ { n = $0; sub(/.*requirements \(/, "", n)
					sub(/\).*/, "", n); n = ">=" n }
		END { print (n == "" ? "-" : n) }' "$1" ;;
	cr-lash)
		awk '
		/cr-lash: .*routed over/ { n = $0; sub(/.*routed over /, "", n)
					   sub(/ .*/, "", n) }
		/cr-lash: the fabric needs / { n = $0
			sub(/.*fabric needs /, "", n); sub(/ .*/, "", n)
			if (n == "more") n = ">15"; else n = ">=" n }
		END { print (n == "" ? "-" : n) }' "$1" ;;
	*) echo 1 ;;
	esac
}

has_estimate=
"$CROUTE" help estimate >/dev/null 2>&1 && has_estimate=1

contention() {
	if [ -n "$has_estimate" ]; then
		# The summary table: "pattern phases flows avg min no-path".
		"$CROUTE" estimate -t "$topo" --lids "$CR_GUID2LID" \
			--lfts "$CR_DUMP/opensm-lfts.dump" \
			--pattern shift,bisect 2>/dev/null | awk '
			/^shift / && !s { s = $4 }
			/^bisect/ && !b { b = $4 }
			END { printf "shift %s  bisect %s", s, b }'
	elif [ -f "$top_srcdir/bench/updn/shiftload.awk" ]; then
		cr_host_lids "$CR_DUMP/opensm-subnet.lst" >"$CR_DIR/hosts"
		awk -f "$top_srcdir/bench/updn/shiftload.awk" "$CR_DIR/hosts" \
			"$CR_DUMP/opensm-subnet.lst" "$CR_DUMP/opensm-lfts.dump"
	else
		echo "-"
	fi
}

cr_ibsim_start "$topo"
results=$CR_DIR/results
: >"$results"
# name engine opensm.conf lines...
run() {
	name=$1
	engine=$2
	shift 2
	cr_conf "qos TRUE" "$@"
	best=
	i=0
	while [ $i -lt "${CR_BENCH_REPEAT:-1}" ]; do
		cr_opensm_once -Q -R "$engine" -D 0x47
		t=$(bench_routing_time "$CR_LOG" "$engine")
		best=$(awk -v a="$best" -v b="$t" 'BEGIN {
			print (a == "" || (b != "-" && b + 0 < a + 0)) ? b : a }')
		i=$((i + 1))
	done
	if grep -q ": $engine tables configured" "$CR_LOG"; then
		ok=yes
		load=$(contention)
	else
		ok="no (fell back)"
		load=-
	fi
	printf "%-10s %-15s %9s %7s  %s\n" "$name" "$ok" "$best" \
		"$(layers "$CR_LOG" "$engine")" "$load" >>"$results"
}
run lash lash
run cr-lash cr-lash
run cr-minhop cr-minhop
cr_ibsim_stop

echo "fabric: croute gen $*"
printf "%-10s %-15s %9s %7s  %s\n" engine routed "time (s)" layers \
	"bandwidth (of injection)"
cat "$results"
echo "offline:"
"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" --engine lash \
	-o /dev/null 2>&1 | tail -n 2

CR_STATUS=0
exit 0
