#!/bin/sh
# croute_incremental in opensm, under ibsim: per engine, one opensm (not
# -o) routes the fabric in full, then one cable between the last leaf
# with hosts and its first upper switch fails through ibsim's console
# (an incremental run), then comes back (an incremental run that must
# give the original LFTs byte for byte), then the same fabric is routed
# in full again (croute_incremental FALSE and a SIGHUP: a later sweep,
# like the incremental ones). Reports croute's own times of that full run
# and of the incremental one (import, route, install; its log; the route
# step of a full run with the key on also keeps the base: its first
# sweep's time is in the log), their ratios, the churn
# the plugin logged, and whether the repair restored the tables (LFT
# dumps compared; "log" when OpenSM wrote none: the repair run reused the
# full run's tables without choosing any entry again).
#
# The contention estimate is off (croute_estimate none): its thread would
# still be busy with the previous run when the next sweep routes.
#
# usage: bench/churn/incremental-ibsim.sh [croute gen arguments]
#        (default: fat-tree 16; fat-tree 48 needs some 10 GB and long)
# Environment: as tests/ibsim/lib.sh; CR_INCR_ENGINES (default
# "cr-minhop cr-updn"); CR_SETTLE_HUP (default 120): seconds to wait
# for the sweep a change brings before a SIGHUP. CR_LOG_FLAGS without
# 0x40 (e.g. 0x03): OpenSM writes no dumps, so croute writes no hop rows
# (croute_mcast_trees), as on a production SM; the repair is then judged
# by the plugin's log.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_init bench-incr
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
# A heavy sweep of fat-tree 48 reaches the routing 10-30 s after the
# trap: a SIGHUP sooner would land in the sweep being timed.
CR_SETTLE_HUP=${CR_SETTLE_HUP:-120}
[ $# -gt 0 ] || set -- fat-tree 16
genargs=$*
topo=$CR_DIR/topo
cr_gen "$topo" "$@"
links=$CR_DIR/links
cr_topo_links "$topo" >"$links"
cr_fault_pick "$topo" "$links"
nsw=$(grep -c '^Switch' "$topo")
leaf=$cr_leaf up=$cr_up

cr_ibsim_start "$topo"
cr_conf "croute_incremental TRUE" "sweep_interval 0" "croute_estimate none"

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b + 0 <= 0) print "-"; else printf "%.3f", a / b }'
}

# dump_ready: OpenSM's LFT dump is newer than $CR_DIR/mark, no longer
# grows and holds every switch's table ("N lids dumped" once a switch:
# fat-tree 48 writes 6 GB, with pauses, after the run is logged); gives
# up after 20 minutes.
dumps=$(((CR_LOG_FLAGS & 0x40) != 0))
dump_ready() {
	[ "$dumps" = 1 ] || return 1
	f=$CR_DUMP/opensm-lfts.dump prev=-1 i=0
	while [ $i -lt 600 ]; do
		i=$((i + 1))
		if [ "$f" -nt "$CR_DIR/mark" ]; then
			size=$(stat -c %s "$f")
			[ "$size" = "$prev" ] &&
				[ "$(grep -c 'lids dumped$' "$f")" = "$nsw" ] &&
				return 0
			prev=$size
		fi
		sleep 2
	done
	return 1
}

# up_clean: the sweep of the last routing run ended with "SUBNET UP".
# OpenSM writes its dumps (minutes at fat-tree 48) before that line, and
# none after a sweep with errors ("Errors during initialization": MADs
# lost under ibsim at fat-tree 48), when the dump on disk stays an
# earlier sweep's. Such a sweep is swept again (SIGHUP) until one ends
# clean, up to 5 times.
up_clean() {
	t=0
	while :; do
		i=0
		while :; do
			last=$(awk -v d="$CR_DONE" -v u="$CR_UP" '
				$0 ~ d { l = "" } $0 ~ u { l = $0 }
				END { print l }' "$CR_LOG")
			[ -n "$last" ] && break
			[ $i -lt $((CR_TIMEOUT * 5)) ] ||
				cr_fail "the sweep did not end"
			kill -0 "$CR_OSM_PID" 2>/dev/null ||
				cr_fail "opensm is gone"
			sleep 0.2
			i=$((i + 1))
		done
		case $last in
		*"SUBNET UP"*) return 0 ;;
		esac
		t=$((t + 1))
		[ $t -le 5 ] || cr_fail "no clean sweep after 5 tries"
		cr_log "the sweep ended with errors: sweeping again ($t)"
		cr_resweep
	done
}

