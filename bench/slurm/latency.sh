#!/bin/sh
# How soon the plugin answers a change of the jobs file, on a 256-host
# two-level fabric (16 leaves of 16 hosts, 8 spines) routed by cr-minhop
# in opensm under ibsim, croute_jobs_min_interval 0:
#  - read: from the rename of a LINES-line jobs file (croute-slurm's way)
#    to the state file's next reading; includes parsing the IDs, writing
#    and fsyncing PATH.state;
#  - prolog: croute-slurm as PrologSlurmctld on that file, from its start
#    to its return once the state lists the job (its add rewrites the
#    whole file under the lock, then it polls every 0.1 s).
# Five of each; min, median and max in ms. jobs_changed() only lists the
# IDs so far: the job-aware tuning will add its own time.
#
# usage: bench/slurm/latency.sh [LINES]   (default 100000)

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"

LINES=${1:-100000}
cr_init bench-jobs-latency
topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 16 --hosts 16 --uplinks 8 --spines 8
cr_ibsim_start "$topo"
mkdir -p "$CR_DIR/jobs"
J=$CR_DIR/jobs/jobs
cr_conf "croute_jobs_file $J" "croute_jobs_min_interval 0" \
	"croute_jobs_wait 30"
cr_opensm_start -R cr-minhop
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"
cr_wait_log "$CR_LOG" "watching $J" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the plugin does not watch $J"
awk -v n="$LINES" 'BEGIN {
	for (i = 1; i <= n; i++) printf "%d h%04d\n", 100 + i, i % 256 + 1
}' >"$CR_DIR/big"

reading() {
	sed -n 's/^reading //p' "$J.state" 2>/dev/null
}

ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

summary() {
	sort -n | awk -v what="$1" '{ v[NR] = $1 }
		END { printf "%s: min %d ms, median %d ms, max %d ms (%d runs)\n",
			what, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
}

for n in 1 2 3 4 5; do
	r=$(reading)
	{
		cat "$CR_DIR/big"
		echo "$((900000 + n)) h0001"
	} >"$J.tmp.bench"
	t0=$(date +%s%N)
	mv "$J.tmp.bench" "$J"
	while [ "$(reading)" = "$r" ]; do
		sleep 0.005
	done
	ms_since "$t0"
done | summary "read, $LINES lines"

for n in 1 2 3 4 5; do
	t0=$(date +%s%N)
	CROUTE_OPENSM_CONF=$CR_CONF SLURM_SCRIPT_CONTEXT=prolog_slurmctld \
		SLURM_JOB_ID=$((800000 + n)) SLURM_JOB_NODELIST=h0002 \
		"$top_srcdir/contrib/croute-slurm"
	grep -q "^jobs.* $((800000 + n))\( \|\$\)" "$J.state" ||
		cr_fail "the prolog returned before the state listed its job"
	ms_since "$t0"
done | summary "prolog, $LINES lines"

cr_opensm_stop || cr_fail "opensm did not exit cleanly"
cr_ibsim_stop
exit 0
