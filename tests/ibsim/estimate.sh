#!/bin/sh
# The plugin's contention estimate through a real opensm on an ibsim fat
# tree: after an opensm -o run by cr-minhop, croute-contention.dump is
# complete (the plugin's delete waits for the estimate thread) and its
# figures equal `croute estimate --lfts` on the LFTs opensm dumped, with
# the same patterns, seed and penalty factors, and on the tables read back
# from the switches with ibroute, and so do its figures on random host
# orders (--orders); one INFO line per pattern is logged. A
# bad croute_penalty_factors value is an error naming the key and the
# defaults are used; croute_estimate none writes nothing and removes an
# earlier dump; a fallback to OpenSM's own engine removes it too; names
# come from OpenSM's node name map when one is set.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init estimate

DUMP_FILE=$CR_DUMP/croute-contention.dump

# cr_est_norm FILE: the per-pattern reports of a dump or of croute
# estimate's output, without the run times, which differ.
cr_est_norm() {
	sed -n '/^pattern [^ ]*: /,$p' "$1" |
		sed -e 's/ ([0-9.]* s)$//' -e 's/[ \t]*$//' | grep -v '^$'
}

# cr_est_compare NAME ARGS...: the dump against croute estimate ARGS on
# the dumped LFTs.
cr_est_compare() {
	name=$1
	shift
	[ -f "$DUMP_FILE" ] || cr_fail "$name: no croute-contention.dump"
	"$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" "$@" \
		>"$CR_DIR/$name.offline" 2>"$CR_DIR/$name.err"
	rc=$?
	[ $rc = 0 ] ||
		cr_fail "$name: croute estimate exited $rc: $(cat "$CR_DIR/$name.err")"
	cr_est_norm "$DUMP_FILE" >"$CR_DIR/$name.plugin.norm"
	cr_est_norm "$CR_DIR/$name.offline" >"$CR_DIR/$name.offline.norm"
	[ -s "$CR_DIR/$name.plugin.norm" ] || cr_fail "$name: empty dump"
	cr_same "$CR_DIR/$name.plugin.norm" "$CR_DIR/$name.offline.norm" 20 \
		"$name: the plugin's estimate differs from croute estimate's"
}

topo=$CR_DIR/tree.topo
cr_gen "$topo" two-level --leaves 4 --hosts 4 --uplinks 4 --spines 4 \
	--scramble 3
rm -f "$CR_GUID2LID"
cr_ibsim_start "$topo"

# --- full report, several patterns -----------------------------------------
cr_log "=== full"
cr_conf "croute_estimate full" "croute_patterns shift,bisect:4,fanin:3"
cr_opensm_once -R cr-minhop
cr_expect_log "cr-minhop tables configured on all switches"
cr_reject_log "croute: ERR"
for p in "shift: 15 phases" "bisect:4: 4 phases" "fanin:3: 2 phases"; do
	cr_expect_log "croute: contention estimate \(cr-minhop\): $p" \
		"no INFO line for $p"
done
grep -q "^  k  *flows" "$DUMP_FILE" || cr_fail "full: no per-phase table"
cr_est_compare full --pattern shift,bisect:4,fanin:3
# The patterns on random host orders, as croute estimate --orders (whose
# --seed also draws bisect's matchings: shift alone compares).
orders_table() {
	sed -n '/^# on [0-9]* random host orders/,/^$/p' "$1" |
		grep -v '^bisect\|^fanin'
}
orders_table "$DUMP_FILE" >"$CR_DIR/orders.plugin"
"$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
	--lfts "$CR_DUMP/opensm-lfts.dump" --pattern shift,bisect:4,fanin:3 \
	--orders 6 --seed 101 >"$CR_DIR/orders.out" 2>/dev/null ||
	cr_fail "croute estimate --orders failed"
orders_table "$CR_DIR/orders.out" >"$CR_DIR/orders.offline"
grep -q "^shift " "$CR_DIR/orders.plugin" &&
	grep -q "^bisect:4 " "$DUMP_FILE" ||
	cr_fail "the dump has no table of random host orders"
cmp -s "$CR_DIR/orders.plugin" "$CR_DIR/orders.offline" ||
	cr_fail "the dump's random orders differ from croute estimate's"

