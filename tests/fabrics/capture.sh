#!/bin/sh
# Regenerates the captured files of tests/fabrics/ (run from a built tree,
# as root, with ibsim, opensm and infiniband-diags): what opensm -D 0x43
# writes to its dump directory, and what ibnetdiscover, dump_fts and
# dump_lfts print (stdout only; for two-level/ also ibnetdiscover -p and
# -l, iblinkinfo and iblinkinfo -l), for
#   two-level/  a 2-leaf, 2-spine tree routed by OpenSM's updn;
#   other/      the same tree with other GUIDs (files of another fabric);
#   lash/       the first tree routed by cr-lash under QoS (opensm -Q).
# Usage: tests/fabrics/capture.sh [BUILDDIR]
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
top_builddir=$(cd "${1:-$top_srcdir/build}" && pwd)
fab=$top_srcdir/tests/fabrics
. "$top_srcdir/tests/ibsim/lib.sh"

cr_init capture
capture() {
	name=$1
	mkdir -p "$fab/$name"
	cr_ibsim_start "$CR_DIR/$name.topo"
	cr_conf
	rm -f "$CR_GUID2LID"
	cr_opensm_once -R updn
	for f in opensm-subnet.lst opensm.fdbs opensm-lfts.dump; do
		cp "$CR_DUMP/$f" "$fab/$name/$f"
	done
	cr_osm_env timeout 30 ibnetdiscover >"$fab/$name/ibnetdiscover.topo"
	cr_osm_env timeout 30 dump_fts >"$fab/$name/dump_fts.out"
	cr_osm_env timeout 30 dump_lfts >"$fab/$name/dump_lfts.out"
	if [ "$name" = two-level ]; then
		# infiniband-diags' port and node listings.
		for o in p l; do
			cr_osm_env timeout 30 ibnetdiscover -$o \
				>"$fab/$name/ibnetdiscover-$o.out"
		done
		cr_osm_env timeout 30 iblinkinfo >"$fab/$name/iblinkinfo.out"
		cr_osm_env timeout 30 iblinkinfo -l \
			>"$fab/$name/iblinkinfo-l.out"
	fi
	cr_ibsim_stop
}
cr_gen "$CR_DIR/two-level.topo" two-level --leaves 2 --hosts 2 --uplinks 2 \
	--spines 2
sed 's/2c902/2c9ab/g; s/2c903/2c9ac/g' "$CR_DIR/two-level.topo" \
	>"$CR_DIR/other.topo"
capture two-level
capture other
# lash/: the two-level tree routed by cr-lash under QoS (its SL dumps and
# OpenSM's opensm-sl2vl.dump).
mkdir -p "$fab/lash"
cr_ibsim_start "$CR_DIR/two-level.topo"
cr_conf "qos TRUE"
rm -f "$CR_GUID2LID"
cr_opensm_once -R cr-lash -Q
for f in opensm-subnet.lst opensm-lfts.dump croute-lash-sl.dump \
	croute-lash-sl2vl.dump opensm-sl2vl.dump; do
	cp "$CR_DUMP/$f" "$fab/lash/$f"
done
cr_ibsim_stop
CR_STATUS=0
