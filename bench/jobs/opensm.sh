#!/bin/sh
# OpenSM's built-in engines' tables on the fabrics of bench/auto, for
# bench/jobs/run.sh to score on the jobs term (OSM=DIR): each fabric in
# one ibsim run, so every engine, and run.sh's croute rows, route on the
# same LIDs. Writes DIR/FABRIC/topo, guid2lid and lfts.ENGINE for
# minhop, updn, ftree, and dfsssp and nue with -Q (their SLs are not
# dumped: the jobs term needs none).
#
# usage: bench/jobs/opensm.sh DIR [FABRIC...]  (default: random prod-tree
# torus director)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

[ $# -ge 1 ] || cr_fail "usage: $0 DIR [FABRIC...]"
dir=$1
shift
[ $# -gt 0 ] || set -- random prod-tree torus director
cr_init bench-jobs-osm
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
for fab in "$@"; do
	d=$dir/$fab
	mkdir -p "$d"
	bench_fabric "$fab" "$d/topo"
	cr_ibsim_start "$d/topo"
	for e in minhop updn ftree dfsssp nue; do
		cr_conf
		case $e in
		dfsssp | nue) cr_conf "qos TRUE"
			cr_opensm_once -Q -R "$e" -D 0x47 ;;
		*) cr_opensm_once -R "$e" -D 0x47 ;;
		esac
		used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
			"$CR_LOG" | tail -n 1)
		if [ "$used" = "$e" ]; then
			cp "$CR_DUMP/opensm-lfts.dump" "$d/lfts.$e"
		else
			rm -f "$d/lfts.$e"
			echo "$fab: $e fell back to ${used:-?}: left out" >&2
		fi
	done
	cp "$CR_GUID2LID" "$d/guid2lid"
	cr_ibsim_stop
done
