#!/bin/bash
# Runs every fuzz target on its corpus (tests/fuzz/corpus/TARGET): the
# libFuzzer binary for FUZZ_SECONDS (default 5) when configure built one,
# else the replay driver (each corpus file once, under ASan/UBSan in the
# sanitizer build). Fails on any crash, leak, timeout or sanitizer report;
# the input that did it is left in tests/fuzz/out/ of the build tree.
#
# FUZZ_SECONDS  libFuzzer time per target
# FUZZ_SEED     libFuzzer seed (default 1, so make check is repeatable;
#               0: random)
# FUZZ_KEEP     keep the inputs libFuzzer found (tests/fuzz/found/TARGET)
# FUZZ_TARGETS  which targets (default: all of them)
# FUZZ_MAX_LEN  libFuzzer's largest input (default 1 MB: the readers
#               have buffers and limits well past 16 KB to reach)
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${top_builddir:-.}
seconds=${FUZZ_SECONDS:-5}
targets=${FUZZ_TARGETS:-topo lfts flows conf route files orders writers incr gz oom
	options live jobs}
out=$build/tests/fuzz/out
mkdir -p "$out"
# UBSan reports must fail the run, as ASan's do, in both kinds of build.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=0

for t in $targets; do
	corpus=$src/tests/fuzz/corpus/$t
	fuzzer=$build/tests/fuzz/fuzz_$t
	log=$out/$t.log
	if [ ! -x "$fuzzer" ] && [ ! -x "$build/tests/fuzz/replay_$t" ]; then
		# live: built with libibnetdisc and libibmad only.
		echo "fuzz_$t: not built, skipped"
		continue
	fi
	if [ -x "$fuzzer" ]; then
		# New inputs go to a scratch directory first in the list, so
		# the corpus in the source tree is read, never written.
		new=$out/new-$t
		[ "${FUZZ_KEEP:-}" ] && new=$build/tests/fuzz/found/$t
		rm -rf "$out/new-$t"
		mkdir -p "$new"
		start=$(date +%s)
		# A unit past 60 s hangs: some corpus inputs (a gz that
		# expands to a large fabric) take seconds of CPU, many more
		# on a loaded machine.
		"$fuzzer" -seed="${FUZZ_SEED:-1}" \
			-max_total_time="$seconds" -timeout=60 \
			-rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-1048576}" \
			-print_final_stats=1 -artifact_prefix="$out/$t-" \
			"$new" "$corpus" >"$log" 2>&1
		status=$?
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz_$t: ${runs:-?} executions in" \
			"$(($(date +%s) - start)) s, status $status"
	else
		"$build/tests/fuzz/replay_$t" "$corpus" >"$log" 2>&1
		status=$?
		echo "replay_$t: $(tail -n 1 "$log"), status $status"
	fi
	if [ "$status" -ne 0 ]; then
		failed=1
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" |
			head -n 5
		ls "$out/$t-"* 2>/dev/null
	fi
done
exit $failed