# The same figures from the switches' own tables, read back with ibroute
# (when infiniband-diags is there): what an administrator scores when
# the LFTs come from any subnet manager.
if command -v ibroute >/dev/null 2>&1; then
	: >"$CR_DIR/ibroute.all"
	for lid in $(awk '/^Unicast lids/ {
		for (i = 1; i <= NF; i++) if ($i == "Lid") print $(i + 1)
	}' "$CR_DUMP/opensm-lfts.dump"); do
		cr_osm_env timeout -k "$CR_GRACE" 30 ibroute "$lid" \
			>>"$CR_DIR/ibroute.all" 2>"$CR_DIR/ibroute.err" ||
			cr_fail "ibroute $lid: $(cat "$CR_DIR/ibroute.err")"
	done
	"$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DIR/ibroute.all" --pattern shift,bisect:4,fanin:3 \
		>"$CR_DIR/ibroute.est" 2>"$CR_DIR/ibroute.est.err" ||
		cr_fail "croute estimate on ibroute's tables failed"
	cr_est_norm "$CR_DIR/ibroute.est" >"$CR_DIR/ibroute.norm"
	cmp -s "$CR_DIR/full.plugin.norm" "$CR_DIR/ibroute.norm" ||
		cr_fail "the estimate on ibroute's tables differs"
fi

# --- cr-ftree: hosts in its CA order, offline from its CA order dump -------
cr_log "=== ftree"
cr_conf "croute_estimate full" "croute_patterns shift,bisect:2"
cr_opensm_once -R cr-ftree
cr_expect_log "cr-ftree tables configured on all switches"
cr_reject_log "croute: ERR"
grep -q "in the order of the engine's CA order" "$DUMP_FILE" ||
	cr_fail "ftree: the estimate does not use cr-ftree's CA order"
cr_est_compare ftree --pattern shift,bisect:2 \
	--ca-order "$CR_DUMP/croute-ftree-ca-order.dump"

# --- the default: summary, shift and bisect --------------------------------
cr_log "=== summary"
cr_conf
cr_opensm_once -R cr-minhop
cr_reject_log "croute: ERR"
cr_expect_log "croute: contention estimate \(cr-minhop\): shift: "
cr_expect_log "croute: contention estimate \(cr-minhop\): bisect:10: "
grep -q "^  k  *flows" "$DUMP_FILE" && cr_fail "summary: per-phase table"
grep -q "penalty factors (be;bs;gr) 0.965;0.925;1.35$" "$DUMP_FILE" ||
	cr_fail "summary: not the default penalty factors"
# The offline report has the per-phase table; the dump does not.
cr_est_norm "$DUMP_FILE" >"$CR_DIR/summary.plugin.norm"
"$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
	--lfts "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/summary.offline" ||
	cr_fail "summary: croute estimate failed"
cr_est_norm "$CR_DIR/summary.offline" | grep -v '^  [0-9k]' |
	grep -v '^  phase ' >"$CR_DIR/summary.offline.norm"
cr_same "$CR_DIR/summary.plugin.norm" "$CR_DIR/summary.offline.norm" 20 \
	"summary: the plugin's estimate differs from croute estimate's"

# --- other penalty factors reach the model ---------------------------------
cr_log "=== penalty"
cr_conf "croute_estimate full" "croute_penalty_factors 0.9;0.8;1.5" \
	"croute_patterns fanin:4,bisect:2"
cr_opensm_once -R cr-minhop
cr_reject_log "croute: ERR"
grep -q "penalty factors (be;bs;gr) 0.9;0.8;1.5$" "$DUMP_FILE" ||
	cr_fail "penalty: the factors are not in the dump"
cr_est_compare penalty --pattern fanin:4,bisect:2 --penalty "0.9;0.8;1.5"

# --- a bad value: an error naming the key, then the defaults ---------------
cr_log "=== bad penalty"
cr_conf "croute_estimate full" "croute_penalty_factors 0.9;-1;x" \
	"croute_patterns fanin:4"
cr_opensm_once -R cr-minhop
cr_expect_log "croute: ERR CR40: .*croute_penalty_factors '0.9;-1;x' is not valid" \
	"no error naming croute_penalty_factors"
grep -q "penalty factors (be;bs;gr) 0.965;0.925;1.35$" "$DUMP_FILE" ||
	cr_fail "bad penalty: the defaults were not used"
cr_est_compare badpen --pattern fanin:4

cr_conf "croute_estimate sometimes"
cr_opensm_once -R cr-minhop
cr_expect_log "croute: ERR CR40: .*croute_estimate 'sometimes' is not valid" \
	"no error naming croute_estimate"
