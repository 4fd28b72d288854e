#!/bin/sh
# The contention estimate at scale, offline: one pattern on a generated
# fabric with 1 thread and with N, the wall time of each, the speed-up,
# and a check that both give the same report (figures identical for any
# thread count; the timing lines aside).
#
# usage: bench/scale/estimate.sh [croute gen arguments]
#   (default: fat-tree 48, 27,648 hosts)
# Environment: CR_ENGINE (default updn), CR_PATTERN (default shift:256;
# "shift" is every phase: about 7 CPU-minutes on fat-tree 48),
# CR_THREADS (default: the online CPUs, at most 8).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
CROUTE=$top_builddir/src/cli/croute
[ -x "$CROUTE" ] || { echo "FAIL: $CROUTE is not built"; exit 1; }
[ $# -gt 0 ] || set -- fat-tree 48
engine=${CR_ENGINE:-updn}
pattern=${CR_PATTERN:-shift:256}
n=${CR_THREADS:-$(nproc)}
[ "$n" -gt 8 ] && n=8
dir=$(mktemp -d "${TMPDIR:-/tmp}/croute-bench-estimate.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
"$CROUTE" gen "$@" -o "$dir/topo" || exit 1

run() {
	t0=$(date +%s.%N)
	"$CROUTE" estimate -q -t "$dir/topo" -e "$engine" --pattern "$pattern" \
		--threads "$1" >"$dir/out-$1" 2>"$dir/err-$1" || {
		echo "FAIL: croute estimate --threads $1"
		cat "$dir/err-$1"
		exit 1
	}
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

s1=$(run 1)
sn=$(run "$n")
echo "fabric: croute gen $*; cr-$engine; pattern $pattern"
echo "threads 1: $s1 s; threads $n: $sn s; speed-up" \
	"$(awk -v a="$s1" -v b="$sn" 'BEGIN { printf "%.2f", a / b }')"
# The reports differ only in their timing lines.
grep -v -e "routing time" -e " s)$" "$dir/out-1" >"$dir/a"
grep -v -e "routing time" -e " s)$" "$dir/out-$n" >"$dir/b"
if cmp -s "$dir/a" "$dir/b"; then
	echo "same report with 1 and $n threads"
else
	echo "FAIL: the reports differ with 1 and $n threads"
	diff "$dir/a" "$dir/b" | head -n 20
	exit 1
fi
grep -E "^(shift|bisect|alltoall|fanin|flows)" "$dir/out-1"
