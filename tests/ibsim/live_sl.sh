#!/bin/sh
# croute check --live on layered routings: on a torus, where
# min-hop paths have credit loops on one VL, opensm -Q routes with cr-lash
# and with dfsssp and keeps running, so that its SA answers PathRecords.
# check --live reads the path SLs (SA) and the SL2VL tables (SMPs) and
# finds no credit loop, as check --dump-dir does from cr-lash's SL dumps;
# without the SLs (--live-sl none) it finds one. With no SA, --live-sl all
# is an error (exit 2) and auto says it read no SLs.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init live_sl
cr_need timeout python3
"$CROUTE" check --live -C none 2>&1 | grep -q "built without" &&
	cr_skip "croute was built without libibnetdisc/libibmad"

topo=$CR_DIR/torus.topo
cr_gen "$topo" torus 4 4 --hosts 2
cr_ibsim_start "$topo"
cr_conf "qos TRUE"

# figures FILE: a check report without its '#' header lines.
figures() {
	grep -v '^#' "$1"
}

# live NAME WHEN: croute check --live --live-sl WHEN into $CR_DIR/NAME.WHEN.
live() {
	cr_osm_env timeout -k "$CR_GRACE" 120 "$CROUTE" check --live \
		--live-sl "$2" >"$CR_DIR/$1.$2" 2>"$CR_DIR/$1.$2.err"
	echo $?
}

for engine in cr-lash dfsssp; do
	cr_log "=== $engine"
	rm -f "$CR_DUMP"/*
	cr_opensm_start -R "$engine" -Q
	cr_wait_log "$CR_LOG" "SUBNET UP" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$engine: opensm did not bring the subnet up"
	grep -q "$engine" "$CR_LOG" || cr_fail "$engine: not in opensm's log"
	for when in auto all; do
		rc=$(live "$engine" "$when")
		[ "$rc" = 0 ] ||
			cr_fail "$engine: check --live --live-sl $when: exit $rc: $(cat "$CR_DIR/$engine.$when.err")"
		grep -q "^credit loops: *0 virtual lanes" "$CR_DIR/$engine.$when" ||
			cr_fail "$engine --live-sl $when: $(grep credit "$CR_DIR/$engine.$when")"
		grep -q "asking the SA for [0-9]* PathRecords" \
			"$CR_DIR/$engine.$when.err" ||
			cr_fail "$engine --live-sl $when: no SA queries said"
	done
	# The SLs are what breaks the loops: on VL 0 alone there is one.
	rc=$(live "$engine" none)
	[ "$rc" = 1 ] || cr_fail "$engine: --live-sl none: exit $rc"
	grep -q "^credit loops: *1 virtual lane with a cycle (one VL assumed" \
		"$CR_DIR/$engine.none" ||
		cr_fail "$engine --live-sl none: $(grep credit "$CR_DIR/$engine.none")"
	grep -q "asking the SA" "$CR_DIR/$engine.none.err" &&
		cr_fail "$engine: --live-sl none asked the SA"
	# estimate needs no SLs: it asks nothing.
	cr_osm_env timeout 120 "$CROUTE" estimate --live --pattern shift \
		>/dev/null 2>"$CR_DIR/$engine.est.err" ||
		cr_fail "$engine: estimate --live failed"
	grep -q "asking the SA\|PathRecord" "$CR_DIR/$engine.est.err" &&
		cr_fail "$engine: estimate --live asked the SA"
	# compare's installed row takes the same layers.
	cr_osm_env timeout 120 "$CROUTE" compare --live --engines minhop \
		--pattern shift --json >"$CR_DIR/$engine.cmp" \
		2>"$CR_DIR/$engine.cmp.err" ||
		cr_fail "$engine: compare --live: $(cat "$CR_DIR/$engine.cmp.err")"
	python3 - "$CR_DIR/$engine.cmp" <<'PY' || cr_fail "$engine: compare --live's rows"
import json, sys
rows = {r["engine"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert rows["installed"]["credit_loop_vls"] == 0, rows["installed"]
assert rows["minhop"]["credit_loop_vls"] >= 1, rows["minhop"]
PY
	if [ "$engine" = cr-lash ]; then
		# The same figures as the files of the same sweep (lash dumps).
		[ -s "$CR_DUMP/croute-lash-sl.dump" ] ||
			cr_fail "cr-lash wrote no croute-lash-sl.dump"
		"$CROUTE" check --dump-dir "$CR_DUMP" >"$CR_DIR/dd" 2>&1 ||
			cr_fail "check --dump-dir: $(cat "$CR_DIR/dd")"
		figures "$CR_DIR/dd" >"$CR_DIR/dd.fig"
		figures "$CR_DIR/$engine.all" >"$CR_DIR/live.fig"
		cr_same "$CR_DIR/live.fig" "$CR_DIR/dd.fig" 20 \
			"cr-lash: check --live and --dump-dir differ"
	fi
	cr_opensm_stop 10 || cr_fail "$engine: opensm exited with status $?"
done

# No SM any more: no SA to ask.
rc=$(live nosa all)
[ "$rc" = 2 ] || cr_fail "--live-sl all without an SA: exit $rc"
grep -q "error: live: the SA at LID [0-9]* answers no PathRecord" \
	"$CR_DIR/nosa.all.err" ||
	cr_fail "--live-sl all without an SA: $(cat "$CR_DIR/nosa.all.err")"
rc=$(live nosa auto)
[ "$rc" = 1 ] || cr_fail "--live-sl auto without an SA: exit $rc"
grep -q "answers no PathRecord" "$CR_DIR/nosa.auto.err" ||
	cr_fail "--live-sl auto without an SA: $(cat "$CR_DIR/nosa.auto.err")"
grep -q "one VL assumed: no path SLs read" "$CR_DIR/nosa.auto" ||
	cr_fail "--live-sl auto without an SA: $(grep credit "$CR_DIR/nosa.auto")"
CR_STATUS=0
