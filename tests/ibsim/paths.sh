#!/bin/sh
# croute_paths under a real opensm with lmc 2 on an ibsim fat tree less a
# spine: the contention dump says the path model and the LMC, and its
# figures equal `croute estimate --paths` on the LFTs and LIDs opensm
# dumped (also with lanes); cr-auto's logged score is its winner's shift
# under split, as croute estimate gives it on the installed tables. A
# bad value is an error naming the key, and the dump is base's.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init paths

DUMP_FILE=$CR_DUMP/croute-contention.dump

# the per-pattern reports, without run times
norm() {
	sed -n '/^pattern [^ ]*: /,$p' "$1" |
		sed -e 's/ ([0-9.]* s)$//' -e 's/[ \t]*$//' | grep -v '^$'
}

# compare NAME ARGS...: the dump against croute estimate ARGS on the
# dumped LFTs and LIDs
compare() {
	name=$1
	shift
	[ -f "$DUMP_FILE" ] || cr_fail "$name: no croute-contention.dump"
	"$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" "$@" \
		>"$CR_DIR/$name.offline" 2>"$CR_DIR/$name.err" ||
		cr_fail "$name: croute estimate: $(cat "$CR_DIR/$name.err")"
	norm "$DUMP_FILE" >"$CR_DIR/$name.plugin.norm"
	norm "$CR_DIR/$name.offline" >"$CR_DIR/$name.offline.norm"
	[ -s "$CR_DIR/$name.plugin.norm" ] || cr_fail "$name: empty dump"
	cr_same "$CR_DIR/$name.plugin.norm" "$CR_DIR/$name.offline.norm" 20 \
		"$name: the plugin's estimate differs from croute estimate's"
}

topo=$CR_DIR/tree.topo
cr_gen "$CR_DIR/kt.topo" ktree 4 3
awk -v desc=sw-l0-00 -f "$top_srcdir/bench/auto/drop-switch.awk" \
	"$CR_DIR/kt.topo" >"$topo" || cr_fail "drop-switch"
rm -f "$CR_GUID2LID"
cr_ibsim_start "$topo"

cr_log "=== split"
cr_conf "lmc 2" "croute_estimate full" "croute_paths split" \
	"croute_patterns shift,bisect:4"
cr_opensm_once -R cr-updn
cr_expect_log "cr-updn tables configured on all switches"
cr_reject_log "croute: ERR"
grep -q "^# paths: split over each destination port's 2^LMC LIDs (croute_paths), LMC 2$" \
	"$DUMP_FILE" || cr_fail "split: the dump does not name the model"
compare split --pattern shift,bisect:4 --paths split
# and the model matters here: base's figures differ
"$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
	--lfts "$CR_DUMP/opensm-lfts.dump" --pattern shift,bisect:4 \
	>"$CR_DIR/base.offline" 2>/dev/null || cr_fail "estimate base"
norm "$CR_DIR/base.offline" >"$CR_DIR/base.norm"
cmp -s "$CR_DIR/base.norm" "$CR_DIR/split.plugin.norm" &&
	cr_fail "split: the dump has base's figures"

cr_log "=== lanes"
cr_conf "lmc 2" "croute_estimate full" "croute_paths indep:2" \
	"croute_patterns shift"
cr_opensm_once -R cr-ftree
cr_reject_log "croute: ERR"
grep -q "^# paths: indep .*LMC 2, at most 2 of them$" "$DUMP_FILE" ||
	cr_fail "lanes: the dump does not give the lanes"
compare lanes --pattern shift --paths indep:2 \
	--ca-order "$CR_DUMP/croute-ftree-ca-order.dump"

cr_log "=== auto"
cr_conf "lmc 2" "croute_paths split" "croute_auto_objective shift:avg" \
	"croute_auto_optimize FALSE" "croute_auto_background FALSE" \
	"croute_estimate none"
cr_opensm_once -R cr-auto
cr_expect_log "cr-auto tables configured on all switches"
score=$(sed -n 's/.*cr-auto: chose [^ ]* (\([0-9.]*\) on shift:avg.*/\1/p' \
	"$CR_LOG" | head -n 1)
[ -n "$score" ] || cr_fail "auto: no score logged"
want=$("$CROUTE" estimate --topo "$topo" --lids "$CR_GUID2LID" \
	--lfts "$CR_DUMP/opensm-lfts.dump" --pattern shift --paths split \
	2>/dev/null | awk '$1 == "shift" && $2 ~ /\// { print $4; exit }')
[ "$score" = "$want" ] ||
	cr_fail "auto: logged $score, the installed tables' split shift $want"

cr_log "=== bad values"
for bad in both split:0 "indep:x" "split:999"; do
	cr_conf "lmc 2" "croute_estimate full" "croute_paths $bad" \
		"croute_patterns shift"
	cr_opensm_once -R cr-updn
	cr_expect_log "croute: ERR CR40: .*croute_paths '$bad' is not valid" \
		"$bad: no error naming croute_paths"
	grep -q "^# paths:" "$DUMP_FILE" &&
		cr_fail "$bad: the dump is not base's"
	compare "bad$bad" --pattern shift
done

cr_ibsim_stop
cr_log "all OK"
exit 0
