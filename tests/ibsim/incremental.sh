#!/bin/sh
# croute_incremental under a running opensm (one per engine, not -o): on
# a 3-level tree, a cable between a leaf and a middle switch fails
# through ibsim's console, then the middle switch itself, and each comes
# back. After each fault:
#   - the plugin logged an incremental run of this engine (and what went
#     away), then the churn against the tables before;
#   - no entry leads into a dead port or to a gone LID, and croute check
#     on the installed tables (opensm's dumps, the fabric as
#     ibnetdiscover sees it) finds no loop, no credit loop for cr-updn
#     and cr-ftree, and every pair reachable but those the log counts
#     (cr-updn: a CA switch's path to a root's LID, 3 hosts each; none
#     for cr-ftree, whose switch routes without an up/down path turn at
#     a leaf as in a full run);
#   - the tables are those of `croute route --incremental-from` on the
#     discovered fabrics, offline;
# and after each repair the LFTs and hop counts are the original ones
# byte for byte, from an incremental run that found the full run's fabric
# again. No croute error anywhere. Then cr-updn on the production tree,
# whose full run takes min-hop detours: a cable fails and comes back,
# both repaired without a full run.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_need ibnetdiscover
cr_init incremental

K=3
topo=$CR_DIR/tree.topo
cr_gen "$topo" ktree $K 3
LINKS=$CR_DIR/tree.links
cr_topo_links "$topo" >"$LINKS"
leaf=$(cr_topo_id "$topo" "sw-l2-$((K * K - 1))")
up=$((K + 1))
mid=$(awk -v id="$leaf" -v p=$up '$1 == id && $2 == p { print $3 }' \
	"$LINKS")
[ -n "$leaf" ] && [ -n "$mid" ] || cr_fail "unexpected names in $topo"

cr_ibsim_start "$topo"
cr_conf "sweep_interval 1" "croute_incremental TRUE"

# since MARK PATTERN: the log has PATTERN after line MARK.
since() {
	tail -n +"$((MARK + 1))" "$CR_LOG" | grep -E -- "$1"
}

# state NAME: the tables installed now, checked; NAME.norm, NAME.topo.
state() {
	d=$CR_DIR/$TAG-$1
	[ "$(cr_engine_used)" = "$ENGINE" ] ||
		cr_fail "$TAG $1: $(cr_engine_used) installed the tables"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$d.norm"
	cp "$CR_DUMP/opensm.fdbs" "$d.fdbs"
	cr_discover "$d.topo"
}

# faulty NAME WHAT: checks the tables of the faulty fabric NAME.
faulty() {
	name=$1
	state "$name"
	since "croute: $ENGINE: incremental run: .*$2" >"$d.incr" || {
		since "croute: $ENGINE: full run" | head -n 3
		cr_fail "$TAG $name: no incremental run logged"
	}
	since "croute: $ENGINE: incremental run: churn [0-9]+ LFT entries" \
		>/dev/null || cr_fail "$TAG $name: no churn logged"
	cr_dead_routes "$d.topo" "$d.norm" >"$d.dead"
	if [ -s "$d.dead" ]; then
		head -n 5 "$d.dead"
		cr_fail "$TAG $name: routes into dead ports or to gone LIDs"
	fi
	lost=$(sed -n 's/.*LIDs chosen again; \([0-9]*\) (CA switch.*/\1/p' \
		"$d.incr" | tail -n 1)
	"$CROUTE" check --topo "$d.topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" >"$d.check" 2>&1
	grep -q "forwarding loops: *0$" "$d.check" ||
		cr_fail "$TAG $name: forwarding loops"
	if [ "$ENGINE" != cr-minhop ]; then
		grep -q "credit loops: *0 " "$d.check" ||
			cr_fail "$TAG $name: credit loops"
	fi
	unreachable=$(sed -n 's/^unreachable: *\([0-9][0-9]*\) *$/\1/p' \
		"$d.check")
	[ "$unreachable" = $((${lost:-0} * K)) ] || {
		cat "$d.check"
		cr_fail "$TAG $name: $unreachable pairs unreachable, the log" \
			"counts ${lost:-?} (x $K hosts)"
	}
	"$CROUTE" route --topo "$d.topo" --lids "$CR_GUID2LID" \
		--incremental-from "$CR_DIR/$TAG-orig.topo" -e "$ENGINE" \
		-o "$d.offline" 2>"$d.route.err" ||
		cr_fail "$TAG $name: croute route: $(cat "$d.route.err")"
	grep -q "croute route: incremental from" "$d.route.err" ||
		cr_fail "$TAG $name: croute route did not repair: $(cat \
			"$d.route.err")"
	cr_lfts_norm "$d.offline" | cmp -s - "$d.norm" || {
		cr_lfts_norm "$d.offline" | diff "$d.norm" - | head -n 6
		cr_fail "$TAG $name: opensm's LFTs differ from croute route's"
	}
	cr_log "$TAG $name: $(sed 's/.*incremental run: //' "$d.incr" |
		tail -n 1); unreachable $unreachable: OK"
}

