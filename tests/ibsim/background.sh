#!/bin/sh
# cr-auto's improve step in the background, under a running opensm on the
# production tree (tests/fabrics/prod-tree.topo):
#   - the first sweep installs the fast step's tables, and the improve
#     step starts on its thread after them;
#   - the improvement it finds is kept, a heavy sweep is requested and
#     installs it; the tables opensm then holds are those of
#     `croute route -e auto` offline on the same fabric and LIDs;
#   - a cable pulled while the improve step runs: the new fabric is routed
#     at once by the fast step, the running step is cancelled and its
#     result dropped (logged), and the next improvement is the one for
#     the new fabric (offline `croute route -e auto` on it again);
#   - opensm stops cleanly with an improve step running;
#   - croute_auto_max_churn refuses an improvement that changes more;
#   - with croute_incremental, a fault repairs the fast step's winner's
#     tables at once, and the improve step follows;
#   - croute_optimize after cr-updn runs its pass on the thread too, and
#     the tables it installs are offline cr-updn with the pass;
#   - an improvement that is a candidate's own tables, once installed,
#     is what a later fault repairs (croute_incremental).
# Nothing here waits on a clock but the generous CR_TIMEOUT, and no step
# may give up: croute_auto_give_up puts its deadline an hour away, for
# the plugin and the command alike, so every comparison is made.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_need ibnetdiscover
cr_init background
topo=$CR_DIR/fabric.topo
cp "$top_srcdir/tests/fabrics/prod-tree.topo" "$topo"
cr_ibsim_start "$topo"

# found, or nothing to install: how an improve step ends
END="background: (improvement found|nothing better|nothing to install|the improvement is not installed)"

far="croute_auto_give_up 3600"
echo "$far" >"$CR_DIR/offline.conf"

# offline NAME TOPO: `croute route -e auto` with the test's budget, its
# far deadline and opensm's LIDs, normalised into $CR_DIR/NAME.norm.
offline() {
	"$CROUTE" route -t "$2" --lids "$CR_GUID2LID" --engine auto \
		-F "$CR_DIR/offline.conf" \
		--auto-budget "$budget" -o "$CR_DIR/$1.lfts" \
		2>"$CR_DIR/$1.err" || cr_fail "croute route -e auto ($1)"
	cr_lfts_norm "$CR_DIR/$1.lfts" >"$CR_DIR/$1.norm"
}

# since_fast PATTERN: lines of the log matching PATTERN after the last
# fast step (the latest fabric's).
since_fast() {
	awk -v p="$1" '/cr-auto: fast step chose / { n = 0; next }
		$0 ~ p { n++ } END { print n + 0 }' "$CR_LOG"
}

# wait_since_fast PATTERN: waits for since_fast PATTERN to be 1 or more.
wait_since_fast() {
	i=0
	while [ "$(since_fast "$1")" = 0 ]; do
		[ $i -lt $((CR_TIMEOUT * 5)) ] || return 1
		kill -0 "$CR_OSM_PID" 2>/dev/null || cr_fail "opensm is gone"
		sleep 0.2
		i=$((i + 1))
	done
}

# installed NAME: opensm's last LFT dump, normalised into NAME.plugin.
installed() {
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$1.plugin"
}

# --- (a) fast install, then the background one ----------------------------
budget=1
cr_conf "croute_auto_budget $budget" "$far"
cr_opensm_start -R cr-auto
cr_wait_log "$CR_LOG" "cr-auto tables configured on all switches" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "no first install"
cr_expect_log "cr-auto: fast step chose " "no fast step in the first sweep"
cr_wait_log "$CR_LOG" "$END" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the improve step never ended"
cr_expect_log "background: the improve step starts \(gives up after 3600\.0 s" \
	"no improve step, or croute_auto_give_up not applied"
cr_expect_log "background: improvement found .*heavy sweep requested" \
	"no improvement found on the production tree"
cr_wait_log "$CR_LOG" "background: the fabric is the one the improvement" \
	1 "$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "the improvement never installed"
cr_expect_log "installing it, [0-9]+ LFT entries change" "no churn logged"
cr_quiet
offline a "$topo"
installed a
cr_same "$CR_DIR/a.norm" "$CR_DIR/a.plugin" 10 \
	"the background install differs from croute route -e auto"
grep -q "the improve step's tables" "$CR_DIR/a.err" ||
	cr_fail "offline, the improve step's tables were not the ones chosen"
cr_log "background install = offline cr-auto: OK"
cr_opensm_stop || cr_fail "opensm did not stop cleanly"

