#!/bin/sh
# cr-ftree offline on the largest 3-level fat tree of K-port switches
# (default K = 48: 27,648 hosts, 2,880 switches): routing time and peak
# memory (croute route's summary line; the LFT dump itself, 6 GB of text
# at K = 48, is not written), then `croute check` and the sampled shift
# and bisect estimates on the same routing.
#
# usage: bench/ftree/offline.sh [K]
# Environment: top_builddir (default: the source tree, built in place).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
k=${1:-48}
dir=$(mktemp -d "${TMPDIR:-/tmp}/croute-ftree-offline.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

"$croute" gen fat-tree "$k" -o "$dir/topo" || exit 1
echo "fabric: croute gen fat-tree $k ($(grep -c '^Ca' "$dir/topo") hosts," \
	"$(grep -c '^Switch' "$dir/topo") switches)"
"$croute" route -t "$dir/topo" -e ftree -o /dev/null 2>&1 | tail -n 1
"$croute" check -t "$dir/topo" -e ftree | grep -E '^(pairs|unreachable|non-minimal|credit|result)'
"$croute" estimate -t "$dir/topo" -e ftree --pattern shift,bisect \
	--phases 64 | grep -E '^(pattern|  average|  minimum)'
