#!/bin/sh
# croute route -F opensm.conf routes as the plugin does under that file:
# for each engine and toggle set the ibsim tests use (port_shifting,
# remote_guid_sorting, scatter_ports, lmc, root/cn GUID files,
# guid_routing_order_file, port_search_ordering_file, qos + lash with
# croute_lash_balance), opensm runs with the file alone (no -R), and
# `croute route -F` on the subnet it dumped (opensm-subnet.lst, guid2lid)
# writes an opensm-lfts.dump byte for byte equal to OpenSM's. A command
# line option overrides the file; OpenSM's own engine in routing_engine is
# an error for croute route.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init conf
topo=$CR_DIR/tree.topo
cr_gen "$CR_DIR/gen.topo" two-level --leaves 4 --hosts 4 --uplinks 4 \
	--spines 4 --scramble 3
# Switch GUIDs as on a real fabric: their byte-reversed order, in which
# OpenSM writes opensm-lfts.dump on this host, is not their GUID order.
guid() {
	printf '2c903%02x%06x' $((7 - $1)) $((($1 * 0x9e37 + 0x1b) & 0xffffff))
}
for n in 0 1 2 3 4 5 6 7; do
	printf 's/2c9020000000%x/%s/g\n' "$n" "$(guid "$n")"
done >"$CR_DIR/guids.sed"
sed -f "$CR_DIR/guids.sed" "$CR_DIR/gen.topo" >"$topo"
cr_ibsim_start "$topo"
# spines 0-3 are the roots; the first 8 hosts' ports routed first
for n in 0 1 2 3; do echo "0x000$(guid $n)"; done >"$CR_DIR/roots"
awk '/^\[[0-9]+\]\(/ { sub(/.*\(/, ""); sub(/\).*/, ""); print "0x" $0 }' \
	"$topo" | sort -u >"$CR_DIR/cas"
tail -n 8 "$CR_DIR/cas" >"$CR_DIR/order"
echo "0x000$(guid 4) 8 7 6 5 4 3 2 1" >"$CR_DIR/portorder"

i=0
while IFS='|' read -r name lines; do
	case $name in "" | "#"*) continue ;; esac
	i=$((i + 1))
	cr_log "=== $name"
	rm -f "$CR_GUID2LID"
	# shellcheck disable=SC2086
	IFS=';'
	set -- $lines
	unset IFS
	cr_conf "$@"
	cr_opensm_once
	cr_reject_log "croute: ERR"
	cr_expect_log "cr-[a-z]* tables configured on all switches|routed .* switches" \
		"$name: no croute engine routed"
	"$CROUTE" route -F "$CR_CONF" --topo "$CR_DUMP/opensm-subnet.lst" \
		--lids "$CR_GUID2LID" -o "$CR_DIR/$name.lfts" \
		2>"$CR_DIR/$name.err" ||
		cr_fail "$name: croute route -F: $(cat "$CR_DIR/$name.err")"
	cr_same "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$name.lfts" 10 \
		"$name: croute route -F differs from the plugin's LFTs"
done <<EOF_CASES
minhop|routing_engine cr-minhop
minhop-ps|routing_engine cr-minhop,minhop;port_shifting TRUE
minhop-rgs|routing_engine cr-minhop;remote_guid_sorting TRUE
minhop-scatter|routing_engine cr-minhop;scatter_ports 7
minhop-order|routing_engine cr-minhop;guid_routing_order_file $CR_DIR/order;port_search_ordering_file $CR_DIR/portorder
updn-roots|routing_engine cr-updn,updn;root_guid_file $CR_DIR/roots;remote_guid_sorting TRUE
ftree|routing_engine cr-ftree;root_guid_file $CR_DIR/roots;cn_guid_file $CR_DIR/cas
lash|routing_engine cr-lash;qos TRUE;croute_lash_balance TRUE
# last: after it, ibsim's ports keep LMC 1 ranges that OpenSM counts in
# its tables' LID range (the headers' "[0-N]") though no port uses them
minhop-lmc|routing_engine cr-minhop;lmc 1;port_shifting TRUE
EOF_CASES

# The command line overrides the file.
"$CROUTE" route -F "$CR_CONF" --engine updn --topo "$CR_DUMP/opensm-subnet.lst" \
	--lids "$CR_GUID2LID" -o "$CR_DIR/over.lfts" 2>/dev/null ||
	cr_fail "croute route -F --engine updn failed"
cmp -s "$CR_DIR/over.lfts" "$CR_DUMP/opensm-lfts.dump" &&
	cr_fail "--engine updn did not override routing_engine cr-minhop"
printf 'routing_engine updn\n' >"$CR_DIR/osm.conf"
"$CROUTE" route -F "$CR_DIR/osm.conf" --topo "$topo" >/dev/null 2>&1
[ $? = 2 ] || cr_fail "routing_engine updn: not an error for croute route"
CR_STATUS=0
