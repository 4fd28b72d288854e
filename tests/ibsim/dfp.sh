#!/bin/sh
# cr-dfp under ibsim with a real opensm (-Q -R cr-dfp,updn): a small
# dragonfly+ (5 groups of 3 leaves and 3 spines, 2 global cables a spine),
# intact and less 3 global cables. Each routing must be cr-dfp's (no
# fall-back to up*-down*, no fall-through to updn), complete, identical
# to what `croute route` computes offline for the same LIDs, on at most
# two SLs, and free of credit loops on its path SLs by `croute check`
# (with the plugin's croute-lash-sl.dump and croute-lash-sl2vl.dump) and
# by ibdmchk on the same dumps. Its groups share one or two global
# cables, so cr-dfp balances path loads: the tables are offline
# --balance global's.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init dfp

# dfp_verify NAME TOPO: checks the last sweep of fabric TOPO.
dfp_verify() {
	name=$1
	topo=$2
	switches=$(grep -c '^Switch' "$topo")
	cr_expect_log "croute: cr-dfp: routed $switches switches" \
		"$name: cr-dfp did not route the fabric"
	cr_expect_log "cr-dfp: $switches switches in 5 groups routed on [12] VL" \
		"$name: no VL count logged"
	cr_reject_log "up\*/down\* on one VL instead" \
		"$name: cr-dfp fell back to up*/down*"
	cr_reject_log "croute: ERR" "$name: croute errors in the opensm log"
	for f in sl sl2vl; do
		[ -s "$CR_DUMP/croute-lash-$f.dump" ] ||
			cr_fail "$name: the plugin wrote no croute-lash-$f.dump"
	done
	cr_check_lfts "$topo" "$CR_DIR/$name.check" \
		"$name: croute check found problems in opensm's tables" \
		--sl "$CR_DUMP/croute-lash-sl.dump" \
		--sl2vl "$CR_DUMP/croute-lash-sl2vl.dump"
	grep -Eq "credit loops: +0 " "$CR_DIR/$name.check" ||
		cr_fail "$name: croute check did not clear the credit loops"
	sls=$(awk '$3 ~ /^[0-9]+$/ { print $3 }' \
		"$CR_DUMP/croute-lash-sl.dump" | sort -u | tr '\n' ' ')
	case $sls in
	"0 " | "0 1 ") ;;
	*) cr_fail "$name: path SLs '$sls', not within 0 1" ;;
	esac
	"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" --engine dfp \
		-o "$CR_DIR/$name.offline" 2>"$CR_DIR/$name.route.err" ||
		cr_fail "$name: croute route failed"
	cr_lfts_norm "$CR_DIR/$name.offline" >"$CR_DIR/$name.offline.norm"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.opensm.norm"
	cr_same "$CR_DIR/$name.opensm.norm" "$CR_DIR/$name.offline.norm" 10 \
		"$name: opensm's LFTs differ from croute route's"
	if command -v ibdmchk >/dev/null 2>&1; then
		out=$CR_DIR/ibdmchk-$name.out
		(cd "$CR_DUMP" && timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
			ibdmchk -s opensm-subnet.lst -f opensm.fdbs \
			-m opensm.mcfdbs -c croute-lash-sl.dump \
			-d croute-lash-sl2vl.dump
		true) >"$out" 2>&1
		grep -q -i -- "-I- no credit loops found" "$out" || {
			grep -i -- "credit loop\|^-E-" "$out" | head -n 3
			cr_fail "$name: ibdmchk did not clear the credit loops"
		}
	else
		cr_log "$name: ibdmchk is not installed: its check skipped"
	fi
}

cr_gen "$CR_DIR/full.topo" dragonfly-plus --groups 5 --leaves 3 \
	--spines 3 --hosts 2 --global 2
awk -v count=3 -f "$top_srcdir/bench/modern/drop-global.awk" \
	"$CR_DIR/full.topo" "$CR_DIR/full.topo" >"$CR_DIR/cut.topo"
cr_conf "qos TRUE"
for t in full cut; do
	cr_ibsim_start "$CR_DIR/$t.topo"
	cr_opensm_once -Q -R cr-dfp,updn
	dfp_verify "$t" "$CR_DIR/$t.topo"
	# A group reaches two groups by one cable and two by two: path loads.
	cr_expect_log "cr-dfp: .*balancing path loads" \
		"$t: cr-dfp did not say it balances path loads"
	"$CROUTE" route --topo "$CR_DIR/$t.topo" --lids "$CR_GUID2LID" \
		--engine dfp --balance global -o "$CR_DIR/$t.glob" \
		2>"$CR_DIR/$t.glob.err" || cr_fail "$t: croute route failed"
	cr_lfts_norm "$CR_DIR/$t.glob" >"$CR_DIR/$t.glob.norm"
	cr_same "$CR_DIR/$t.opensm.norm" "$CR_DIR/$t.glob.norm" 10 \
		"$t: opensm's LFTs are not cr-dfp's with path loads"
	cr_ibsim_stop
done

CR_STATUS=0
exit 0
