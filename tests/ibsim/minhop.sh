#!/bin/sh
# cr-minhop through a real opensm on ibsim fabrics: the plugin loads, the
# engine routes, the simulated switches hold LFTs in which every CA port
# reaches every LID on a shortest path, and those LFTs are exactly what
# `croute route` computes offline for the same fabric and LIDs. Then the
# fall-through: when cr-minhop fails (croute_fail_engine test hook, at each
# stage), OpenSM's built-in minhop after it produces exactly the tables it
# produces alone, so croute left nothing behind in the switches.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_need ibroute
cr_init minhop

# cr_verify_switches TOPO: compares the LFTs in the simulated switches
# (read back with ibroute, as any diagnostic tool would) with opensm's dump.
cr_verify_switches() {
	sw_lids=$(awk '/^Unicast lids/ {
		for (i = 1; i <= NF; i++) if ($i == "Lid") print $(i + 1)
	}' "$CR_DUMP/opensm-lfts.dump")
	: >"$CR_DIR/ibroute.all"
	for lid in $sw_lids; do
		cr_osm_env timeout -k "$CR_GRACE" 30 ibroute "$lid" \
			>>"$CR_DIR/ibroute.all" 2>"$CR_DIR/ibroute.err" ||
			cr_fail "ibroute $lid: $(cat "$CR_DIR/ibroute.err")"
	done
	cr_lfts_norm "$CR_DIR/ibroute.all" >"$CR_DIR/ibroute.norm"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/dump.norm"
	[ -s "$CR_DIR/dump.norm" ] || cr_fail "empty LFT dump"
	cr_same "$CR_DIR/dump.norm" "$CR_DIR/ibroute.norm" 10 \
		"the switches' LFTs differ from opensm-lfts.dump"
}

# cr_case NAME LMC GEN-ARGS...: one fabric through opensm -R cr-minhop.
cr_case() {
	name=$1
	lmc=$2
	shift 2
	topo=$CR_DIR/$name.topo
	cr_log "=== $name (LMC $lmc): croute gen $*"
	cr_gen "$topo" "$@"
	switches=$(grep -c '^Switch' "$topo")
	cas=$(grep -c '^Ca' "$topo")
	lids=$((switches + cas * (1 << lmc)))

	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$topo"
	cr_conf "lmc $lmc"
	cr_opensm_once -R cr-minhop

	cr_expect_log "croute: croute .* loaded" "the plugin was not loaded"
	cr_expect_log \
		"croute: cr-minhop: routed $switches switches, $lids LIDs in" \
		"no cr-minhop run over $switches switches and $lids LIDs"
	cr_expect_log "cr-minhop tables configured on all switches"
	cr_reject_log "croute: ERR"
	if grep -q UNKNOWN "$CR_DUMP/opensm.fdbs"; then
		cr_fail "opensm.fdbs has entries without hop counts"
	fi

	# Reachability and minimal hop counts, on the tables opensm installed.
	cr_check_lfts "$topo" "$CR_DIR/$name.check" \
		"$name: croute check found problems" \
		--require-minimal --skip-credit-loops
	grep -q "unreachable: *0$" "$CR_DIR/$name.check" ||
		cr_fail "$name: unreachable LIDs"

	# The same LFTs offline.
	"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" --engine minhop \
		-o "$CR_DIR/$name.offline" 2>"$CR_DIR/$name.route.err" ||
		cr_fail "$name: croute route: $(cat "$CR_DIR/$name.route.err")"
	cr_lfts_norm "$CR_DIR/$name.offline" >"$CR_DIR/$name.offline.norm"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.opensm.norm"
	cr_same "$CR_DIR/$name.opensm.norm" "$CR_DIR/$name.offline.norm" 10 \
		"$name: opensm's LFTs differ from croute route's"

	cr_verify_switches
	cr_ibsim_stop
	cr_log "$name: OK ($switches switches, $lids LIDs)"
}

cr_case ktree3 0 ktree 4 3
cr_case scrambled 0 two-level --leaves 6 --hosts 4 --uplinks 4 --spines 4 \
	--scramble 7
cr_case torus 0 torus 4 4 --hosts 2
cr_case random 0 random --switches 20 --links 4 --hosts 2 --seed 3
cr_case parallel 0 two-level --leaves 4 --hosts 4 --uplinks 4 --spines 2
cr_case lmc2 2 two-level --leaves 4 --hosts 3 --uplinks 3 --spines 3 \
	--scramble 2

# --- Fall-through to OpenSM's minhop ---------------------------------------
topo=$CR_DIR/fallback.topo
cr_log "=== fallback"
cr_gen "$topo" two-level --leaves 6 --hosts 4 --uplinks 6 --spines 3 \
	--scramble 5
rm -f "$CR_GUID2LID"
cr_ibsim_start "$topo"

# The reference: OpenSM's minhop alone (this also fixes the LIDs, kept in
# guid2lid for the runs below).
cr_conf
cr_opensm_once -R minhop
cr_expect_log "minhop tables configured on all switches"
cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/alone.lfts"
cp "$CR_DUMP/opensm.fdbs" "$CR_DIR/alone.fdbs"

for stage in import route export; do
	cr_conf "croute_fail_engine cr-minhop:$stage"
	cr_opensm_once -R cr-minhop,minhop
	cr_expect_log "croute: ERR CR0[29]: cr-minhop: failing .*croute_fail_engine" \
		"the test hook did not make cr-minhop fail at $stage"
	cr_expect_log "croute: ERR CR0[7A]: cr-minhop failed after"
	cr_expect_log " minhop tables configured on all switches" \
		"OpenSM did not fall back to minhop"
	cr_reject_log "cr-minhop tables configured"
	cmp -s "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/alone.lfts" ||
		cr_fail "failure at $stage: LFTs differ from minhop alone"
	cr_same "$CR_DIR/alone.fdbs" "$CR_DUMP/opensm.fdbs" 10 \
		"failure at $stage: hops differ from minhop alone"
	cr_log "fallback after a failure at $stage: OK"
done

# And croute's own engine again on the same fabric, for good measure.
cr_conf
cr_opensm_once -R cr-minhop,minhop
cr_expect_log "cr-minhop tables configured on all switches"
cr_ibsim_stop
cr_log "all OK"
exit 0
