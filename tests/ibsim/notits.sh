#!/bin/sh
# Engines on a fabric that is not theirs, under ibsim with a real opensm:
# on a fat tree, -Q -R cr-hyperx,updn and -Q -R cr-dfp,updn. The plugin
# must refuse the engine with an error saying why the fabric is not a
# HyperX (not a dragonfly+), install none of its tables, and OpenSM must
# route with its own updn, whose tables check clean.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init notits

topo=$CR_DIR/tree.topo
cr_gen "$topo" fat-tree 4
cr_ibsim_start "$topo"
cr_conf "qos TRUE"
for case in "cr-hyperx:not a HyperX: .*has no CAs" \
	"cr-dfp:not a dragonfly\+: "; do
	engine=${case%%:*}
	cr_opensm_once -Q -R "$engine,updn"
	cr_expect_log "croute: .*$engine: ${case#*:}" \
		"$engine: no error saying why the fabric is not its own"
	cr_reject_log "$engine tables configured" \
		"$engine's tables were installed"
	cr_expect_log "[^-]updn tables configured on all switches" \
		"$engine: OpenSM's updn did not route after it"
	cr_check_lfts "$topo" "$CR_DIR/$engine.check" \
		"$engine: croute check found problems in opensm's LFTs"
	grep -Eq "credit loops: +0 " "$CR_DIR/$engine.check" ||
		cr_fail "$engine: the installed tables have credit loops"
done
cr_ibsim_stop
cr_log "all OK"
exit 0
