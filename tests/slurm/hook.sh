#!/bin/sh
# croute-slurm as a real Slurm's PrologSlurmctld and EpilogSlurmctld
# (tests/slurm/lib.sh: slurmctld, one slurmd per node, munge): jobs
# submitted at once on named nodes are each in the jobs file with the node
# list Slurm gave them while they run, and gone when they end; prologs
# that run together lose no line; a jobs file that cannot be written or a
# bad croute_jobs_wait still lets the job run; what the hook did is in
# syslog. No opensm here: the prolog waits croute_jobs_wait for a state
# file that never comes (tests/ibsim/jobs_slurm.sh has the plugin).
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/slurm/lib.sh"

HOOK=$top_srcdir/contrib/croute-slurm

slurm_init hook
JOBS_DIR=$SLURM_DIR/jobs
JOBS=$JOBS_DIR/jobs
mkdir -p "$JOBS_DIR"
# Slurm's prologs run one after another per job; 0: return at once.
echo "croute_jobs_file $JOBS # the jobs" >"$SLURM_OSM_CONF"
echo "croute_jobs_wait 0" >>"$SLURM_OSM_CONF"
slurm_syslog_start || slurm_log "no python3: syslog lines not checked"
slurm_start 8

# jobs_listed: the jobs file's jobs, "ID NODELIST" sorted.
jobs_listed() {
	grep -v '^#' "$JOBS" 2>/dev/null | LC_ALL=C sort
}

# running: what Slurm runs, as the same lines.
running() {
	squeue -h -t R -o '%A %N' | LC_ALL=C sort
}

same_as_slurm() {
	running >"$SLURM_DIR/out/running"
	jobs_listed >"$SLURM_DIR/out/listed"
	cmp -s "$SLURM_DIR/out/running" "$SLURM_DIR/out/listed"
}

expect_same() {
	slurm_wait 20 same_as_slurm || {
		echo "Slurm runs:"
		cat "$SLURM_DIR/out/running"
		echo "$JOBS lists:"
		cat "$SLURM_DIR/out/listed"
		slurm_fail "$1"
	}
}

# A job that runs until the test touches out/end.NAME.
until_end() {
	echo "while [ ! -e '$SLURM_DIR/out/end.$1' ]; do sleep 0.2; done"
}

# --- 1. jobs submitted at once, on named nodes and anywhere.
# waitall: waits for the processes in pids.
waitall() {
	for p in $pids; do
		wait "$p"
	done
	pids=
}

slurm_log "five jobs at once"
i=0
pids=
for w in h0001,h0002:2 h0003:1 'h[0004-0005]:2' h0006,h0008:2 :1; do
	i=$((i + 1))
	(
		if [ -n "${w%:*}" ]; then
			slurm_sbatch -w "${w%:*}" -N "${w#*:}" \
				--wrap "$(until_end "$i")"
		else
			# Slurm's choice, off the named nodes
			slurm_sbatch -N 1 -x 'h[0001-0006,0008]' \
				--wrap "$(until_end "$i")"
		fi >"$SLURM_DIR/out/jid.$i"
	) &
	pids="$pids $!"
done
# Not a bare wait: the syslog listener runs in the background too.
waitall
for i in 1 2 3 4 5; do
	eval "J$i=\$(cat \"\$SLURM_DIR/out/jid.$i\")"
	eval "j=\$J$i"
	[ -n "$j" ] || slurm_fail "sbatch $i gave no job ID"
	slurm_wait_state "$j" RUNNING 30 || slurm_fail "job $j does not run"
done
expect_same "the jobs file is not the running jobs"
jobs_listed | sed 's/^/    /'
# Slurm's own node lists, as given: a range stays a range.
grep -qx "$J3 h\[0004-0005\]" "$JOBS" || slurm_fail "job $J3's node list"
[ "$(stat -c '%a %u' "$JOBS")" = "644 0" ] ||
	slurm_fail "$JOBS is not 0644 root: $(stat -c '%a %u' "$JOBS")"
[ -z "$(find "$JOBS_DIR" -name 'jobs.tmp.*')" ] ||
	slurm_fail "temporary files left in $JOBS_DIR"