# repaired NAME: the original tables again, from an incremental run.
repaired() {
	state "$1"
	since "croute: $ENGINE: incremental run: the full run's fabric" \
		>/dev/null || cr_fail "$TAG $1: no incremental run to the original"
	cr_same "$CR_DIR/$TAG-orig.norm" "$d.norm" 10 \
		"$TAG $1: the LFTs did not return to the original"
	cr_same "$CR_DIR/$TAG-orig.fdbs" "$d.fdbs" 10 \
		"$TAG $1: the hop counts did not return to the original"
	cr_log "$TAG $1: back to the original tables, byte for byte: OK"
}

# change FAULT-COMMAND: applies it and waits for the routing run.
change() {
	MARK=$(wc -l <"$CR_LOG")
	n=$(cr_count "$CR_DONE")
	cr_ibsim_cmd "$1"
	cr_settle "$n"
}

for ENGINE in cr-minhop cr-updn cr-ftree; do
	TAG="ktree$K:$ENGINE"
	cr_log "=== $TAG"
	cr_opensm_start -R "$ENGINE"
	cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$TAG: opensm did not route"
	cr_quiet
	MARK=0
	state orig
	cr_expect_log "croute: $ENGINE: full run kept for incremental runs" \
		"$TAG: the full run was not kept"

	change "Unlink \"$leaf\"[$up]"
	# The repair names the cable: both ends by name, GUID, LID and port.
	end="'[^']+' \\((node GUID )?0x[0-9a-f]{16} LID [0-9]+\\) port [0-9]+"
	lend="'sw-l2-$((K * K - 1))' \\((node GUID )?0x[0-9a-f]{16} LID [0-9]+\\) port $up"
	faulty link "1 switch links and 0 host links down \\(repaired around\
 the link ($lend to $end|$end to $lend)\\)"
	change "ReLink \"$leaf\"[$up]"
	repaired link-back

	change "Unlink \"$mid\""
	faulty switch "1 switches\) gone"
	change "ReLink \"$mid\""
	repaired switch-back

	cr_reject_log "croute: ERR" "$TAG: croute logged errors"
	cr_opensm_stop || cr_fail "$TAG: opensm exited with status $?"
done
cr_ibsim_stop

# The production tree (tests/fabrics/prod-tree.topo): cr-updn takes the
# top-level roots with min-hop detours where up*/down* has none. One of
# leaf-1's two cables to spine-1 fails: the repair makes the detours
# again, no full run; the checks of faulty() hold (no pair unreachable).
topo=$CR_DIR/prod.topo
cp "$top_srcdir/tests/fabrics/prod-tree.topo" "$topo"
leaf=$(cr_topo_id "$topo" leaf-1)
[ -n "$leaf" ] || cr_fail "no leaf-1 in $topo"
rm -f "$CR_GUID2LID"
cr_ibsim_start "$topo"
ENGINE=cr-updn
TAG="prod:$ENGINE"
cr_log "=== $TAG"
cr_opensm_start -R "$ENGINE"
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "$TAG: opensm did not route"
cr_quiet
MARK=0
state orig
cr_expect_log "croute: cr-updn: [0-9]+ \(switch, LID\) pairs without a legal up\*/down\* path take a min-hop detour" \
	"$TAG: the full run took no detours"
change "Unlink \"$leaf\"[19]"
faulty link "1 switch links and 0 host links down"
since "croute: $ENGINE: full run" >/dev/null &&
	cr_fail "$TAG: a full run after the fault: $(since "full run")"
change "ReLink \"$leaf\"[19]"
repaired link-back
cr_reject_log "croute: ERR" "$TAG: croute logged errors"
cr_opensm_stop || cr_fail "$TAG: opensm exited with status $?"
cr_ibsim_stop
exit 0
