#!/bin/sh
# croute_optimize TRUE in the plugin: on a small random fabric where the
# pass finds moves for cr-minhop, cr-updn and cr-lash (qos) on shift over
# the hosts' own order (the default objective's random orders hold out
# what such a small fabric's moves gain), opensm logs
# the pass with moves kept, the tables it installs are byte for byte those
# of `croute route -F` (the same opensm.conf) on the subnet it dumped, they
# differ from the tables without the pass, and `croute check` (lash: with
# its SLs) finds the same as on the engine's own tables: no unreachable
# LID, no credit loop for cr-updn and cr-lash.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init optimize
topo=$CR_DIR/random.topo
cr_gen "$topo" random --switches 8 --links 3 --hosts 2 --seed 2
cr_ibsim_start "$topo"

for case in "minhop" "updn" "lash;qos TRUE"; do
	e=${case%%;*}
	extra=
	[ "$e" = "$case" ] || extra=${case#*;}
	cr_log "=== cr-$e"
	rm -f "$CR_GUID2LID"
	# the budget is far above the pass's time here: it converges, and
	# the plugin and the command must agree; the pass in the sweep
	# (croute_auto_background FALSE), since opensm -o exits after it
	cr_conf "routing_engine cr-$e" "croute_optimize TRUE" \
		"croute_auto_background FALSE" \
		"croute_optimize_budget 600" "croute_auto_objective shift:avg" \
		${extra:+"$extra"}
	cr_opensm_once
	cr_reject_log "croute: ERR"
	cr_expect_log "cr-$e tables configured on all switches" \
		"cr-$e did not route"
	cr_expect_log "optimize: cr-$e shift:avg .* [1-9][0-9]* moves? kept" \
		"cr-$e: the pass kept no move"
	cr_reject_log "stopped by the wall clock"
	"$CROUTE" route -F "$CR_CONF" --topo "$CR_DUMP/opensm-subnet.lst" \
		--lids "$CR_GUID2LID" -o "$CR_DIR/$e.lfts" 2>"$CR_DIR/$e.err" ||
		cr_fail "cr-$e: croute route -F: $(cat "$CR_DIR/$e.err")"
	cr_same "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$e.lfts" 10 \
		"cr-$e: croute route --optimize differs from the plugin's LFTs"
	grep -v croute_optimize "$CR_CONF" >"$CR_DIR/plain.conf"
	"$CROUTE" route -F "$CR_DIR/plain.conf" \
		--topo "$CR_DUMP/opensm-subnet.lst" --lids "$CR_GUID2LID" \
		-o "$CR_DIR/$e.plain" 2>/dev/null ||
		cr_fail "cr-$e: croute route without the pass failed"
	cmp -s "$CR_DIR/$e.plain" "$CR_DUMP/opensm-lfts.dump" &&
		cr_fail "cr-$e: the installed tables are the engine's own"
	# croute check finds what it found on the engine's own tables
	# (cr-minhop may have credit loops on this fabric; cr-updn and
	# cr-lash, with its SLs, none)
	sl=
	[ "$e" = lash ] && sl="--sl $CR_DUMP/croute-lash-sl.dump
		--sl2vl $CR_DUMP/croute-lash-sl2vl.dump"
	for t in plain lfts; do
		# shellcheck disable=SC2086
		"$CROUTE" check --topo "$CR_DUMP/opensm-subnet.lst" \
			--lids "$CR_GUID2LID" --lfts "$CR_DIR/$e.$t" $sl \
			2>&1 | grep -E "^(unreachable|forwarding loops|credit loops):" \
			>"$CR_DIR/$e.$t.check"
	done
	cr_same "$CR_DIR/$e.plain.check" "$CR_DIR/$e.lfts.check" 10 \
		"cr-$e: croute check differs after the pass"
	grep -q "^unreachable: *0$" "$CR_DIR/$e.lfts.check" ||
		cr_fail "cr-$e: unreachable LIDs after the pass"
	[ "$e" = minhop ] ||
		grep -q "^credit loops: *0 " "$CR_DIR/$e.lfts.check" ||
		cr_fail "cr-$e: credit loops after the pass"
done
CR_STATUS=0
