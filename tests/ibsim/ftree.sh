#!/bin/sh
# cr-ftree under ibsim and a real opensm (-R cr-ftree): a 3-level k-ary
# n-tree, a 2:1 oversubscribed two-level tree, scrambled spine wiring with
# remote_guid_sorting, missing hosts, doubled links, a root GUID file, a
# CN/IO GUID file pair, LMC 2, a tree with a failed uplink and one with a
# failed spine switch: each completely routed by cr-ftree itself, checked
# by `croute check` (reachability, loops, minimal paths, credit loops) and,
# when installed, ibdmchk; its CA order dumped, croute-hosts.dump and
# croute-topology.conf equal to croute hosts / export --slurm (with a node
# name map, and croute_dump_slurm FALSE, too). Then a torus with
# -R cr-ftree,cr-minhop: cr-ftree refuses it, cr-minhop routes it.

. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/ibsim/lib.sh"

cr_init ftree

# cr_topo_drop FILE ID [PORT]: FILE without node ID (and every link to it),
# or without the link at port PORT of node ID (both ends).
cr_topo_drop() {
	awk -v id="\"$2\"" -v port="${3:-}" '
	BEGIN {
		RS = ""
		FS = "\n"
		key = port == "" ? id "[" : id "[" port "]"
	}
	{
		mine = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(Switch|Ca|Hca|Rt)[ \t]/ && index($i, id))
				mine = 1
		if (mine && port == "")
			next
		for (i = 1; i <= NF; i++) {
			if (mine && index($i, "[" port "]") == 1)
				continue
			if (!mine && index($i, key))
				continue
			print $i
		}
		print ""
	}' "$1" >"$1.new" && mv "$1.new" "$1"
}

# The node id (S-.../H-...) of the node described as $2 in topology $1.
cr_topo_id() {
	awk -v d="\"$2\"" '/^(Switch|Ca)[ \t]/ && index($0, "# " d) {
		match($0, /"[SH]-[0-9a-f]+"/)
		print substr($0, RSTART + 1, RLENGTH - 2)
		exit
	}' "$1"
}

# route_and_check NAME TOPO [minimal] [OPENSM ARGS...]: one sweep with
# -R cr-ftree; cr-ftree must have routed, completely.
route_and_check() {
	name=$1 topo=$2 minimal=$3
	shift 3
	cr_log "=== $name"
	cr_ibsim_start "$topo"
	cr_opensm_once -R cr-ftree "$@"
	cr_ibsim_stop
	cr_expect_log "croute: cr-ftree: routed" "$name: cr-ftree did not route"
	cr_reject_log "cr-ftree failed|cannot route" "$name: cr-ftree failed"
	req=
	[ "$minimal" = minimal ] && req=--require-minimal
	# shellcheck disable=SC2086
	cr_check_lfts "$topo" "$CR_DIR/check-$name.out" \
		"$name: croute check found problems" -q $req
	grep -q "unreachable: *0$" "$CR_DIR/check-$name.out" ||
		cr_fail "$name: unreachable LIDs"
	[ -s "$CR_DUMP/croute-ftree-ca-order.dump" ] ||
		cr_fail "$name: no croute-ftree-ca-order.dump"
	if command -v ibdmchk >/dev/null 2>&1 &&
		[ -f "$CR_DUMP/opensm.mcfdbs" ]; then
		(cd "$CR_DIR" && timeout 120 ibdmchk \
			-s "$CR_DUMP/opensm-subnet.lst" \
			-f "$CR_DUMP/opensm.fdbs" -m "$CR_DUMP/opensm.mcfdbs" \
			>"$CR_DIR/ibdmchk-$name.out" 2>&1)
		if grep -qi "credit loops" "$CR_DIR/ibdmchk-$name.out" &&
			! grep -Eqi "no credit loops|found 0 credit loops" \
				"$CR_DIR/ibdmchk-$name.out"; then
			grep -i "credit loop" "$CR_DIR/ibdmchk-$name.out"
			cr_fail "$name: ibdmchk reports credit loops"
		fi
	fi
}

# CA ports in the CA order dump (non-comment lines).
ca_order_count() {
	grep -vc '^#' "$CR_DUMP/croute-ftree-ca-order.dump"
}

T=$CR_DIR/topo

cr_conf
cr_gen "$T-ktree" ktree 4 3
route_and_check ktree "$T-ktree" minimal
[ "$(ca_order_count)" = 64 ] || cr_fail "ktree: CA order has not 64 ports"
# The exports for schedulers are the command's, below the first comment.
"$CROUTE" hosts -q --topo "$T-ktree" --order ftree -o "$CR_DIR/hosts" ||
	cr_fail "croute hosts"
grep -v '^#' "$CR_DIR/hosts" >"$CR_DIR/hosts.want"
grep -v '^#' "$CR_DUMP/croute-hosts.dump" | cmp -s - "$CR_DIR/hosts.want" ||
	cr_fail "ktree: croute-hosts.dump is not croute hosts --order ftree"
