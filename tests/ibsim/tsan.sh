#!/bin/sh
# The plugin under ThreadSanitizer: a TSan-built libcroute.so (configure
# --enable-tsan, scripts/check's build-tsan/) in a real opensm, with the
# TSan runtime preloaded (opensm itself is not instrumented; TSan's
# interceptors still see its locks and threads). Re-sweeps (incremental
# runs: croute_incremental, the import reading the kept fabric again on
# the threads) follow each other while the contention estimate thread
# works on the previous routing, so the sweeper (log level, routing, dumps, temporary files) and
# the estimate thread (log, dump) run at once; then opensm stops, joining
# the thread. Then cr-auto, its improve step on a thread of its own while
# sweeps come, a changed configuration cancels it and opensm stops, the
# jobs file's watcher tuning beside it. Then the watcher alone: it tunes
# for the jobs while re-sweeps come, the file and a croute_jobs_* key
# change during a tuning, and opensm stops during one. No
# ThreadSanitizer report may name croute's code.
# Skipped in a build without TSan.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init tsan
nm -D "$CR_PLUGIN_DIR/libcroute.so" 2>/dev/null | grep -q __tsan_init ||
	cr_skip "libcroute.so is not built with --enable-tsan"
CR_PRELOAD=$(${CC:-gcc} -print-file-name=libtsan.so.2)
[ -f "$CR_PRELOAD" ] || CR_PRELOAD=$(${CC:-gcc} -print-file-name=libtsan.so)
[ -f "$CR_PRELOAD" ] || cr_skip "no TSan runtime (libtsan2)"
CR_TIMEOUT=${CR_TEST_TIMEOUT:-120}
# exitcode=0: opensm's own status is checked; the reports are read below.
TSAN_OPTIONS="log_path=$CR_DIR/tsan exitcode=0 report_signal_unsafe=0"
# ibsim's own use-after-free (tsan.supp says which) is not croute's race.
TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$top_srcdir/tests/ibsim/tsan.supp"
export TSAN_OPTIONS

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 6 --hosts 8 --uplinks 4 --spines 4 \
	--scramble 3
cr_ibsim_start "$topo"
# Patterns long enough under TSan that the next sweep comes while the
# thread still works; verbose, to see that it did (superseded).
# croute_incremental: the re-sweeps read the kept fabric again on the
# threads (import.c) and repair the kept run.
cr_conf "sweep_interval 0" "croute_estimate full" \
	"croute_patterns bisect:3000,alltoall" "croute_incremental TRUE"
CR_LOG_FLAGS=0x47
cr_opensm_start -R cr-updn,cr-minhop,minhop
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm with the TSan plugin did not route"
cr_expect_log "croute: cr-updn: routed"

# Each SIGHUP comes as soon as the previous sweep has routed: the
# estimate of that routing is still running.
for i in 1 2 3 4 5 6; do
	n=$(cr_count "$CR_DONE")
	pid=$(cr_opensm_pid)
	[ -n "$pid" ] || cr_fail "opensm is gone"
	kill -HUP "$pid"
	cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" \
		"$CR_OSM_PID" || cr_fail "no routing after SIGHUP $i"
done
# A routing by another engine while an estimate runs: its dump removal
# is queued behind it.
cr_conf "sweep_interval 0" "croute_estimate full" \
	"croute_patterns alltoall,shift,bisect:40" "croute_fail_engine all"
n=$(cr_count "$CR_DONE")
kill -HUP "$(cr_opensm_pid)"
cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no routing after the last SIGHUP"
cr_opensm_stop "$CR_TIMEOUT"
rc=$?
[ $rc = 0 ] || cr_fail "opensm with the TSan plugin exited with status $rc"
est_log=$CR_LOG

# The jobs file of the phases below, written as croute-slurm does.
mkdir -p "$CR_DIR/jobs"
JOBS=$CR_DIR/jobs/jobs
STATE=$JOBS.state
# put TEXT: the jobs file replaced as croute-slurm does, root's, 0644.
put() {
	printf '%s\n' "$1" >"$JOBS.tmp" && chmod 644 "$JOBS.tmp" &&
		mv "$JOBS.tmp" "$JOBS"
}
# jobs_conf MIN_INTERVAL: the keys of the jobs phase.
jobs_conf() {
	cr_conf "sweep_interval 0" "croute_jobs_file $JOBS" \
		"croute_jobs_min_interval $1" "croute_jobs_threshold 0" \
		"croute_jobs_objective jobs:avg@4*0.8,alltoall:avg*0.2"
}
JOBS_A="501 h[0001-0002,0009-0010,0017-0018]
502 h[0003,0011,0019,0025,0033,0041]"
JOBS_B="$JOBS_A
503 h[0004-0005,0028-0029]"
# cr-auto's improve step on its thread: sweeps come while it runs (a
# changed configuration cancels it and starts another), it asks for its
# own heavy sweep when it finds better tables, and opensm stops with one
# running, joining it; the estimate thread runs meanwhile, and the jobs
# file's watcher tunes for the jobs beside the improve step (their
# tables meet in the sweep, as tests/ibsim/jobs_auto.sh checks).
put "$JOBS_A"
cr_conf "sweep_interval 0" "croute_auto_budget 0.5" "croute_estimate full" \
	"croute_jobs_file $JOBS" "croute_jobs_min_interval 0"
