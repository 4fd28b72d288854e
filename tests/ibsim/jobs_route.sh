#!/bin/sh
# The plugin routes for the jobs that run, end to end: a real Slurm
# (tests/slurm/lib.sh) whose nodes are the hosts of an ibsim fabric routed
# by opensm with cr-minhop, croute-slurm as the controller's prolog and
# epilog. For each change of the running jobs:
#   - the LFTs opensm installed are those of offline `croute route
#     --jobs --jobs-refine 0` on the same jobs file and opensm's LIDs
#     (guid2lid), the refine stage off (jobs_refine.sh has it);
#   - every job-driven change passes `croute check --transition`;
#   - a job's end takes the tables back (offline again says which);
#   - a failing hook still runs the job and leaves the routing alone;
#   - a cable pulled during a job: the new fabric's tables, tuned again
#     for the jobs, are again offline's.
# Every daemon is stopped by its PID (lib.sh's helpers).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"
. "$top_srcdir/tests/slurm/lib.sh"
. "$top_srcdir/tests/ibsim/jobslib.sh"

cr_need ibnetdiscover
cr_init jobs_route
slurm_init jobs_route

# 16 hosts h0001..h0016 on 4 leaves, 2 spines: 2:1, so that where a job's
# flows cross the spines matters.
jobs_fabric 4 4 2 2
cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 1" \
	"croute_jobs_wait 30" "croute_jobs_refine 0"
cr_opensm_start -R cr-minhop
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"
cr_quiet

# offline NAME TOPO [JOBS]: `croute route -e minhop` on opensm's LIDs,
# with --jobs JOBS when given, normalised into NAME.want.
offline() {
	"$CROUTE" route -t "$2" --lids "$CR_GUID2LID" -e minhop \
		${3:+--jobs "$3" --jobs-refine 0} -o "$CR_DIR/$1.off" \
		2>"$CR_DIR/$1.err" ||
		cr_fail "$1: croute route: $(cat "$CR_DIR/$1.err")"
	cr_lfts_norm "$CR_DIR/$1.off" >"$CR_DIR/$1.want"
}

# installed NAME: the LFTs opensm wrote last, kept as NAME.lfts.
installed() {
	cr_quiet
	cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$1.lfts"
	cr_lfts_norm "$CR_DIR/$1.lfts" >"$CR_DIR/$1.now"
}

# same_as_offline NAME TOPO [JOBS]
same_as_offline() {
	offline "$@"
	cr_same "$CR_DIR/$1.want" "$CR_DIR/$1.now" 10 \
		"$1: the installed LFTs are not offline croute route's"
	cr_log "$1: installed LFTs = offline croute route${3:+ --jobs}"
}

# safe_change OLD NEW: the switches went from OLD to NEW safely.
safe_change() {
	"$CROUTE" check -t "$topo" --lids "$CR_GUID2LID" --transition \
		"$CR_DIR/$1.lfts" "$CR_DIR/$2.lfts" >"$CR_DIR/$2.tr" 2>&1 || {
		cat "$CR_DIR/$2.tr"
		cr_fail "$2: the change from $1 fails croute check --transition"
	}
}

# wait_listed ID / wait_unlisted ID: the state file (un)lists the job.
wait_listed() {
	slurm_wait 60 state_lists "$1" || {
		cat "$STATE"
		cr_fail "the state file does not list job $1"
	}
}

wait_unlisted() {
	i=0
	while state_lists "$1"; do
		i=$((i + 1))
		[ $i -lt 600 ] || cr_fail "job $1's end is not in the state file"
		sleep 0.1
	done
}

# job NODES TAG: a job on those nodes that runs until $CR_DIR/end.TAG.
job() {
	slurm_sbatch -w "$1" -N "$(echo "$1" | tr ',' '\n' | wc -l)" \
		--wrap "while [ ! -e '$CR_DIR/end.$2' ]; do sleep 0.2; done"
}

installed base
same_as_offline base "$topo"

slurm_start 16

cr_log "=== job A alone: no gain to make, the tables stay"
A=$(job h0001,h0002,h0005,h0006 A)
slurm_wait_state "$A" RUNNING 60 || cr_fail "job $A does not run"
wait_listed "$A"
[ "$(state_key routing)" = unchanged ] ||
	cr_fail "job A: routing $(state_key routing), not unchanged"
cp "$JOBS" "$CR_DIR/jobs.A"
installed A
same_as_offline A "$topo" "$CR_DIR/jobs.A"

cr_log "=== job B beside it: tuned, installed, safe"
B=$(job h0003,h0007,h0009,h0013 B)
slurm_wait_state "$B" RUNNING 60 || cr_fail "job $B does not run"
wait_listed "$B"
state_lists "$A" || cr_fail "job A is no longer listed"
[ "$(state_key routing)" = tuned ] ||
	cr_fail "jobs A+B: routing $(state_key routing), not tuned"
cr_expect_log "cr-minhop: jobs: installing the tables just tuned"
cr_expect_log "cr-minhop: the change of [0-9]+ LFT entries is safe in every mix"
cp "$JOBS" "$CR_DIR/jobs.AB"
installed AB
same_as_offline AB "$topo" "$CR_DIR/jobs.AB"
cmp -s "$CR_DIR/A.now" "$CR_DIR/AB.now" &&
	cr_fail "jobs A+B: the tables did not change"
safe_change A AB
# a sweep in between keeps the jobs' tables
cr_resweep
installed AB2
cr_same "$CR_DIR/AB.now" "$CR_DIR/AB2.now" 10 \
	"a heavy sweep lost the jobs' tables"

