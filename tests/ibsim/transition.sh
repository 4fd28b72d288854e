#!/bin/sh
# croute_auto_safe_transitions under a running opensm (ibsim): cr-auto's
# background improvement is installed only when `croute check
# --transition` finds the change from the installed tables safe.
#   - the plugin's verdict on its improvement is the command's on the
#     tables opensm installed first and those the improvement is (offline
#     `croute route -e auto` on the same fabric and LIDs, which the
#     background install equals: tests/ibsim/background.sh);
#   - safe: the improvement is installed and the switches hold it;
#     unsafe: it is not (logged with its cycle), the first tables stay;
#   - every install of this test passes `croute check --transition`.
# Nothing waits on a clock but CR_TIMEOUT; croute_auto_give_up puts the
# improve step's deadline an hour away.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_need ibnetdiscover
cr_init transition

END="background: (improvement found|nothing better|nothing to install|the improvement is not installed)"
far="croute_auto_give_up 3600"
budget=3

# run NAME TOPO [KEYS...]: opensm with cr-auto on TOPO (ibsim already
# up), the check on; compares its verdict with the command's.
run() {
	name=$1
	t=$2
	shift 2
	cr_conf "croute_auto_budget $budget" "$far" \
		"croute_auto_safe_transitions TRUE" "$@"
	# the command reads the same keys
	printf '%s\n' "$far" "$@" >"$CR_DIR/offline.conf"
	rm -f "$CR_DUMP/opensm-lfts.dump"
	cr_opensm_start -R cr-auto
	cr_wait_log "$CR_LOG" "cr-auto tables configured on all switches" 1 \
		"$CR_TIMEOUT" "$CR_OSM_PID" || cr_fail "$name: no first install"
	# The fast step's tables, once dumped, before the improve step
	# (seconds of work) can end; a late copy shows as a wrong count.
	i=0
	until [ -s "$CR_DUMP/opensm-lfts.dump" ]; do
		[ $i -lt $((CR_TIMEOUT * 5)) ] || cr_fail "$name: no LFT dump"
		sleep 0.2
		i=$((i + 1))
	done
	cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$name.first"
	cr_wait_log "$CR_LOG" "$END" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$name: the improve step never ended"
	if ! grep -Eq "background: improvement found|the improvement is not installed: the change is unsafe" "$CR_LOG"; then
		# the fast step (its budget is wall clock) found the best
		cr_log "$name: no improvement to judge (the fast step's winner)"
		cr_opensm_stop || cr_fail "$name: opensm did not stop cleanly"
		return
	fi
	"$CROUTE" route -t "$t" --lids "$CR_GUID2LID" --engine auto \
		-F "$CR_DIR/offline.conf" --auto-budget "$budget" \
		-o "$CR_DIR/$name.auto" 2>"$CR_DIR/$name.err" ||
		cr_fail "$name: croute route -e auto"
	"$CROUTE" check -t "$t" --lids "$CR_GUID2LID" --transition \
		"$CR_DIR/$name.first" "$CR_DIR/$name.auto" >"$CR_DIR/$name.tr"
	rc=$?
	nch=$(sed -n 's/^LFT entries changed: *//p' "$CR_DIR/$name.tr")
	case $rc in
	0)
		cr_expect_log "cr-auto: the change of $nch LFT entries is safe in every mix" \
			"$name: the command finds it safe, the plugin not"
		cr_wait_log "$CR_LOG" "background: the fabric is the one the improvement" \
			1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
			cr_fail "$name: the safe improvement was not installed"
		cr_quiet
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.now"
		cr_lfts_norm "$CR_DIR/$name.auto" >"$CR_DIR/$name.want"
		cr_same "$CR_DIR/$name.want" "$CR_DIR/$name.now" 10 \
			"$name: the switches do not hold the improvement"
		# what the switches went through passes the command
		"$CROUTE" check -t "$t" --lids "$CR_GUID2LID" --transition \
			"$CR_DIR/$name.first" "$CR_DUMP/opensm-lfts.dump" \
			>/dev/null || cr_fail "$name: an unsafe install"
		cr_log "$name: safe ($nch entries), installed: OK"
		;;
	1)
		cr_expect_log "cr-auto: the change of $nch LFT entries is unsafe while OpenSM rewrites the switches" \
			"$name: the command finds it unsafe, the plugin not"
		fault=$(sed -n 's/^result: *UNSAFE (\(.*\))$/\1/p' \
			"$CR_DIR/$name.tr")
		cr_expect_log "rewrites the switches \($fault\); it is not made" \
			"$name: the plugin names another fault than $fault"
		cr_expect_log "cr-auto: +(cable )?'[^']*' \((node GUID )?0x[0-9a-f]+ LID [0-9]+\) port [0-9]+" \
			"$name: the cycle's switches are not logged"
		cr_expect_log "the improvement is not installed: the change is unsafe" \
			"$name: the refusal is not logged"
		cr_reject_log "background: the fabric is the one the improvement" \
			"$name: an unsafe improvement was installed"
		# a sweep later, the switches still hold the first tables
		cr_sweep
		cr_quiet
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.now"
		cr_lfts_norm "$CR_DIR/$name.first" >"$CR_DIR/$name.want"
		cr_same "$CR_DIR/$name.want" "$CR_DIR/$name.now" 10 \
			"$name: the tables changed after a refusal"
		cr_log "$name: unsafe ($fault, $nch entries), refused: OK"
		;;
	*)
		cat "$CR_DIR/$name.tr"
		cr_fail "$name: croute check --transition exited $rc"
		;;
	esac
	[ "$nch" -gt 0 ] || cr_fail "$name: the improvement changes nothing"
	cr_opensm_stop || cr_fail "$name: opensm did not stop cleanly"
}

topo=$CR_DIR/fabric.topo
cp "$top_srcdir/tests/fabrics/prod-tree.topo" "$topo"
cr_ibsim_start "$topo"
run prod "$topo"
# Min-hop's tables on this tree have credit loops of their own (every
# switch a source): no change from them is safe. The fast step's budget
# leaves minhop+glob, the better one, to the improve step.
run minhop "$topo" "croute_auto_allow_credit_loops TRUE" \
	"croute_auto_candidates minhop,minhop+ps,minhop+rgs,minhop+ps+rgs,minhop+first,minhop+ps+first,minhop+rgs+first,minhop+glob"
exit 0
