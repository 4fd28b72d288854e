#!/bin/sh
# The plugin under valgrind: one opensm (not -o) routes the same fabric
# over several re-sweeps (SIGHUP), with links going down and up in ibsim
# (repaired by incremental runs, croute_incremental), hosts in a
# multicast group (croute's trees at every sweep), engine failures forced
# through the croute_fail_engine test hook (so the fall-through runs too)
# and its removal, then shuts down. valgrind must report no error and no
# leak whose stack goes through croute's code.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_need valgrind
cr_init valgrind
CR_TIMEOUT=${CR_TEST_TIMEOUT:-120}

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 4 --hosts 3 --uplinks 4 --spines 2 \
	--scramble 3
cr_ibsim_start "$topo"
# The same base at every sweep: only the test hook changes. Incremental
# runs on: the link faults below repair the kept full run's tables.
vconf() {
	cr_conf "lmc 1" "sweep_interval 0" "connect_roots TRUE" \
		"croute_incremental TRUE" "$@"
}
vconf

cr_valgrind_start -R cr-minhop,cr-updn,minhop
cr_expect_log "croute: cr-minhop: routed"

# Re-sweeps on an unchanged fabric.
cr_sweep
cr_sweep

# Every host joins the IPoIB broadcast group: from here on each sweep
# builds croute's multicast tree (src/plugin/mcast.c), over each new run.
awk '/^Ca[ \t]/ { want = 1 }
	want && /^\[1\]\(/ { g = $1; sub(/^\[1\]\(/, "", g); sub(/\).*/, "", g)
	g = sprintf("%16s", g); gsub(/ /, "0", g); print "0x" g; want = 0 }' \
	"$topo" >"$CR_DIR/members"
cr_osm_env "$top_builddir/tests/ibsim/mcjoin" ff12:401b:ffff::ffff:ffff \
	$(cat "$CR_DIR/members") >"$CR_DIR/join.out" 2>&1 || {
	cat "$CR_DIR/join.out"
	cr_fail "mcjoin failed"
}
cr_sweep
grep -qi '^0xc000' "$CR_DUMP/opensm.mcfdbs" ||
	cr_fail "no multicast tree for MLID 0xC000"

# A host and a spine link go down, then come back.
leaf=$(awk '/^Switch/ && /leaf/ { print $3; exit }' "$topo" | tr -d '"')
spine=$(awk '/^Switch/ && /spine/ { print $3; exit }' "$topo" | tr -d '"')
[ -n "$leaf" ] && [ -n "$spine" ] || cr_fail "no leaf or spine in $topo"
cr_ibsim_cmd "Unlink \"$leaf\"[1]"
cr_ibsim_cmd "Unlink \"$spine\"[1]"
cr_sweep
cr_expect_log "croute: cr-minhop: incremental run: " \
	"no incremental run after the link faults"
cr_ibsim_cmd "ReLink \"$leaf\""
cr_ibsim_cmd "ReLink \"$spine\""
cr_sweep

# Failures at every stage: the next engine of the list takes over.
for stage in import route export; do
	vconf "croute_fail_engine cr-minhop:$stage"
	cr_sweep
done
vconf "croute_fail_engine all"
cr_sweep
cr_expect_log " minhop tables configured on all switches" \
	"OpenSM's minhop never took over"
vconf "croute_bogus_key 1"
cr_sweep

routed=$(grep -E -c "croute: cr-minhop: routed" "$CR_LOG")
failed=$(grep -E -c "croute: ERR CR0[7A]: cr-.* failed after" "$CR_LOG")
cr_log "cr-minhop routed $routed times, croute engines failed $failed times"
[ "$routed" -ge 5 ] || cr_fail "cr-minhop routed only $routed times"
[ "$failed" -ge 4 ] || cr_fail "only $failed forced failures"
# Said once per opensm, not at every sweep.
n=$(grep -c "connect_roots is set, but croute" "$CR_LOG")
[ "$n" = 1 ] || cr_fail "the ignored connect_roots was reported $n times"

cr_valgrind_end
exit 0
