#!/bin/sh
# Shared node descriptions through a real opensm: two hosts that describe
# themselves alike have no name of their own, so the plugin writes no
# croute-hosts.dump or croute-topology.conf (GUIDs are not node names),
# removes stale ones, logs an error with the node-name-map advice, and
# still routes; its contention estimate states the host order it used
# (ties broken by node GUID). A node name map that names them brings the
# files back.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init names

topo=$CR_DIR/tree.topo
cr_gen "$CR_DIR/gen.topo" two-level --leaves 2 --hosts 4 --uplinks 2 \
	--spines 2
sed 's/"h0002 HCA-1"/"h0001 HCA-1"/g' "$CR_DIR/gen.topo" >"$topo"
cr_ibsim_start "$topo"

cr_log "=== shared descriptions"
cr_conf "croute_estimate full" "croute_patterns shift"
echo stale >"$CR_DUMP/croute-hosts.dump"
echo stale >"$CR_DUMP/croute-topology.conf"
cr_opensm_once -R cr-minhop
cr_expect_log "cr-minhop tables configured on all switches"
cr_expect_log "croute-hosts.dump not written: 2 hosts and 0 switches have" \
	"no error for croute-hosts.dump with shared names"
cr_expect_log "croute-topology.conf not written: 2 hosts and 0 switches" \
	"no error for croute-topology.conf with shared names"
cr_expect_log "node name map \(node_name_map_name\)"
for f in croute-hosts.dump croute-topology.conf; do
	[ -e "$CR_DUMP/$f" ] && cr_fail "shared names: $f is there"
done
grep -q "natural sort; hosts that share one by node GUID" \
	"$CR_DUMP/croute-contention.dump" ||
	cr_fail "the estimate does not say the order fell back to GUIDs"

cr_log "=== a node name map names them"
{
	for d in "h0001 HCA-1"; do
		grep "^Ca.*\"$d\"" "$topo" |
			sed 's/.*"H-\([0-9a-f]*\)".*/0x\1/'
	done | awk '{ printf "%s \"host%d\"\n", $1, NR }'
} >"$CR_DIR/names.map"
[ "$(wc -l <"$CR_DIR/names.map")" = 2 ] || cr_fail "names.map"
cr_conf "node_name_map_name $CR_DIR/names.map"
cr_opensm_once -R cr-minhop
cr_reject_log "not written: "
grep -qx host1 "$CR_DUMP/croute-hosts.dump" &&
	grep -qx host2 "$CR_DUMP/croute-hosts.dump" ||
	cr_fail "named: croute-hosts.dump lacks the mapped names"
[ -s "$CR_DUMP/croute-topology.conf" ] ||
	cr_fail "named: no croute-topology.conf"
cr_ibsim_stop
cr_log "all OK"
exit 0