cr_log "=== a failing hook: the job runs, the routing stays"
hook=$SLURM_DIR/bin/hook
cp "$hook" "$hook.good"
sed "s|^CROUTE_OPENSM_CONF=.*|CROUTE_OPENSM_CONF='$CR_DIR/no/such.conf'|" \
	"$hook.good" >"$hook.tmp" && chmod 755 "$hook.tmp" && mv "$hook.tmp" "$hook"
F=$(slurm_sbatch -w h0004,h0008 -N 2 --wrap true)
slurm_wait_state "$F" COMPLETED 60 || cr_fail "job $F (failing hook) did not run"
scontrol show job "$F" | grep -q 'Restarts=0' ||
	cr_fail "job $F was requeued: the failing hook failed it"
mv "$hook.good" "$hook"
grep -q "^$F " "$JOBS" && cr_fail "a failing hook listed job $F"
installed F
cr_same "$CR_DIR/AB.now" "$CR_DIR/F.now" 10 \
	"a failing hook changed the routing"

cr_log "=== job B ends: back to job A's tables"
touch "$CR_DIR/end.B"
slurm_wait_state "$B" COMPLETED 60 || cr_fail "job $B does not end"
wait_unlisted "$B"
state_lists "$A" || cr_fail "job A is no longer listed"
cp "$JOBS" "$CR_DIR/jobs.A2"
installed A2
same_as_offline A2 "$topo" "$CR_DIR/jobs.A2"
safe_change AB A2

cr_log "=== job B again, then a cable pulled: routed, then tuned again"
B2=$(job h0003,h0007,h0009,h0013 B2)
slurm_wait_state "$B2" RUNNING 60 || cr_fail "job $B2 does not run"
wait_listed "$B2"
cp "$JOBS" "$CR_DIR/jobs.AB3"
installed AB3
same_as_offline AB3 "$topo" "$CR_DIR/jobs.AB3"
safe_change A2 AB3
# a decision on the jobs: tables kept or tuned ones asked for
DECIDED="cr-minhop: jobs: (the installed tables are those|.*the installed tables stay|a heavy sweep requested)"
decided=$(cr_count "$DECIDED")
n=$(cr_count "$CR_DONE")
cr_ibsim_cmd "Unlink \"S-0002c90200000000\"[4]"
cr_settle "$n"
cr_wait_log "$CR_LOG" "$DECIDED" $((decided + 1)) "$CR_TIMEOUT" \
	"$CR_OSM_PID" || cr_fail "the new fabric was not tuned for the jobs"
cr_expect_log "cr-minhop: jobs: the fabric changed"
cr_discover "$CR_DIR/cut.topo"
installed cut
# The new fabric's own tables first; the jobs' are installed only when
# the command finds the change from those safe.
offline cutbase "$CR_DIR/cut.topo"
offline cutjobs "$CR_DIR/cut.topo" "$CR_DIR/jobs.AB3"
"$CROUTE" check -t "$CR_DIR/cut.topo" --lids "$CR_GUID2LID" --transition \
	"$CR_DIR/cutbase.off" "$CR_DIR/cutjobs.off" >"$CR_DIR/cut.tr" 2>&1
case $? in
0)
	cr_same "$CR_DIR/cutjobs.want" "$CR_DIR/cut.now" 10 \
		"cut: the installed LFTs are not offline croute route --jobs"
	cr_log "cut: safe change, installed LFTs = offline croute route --jobs"
	;;
1)
	cr_expect_log "cr-minhop: jobs: the change is unsafe \(above\); the installed tables stay"
	cr_same "$CR_DIR/cutbase.want" "$CR_DIR/cut.now" 10 \
		"cut: an unsafe change was installed"
	cr_log "cut: unsafe change refused, installed LFTs = offline croute route"
	;;
*)
	cat "$CR_DIR/cut.tr"
	cr_fail "cut: croute check --transition failed"
	;;
esac

cr_log "=== Slurm down: opensm sweeps on"
touch "$CR_DIR/end.A" "$CR_DIR/end.B2"
slurm_stop
cr_resweep
cr_expect_log "cr-minhop tables configured on all switches"
cr_reject_log "ERR CR5[4-9A]"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"

cr_log "=== cr-auto as the base: the same tables as croute route -e auto --jobs"
cr_ibsim_cmd "ReLink \"S-0002c90200000000\"[4]"
# Written as croute-slurm writes it; the cr-auto's choice in the sweep
# (not in the background), its budget counted in work, as auto.sh has it.
printf '201 h[0001-0002,0005-0006]\n202 h[0003,0007,0009,0013]\n' \
	>"$JOBS.tmp" && chmod 644 "$JOBS.tmp" && mv "$JOBS.tmp" "$JOBS"
cr_conf "croute_jobs_file $JOBS" "croute_jobs_min_interval 1" \
	"croute_auto_budget 1" "croute_auto_background FALSE" \
	"croute_jobs_refine 0"
cr_opensm_start -R cr-auto
DECIDED_AUTO="cr-auto: jobs: (the installed tables are those|.*the installed tables stay|installing the tables just tuned)"
cr_wait_log "$CR_LOG" "$DECIDED_AUTO" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "cr-auto: no decision on the jobs"
slurm_wait 60 state_lists 202 || cr_fail "cr-auto: job 202 is not listed"
installed auto
"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" --engine auto \
	--auto-budget 1 --jobs "$JOBS" --jobs-refine 0 -o "$CR_DIR/auto.off" \
	2>"$CR_DIR/auto.err" || cr_fail "croute route -e auto --jobs failed"
cr_lfts_norm "$CR_DIR/auto.off" >"$CR_DIR/auto.want"
cr_same "$CR_DIR/auto.want" "$CR_DIR/auto.now" 10 \
	"cr-auto: the installed LFTs are not offline croute route --jobs"
cr_log "auto: installed LFTs = offline croute route -e auto --jobs ($(state_key routing))"
cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
cr_log "all OK"
exit 0
