#!/bin/sh
# croute_jobs_objective: the plugin tunes for the running jobs on the
# objective the key gives, as `croute route --jobs --jobs-objective` does
# (the first stage's tables: no refine stage here, jobs_refine.sh's).
# The objective chosen gives other tables than the default on this fabric
# and jobs (checked offline first, so the test fails if the key is
# ignored); the LFTs opensm installs are offline's for that objective. A
# value that does not parse is an error naming the key, and the default
# objective's tables are installed. Every daemon is stopped by its PID.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"
. "$top_srcdir/tests/ibsim/jobslib.sh"

cr_init jobs_objective

# 16 hosts on 4 leaves, 2 spines: 2:1, so where a job's flows cross the
# spines matters.
jobs_fabric 4 4 2 2
# Jobs A and B, written as croute-slurm writes the file.
printf '301 h[0001-0002,0005-0006]\n302 h[0003,0007,0009,0013]\n' \
	>"$JOBS.tmp" && chmod 644 "$JOBS.tmp" && mv "$JOBS.tmp" "$JOBS"
# Another objective than the default, one whose tables differ here.
OBJ="jobs:avg@4*0.8,alltoall:avg*0.2"

# offline NAME [OBJECTIVE]: `croute route -e minhop --jobs` on opensm's
# LIDs, normalised into NAME.want.
offline() {
	"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" -e minhop \
		--jobs "$JOBS" --jobs-refine 0 ${2:+--jobs-objective "$2"} \
		-o "$CR_DIR/$1.off" 2>"$CR_DIR/$1.err" ||
		cr_fail "$1: croute route: $(cat "$CR_DIR/$1.err")"
	cr_lfts_norm "$CR_DIR/$1.off" >"$CR_DIR/$1.want"
}

# run NAME CONF_LINE: opensm with that jobs objective line until the
# jobs' tables are in; the installed LFTs are left in NAME.now.
run() {
	rm -f "$STATE"
	cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 0" \
		"croute_jobs_threshold 0" "croute_jobs_refine 0" "$2"
	cr_opensm_start -R cr-minhop
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$1: opensm did not route"
	i=0
	until grep -q '^jobs.* 302\( \|$\)' "$STATE" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt $((CR_TIMEOUT * 10)) ] ||
			cr_fail "$1: the state file does not list the jobs"
		sleep 0.1
	done
	cr_quiet
	[ "$(state_key routing)" = tuned ] ||
		cr_fail "$1: routing $(state_key routing), not tuned"
	cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$1.lfts"
	cr_lfts_norm "$CR_DIR/$1.lfts" >"$CR_DIR/$1.now"
}

cr_log "=== croute_jobs_objective $OBJ"
run chosen "croute_jobs_objective $OBJ"
offline default
offline chosen "$OBJ"
cmp -s "$CR_DIR/default.want" "$CR_DIR/chosen.want" &&
	cr_fail "offline: $OBJ gives the default objective's tables here"
cr_same "$CR_DIR/chosen.want" "$CR_DIR/chosen.now" 10 \
	"the installed LFTs are not offline croute route --jobs-objective"
cr_reject_log "ERR CR"
cr_log "installed LFTs = offline croute route --jobs --jobs-objective"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"

cr_log "=== croute_jobs_objective nonsense: an error, the default used"
run bad "croute_jobs_objective jobs:nope"
cr_expect_log "croute_jobs_objective" "no error names croute_jobs_objective"
cr_same "$CR_DIR/default.want" "$CR_DIR/bad.now" 10 \
	"a bad croute_jobs_objective: the default objective's tables are not in"
cr_log "bad value: logged, installed LFTs = offline croute route --jobs"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
cr_log "all OK"
exit 0
