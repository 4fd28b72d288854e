#!/bin/sh
# What an administrator sees when OpenSM refuses the plugin because it was
# built for another OpenSM version (croute(8), INSTALLATION AND OPENSM
# VERSIONS): the opensm in PATH loads the libcroute.so of
# CR_MISMATCH_PLUGIN_DIR, built for another version. OpenSM must log the
# mismatch naming the plugin's version, not register croute's engines, and
# route with minhop. Run by make check-upstream (upstream opensm, the
# plugin of the main build, built for Debian's); skipped without
# CR_MISMATCH_PLUGIN_DIR.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

[ -n "${CR_MISMATCH_PLUGIN_DIR:-}" ] ||
	cr_skip "CR_MISMATCH_PLUGIN_DIR is not set (make check-upstream sets it)"
cr_need strings
other=$(strings "$CR_MISMATCH_PLUGIN_DIR/libcroute.so" |
	grep -m 1 '^OpenSM [0-9][0-9.]*$') ||
	cr_fail "no OpenSM version in $CR_MISMATCH_PLUGIN_DIR/libcroute.so"
ours=$(opensm --version 2>/dev/null | grep -m 1 '^OpenSM ')
[ -n "$ours" ] || cr_fail "opensm --version names no version"
[ "$other" != "$ours" ] ||
	cr_skip "the plugin is built for $ours, the opensm that runs"
cr_init mismatch
CR_LIBPATH=$CR_MISMATCH_PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cr_log "$ours with a plugin built for $other"

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 2 --hosts 2 --uplinks 2 --spines 2
cr_ibsim_start "$topo"
cr_conf
cr_opensm_once -R cr-updn
cr_expect_log "Error loading plugin 'croute': OpenSM version mismatch - plugin was built against $other version of OpenSM\\. Skip loading\\." \
	"no version mismatch error"
cr_expect_log "cannot find or setup routing engine 'cr-updn'"
cr_expect_log "Failed to setup routing engine 'cr-updn'"
cr_reject_log "croute: "
cr_expect_log " minhop tables configured on all switches" \
	"OpenSM did not fall back to minhop"
grep -E "version mismatch|cr-updn'|tables configured" "$CR_LOG" |
	sed 's/^.* -> /    /'
cr_ibsim_stop
cr_log "all OK"
exit 0
