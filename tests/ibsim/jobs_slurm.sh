#!/bin/sh
# End to end: a real Slurm (tests/slurm/lib.sh) whose nodes are named like
# the hosts of an ibsim fabric routed by opensm with the plugin; the
# controller's prolog and epilog are croute-slurm. A job submitted with
# sbatch starts only after the plugin's state file lists it (the prolog
# waited for it, said so in syslog), with the node list Slurm gave it in
# the jobs file; its end takes it out; Slurm going down leaves opensm
# sweeping.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/slurm/lib.sh"
. "$top_srcdir/tests/ibsim/jobslib.sh"

cr_init jobs_slurm
slurm_init jobs_slurm

# Hosts h0001..h0008: Slurm's node names.
jobs_fabric 2 4 2 2
# Readings 5 s apart: a prolog right after one waits for the next.
cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 5" \
	"croute_jobs_wait 20"
cr_opensm_start -R cr-minhop
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"
cr_wait_log "$CR_LOG" "watching $JOBS" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the plugin does not watch $JOBS"
for h in h0002 h0005 h0007; do
	grep -qx "$h" "$CR_DUMP/croute-hosts.dump" ||
		cr_fail "the fabric has no host $h"
done

syslog=1
slurm_syslog_start || syslog=
slurm_start 8

cr_log "=== a job on h0002,h0005,h0007, just after a reading"
r=$(state_key reading)
CROUTE_OPENSM_CONF=$CR_CONF SLURM_SCRIPT_CONTEXT=epilog_slurmctld \
	SLURM_JOB_ID=999999 "$top_srcdir/contrib/croute-slurm"
i=0
while [ "$(state_key reading)" = "$r" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || cr_fail "no reading after an epilog"
	sleep 0.1
done
# The job itself says whether the state listed it when it started.
J=$(slurm_sbatch -w h0002,h0005,h0007 -N 3 --wrap "
	if sed -n 's/^jobs//p' '$STATE' | tr ' ' '\n' |
		grep -qx \$SLURM_JOB_ID; then
		echo listed; else echo missing; fi >'$CR_DIR/start.'\$SLURM_JOB_ID
	while [ ! -e '$CR_DIR/end' ]; do sleep 0.2; done")
slurm_wait_state "$J" RUNNING 40 || cr_fail "job $J does not run"
grep -qx "$J h\[0002,0005,0007\]" "$JOBS" ||
	cr_fail "the jobs file lacks job $J with Slurm's node list"
slurm_wait 20 test -s "$CR_DIR/start.$J" || cr_fail "job $J's script did not run"
[ "$(cat "$CR_DIR/start.$J")" = listed ] ||
	cr_fail "job $J started before the state file listed it"
# The prolog waited for the state file, not for its time to run out.
if [ -n "$syslog" ]; then
	slurm_wait 10 grep -q "job $J: routes for the job in place" \
		"$SLURM_SYSLOG" ||
		cr_fail "the prolog of job $J did not see its job in the state"
	cr_log "$(grep "job $J:" "$SLURM_SYSLOG" | sed 's/^<[0-9]*>//' |
		tr '\n' ' ')"
fi
grep -q "JobId=$J is complete" "$SLURM_DIR/log/slurmctld.log" ||
	cr_fail "slurmctld did not log job $J's prolog done"

cr_log "=== its end"
touch "$CR_DIR/end"
slurm_wait_state "$J" COMPLETED 40 || cr_fail "job $J does not end"
i=0
while state_lists "$J"; do
	i=$((i + 1))
	[ $i -lt 300 ] || cr_fail "job $J's end is not in the state file"
	sleep 0.1
done

cr_log "=== Slurm down: opensm sweeps on"
slurm_stop
cr_sweep
cr_expect_log "cr-minhop tables configured on all switches"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
cr_log "all OK"
exit 0
