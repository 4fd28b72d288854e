#!/bin/sh
# A layered engine without QoS under ibsim with a real opensm (qos FALSE,
# OpenSM's default): without SL2VL tables every layer would share VL 0,
# so the plugin must refuse cr-lash (5x5 torus, two layers) and cr-dfp (a
# small dragonfly+) with an error naming qos TRUE, and OpenSM must fall
# back to its own updn, whose tables are credit-loop free on one VL.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init qos

# qos_case NAME ENGINE: one sweep of $CR_DIR/NAME.topo with -R ENGINE,updn.
# Neither fabric is a tree updn finds its roots in: the first switch is.
qos_case() {
	name=$1
	engine=$2
	topo=$CR_DIR/$name.topo
	sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*/0x\1/p' "$topo" |
		head -n 1 >"$CR_DIR/roots"
	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$topo"
	cr_conf "qos FALSE" "root_guid_file $CR_DIR/roots"
	cr_opensm_once -R "$engine,updn"
	cr_expect_log "croute: ERR CR03: $engine needs qos TRUE .*OpenSM moves on to the next engine" \
		"$name: no error naming qos TRUE"
	cr_reject_log "croute: $engine: routed" \
		"$name: $engine routed without QoS"
	cr_reject_log "$engine tables configured" \
		"$name: $engine's tables were installed"
	cr_expect_log "[^-]updn tables configured on all switches" \
		"$name: OpenSM's updn did not route"
	cr_check_lfts "$topo" "$CR_DIR/$name.check" \
		"$name: croute check found problems in opensm's LFTs"
	grep -Eq "credit loops: +0 " "$CR_DIR/$name.check" ||
		cr_fail "$name: the installed tables have credit loops"
	cr_ibsim_stop
}

cr_gen "$CR_DIR/torus.topo" torus 5 5 --hosts 1
qos_case torus cr-lash
cr_gen "$CR_DIR/dfp.topo" dragonfly-plus --groups 3 --leaves 2 \
	--spines 2 --hosts 1 --global 2
qos_case dfp cr-dfp

CR_STATUS=0
exit 0