# run_times ENGINE: "total import route install" of the last routing run.
run_times() {
	sed -n "s/.*croute: $1: routed [0-9]* switches, [0-9]* LIDs in \([0-9.]*\) ms (import \([0-9.]*\), route \([0-9.]*\), install \([0-9.]*\)).*/\1 \2 \3 \4/p" \
		"$CR_LOG" | tail -n 1
}

printf '%-10s %9s %9s %9s %9s %9s %9s %7s %7s %9s %5s\n' engine full_ms \
	f_route f_inst incr_ms i_route i_inst ratio r_ratio churn back \
	>"$CR_DIR/table"
for e in ${CR_INCR_ENGINES:-cr-minhop cr-updn}; do
	touch "$CR_DIR/mark"
	cr_opensm_start -R "$e"
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$e: opensm did not route"
	cr_quiet
	up_clean
	# OpenSM may not have written its LFT dump (fat-tree 48 under load):
	# then the repair is judged by the plugin's log (below).
	rm -f "$CR_DIR/$e-orig.norm"
	dump_ready &&
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$e-orig.norm"
	set -- $(run_times "$e")
	full=$1 froute=$3 finst=$4
	n=$(cr_count "$CR_DONE")
	touch "$CR_DIR/mark"
	cr_ibsim_cmd "Unlink \"$leaf\"[$up]"
	cr_settle "$n"
	grep -E -q "croute: $e: routed .*, incremental(;|\$)" "$CR_LOG" ||
		cr_fail "$e: the fault was not routed incrementally"
	set -- $(run_times "$e")
	incr=$1 iroute=$3 iinst=$4
	churn=$(sed -n "s/.*croute: $e: incremental run: churn \([0-9]*\).*/\1/p" \
		"$CR_LOG" | tail -n 1)
	grep "croute: $e: incremental run: [0-9]" "$CR_LOG" | tail -n 1 |
		sed 's/.*incremental run: /  /'
	# The fault sweep's dump must be complete before the mark: else the
	# repair's check may read it (6 GB at fat-tree 48, written for
	# minutes after the run).
	up_clean
	[ "$dumps" = 0 ] || dump_ready || cr_log "no LFT dump after the fault"
	n=$(cr_count "$CR_DONE")
	sleep 1
	touch "$CR_DIR/mark"
	cr_ibsim_cmd "ReLink \"$leaf\"[$up]"
	cr_settle "$n"
	up_clean
	grep -E "croute: $e: incremental run: (the full|[0-9])" "$CR_LOG" |
		tail -n 1 |
		sed 's/.*incremental run: /  repair: /'
	back=NO
	if [ -s "$CR_DIR/$e-orig.norm" ]; then
		dump_ready
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$e-back.norm"
		cmp -s "$CR_DIR/$e-orig.norm" "$CR_DIR/$e-back.norm" && back=yes
	elif grep "croute: $e: incremental run: the full run's fabric again" \
		"$CR_LOG" | tail -n 1 | grep -q " 0 entries of 0 LIDs"; then
		# The base's tables, untouched (tests/unit/test_incremental).
		back=log
	fi
	# A full run on a later sweep of the same fabric, for a fair install
	# time (the first sweep also allocates OpenSM's hop rows).
	cr_conf "croute_incremental FALSE" "sweep_interval 0" "croute_estimate none"
	cr_resweep
	set -- $(run_times "$e")
	full=$1 froute=$3 finst=$4
	cr_conf "croute_incremental TRUE" "sweep_interval 0" "croute_estimate none"
	cr_opensm_stop
	printf '%-10s %9s %9s %9s %9s %9s %9s %7s %7s %9s %5s\n' "$e" "$full" \
		"$froute" "$finst" "$incr" "$iroute" "$iinst" \
		"$(ratio "$incr" "$full")" "$(ratio "$iroute" "$froute")" \
		"$churn" "$back" \
		>>"$CR_DIR/table"
done
cr_ibsim_stop

echo "--- croute_incremental in opensm: $(grep -c '^Switch' "$topo")" \
	"switches, $(grep -c '^Ca' "$topo") hosts (croute gen $genargs);" \
	"fault: $leaf port $up"
cat "$CR_DIR/table"
exit 0
