#!/bin/sh
# croute_incremental at scale, offline (croute route --incremental-from,
# the plugin's code path without OpenSM): one cable between the last leaf
# with hosts and its first upper switch fails. For each engine, the full
# run of the intact fabric (the base), then in the same process the
# incremental run and a full run of the faulty fabric: times, the churn
# of each against the base's tables (LFT entries that differ), the
# entries in which the two routings differ, and the time spent after the
# full run keeping it for incremental runs (keep_s: the plugin spends it
# after every full run). Then the cable comes back: the incremental run
# must give the base's tables byte for byte.
#
# usage: bench/churn/incremental.sh [croute gen arguments | TOPOLOGY]
#        (default: fat-tree 48: 27,648 hosts, 2,880 switches; a file,
#        e.g. tests/fabrics/prod-tree.topo, is taken as it is)
# Environment: top_builddir (default: the source tree, built in place);
# CR_INCR_ENGINES (default "minhop updn ftree").
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
dir=$(mktemp -d "${TMPDIR:-/tmp}/croute-incr-bench.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
[ $# -gt 0 ] || set -- fat-tree 48
genargs=$*

if [ $# = 1 ] && [ -f "$1" ]; then
	cp "$1" "$dir/full.topo" || exit 1
else
	"$croute" gen "$@" -o "$dir/full.topo" || exit 1
fi
# The last switch with hosts, and its first port toward a switch.
set -- $(awk '
	/^Switch/ { split($0, q, "\""); cur = q[2]; up = ""; host = 0; next }
	/^$/ { cur = "" }
	cur != "" && /^\[/ {
		split($0, q, "\"")
		if (q[2] ~ /^H-/) host = 1
		else if (up == "" && q[2] ~ /^S-/) up = substr($1, 2) + 0
		if (host && up != "") { leaf = cur; port = up }
	}
	END { print leaf, port }' "$dir/full.topo")
leaf=$1
port=$2
[ -n "$leaf" ] && [ -n "$port" ] || {
	echo "no leaf with an uplink in the fabric" >&2
	exit 1
}
awk -v node="$leaf" -v port="$port" -f "$top_srcdir/bench/churn/cut.awk" \
	"$dir/full.topo" "$dir/full.topo" >"$dir/cut.topo"
echo "fabric: $genargs ($(grep -c '^Ca' "$dir/full.topo") hosts," \
	"$(grep -c '^Switch' "$dir/full.topo") switches);" \
	"fault: $leaf port $port"
printf '%-7s %9s %9s %7s %9s %11s %11s %9s %9s %5s\n' engine full_s \
	incr_s ratio keep_s churn_full churn_incr rechosen differ back
status=0
for e in ${CR_INCR_ENGINES:-minhop updn ftree}; do
	"$croute" route --topo "$dir/cut.topo" --incremental-from \
		"$dir/full.topo" --compare-full -e "$e" -o /dev/null \
		2>"$dir/$e.err" || {
		cat "$dir/$e.err"
		status=1
		continue
	}
	"$croute" route --topo "$dir/full.topo" --incremental-from \
		"$dir/full.topo" -e "$e" -o /dev/null 2>"$dir/$e.back" ||
		status=1
	back=NO
	grep -q "entries of 0 LIDs chosen again.*churn 0 entries" \
		"$dir/$e.back" && back=yes
	[ $back = yes ] || status=1
	x=$dir/$e.err
	full=$(sed -n 's/^croute route: full run: \([0-9.]*\) s.*/\1/p' "$x")
	cfull=$(sed -n 's/^croute route: full run: [0-9.]* s, churn \([0-9]*\).*/\1/p' "$x")
	incr=$(sed -n 's/.* run: \([0-9.]*\) s ([0-9.]*% of the full run).*/\1/p' "$x")
	cincr=$(sed -n 's/.*of the full run), churn \([0-9]*\) entries.*/\1/p' "$x")
	differ=$(sed -n 's/.*the tables differ in \([0-9]*\) entries.*/\1/p' "$x")
	again=$(sed -n 's/.* switches; \([0-9]*\) entries of [0-9]* LIDs chosen again.*/\1/p' "$x")
	keep=$(sed -n 's/.*keeping it: \([0-9.]*\) s).*/\1/p' "$x")
	grep -q "^croute route: incremental from" "$x" || again="(full)"
	printf '%-7s %9s %9s %7s %9s %11s %11s %9s %9s %5s\n' "$e" "$full" \
		"$incr" "$(awk -v a="$incr" -v b="$full" 'BEGIN {
		if (b + 0 > 0) printf "%.3f", a / b; else print "-" }')" \
		"$keep" "$cfull" "$cincr" "$again" "$differ" "$back"
	grep -E "a full run:" "$dir/$e.err" | sed 's/^/  /'
done
exit $status
