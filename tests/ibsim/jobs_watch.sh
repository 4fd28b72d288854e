#!/bin/sh
# The plugin's side of the jobs file (croute_jobs_file) in a real opensm:
# croute-slurm edits the file, the plugin's watcher notices (inotify, no
# signal) and writes PATH.state listing the jobs, and the prolog returns
# once it does; a file group can write is refused with an error line and
# nothing listed; readings are rate-limited (croute_jobs_min_interval);
# re-sweeps go on while the file changes all the time.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/jobslib.sh"

cr_init jobs_watch
HOOK=$top_srcdir/contrib/croute-slurm

jobs_fabric 2 4 2 2

# hook prolog|epilog ID [NODELIST]: croute-slurm as Slurm runs it.
hook() {
	CROUTE_OPENSM_CONF=$CR_CONF SLURM_SCRIPT_CONTEXT=$1_slurmctld \
		SLURM_JOB_ID=$2 SLURM_JOB_NODELIST=${3:-} "$HOOK"
}

# state_jobs: the job IDs the state file lists, sorted, on one line.
state_jobs() {
	sed -n 's/^jobs//p' "$STATE" 2>/dev/null | tr ' ' '\n' |
		grep . | sort -n | tr '\n' ' '
}

state_is() {
	[ "$(state_jobs)" = "$1" ]
}

# wait_state "ID ID " MESSAGE: until the state file lists exactly those.
wait_state() {
	i=0
	while ! state_is "$1"; do
		i=$((i + 1))
		[ $i -lt 300 ] || {
			cat "$STATE" 2>/dev/null
			cr_fail "$2 (state lists '$(state_jobs)', want '$1')"
		}
		sleep 0.1
	done
}

cr_log "=== jobs before opensm starts, read at its first routing"
cr_conf "croute_jobs_file $JOBS" "croute_jobs_wait 0"
hook prolog 11 'h[0001-0002]'
hook prolog 12 h0003,h0005
cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 0" \
	"croute_jobs_wait 10"
cr_opensm_start -R cr-minhop
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"
cr_wait_log "$CR_LOG" "watching $JOBS" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the plugin does not watch $JOBS"
wait_state "11 12 " "the first reading does not list the jobs"
[ "$(state_key routing)" = unchanged ] || cr_fail "no 'routing unchanged'"
[ "$(state_key file)" = ok ] || cr_fail "state: file is not ok"
[ "$(stat -c '%a %u' "$STATE")" = "644 0" ] || cr_fail "state file mode"

cr_log "=== a prolog returns once the state lists its job"
hook prolog 13 h0008
state_is "11 12 13 " ||
	cr_fail "the prolog of job 13 returned before the state listed it"
hook epilog 11
wait_state "12 13 " "job 11's end is not noticed"

# The file's first line is croute-slurm's comment.
cr_log "=== a bad line: a warning naming file and line, that job left out"
{
	cat "$JOBS"
	echo "x14 h0001"
	echo "15 h0002 h0003"
	echo "16 h0004 # a comment"
	echo "17"
} >"$JOBS.tmp.test"
mv "$JOBS.tmp.test" "$JOBS"
wait_state "12 13 16 " "bad lines"
cr_expect_log "$JOBS:4: not a job number first; that job is left out"
cr_expect_log "$JOBS:5: not 'JOBID NODELIST'; that job is left out"
cr_expect_log "$JOBS:7: not 'JOBID NODELIST'; that job is left out"
[ "$(state_key bad_lines)" = 3 ] || cr_fail "state: bad_lines"