[ -f "$DUMP_FILE" ] || cr_fail "bad croute_estimate: no default estimate"

# --- none: nothing estimated, the old dump removed -------------------------
cr_log "=== none"
cr_conf "croute_estimate none"
cr_opensm_once -R cr-minhop
cr_reject_log "contention estimate"
[ -f "$DUMP_FILE" ] && cr_fail "none: croute-contention.dump is still there"

# --- a fallback to OpenSM's engine: no estimate of tables not croute's -----
cr_log "=== fallback"
cr_conf
cr_opensm_once -R cr-minhop
[ -f "$DUMP_FILE" ] || cr_fail "fallback: no dump before the fallback"
cr_conf "croute_fail_engine cr-minhop:route"
cr_opensm_once -R cr-minhop,minhop
cr_expect_log " minhop tables configured on all switches"
cr_reject_log "contention estimate"
[ -f "$DUMP_FILE" ] && cr_fail "fallback: a dump of a routing that is gone"

# --- names from OpenSM's node name map, in the report only -----------------
cr_log "=== node name map"
awk '/^switchguid=/ { sub(/^switchguid=/, ""); sub(/\(.*/, ""); g = $0 }
	/^Switch/ { split($0, q, "\""); print g, "\"SW-" toupper(q[4]) "\"" }' \
	"$topo" >"$CR_DIR/names.map"
grep -q '"SW-SPINE-0"' "$CR_DIR/names.map" || cr_fail "no node name map"
cr_conf "node_name_map_name $CR_DIR/names.map"
cr_opensm_once -R cr-minhop
cr_reject_log "croute: ERR"
grep -q "'SW-LEAF-[0-9]*' (node GUID 0x[0-9a-f]\{16\} LID [0-9]*) port" "$DUMP_FILE" ||
	cr_fail "node name map: the report does not use the mapped names"

# --- the thread's paths under valgrind: every kind of pattern, a flows file
# that is missing, the name map, a re-sweep while it runs ---------------------
if command -v valgrind >/dev/null 2>&1; then
	cr_log "=== valgrind"
	printf '"h0001 HCA-1" "h0016 HCA-1"\n"h0002 HCA-1" "h0016 HCA-1"\n' \
		>"$CR_DIR/two.flows"
	cr_conf "croute_estimate full" "node_name_map_name $CR_DIR/names.map" \
		"croute_patterns shift,bisect:3,alltoall,fanin:3,flows:$CR_DIR/two.flows,flows:$CR_DIR/missing.flows"
	CR_OSM_WRAP="valgrind --leak-check=full --show-leak-kinds=all
		--errors-for-leak-kinds=definite,indirect --num-callers=40
		--log-file=$CR_DIR/valgrind.log"
	cr_opensm_start -R cr-minhop
	CR_OSM_WRAP=
	cr_wait_log "$CR_LOG" "contention estimate \(cr-minhop\): flows" 1 \
		120 "$CR_OSM_PID" || cr_fail "valgrind: no estimate"
	kill -HUP "$(cr_opensm_pid)"
	cr_wait_log "$CR_LOG" "contention estimate \(cr-minhop\): flows" 2 \
		120 "$CR_OSM_PID" || cr_fail "valgrind: no estimate after SIGHUP"
	cr_expect_log "croute: ERR CR47: .*missing.flows"
	cr_opensm_stop 120 || cr_fail "opensm under valgrind failed"
	[ -f "$DUMP_FILE" ] || cr_fail "valgrind: no dump"
	grep -q "ERROR SUMMARY" "$CR_DIR/valgrind.log" ||
		cr_fail "valgrind did not finish"
	# Reports through croute's estimate code, its core included.
	if awk '/^==[0-9]+== *$/ {
			if (rec ~ /\((estimate|est_[a-z]*|maxmin|pattern|endpoint|fabric)\.c:[0-9]+\)|libcroute/ &&
			    rec !~ /(ERROR|HEAP|LEAK) SUMMARY/) { print rec; bad = 1 }
			rec = ""; next
		}
		{ rec = rec $0 "\n" }
		END { exit !bad }' "$CR_DIR/valgrind.log"; then
		cr_fail "valgrind reports errors or leaks in croute's code"
	fi
fi

cr_ibsim_stop
cr_log "all OK"
exit 0
