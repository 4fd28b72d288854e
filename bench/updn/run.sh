#!/bin/sh
# OpenSM's built-in updn against cr-updn on the same fabric, in one ibsim
# run (same LIDs): built-in updn, built-in updn with port_shifting, and
# cr-updn plain, with remote_guid_sorting, with port_shifting, with both.
# For each: routing time from opensm's own log ("building routing with
# 'X'" to "X tables configured on all switches"), and the shift pattern's
# contention over the hosts in natural order of their descriptions (leaf
# order for `croute gen` fabrics): shiftload.awk's flow count on opensm's
# dumps, and `croute estimate`'s summary when the command has it.
#
# usage: bench/updn/run.sh [croute gen arguments]
#   default: two-level --leaves 8 --hosts 8 --uplinks 8 --spines 8
#            --scramble 1 (a small scrambled director)
#   bench/updn/run.sh two-level --leaves 36 --hosts 18 --uplinks 18 \
#       --spines 18 --scramble 1      a 648-port director
#   bench/updn/run.sh ktree 4 3       a 3-level fat tree
# Environment: as tests/ibsim/lib.sh (top_builddir, top_srcdir,
# CR_TEST_TIMEOUT, CR_KEEP); CR_BENCH_REPEAT=N routes each configuration
# N times and reports the shortest routing time (default 3), and its ratio
# to built-in updn's (the machines are shared: compare ratios).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"
here=$top_srcdir/bench/updn

cr_init bench-updn
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- two-level --leaves 8 --hosts 8 --uplinks 8 \
	--spines 8 --scramble 1
topo=$CR_DIR/topo
cr_gen "$topo" "$@"

has_estimate=
"$CROUTE" help estimate >/dev/null 2>&1 && has_estimate=1

# The flow count always (it needs nothing but opensm's dumps), and the
# estimator's summary when `croute estimate` is there.
contention() {
	cr_host_lids "$CR_DUMP/opensm-subnet.lst" >"$CR_DIR/hosts"
	awk -f "$here/shiftload.awk" "$CR_DIR/hosts" \
		"$CR_DUMP/opensm-subnet.lst" "$CR_DUMP/opensm-lfts.dump"
	"$CROUTE" check -t "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" 2>/dev/null |
		awk '/^credit loops:/ { printf "%41scredit loops: %s VL(s)\n", "", $3 }'
	if [ -n "$has_estimate" ]; then
		"$CROUTE" estimate -t "$topo" --lids "$CR_GUID2LID" \
			--lfts "$CR_DUMP/opensm-lfts.dump" --pattern shift \
			2>/dev/null | awk '$1 == "shift" && NF >= 5 {
				printf "%41sestimate: shift avg %s min %s\n", "",
				       $4, $5
				exit
			}'
	fi
}

cr_ibsim_start "$topo"
results=$CR_DIR/results
: >"$results"
# run NAME ENGINE [opensm.conf lines...]: the best routing time of
# CR_BENCH_REPEAT sweeps, its ratio to built-in updn's, the contention.
run() {
	name=$1
	engine=$2
	shift 2
	cr_conf "$@"
	times=
	i=0
	while [ $i -lt "${CR_BENCH_REPEAT:-3}" ]; do
		cr_opensm_once -R "$engine" -D 0x47
		# OpenSM's updn finds no roots on tori and random fabrics
		# and falls back to min-hop: report it, with its credit loops.
		if ! grep -q ": $engine tables configured" "$CR_LOG"; then
			used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
				"$CR_LOG" | tail -n 1)
			name="$name (fell back to ${used:-?})"
			times=-
			break
		fi
		times="$times $(bench_routing_time "$CR_LOG" "$engine")"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	best=$(bench_min $times)
	[ "$engine" = updn ] && [ -z "${t_updn:-}" ] && t_updn=$best
	printf "%-22s %9s %6s  %s\n" "$name" "$best" \
		"$(bench_ratio "$best" "$t_updn")" "$(contention)" >>"$results"
}
t_updn=
run updn updn
run "updn port_shifting" updn "port_shifting TRUE"
run cr-updn cr-updn
run "cr-updn sorting" cr-updn "remote_guid_sorting TRUE"
run "cr-updn shifting" cr-updn "port_shifting TRUE"
run "cr-updn both" cr-updn "remote_guid_sorting TRUE" "port_shifting TRUE"
cr_ibsim_stop

echo "fabric: croute gen $*"
printf "%-22s %9s %6s  %s\n" engine "time (s)" "/updn" "shift contention"
cat "$results"

CR_STATUS=0
exit 0
