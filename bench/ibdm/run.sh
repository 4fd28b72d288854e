#!/bin/sh
# Routes ibdm cluster plans offline with every engine and checks each
# routing: for each plan (*.topo under the directories given), its hosts
# and switch chips, then per engine the wall time of `croute check -e`
# (routing and checking), unreachable (CA port, LID) pairs, forwarding
# loops and VLs with a credit loop, or the engine's refusal. A plan whose
# system types no ibnl file defines is listed with the reader's message.
#
# usage: bench/ibdm/run.sh DIR... [-- croute options]
#   DIR: plans, e.g. the installed ones (/usr/lib/*/ibdm*/ibnl) or those
#   of ibutils' source tree (ibmgtsim/tests, IBMgtSim/tests, ibdm/Clusters,
#   ibdiag/demo); options such as --ibnl-dir DIR go to every croute run.
# Environment: top_builddir (default: the source tree's build/),
# CR_BENCH_ENGINES (default: minhop updn ftree lash auto).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
croute=$top_builddir/src/cli/croute
engines=${CR_BENCH_ENGINES:-minhop updn ftree lash auto}
[ -x "$croute" ] || { echo "$croute is not built" >&2; exit 2; }

dirs=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	dirs="$dirs $1"
	shift
done
[ "${1:-}" = -- ] && shift
[ -n "$dirs" ] || { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-ibdm.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

# reason ERR ENGINE: the engine's own first reason in ERR, else the last
# error, without the "croute: error:" prefix.
reason() {
	{
		grep "^croute: error: cr-$2: " "$1" | head -n 1
		grep -v '^croute: error: cr-auto cannot' "$1" | tail -n 1
	} | head -n 1 | sed 's/^croute: error: //' | cut -c 1-90
}

printf '%-28s %6s %5s  %-7s %8s %6s %6s %6s  %s\n' plan hosts chips \
	engine seconds unrch floop cloop note
# shellcheck disable=SC2086
find $dirs -name '*.topo' | sort | while read -r plan; do
	name=$(basename "$plan" .topo)
	if ! "$croute" convert -q -t "$plan" -o "$tmp/net" "$@" \
		2>"$tmp/err"; then
		printf '%-28s %6s %5s  %-7s %8s %6s %6s %6s  %s\n' "$name" - - \
			- - - - - "unread: $(head -n 1 "$tmp/err" |
				sed 's/^croute: error: [^ ]* //')"
		continue
	fi
	hosts=$(grep -c '^Ca' "$tmp/net")
	chips=$(grep -c '^Switch' "$tmp/net")
	for e in $engines; do
		t0=$(now)
		"$croute" check -q -t "$plan" -e "$e" "$@" >"$tmp/out" \
			2>"$tmp/err"
		rc=$?
		t1=$(now)
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		if [ $rc = 2 ] || ! grep -q '^unreachable:' "$tmp/out"; then
			printf '%-28s %6s %5s  %-7s %8s %6s %6s %6s  %s\n' \
				"$name" "$hosts" "$chips" "$e" "$secs" - - - \
				"refused: $(reason "$tmp/err" "$e")"
			continue
		fi
		awk -v n="$name" -v h="$hosts" -v c="$chips" -v e="$e" \
			-v s="$secs" '
		/^unreachable:/ { u = $2 }
		/^forwarding loops:/ { f = $3 }
		/^credit loops:/ { l = $3 }
		END { printf "%-28s %6s %5s  %-7s %8s %6s %6s %6s\n",
			n, h, c, e, s, u, f, l }' "$tmp/out"
	done
done