"$CROUTE" export -q --slurm --topo "$T-ktree" -o "$CR_DIR/slurm" ||
	cr_fail "croute export"
sed 1,2d "$CR_DIR/slurm" >"$CR_DIR/slurm.want"
sed 1,2d "$CR_DUMP/croute-topology.conf" | cmp -s - "$CR_DIR/slurm.want" ||
	cr_fail "ktree: croute-topology.conf is not croute export --slurm"

cr_gen "$T-over" two-level --leaves 8 --hosts 8 --uplinks 4 --spines 4
# OpenSM's node name map names hosts in croute-hosts.dump.
echo "0x$(cr_topo_id "$T-over" "h0001 HCA-1" | cut -c3-) \"alpha\"" \
	>"$CR_DIR/names.map"
cr_conf "croute_dump_slurm FALSE" "node_name_map_name $CR_DIR/names.map"
route_and_check oversubscribed "$T-over" minimal
[ -e "$CR_DUMP/croute-topology.conf" ] &&
	cr_fail "croute_dump_slurm FALSE: croute-topology.conf is there"
[ "$(grep -vc '^#' "$CR_DUMP/croute-hosts.dump")" = 64 ] ||
	cr_fail "oversubscribed: croute-hosts.dump has not 64 hosts"
grep -qx alpha "$CR_DUMP/croute-hosts.dump" &&
	! grep -qx h0001 "$CR_DUMP/croute-hosts.dump" ||
	cr_fail "oversubscribed: node name map not used in croute-hosts.dump"
cr_conf

cr_conf "remote_guid_sorting TRUE"
cr_gen "$T-scr" two-level --leaves 8 --hosts 6 --uplinks 6 --spines 6 \
	--scramble 3
route_and_check scrambled "$T-scr" minimal
cr_conf

cr_gen "$T-dbl" two-level --leaves 6 --hosts 8 --uplinks 8 --spines 4
route_and_check doubled "$T-dbl" minimal

# Missing hosts: three of one leaf's four, one of another's.
cp "$T-ktree" "$T-miss"
for h in h0002 h0003 h0004 h0030; do
	cr_topo_drop "$T-miss" "$(cr_topo_id "$T-miss" "$h HCA-1")"
done
route_and_check missing "$T-miss" minimal
[ "$(ca_order_count)" = 60 ] || cr_fail "missing: CA order has not 60 ports"

# Root GUID file: the level-0 switches.
awk '/^Switch/ && /# "sw-l0-/ {
	match($0, /"S-[0-9a-f]+"/); print "0x" substr($0, RSTART + 3, 16) }' \
	"$T-ktree" >"$CR_DIR/roots"
[ "$(wc -l <"$CR_DIR/roots")" = 16 ] || cr_fail "root GUID file"
cr_conf "root_guid_file $CR_DIR/roots"
route_and_check roots "$T-ktree" minimal

# CN/IO pair: the first host of every fourth leaf is an I/O node.
awk '/^Ca/ { match($0, /"H-[0-9a-f]+"/)
	g = "0x" substr($0, RSTART + 3, 16)
	if (n++ % 16 == 0) print g >"'"$CR_DIR/io"'"; else print g }' \
	"$T-ktree" >"$CR_DIR/cn"
cr_conf "cn_guid_file $CR_DIR/cn" "io_guid_file $CR_DIR/io"
route_and_check cn-io "$T-ktree" minimal
[ "$(ca_order_count)" = 60 ] || cr_fail "cn-io: CA order has not 60 ports"

cr_conf "lmc 2"
route_and_check lmc2 "$T-ktree" minimal
cr_conf

# Degraded: a failed leaf uplink; then a failed spine (root) switch.
cp "$T-ktree" "$T-link"
cr_topo_drop "$T-link" "$(cr_topo_id "$T-link" sw-l2-05)" 6
route_and_check failed-link "$T-link" any
cp "$T-ktree" "$T-spine"
cr_topo_drop "$T-spine" "$(cr_topo_id "$T-spine" sw-l0-03)"
route_and_check failed-spine "$T-spine" any

# Not a fat tree: refused, with the reason, and the next engine routes.
cr_gen "$T-torus" torus 4 4 --hosts 1
cr_ibsim_start "$T-torus"
cr_opensm_once -R cr-ftree,cr-minhop
cr_ibsim_stop
cr_expect_log "cr-ftree: not a fat tree" "torus: no reason given"
cr_expect_log "cr-ftree failed" "torus: cr-ftree did not fail"
cr_expect_log "croute: cr-minhop: routed" "torus: cr-minhop did not route"
"$CROUTE" check -q -t "$T-torus" --lids "$CR_GUID2LID" --skip-credit-loops \
	--lfts "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/check-torus.out" 2>&1 ||
	cr_fail "torus: the fallback routing is incomplete"

CR_STATUS=0
exit 0
