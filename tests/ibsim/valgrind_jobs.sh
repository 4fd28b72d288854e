#!/bin/sh
# The routing for the running jobs under valgrind: one opensm (not -o)
# with cr-minhop and a jobs file written as croute-slurm writes it (no
# Slurm: tests/ibsim/jobs_route.sh has it): jobs worth tuning for, their
# tables installed by the requested sweep, a sweep that reinstalls them,
# a job's end, a cable pulled (a new base, tuned again), an unreadable
# file, and a shutdown right after a change of the jobs (a tuning may
# run). valgrind must report no error and no leak whose stack goes
# through croute's code.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_need valgrind
cr_init valgrind_jobs
CR_TIMEOUT=${CR_TEST_TIMEOUT:-180}

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 4 --hosts 4 --uplinks 2 --spines 2
cr_ibsim_start "$topo"

mkdir -p "$CR_DIR/jobs"
JOBS=$CR_DIR/jobs/jobs
# put TEXT: the jobs file replaced atomically, root's, 0644.
put() {
	printf '%s\n' "$1" >"$JOBS.tmp" && chmod 644 "$JOBS.tmp" &&
		mv "$JOBS.tmp" "$JOBS"
}

# The first stage only: the counts of installs below are its.
cr_conf "sweep_interval 0" "croute_jobs_file $JOBS" \
	"croute_jobs_min_interval 0" "croute_jobs_refine 0"
put "101 h[0001-0002,0005-0006]"
cr_valgrind_start -R cr-minhop
INSTALLED="jobs: installing the tables just tuned"
DECIDED="cr-minhop: jobs: (the installed tables are those|.*the installed tables stay|a heavy sweep requested)"
cr_wait_log "$CR_LOG" "$DECIDED" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no decision on the first jobs"

put "101 h[0001-0002,0005-0006]
102 h[0003,0007,0009,0013]"
cr_wait_log "$CR_LOG" "$INSTALLED" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the jobs' tables were not installed"
cr_sweep
cr_expect_log "jobs: installing the tables tuned before"

# job 102 ends: the engine's tables come back
put "101 h[0001-0002,0005-0006]"
cr_wait_log "$CR_LOG" "$INSTALLED" 2 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the end of job 102 did not bring the tables back"

put "101 h[0001-0002,0005-0006]
102 h[0003,0007,0009,0013]"
cr_wait_log "$CR_LOG" "$INSTALLED" 3 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the jobs' tables were not installed again"
decided=$(cr_count "$DECIDED")
cr_ibsim_cmd "Unlink \"S-0002c90200000000\"[4]"
cr_sweep
cr_wait_log "$CR_LOG" "$DECIDED" $((decided + 1)) "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the new fabric was not tuned for the jobs"

# a file group can write: refused, read as no jobs
chmod 664 "$JOBS"
cr_wait_log "$CR_LOG" "ERR CR35" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "a group-writable jobs file is not refused"
chmod 644 "$JOBS"
put "103 h[0001-0016]"
cr_valgrind_end
exit 0
