#!/bin/sh
# The shipped contrib/slurm/croute-resilience.sbatch on a real Slurm
# (tests/slurm/lib.sh: Debian's slurmctld and 8 slurmd on this machine):
# an 8-task array plus its merge job on a fabric of 256 hosts writes the
# report one process writes, byte for byte; a task that fails leaves no
# report and the merge job cancelled, not pending.
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
sbatch_script=$top_srcdir/contrib/slurm/croute-resilience.sbatch
[ -x "$croute" ] || slurm_fail "$croute is not built"

slurm_init resilience
work=$SLURM_DIR/out
"$croute" gen two-level --leaves 16 --hosts 16 --uplinks 4 --spines 4 \
	--lmc 0 -o "$work/fabric.topo" || slurm_fail "croute gen"
set -- --topo "$work/fabric.topo" -e updn --orders 2 --phases 8 \
	--faults all
"$croute" resilience "$@" --threads 1 -q -o "$work/single.txt" \
	--html "$work/single.html" || slurm_fail "the single-process report"

# no controller hooks: the array and its merge are all this test runs
SLURM_HOOK=/bin/true
slurm_start 8

# submit: prints "array JOBID merge JOBID"
submit() {
	(cd "$work" && sh "$sbatch_script" 8 "$@") >"$work/submit.out" ||
		slurm_fail "croute-resilience.sbatch did not submit"
	read -r _ array _ merge <"$work/submit.out"
	[ -n "$array" ] && [ -n "$merge" ] ||
		slurm_fail "submit said: $(cat "$work/submit.out")"
}

# finished JOBID: the job ended, one way or another
finished() {
	case $(slurm_state "$1") in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | OUT_OF_MEMORY | NODE_FAIL)
		return 0
		;;
	esac
	return 1
}

CROUTE=$croute
export CROUTE
submit "$work/run1" "$@"
slurm_wait 900 finished "$merge"
slurm_in_state "$merge" COMPLETED || {
	cat "$work"/run1/*.out
	slurm_fail "merge job $merge: $(slurm_state "$merge"), not COMPLETED"
}
n=$(ls "$work"/run1/shard-* | wc -l)
[ "$n" = 8 ] || slurm_fail "$n shards, not 8"
cmp "$work/single.txt" "$work/run1/report.txt" ||
	slurm_fail "the merged report differs from the single-process one"
cmp "$work/single.html" "$work/run1/report.html" ||
	slurm_fail "the merged HTML differs from the single-process one"
slurm_log "8 tasks + merge: the report equals the single process's"

# Task 2 fails: the merge's afterok can never hold.
cat >"$SLURM_DIR/bin/croute-fails" <<EOF
#!/bin/sh
[ "\${SLURM_ARRAY_TASK_ID:-}" = 2 ] && exit 1
exec "$croute" "\$@"
EOF
chmod 755 "$SLURM_DIR/bin/croute-fails"
CROUTE=$SLURM_DIR/bin/croute-fails
submit "$work/run2" "$@"
slurm_wait 300 finished "$merge"
slurm_in_state "$merge" CANCELLED ||
	slurm_fail "merge job $merge: $(slurm_state "$merge"), not CANCELLED"
[ -e "$work/run2/report.txt" ] &&
	slurm_fail "a failed task still left a merged report"
slurm_log "task 2 failed: merge $merge cancelled, no report"
exit 0