# --- 2. a job's end, normal or cancelled: its line goes.
touch "$SLURM_DIR/out/end.1"
slurm_wait_state "$J1" COMPLETED 30 || slurm_fail "job $J1 did not end"
scancel "$J2"
slurm_wait_state "$J2" CANCELLED 30 || slurm_fail "job $J2 not cancelled"
expect_same "ended jobs are still listed"
grep -q "^$J1 " "$JOBS" && slurm_fail "job $J1 still listed"
for i in 3 4 5; do
	touch "$SLURM_DIR/out/end.$i"
done
slurm_wait_idle 30 || slurm_fail "jobs do not end"
[ -z "$(jobs_listed)" ] || slurm_fail "jobs listed with none running"

# --- 3. prologs together: an array's tasks start at once; and 24 hooks
# started side by side, outside Slurm, for a race that surely overlaps.
slurm_log "an array of 8 one-node jobs"
A=$(slurm_sbatch --array=1-8 -N 1 --wrap "$(until_end array)")
slurm_wait 30 sh -c '[ "$(squeue -h -t R | wc -l)" = 8 ]' ||
	slurm_fail "the array's 8 tasks do not all run"
expect_same "an array task is missing from the jobs file"
touch "$SLURM_DIR/out/end.array"
slurm_wait_idle 30 || slurm_fail "array $A does not end"
[ -z "$(jobs_listed)" ] || slurm_fail "array tasks still listed"

# hooks_at_once CONTEXT: jobs 900001-900024's hooks, all started at once.
hooks_at_once() {
	n=1
	while [ $n -le 24 ]; do
		CROUTE_OPENSM_CONF=$SLURM_OSM_CONF SLURM_SCRIPT_CONTEXT=$1 \
			SLURM_JOB_ID=$((900000 + n)) \
			SLURM_JOB_NODELIST="x[$n-$((n + 1))]" "$HOOK" &
		pids="$pids $!"
		n=$((n + 1))
	done
	waitall
}

slurm_log "24 hooks at once"
hooks_at_once prolog_slurmctld
[ "$(jobs_listed | wc -l)" = 24 ] ||
	slurm_fail "$(jobs_listed | wc -l) of 24 concurrent adds kept"
hooks_at_once epilog_slurmctld
[ -z "$(jobs_listed)" ] || slurm_fail "concurrent removes left lines"

# --- 4. a broken jobs directory, a bad croute_jobs_wait: the job runs, not
# requeued, and the hook says why in syslog.
slurm_log "jobs directory broken"
mv "$JOBS_DIR" "$JOBS_DIR.away"
echo "not a directory" >"$JOBS_DIR"
B=$(slurm_sbatch -N 1 --wrap true)
slurm_wait_state "$B" COMPLETED 30 || slurm_fail "job $B did not run"
scontrol show job "$B" | grep -q 'Restarts=0' ||
	slurm_fail "job $B was requeued: the hook failed it"
rm -f "$JOBS_DIR"
mv "$JOBS_DIR.away" "$JOBS_DIR"
echo "croute_jobs_wait soon" >>"$SLURM_OSM_CONF"
W=$(slurm_sbatch -N 1 --wrap true)
slurm_wait_state "$W" COMPLETED 30 || slurm_fail "job $W did not run"
slurm_wait_idle 30 || slurm_fail "jobs do not end"

if [ -n "$SLURM_SYSLOG_PID" ]; then
	for pat in "croute-slurm: job $J3: added (h\[0004-0005\]) to $JOBS" \
		"croute-slurm: job $J3: removed from $JOBS" \
		"croute-slurm: job $B: cannot open $JOBS.lock" \
		"croute-slurm: job $W: croute_jobs_wait 'soon'"; do
		slurm_wait 10 grep -q -- "$pat" "$SLURM_SYSLOG" ||
			slurm_fail "no syslog line '$pat'"
	done
	# daemon.err: facility 3 x 8 + 3.
	grep -q "^<27>.*job $B: cannot open" "$SLURM_SYSLOG" ||
		slurm_fail "the write error is not logged at daemon.err"
	slurm_log "syslog: $(wc -l <"$SLURM_SYSLOG") lines, e.g.:"
	grep "job $J3:" "$SLURM_SYSLOG" | sed 's/^/    /'
fi
slurm_log "croute-slurm under Slurm: OK"
exit 0