# --- (b) a cable pulled while the improve step runs -----------------------
cr_opensm_start -R cr-auto
cr_wait_log "$CR_LOG" "background: the improve step starts" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "no improve step started"
links=$CR_DIR/links
cr_topo_links "$topo" | awk '$1 ~ /^S-/ && $3 ~ /^S-/' >"$links"
# shellcheck disable=SC2046
set -- $(head -n 1 "$links")
n=$(cr_count "$CR_DONE")
cr_ibsim_cmd "Unlink \"$1\"[$2]"
cr_settle "$n"
# The fast step routed the new fabric in that sweep; the old step's work
# went: cancelled while it ran, or its improvement dropped.
[ "$(cr_count "cr-auto: fast step chose ")" -ge 2 ] ||
	cr_fail "the new fabric was not routed by the fast step"
cr_expect_log "cancelled: the fabric changed|improvement.* dropped" \
	"the stale improve step was not dropped"
# The next improve step is the new fabric's: what it installs is what the
# command computes for the fabric as it is now.
wait_since_fast "$END" || cr_fail "the new fabric's improve step never ended"
if [ "$(since_fast "background: improvement found")" -gt 0 ]; then
	wait_since_fast "background: the fabric is the one the improvement" ||
		cr_fail "the new fabric's improvement never installed"
