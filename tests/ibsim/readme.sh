#!/bin/sh
# The README's "The plugin under ibsim, by hand" runs as written: its
# indented lines, in a test directory, with this test's own ibsim socket
# and OpenSM cache (the helpers' environment), the uninstalled plugin and
# command for the paths the README gives relative to the build directory.
# ibsim's line is started by the helpers (its console on a fifo, stopped
# at the end). The lines must route with cr-updn through the plugin, read
# the tables back with ibroute and dump_lfts, and croute check must find
# them right. Then the same for croute(8)'s plan recipe.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_need ibroute dump_lfts dpkg
cr_init readme
awk '/^The plugin under ibsim, by hand$/ { on = 1; getline; next }
	on && /^-+$/ { exit }
	on && /^    / { print substr($0, 5) }' "$top_srcdir/README" \
	>"$CR_DIR/readme.sh"
grep -q '^ibsim -s fabric.topo$' "$CR_DIR/readme.sh" ||
	cr_fail "README: no 'ibsim -s fabric.topo' line by hand"
# Up to ibsim's line: the first terminal; then the second one.
sed -n '1,/^ibsim -s /p' "$CR_DIR/readme.sh" | sed '$d' >"$CR_DIR/first.sh"
sed '1,/^ibsim -s /d' "$CR_DIR/readme.sh" >"$CR_DIR/second.sh"
grep -q 'opensm ' "$CR_DIR/second.sh" || cr_fail "README: no opensm line"
for f in first second; do
	sed -e "s|src/cli/croute|$CROUTE|g" \
		-e "s|\$PWD/\\.libs|$CR_PLUGIN_DIR|g" \
		-e "s|/var/cache/opensm|$OSM_CACHE_DIR|g" \
		"$CR_DIR/$f.sh" >"$CR_DIR/$f.run"
done
cd "$CR_DIR" || cr_fail "no $CR_DIR"
sh -e first.run >first.out 2>&1 || {
	cat first.out
	cr_fail "README's first lines failed"
}
cr_ibsim_start "$CR_DIR/fabric.topo"
timeout -k "$CR_GRACE" $((CR_TIMEOUT * 2)) sh -e second.run \
	>second.out 2>&1 || {
	cat second.out
	cr_fail "README's opensm lines failed"
}
CR_LOG=$CR_DIR/opensm.log
cr_expect_log "croute: cr-updn: routed 48 switches" "cr-updn did not route"
cr_expect_log "cr-updn tables configured on all switches"
cr_reject_log "croute: ERR" "croute errors in the log"
grep -q "^Unicast lids .* of switch Lid 1 " second.out ||
	cr_fail "no ibroute table in the output: $(head -n 5 second.out)"
[ "$(grep -c '^Unicast lids' lfts.out)" = 48 ] ||
	cr_fail "dump_lfts did not read 48 switches' tables"
grep -q "^result: *OK" second.out || {
	cat second.out
	cr_fail "croute check on the tables read back is not OK"
}
cr_log "the README's commands by hand under ibsim: OK"
cr_ibsim_stop

# croute(8)'s plan recipe, from its convert line on: the same steps on an
# ibdm plan (one ibutils installs, else a generated tree), the plugin from
# the build tree as the page says.
mkdir "$CR_DIR/plan" && cd "$CR_DIR/plan" || cr_fail "no plan directory"
rm -f "$OSM_CACHE_DIR"/*
plan=$(ls /usr/lib/*/ibdm*/ibnl/FullGnu.topo 2>/dev/null | head -n 1)
if [ -n "$plan" ]; then
	cp "$plan" plan.topo
else
	"$CROUTE" gen ktree 3 2 -o plan.topo || cr_fail "croute gen"
fi
sed -n '/^\.SS Plan a cluster before it is cabled/,/^\.SH/p' \
	"$top_srcdir/man/croute.8" |
	awk '/^\.ft CW/ { on = 1; next } /^\.ft$/ { on = 0 } on' |
	sed 's/\\-/-/g; s/\\e/\\/g' | sed -n '/^croute convert /,$p' \
	>recipe.sh
grep -q '^ibsim -s plan.net$' recipe.sh ||
	cr_fail "croute(8): no 'ibsim -s plan.net' line in the plan recipe"
grep -q 'LD_PRELOAD=.* opensm ' recipe.sh ||
	cr_fail "croute(8): no opensm under libumad2sim in the plan recipe"
for part in first second; do
	if [ $part = first ]; then
		sed '/^ibsim -s /,$d' recipe.sh
	else
		sed '1,/^ibsim -s /d' recipe.sh
	fi | sed -e "s|^croute |$CROUTE |" \
		-e "s|\(LD_PRELOAD=[^ ]*\) opensm |\1 LD_LIBRARY_PATH=$CR_PLUGIN_DIR opensm |" \
		-e "s|/var/cache/opensm|$OSM_CACHE_DIR|g" >$part.run
done
sh -e first.run >first.out 2>&1 || {
	cat first.out
	cr_fail "croute(8)'s convert line failed"
}
cr_ibsim_start "$CR_DIR/plan/plan.net"
timeout -k "$CR_GRACE" $((CR_TIMEOUT * 2)) sh -e second.run \
	>second.out 2>&1 || {
	cat second.out
	cr_fail "croute(8)'s opensm lines on the plan failed"
}
CR_LOG=$CR_DIR/plan/opensm.log
cr_expect_log "cr-updn tables configured on all switches"
grep -q "^result: *OK" second.out || {
	cat second.out
	cr_fail "croute check on the plan's tables read back is not OK"
}
cr_log "croute(8)'s plan recipe under ibsim: OK"
CR_STATUS=0
exit 0
