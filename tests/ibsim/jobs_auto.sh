#!/bin/sh
# cr-auto's background improvement and the tuning for the running jobs
# together (croute_auto_background, croute_jobs_file): both want to change
# the tables of one fabric. No Slurm: the jobs file is written as
# croute-slurm writes it. Once both are done:
#   - the LFTs opensm installed are offline `croute route -e auto --jobs`
#     on the same budget, jobs file and opensm's LIDs (the first stage:
#     croute_jobs_refine 0; tests/ibsim/jobs_refine.sh covers the refine);
#   - every change of the installed tables (the churn croute_incremental
#     logs) was checked safe for that very change before it was made
#     (croute_auto_safe_transitions for cr-auto's, always for the jobs');
#   - the two do not undo each other: at most two changes after the first
#     install (the jobs' tables, then the improvement's tuned for them, or
#     the improvement, then its tuning), and a further sweep keeps them.
# Every daemon is stopped by its PID.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"
. "$top_srcdir/tests/ibsim/jobslib.sh"

cr_init jobs_auto

# 24 hosts h0001..h0024 on 8 switches, 3 a switch: a fabric where the
# improve step finds better tables than the fast step at this budget, and
# jobs whose tuning differs on the two.
topo=$CR_DIR/fabric.topo
cr_gen "$topo" random --switches 8 --links 3 --hosts 3 --seed 6
jobs_ibsim
printf '%s\n' '201 h[0001-0002,0007-0008]' '202 h[0004,0010,0013,0016]' \
	'203 h[0003,0006,0012,0015]' >"$JOBS.tmp" && chmod 644 "$JOBS.tmp" && mv "$JOBS.tmp" "$JOBS"
budget=1
# Neither side may give up on a clock, here or offline.
far="croute_auto_give_up 3600"
echo "$far" >"$CR_DIR/offline.conf"
cr_conf "sweep_interval 0" "croute_auto_budget $budget" "$far" \
	"croute_auto_safe_transitions TRUE" "croute_incremental TRUE" \
	"croute_jobs_file $JOBS" "croute_jobs_min_interval 0" \
	"croute_jobs_refine 0"
cr_opensm_start -R cr-auto

# How an improve step ends; what the jobs' tuning decides (a tuning
# that stopped for new tables is tuned again: no decision); a new base.
END="background: (improvement found|nothing better|nothing to install|the improvement is not installed|no improve step)"
DECIDED="jobs: (the installed tables are those|.*the installed tables stay|a heavy sweep requested)"
NEWBASE="jobs: (the fabric changed|new base tables):"

# settled: the improve step ended, the jobs' decision on the last base
# came after it was installed, and every sweep asked for has run.
settled() {
	[ -f "$CR_LOG" ] || return 1
	awk -v e="$END" -v d="$DECIDED" -v nb="$NEWBASE" -v done="$CR_DONE" '
		$0 ~ e { end = NR }
		$0 ~ d { dec = NR }
		$0 ~ nb { base = NR }
		/heavy sweep requested/ { req = NR }
		$0 ~ done { if (!first) first = NR; last = NR }
		END {
			if (base < first) base = first
			exit !(end && first && dec > base && last > req)
		}' "$CR_LOG"
}

i=0
until settled; do
	i=$((i + 1))
	[ $i -lt $((CR_TIMEOUT * 5)) ] ||
		cr_fail "cr-auto and the jobs' tuning did not settle"
	kill -0 "$CR_OSM_PID" 2>/dev/null || cr_fail "opensm is gone"
	sleep 0.2
done
cr_quiet
settled || cr_fail "a sweep after settling started more work"
cr_expect_log "cr-auto: background: improvement found" \
	"the improve step found nothing: this test needs it to"
cr_expect_log "cr-auto: jobs: predicted gain on the running jobs" \
	"no tables tuned for the jobs were installed"

# changes: "N" per install, N the LFT entries it changed, or "N
# unchecked" when no check of a change of N entries came after the
# install before (the first install, on empty switches, is not counted).
changes() {
	awk '
		/is safe in every mix of old and new entries/ {
			n = $0; sub(/.*the change of /, "", n); sub(/ .*/, "", n)
			safe[n] = 1
		}
		/run: churn [0-9]+ LFT entries against/ {
			c = $0; sub(/.*run: churn /, "", c); sub(/ .*/, "", c)
			if (seen++ && c + 0 > 0)
				print c, (c in safe) ? "" : "unchecked"
			split("", safe)
		}' "$CR_LOG"
}
changes >"$CR_DIR/changes"
cr_log "changes of the installed tables: $(tr '\n' ';' <"$CR_DIR/changes")"
if grep -q unchecked "$CR_DIR/changes"; then
	grep -E "safe in every mix|run: churn|jobs:|background:" "$CR_LOG" |
		cut -c 1-200
	cr_fail "a change of the installed tables was not checked first"
fi
[ "$(wc -l <"$CR_DIR/changes")" -le 2 ] ||
	cr_fail "more than two changes: cr-auto and the jobs undo each other"

cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/plugin.lfts"
cr_lfts_norm "$CR_DIR/plugin.lfts" >"$CR_DIR/plugin.norm"
"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" --engine auto \
	-F "$CR_DIR/offline.conf" --auto-budget "$budget" --jobs "$JOBS" --jobs-refine 0 \
	-o "$CR_DIR/offline.lfts" 2>"$CR_DIR/offline.err" ||
	cr_fail "croute route -e auto --jobs: $(cat "$CR_DIR/offline.err")"
cr_lfts_norm "$CR_DIR/offline.lfts" >"$CR_DIR/offline.norm"
cr_same "$CR_DIR/offline.norm" "$CR_DIR/plugin.norm" 10 \
	"the installed LFTs are not offline croute route -e auto --jobs"
cr_log "installed LFTs = offline croute route -e auto --jobs"
# The state file lists the jobs (what croute-slurm's prolog waits for).
for id in 201 202 203; do
	state_lists $id || cr_fail "the state file does not list job $id"
done

# A sweep now reinstalls them: nothing left to undo.
cr_resweep
cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/again.norm"
cr_same "$CR_DIR/plugin.norm" "$CR_DIR/again.norm" 10 \
	"a sweep after both settled changed the tables"
changes >"$CR_DIR/changes2"
cr_same "$CR_DIR/changes" "$CR_DIR/changes2" 10 \
	"a sweep after both settled made a change"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
cr_log "all OK"
exit 0