cr_log "=== group-writable, then not owned by root: refused"
chmod 664 "$JOBS"
wait_state "" "a group-writable jobs file is used"
cr_expect_log "ERR.*$JOBS is owned by uid 0 with mode 0664: only a file owned by root"
[ "$(state_key file)" = refused ] || cr_fail "state: file is not refused"
chmod 644 "$JOBS"
wait_state "12 13 16 " "the file is not read again once fixed"
chown 1:1 "$JOBS"
wait_state "" "a jobs file not owned by root is used"
cr_expect_log "$JOBS is owned by uid 1 with mode 0644"
chown 0:0 "$JOBS"
wait_state "12 13 16 " "the file is not read again once root's"
ln -s "$JOBS" "$CR_DIR/jobs/link"
cr_conf "croute_jobs_file $CR_DIR/jobs/link" "croute_jobs_min_interval 0"
cr_sweep
STATE=$CR_DIR/jobs/link.state
wait_state "" "a symbolic link is followed"
cr_expect_log "cannot open $CR_DIR/jobs/link: .*; the jobs file is ignored"
[ "$(state_key file)" = refused ] || cr_fail "state: a link is not refused"
STATE=$JOBS.state

cr_log "=== the directory replaced: watched again"
cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 0"
cr_sweep
wait_state "12 13 16 " "back to the jobs file"
mv "$CR_DIR/jobs" "$CR_DIR/jobs.old"
mkdir "$CR_DIR/jobs"
printf '31 h0001\n' >"$JOBS"
wait_state "31 " "a new directory is not watched"
printf '32 h0002\n' >"$JOBS.tmp.test"
mv "$JOBS.tmp.test" "$JOBS"
wait_state "32 " "a change in the new directory is not seen"

cr_log "=== re-sweeps while 100,000-line files keep coming"
awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "%d h%04d\n", 100 + i, i % 8 + 1 }' \
	>"$CR_DIR/big"
touch "$CR_DIR/churn"
(
	n=0
	while [ -e "$CR_DIR/churn" ]; do
		n=$((n + 1))
		{
			cat "$CR_DIR/big"
			echo "$((900000 + n)) h0001"
		} >"$JOBS.tmp.churn"
		mv "$JOBS.tmp.churn" "$JOBS"
	done
) &
churn=$!
r0=$(state_key reading)
for i in 1 2 3; do
	cr_sweep
done
rm -f "$CR_DIR/churn"
wait "$churn"
r1=$(state_key reading)
cr_log "readings of the jobs file during 3 sweeps: $((r1 - r0)), last: $(state_key count) jobs"
[ "$r1" -gt "$r0" ] || cr_fail "no reading while the file changed"
i=0
while [ "$(state_key count)" != 100001 ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || cr_fail "the last 100,001-job file is not read"
	sleep 0.1
done

cr_log "=== croute_jobs_min_interval 3600: one reading, edits wait"
hook_conf() {
	cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 3600" \
		"croute_jobs_wait 0"
}
hook_conf
printf '21 h0001\n' >"$JOBS.tmp.test"
mv "$JOBS.tmp.test" "$JOBS"
cr_sweep
cr_expect_log "croute_jobs_min_interval 3600 s"
wait_state "21 " "the restarted watcher does not read the file"
r=$(state_key reading)
hook prolog 22 h0002
cr_sweep
[ "$(state_key reading)" = "$r" ] && state_is "21 " ||
	cr_fail "a reading within croute_jobs_min_interval"

cr_log "=== nonsense values: errors naming the key"
cr_conf "croute_jobs_file relative/jobs" "croute_jobs_threshold 1" \
	"croute_jobs_min_interval -1" "croute_jobs_wait 2.5" \
	"croute_jobs_file $CR_DIR/nodir/jobs"
cr_sweep
cr_conf "croute_jobs_file $JOBS.state"
cr_sweep
for k in "jobs_file 'relative/jobs'" "jobs_threshold '1'" \
	"jobs_min_interval '-1'" "jobs_wait '2.5'" \
	"jobs_file '$CR_DIR/nodir/jobs'" "jobs_file '$JOBS.state'"; do
	cr_expect_log "croute_$k is not valid"
done
cr_expect_log "$JOBS: no longer watched"

cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
cr_log "all OK"
exit 0
