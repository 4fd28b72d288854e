#!/bin/sh
# The refine stage (croute_jobs_refine) in a real opensm under ibsim:
#   - with croute_jobs_refine 0, the installed LFTs are offline `croute
#     route --jobs --jobs-refine 0`'s (the first stage's);
#   - with a refine budget, the first stage's tables go in first, then
#     the refined ones, and the installed LFTs are offline `croute route
#     --jobs --jobs-refine N`'s; the change between the two passes
#     `croute check --transition`. The two offline answers differ here
#     (checked first, so the test fails if the refine stage is ignored);
#   - new jobs stop a refine stage under way, and their own first stage
#     follows; unloading stops one too.
# Every daemon is stopped by its PID.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"
. "$top_srcdir/tests/ibsim/jobslib.sh"

cr_init jobs_refine

# 64 hosts on 8 leaves, 4 spines: 2:1, and enough hosts that the first
# stage's budget ends before the pass runs out of moves.
jobs_fabric 8 8 4 4
# jobs JOBS...: the jobs file, written as croute-slurm writes it.
jobs() {
	printf '%s\n' "$@" >"$JOBS.tmp" && chmod 644 "$JOBS.tmp" &&
		mv "$JOBS.tmp" "$JOBS"
}
# A fragmented mix, as a busy machine's first-fit allocator leaves it.
jobs '1190 h[0003-0006]' '1193 h[0008-0010]' '1194 h[0011,0013,0037,0039]' \
	'1198 h[0020-0021,0023,0027]' \
	'1206 h[0015,0017,0022,0028-0029,0036,0038,0040-0044]' \
	'1207 h[0045-0052]' \
	'1211 h[0001-0002,0007,0012,0019,0032-0033,0035,0053-0060]' \
	'1212 h[0014,0016,0018,0024]'
cp "$JOBS" "$CR_DIR/jobs.mix"
REFINE=2
# Thresholds 0: any gain goes in, so that both stages are installed.
CONF="croute_jobs_file $JOBS|croute_jobs_min_interval 1|croute_jobs_threshold 0|croute_jobs_refine_threshold 0"

# offline NAME REFINE: `croute route -e minhop --jobs --jobs-refine` on
# opensm's LIDs, normalised into NAME.want.
offline() {
	"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" -e minhop \
		--jobs "$CR_DIR/jobs.mix" --jobs-refine "$2" \
		-o "$CR_DIR/$1.off" 2>"$CR_DIR/$1.err" ||
		cr_fail "$1: croute route: $(cat "$CR_DIR/$1.err")"
	cr_lfts_norm "$CR_DIR/$1.off" >"$CR_DIR/$1.want"
}

# start REFINE: opensm with that croute_jobs_refine, until it routed.
start() {
	rm -f "$STATE"
	old_ifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086
	cr_conf $CONF "croute_jobs_refine $1"
	IFS=$old_ifs
	cr_opensm_start -R cr-minhop
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "opensm did not route"
}

# routing_is WHAT: wait until the state file lists job 1212 with that
# routing.
routing_is() {
	i=0
	until grep -q '^jobs.* 1212\( \|$\)' "$STATE" 2>/dev/null &&
		[ "$(state_key routing)" = "$1" ]; do
		i=$((i + 1))
		[ $i -lt $((CR_TIMEOUT * 10)) ] || {
			cat "$STATE" 2>/dev/null
			cr_fail "the state file does not say routing $1"
		}
		sleep 0.1
	done
}

# installed NAME: the LFTs opensm wrote last, kept as NAME.lfts.
installed() {
	cr_quiet
	cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$1.lfts"
	cr_lfts_norm "$CR_DIR/$1.lfts" >"$CR_DIR/$1.now"
}

cr_log "=== croute_jobs_refine 0: the first stage's tables"
start 0
routing_is tuned
installed first
offline first 0
offline refined "$REFINE"
cmp -s "$CR_DIR/first.want" "$CR_DIR/refined.want" &&
	cr_fail "offline: --jobs-refine $REFINE gives the first stage's tables"
cr_same "$CR_DIR/first.want" "$CR_DIR/first.now" 10 \
	"the installed LFTs are not offline croute route --jobs-refine 0"
cr_reject_log "jobs: refining"
cr_reject_log "ERR CR"
cr_log "installed LFTs = offline croute route --jobs --jobs-refine 0"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"

cr_log "=== croute_jobs_refine $REFINE: first stage, then the refined tables"
start "$REFINE"
routing_is refined
installed refined
cr_same "$CR_DIR/refined.want" "$CR_DIR/refined.now" 10 \
	"the installed LFTs are not offline croute route --jobs-refine $REFINE"
# the first stage went in before the refine stage ran
awk '/jobs: installing the tables just tuned/ { if (!i) i = NR }
	/jobs: refining the tables for/ { if (!r) r = NR }
	/jobs: a heavy sweep requested to install the refined/ { s = NR }
	END { exit !(i && r && s && i < r && r < s) }' "$CR_LOG" ||
	cr_fail "not: first stage installed, then refined, then installed"
cr_expect_log "cr-minhop: jobs: the refine stage took"
"$CROUTE" check -t "$topo" --lids "$CR_GUID2LID" --transition \
	"$CR_DIR/first.lfts" "$CR_DIR/refined.lfts" >"$CR_DIR/tr.out" 2>&1 || {
	cat "$CR_DIR/tr.out"
	cr_fail "the refine stage's change fails croute check --transition"
}
# a heavy sweep keeps the refined tables
cr_resweep
installed refined2
cr_same "$CR_DIR/refined.now" "$CR_DIR/refined2.now" 10 \
	"a heavy sweep lost the refined tables"
cr_reject_log "ERR CR"
cr_log "installed LFTs = offline croute route --jobs --jobs-refine $REFINE"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"

cr_log "=== new jobs stop a refine stage under way; unloading stops one"
# A budget the refine stage cannot finish within the test.
start 3600
cr_wait_log "$CR_LOG" "jobs: refining the tables for 8 jobs" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "no refine stage started"
jobs '1190 h[0003-0006]' '1207 h[0045-0052]' '1212 h[0014,0016,0018,0024]'
cr_wait_log "$CR_LOG" "jobs: the refine stage stopped" 1 "$CR_TIMEOUT" \
	"$CR_OSM_PID" || cr_fail "new jobs did not stop the refine stage"
cr_wait_log "$CR_LOG" "jobs: tuning the tables for 3 jobs" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "the new jobs were not tuned for"
cr_wait_log "$CR_LOG" "jobs: refining the tables for 3 jobs" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the new jobs' refine stage did not start"
cr_opensm_stop || cr_fail "opensm did not exit cleanly during a refine"
[ "$(grep -c 'jobs: the refine stage stopped' "$CR_LOG")" = 2 ] ||
	cr_fail "unloading did not stop the refine stage"
cr_reject_log "ERR CR"
cr_ibsim_stop
cr_log "all OK"
exit 0
