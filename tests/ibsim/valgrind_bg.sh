#!/bin/sh
# The plugin's background thread under valgrind: one opensm (not -o) with
# cr-auto improving in the background over several heavy sweeps (SIGHUP):
# the same fabric (the tables installed again, or the improvement kept),
# a link fault repaired by croute_incremental while a step may run, the
# link back, then croute_optimize after cr-updn on the thread, and a
# shutdown with a step likely running. valgrind must report no error and
# no leak whose stack goes through croute's code.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_need valgrind
cr_init valgrind_bg
CR_TIMEOUT=${CR_TEST_TIMEOUT:-180}

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 4 --hosts 3 --uplinks 4 --spines 2
cr_ibsim_start "$topo"
# minhop candidates: croute_incremental repairs them
vconf() {
	cr_conf "sweep_interval 0" "croute_incremental TRUE" \
		"croute_auto_candidates minhop+ps,minhop" \
		"croute_auto_allow_credit_loops TRUE" \
		"croute_auto_budget 0.2" "$@"
}
vconf

cr_valgrind_start -R cr-auto,cr-updn
cr_expect_log "cr-auto: fast step chose "
cr_wait_log "$CR_LOG" "background: (improvement found|nothing|the improve step gave up|gave up)" \
	1 "$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "the improve step never ended"
cr_sweep
cr_sweep

leaf=$(awk '/^Switch/ && /leaf/ { print $3; exit }' "$topo" | tr -d '"')
[ -n "$leaf" ] || cr_fail "no leaf in $topo"
cr_ibsim_cmd "Unlink \"$leaf\"[1]"
cr_sweep
cr_ibsim_cmd "ReLink \"$leaf\""
cr_sweep

# croute_optimize after cr-updn, on the thread: cr-auto fails by the test
# hook, cr-updn routes and its pass runs after the sweep.
vconf "croute_fail_engine cr-auto" "croute_optimize TRUE" \
	"croute_optimize_budget 0.2"
cr_sweep
# The worker may still be ending the improve step this sweep cancelled:
# the pass is queued behind it.
cr_wait_log "$CR_LOG" "background: the improvement pass starts" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "no background pass after cr-updn"
vconf
cr_sweep

cr_valgrind_end
exit 0