cr_opensm_start -R cr-auto
STARTS="background: the improve step starts"
cr_wait_log "$CR_LOG" "$STARTS" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no improve step under TSan"
cr_conf "sweep_interval 0" "croute_auto_budget 0.6" "croute_estimate full" \
	"croute_jobs_file $JOBS" "croute_jobs_min_interval 0"
n=$(cr_count "$CR_DONE")
kill -HUP "$(cr_opensm_pid)"
cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no routing after the configuration changed"
cr_wait_log "$CR_LOG" "$STARTS" 2 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no improve step for the new configuration"
cr_wait_log "$CR_LOG" "background: (improvement found|nothing)" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "the improve step never ended"
n=$(cr_count "$CR_DONE")
kill -HUP "$(cr_opensm_pid)"
cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no routing after the last SIGHUP"
cr_opensm_stop "$CR_TIMEOUT"
rc=$?
[ $rc = 0 ] || cr_fail "opensm with cr-auto's thread exited with status $rc"
cr_expect_log "cancelled: the configuration changed" \
	"the configuration change did not cancel the improve step"

# The jobs file (croute_jobs_file): its watcher thread tunes the tables
# for the jobs (jobs_route.c) while re-sweeps come, on an objective read
# from the configuration each sweep reads again; the file changes while
# a tuning runs (read once it ends), a croute_jobs_* key changes while
# one runs (the sweeper cancels and joins the watcher), and opensm stops
# while one runs (cancelled, joined).
TUNING="jobs: tuning the tables for"
TOOK="jobs: the tuning took"
put "$JOBS_A"
jobs_conf 0
cr_opensm_start -R cr-minhop
cr_wait_log "$CR_LOG" "$TUNING" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no tuning for the jobs under TSan"
# Re-sweeps of the same fabric while the tuning runs: it goes on.
during=0
for i in 1 2 3; do
	n=$(cr_count "$CR_DONE")
	cr_hup
	cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" \
		"$CR_OSM_PID" || cr_fail "no routing after SIGHUP $i (jobs)"
	[ "$(cr_count "$TOOK")" = 0 ] && during=$((during + 1))
done
# The file changes while the first tuning runs: read once it ends.
put "$JOBS_B"
cr_wait_log "$CR_LOG" "$TUNING" 2 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the changed jobs file is not tuned for"
# A croute_jobs_* key changes while that tuning runs: the sweeper stops
# the watcher (cancel, join) and starts another, which tunes again.
jobs_conf 1
n=$(cr_count "$CR_DONE")
cr_hup
cr_wait_log "$CR_LOG" "$CR_DONE" $((n + 1)) "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "no routing after the jobs keys changed"
cr_expect_log "no longer watched \\(croute_jobs_\\* changed\\)"
# opensm stops while the restarted watcher tunes: cancelled, joined.
cr_wait_log "$CR_LOG" "$TUNING" 3 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the restarted watcher does not tune"
cr_opensm_stop "$CR_TIMEOUT"
rc=$?
[ $rc = 0 ] || cr_fail "opensm with the jobs watcher exited with status $rc"
stopped=$(cr_count "jobs: the tuning stopped: the tables changed or opensm")
cr_log "$during of 3 re-sweeps came while the first tuning ran;" \
	"$stopped of $(cr_count "$TUNING") tunings cancelled"
[ "$during" -ge 1 ] || cr_fail "no re-sweep came while a tuning ran"
# the key change's and the exit's (a tuning takes seconds under TSan)
[ "$stopped" -ge 2 ] || cr_fail "a tuning was not cancelled"
cr_ibsim_stop

sup=$(grep -c "superseded by a newer routing" "$est_log")
est=$(grep -c "croute: contention estimate (" "$est_log")
cr_log "$est estimate lines, $sup estimates superseded by a re-sweep"
[ "$sup" -ge 1 ] ||
	cr_fail "no estimate ran concurrently with a sweep (none superseded)"
[ "$est" -ge 1 ] || cr_fail "no estimate finished"

reports=$(cat "$CR_DIR"/tsan.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer")
cr_log "$reports ThreadSanitizer reports in all"
bad=0
for f in "$CR_DIR"/tsan.*; do
	[ -f "$f" ] || continue
	# A report's stacks name croute's files when croute is involved.
	if grep -qE "src/(core|plugin)/|libcroute" "$f"; then
		cr_log "ThreadSanitizer report involving croute: $f"
		sed -n '1,80p' "$f"
		bad=1
	fi
done
[ "$bad" = 0 ] || cr_fail "ThreadSanitizer found races in croute"
cr_log "no ThreadSanitizer report involves croute: OK"
exit 0
