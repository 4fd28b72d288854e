#!/bin/sh
# From a job's prolog to the tables tuned for it in the switches, on a
# 256-host two-level fabric (16 leaves of 16 hosts, 8 spines) routed by
# cr-minhop in opensm under ibsim, croute_jobs_min_interval 0,
# croute_jobs_wait 120, croute_jobs_budget BUDGET (0: the default, 1 s of
# work, about 1 s of CPU here). A background of running jobs (sizes 2 to
# 32, hosts drawn at random: fragmented) is in place first; then, RUNS
# times, one more job of SIZE random hosts is added by croute-slurm as
# PrologSlurmctld, timed from its start to its return, which comes once
# PATH.state lists the job: the watcher read the file, cr_jobs_tune() ran,
# and the tuned tables were installed by the heavy sweep it asked for (or
# the decision to keep the tables was made: the "routing" column says
# which). Its epilog then takes it out, and the tables settle again
# before the next run. Also: the tuning's own time and CPU, from OpenSM's
# log, and the load average (the machine is shared: wall clock is CPU
# times how crowded it is).
#
# usage: bench/slurm/tuned.sh [SEED [RUNS [SIZE [BUDGET]]]]
#        (default 1 5 16 0)

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

SEED=${1:-1}
RUNS=${2:-5}
SIZE=${3:-16}
BUDGET=${4:-0}
HOOK=$top_srcdir/contrib/croute-slurm
cr_init bench-jobs-tuned
topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 16 --hosts 16 --uplinks 8 --spines 8
cr_ibsim_start "$topo"
mkdir -p "$CR_DIR/jobs"
J=$CR_DIR/jobs/jobs
cr_conf "croute_jobs_file $J" "croute_jobs_min_interval 0" \
	"croute_jobs_wait 120" "croute_jobs_budget $BUDGET"
cr_opensm_start -R cr-minhop
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"

# hosts SEED COUNT...: for each COUNT, a comma list of that many hosts,
# one a line, drawn without replacement from h0001..h0256.
hosts() {
	awk -v seed="$1" -v sizes="$2" 'BEGIN {
		srand(seed)
		for (i = 1; i <= 256; i++) p[i] = i
		for (i = 256; i > 1; i--) {
			j = int(rand() * i) + 1; t = p[i]; p[i] = p[j]; p[j] = t
		}
		n = split(sizes, s, " "); k = 0
		for (i = 1; i <= n; i++) {
			line = ""
			for (j = 0; j < s[i]; j++)
				line = line (j ? "," : "") sprintf("h%04d", p[++k])
			print line
		}
	}'
}

hook() {
	CROUTE_OPENSM_CONF=$CR_CONF SLURM_SCRIPT_CONTEXT=$1_slurmctld \
		SLURM_JOB_ID=$2 SLURM_JOB_NODELIST=${3:-} "$HOOK"
}

state_key() {
	sed -n "s/^$1 //p" "$J.state" 2>/dev/null
}

# idle: until the watcher's last word is a decision (no tuning runs, no
# install waits).
idle() {
	while ! grep -E 'cr-minhop: jobs: |jobs of reading' "$CR_LOG" |
		tail -n 1 | grep -Eq 'are those|stay|are installed|stopped'; do
		sleep 0.5
	done
	cr_quiet
}

ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# The background: 2 to 32 hosts, 114 in all; the measured jobs draw from
# the other 142.
BG="2 2 4 4 4 8 8 8 16 26 32"
hosts "$SEED" "$BG $SIZE $SIZE $SIZE $SIZE $SIZE $SIZE $SIZE $SIZE" \
	>"$CR_DIR/lists"
# written at once, as croute-slurm writes it; one reading, one tuning
bgn=0
for size in $BG; do
	bgn=$((bgn + 1))
	echo "$((100 + bgn)) $(sed -n "${bgn}p" "$CR_DIR/lists")"
done >"$J.tmp.bench"
chmod 644 "$J.tmp.bench"
mv "$J.tmp.bench" "$J"
cr_wait_log "$CR_LOG" "cr-minhop: jobs: (the installed tables are those|.*stay|installing)" \
	1 600 "$CR_OSM_PID" || cr_fail "no decision on the background jobs"
cr_quiet

idle
for n in $(seq 1 "$RUNS"); do
	list=$(sed -n "$((bgn + n))p" "$CR_DIR/lists")
	[ -n "$list" ] || cr_fail "no host list for run $n"
	tunes=$(grep -c "jobs: the tuning took" "$CR_LOG")
	t0=$(date +%s%N)
	hook prolog $((900 + n)) "$list"
	ms=$(ms_since "$t0")
	grep -q "^jobs.* $((900 + n))\( \|\$\)" "$J.state" ||
		cr_fail "the prolog returned before the state listed its job"
	tune=$(grep "jobs: the tuning took" "$CR_LOG" |
		sed -n "$((tunes + 1)),\$p" |
		sed -n 's/.*took \([0-9.]*\) s, \([0-9.]*\) s of CPU.*/\1 s (\2 s CPU)/p' |
		tr '\n' ' ')
	echo "run $n: prolog -> state $ms ms, routing $(state_key routing), tuning ${tune:-none}, load $(cut -d' ' -f1 /proc/loadavg)"
	hook epilog $((900 + n))
	# the end's own tuning and install, before the next run
	idle
done

grep -E "cr-minhop: jobs: (predicted|.*stay|back)" "$CR_LOG" | sed 's/.*croute: //'
cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
exit 0