fi
cr_quiet
# (The old step's own "gave up ... (cancelled)" may be logged after the
# new fabric's fast step: the cancel is noticed between two candidates.)
[ "$(since_fast "gave up after [0-9.]+ s of wall clock [(][^c]")" = 0 ] ||
	cr_fail "the new fabric's improve step gave up despite its far deadline"
cr_discover "$CR_DIR/b.topo"
offline b "$CR_DIR/b.topo"
grep -q "gave up" "$CR_DIR/b.err" &&
	cr_fail "offline, the improve step gave up despite its far deadline"
installed b
cr_same "$CR_DIR/b.norm" "$CR_DIR/b.plugin" 10 \
	"after the fault, the tables differ from croute route -e auto"
cr_log "after the fault: stale step dropped, new one = offline: OK"

# --- stop with a step running -----------------------------------------------
n=$(cr_count "background: the improve step starts")
cr_ibsim_cmd "ReLink \"$1\"[$2]"
cr_wait_log "$CR_LOG" "background: the improve step starts" $((n + 1)) \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "no improve step after the repair"
cr_opensm_stop || cr_fail "opensm did not stop cleanly with a step running"
cr_log "stopped with the improve step likely running: OK"

# --- (c) croute_auto_max_churn refuses a large background install --------
cr_conf "croute_auto_budget $budget" "$far" "croute_auto_max_churn 0.001"
cr_opensm_start -R cr-auto
cr_wait_log "$CR_LOG" "$END" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the improve step never ended (churn cap)"
cr_expect_log "not installed: it changes [0-9]+ LFT entries.*croute_auto_max_churn" \
	"the churn cap did not refuse the improvement"
cr_reject_log "heavy sweep requested" "a refused improvement asked a sweep"
cr_opensm_stop || cr_fail "opensm did not stop cleanly"
cr_log "churn cap: improvement refused, nothing requested: OK"

# --- (d) croute_incremental: the fast step's winner repaired --------------
# Candidates croute_incremental repairs on this tree (cr-updn's detours
# off up*/down* it does not; min-hop's credit loops allowed here), and a
# threshold no gain reaches,
# so that the tables installed stay the fast step's.
cr_conf "croute_auto_budget $budget" "$far" "croute_incremental TRUE" \
	"croute_auto_candidates minhop+ps,minhop" \
	"croute_auto_allow_credit_loops TRUE" \
	"croute_auto_improve_threshold 1"
cr_opensm_start -R cr-auto
cr_wait_log "$CR_LOG" "$END" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the improve step never ended (incremental)"
cr_expect_log "tables kept for incremental runs" \
	"the fast step's winner was not kept for repairs"
n=$(cr_count "$CR_DONE")
cr_ibsim_cmd "Unlink \"$1\"[$2]"
cr_settle "$n"
cr_expect_log "cr-auto: incremental run: " "no incremental run after the fault"
cr_expect_log "tables repaired \(croute_incremental\); the improve step" \
	"the repair was not logged"
[ "$(cr_count "cr-auto: fast step chose ")" = 1 ] ||
	cr_fail "the fast step ran after the fault instead of the repair"
cr_wait_log "$CR_LOG" "background: the improve step starts" 2 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "no improve step after the repair"
cr_wait_log "$CR_LOG" "$END" 2 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the improve step after the repair never ended"
n=$(cr_count "$CR_DONE")
cr_ibsim_cmd "ReLink \"$1\"[$2]"
cr_settle "$n"
cr_opensm_stop || cr_fail "opensm did not stop cleanly"
cr_log "croute_incremental: repaired at once, improved after: OK"

# --- (e) croute_optimize after cr-updn, in the background -----------------
# The engine's tables go in at once, the pass runs after the install, and
# what opensm holds in the end is offline cr-updn with the pass. The pass's
# held-out gain on this tree is small, so a threshold below it makes the
# pass's tables the ones installed: the background install itself is
# compared, not the engine's tables left in place.
cr_conf "$far" "croute_optimize TRUE" "croute_optimize_budget 1" \
	"croute_auto_improve_threshold 0.0001"
cr_opensm_start -R cr-updn
OPT_END="background: (improvement found|nothing better|nothing to install|the improvement is not installed|the pass's gain)"
cr_wait_log "$CR_LOG" "$OPT_END" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "the background pass never ended"
first_done=$(grep -n -m 1 -E "$CR_DONE" "$CR_LOG" | cut -d: -f1)
first_pass=$(grep -n -m 1 "optimize: cr-updn" "$CR_LOG" | cut -d: -f1)
[ -n "$first_done" ] && [ -n "$first_pass" ] &&
	[ "$first_done" -lt "$first_pass" ] ||
	cr_fail "the pass ran before the first install (in the sweep)"
cr_expect_log "background: the improvement pass starts \(gives up after 3600" \
	"no background pass"
cr_expect_log "background: improvement found .*heavy sweep requested" \
	"the pass's gain was not kept (croute_auto_improve_threshold 0.0001)"
cr_wait_log "$CR_LOG" "background: the fabric is the one the" 1 \
	"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "the pass's tables never installed"
cr_expect_log "installing it, [0-9]+ LFT entries change" "no churn logged (e)"
cr_quiet
"$CROUTE" route -v -t "$topo" --lids "$CR_GUID2LID" --engine updn \
	-F "$CR_DIR/offline.conf" --optimize --optimize-budget 1 \
	-o "$CR_DIR/e.lfts" 2>"$CR_DIR/e.err" ||
	cr_fail "croute route -e updn --optimize"
grep -q "optimize: cr-updn .* moves kept" "$CR_DIR/e.err" ||
	cr_fail "offline, the pass kept no move"
"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" --engine updn \
	-F "$CR_DIR/offline.conf" -o "$CR_DIR/e0.lfts" 2>/dev/null ||
	cr_fail "croute route -e updn"
cr_lfts_norm "$CR_DIR/e.lfts" >"$CR_DIR/e.norm"
cr_lfts_norm "$CR_DIR/e0.lfts" >"$CR_DIR/e0.norm"
cmp -s "$CR_DIR/e.norm" "$CR_DIR/e0.norm" &&
	cr_fail "offline, the pass left cr-updn's tables as they were"
installed e
cr_same "$CR_DIR/e.norm" "$CR_DIR/e.plugin" 10 \
	"the background pass's tables differ from croute route -e updn --optimize"
cr_opensm_stop || cr_fail "opensm did not stop cleanly"
cr_log "croute_optimize in the background = offline with the pass: OK"

# --- (f) a background install keeps the repair base ------------------------
# With these candidates the fast step's sample picks minhop+ps, the
# improve step plain minhop (a candidate's own tables: the pass is off;
# min-hop's credit loops allowed here, as in (d)). After that install, a
# fault is repaired from minhop's tables, not routed afresh by the fast
# step.
# shellcheck disable=SC2046
set -- $(head -n 1 "$links")
cands=minhop+ps,minhop+ps+rgs,ftree,updn+roots=ecc+ps,updn+roots=top+ps
cands=$cands,updn+roots=top,minhop
cr_conf "croute_auto_budget $budget" "$far" "croute_incremental TRUE" \
	"croute_auto_optimize FALSE" "croute_auto_candidates $cands" \
	"croute_auto_allow_credit_loops TRUE"
cr_opensm_start -R cr-auto
cr_wait_log "$CR_LOG" "background: the fabric is the one the improvement" \
	1 "$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "(f): no background install"
cr_expect_log "cr-auto: the winner minhop's tables kept for incremental runs" \
	"(f): the background install's tables were not kept for repairs"
cr_quiet
n=$(cr_count "$CR_DONE")
cr_ibsim_cmd "Unlink \"$1\"[$2]"
cr_settle "$n"
cr_expect_log "the winner minhop's tables repaired \(croute_incremental\)" \
	"(f): the fault was not repaired from the installed tables"
[ "$(cr_count "cr-auto: fast step chose ")" = 1 ] ||
	cr_fail "(f): the fast step ran after the fault instead of the repair"
n=$(cr_count "$CR_DONE")
cr_ibsim_cmd "ReLink \"$1\"[$2]"
cr_settle "$n"
cr_opensm_stop || cr_fail "opensm did not stop cleanly"
cr_log "a background install kept for repairs, repaired at once: OK"
exit 0
