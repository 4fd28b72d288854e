#!/bin/sh
# The example fabrics Debian's ibsim-utils installs (net-examples/, ibsim's
# own format: Hca records, no GUIDs, CAs with an uncabled port), whatever
# files the package holds. For each file and each croute engine that
# accepts the fabric under a real opensm:
#  - the plugin's tables equal `croute route --lids guid2lid`, and equal
#    `croute route` without --lids (croute gives the LIDs OpenSM gives);
#  - `croute check` without --lids reports no problem wherever the
#    plugin's routing checks clean;
#  - `croute compare` reports no unreachable LID for an engine that routed.
# The files run in parallel, one ibsim each.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

ENGINES="minhop updn ftree lash"

# net_one FILE: every engine on one example; exits with the test status.
net_one() {
	net=$1
	name=$(basename "$net" | tr -c 'A-Za-z0-9\n' _)
	cr_init "net-$name"
	topo=$CR_DIR/net
	cp "$net" "$topo"
	cr_ibsim_start "$topo"
	routed=0
	for e in $ENGINES; do
		rm -f "$CR_GUID2LID"
		if [ $e = lash ]; then
			cr_conf "qos TRUE"
			cr_opensm_once -Q -R cr-$e
		else
			cr_conf
			cr_opensm_once -R cr-$e
		fi
		if ! grep -q "croute: cr-$e: routed" "$CR_LOG"; then
			grep -q "croute: ERR CR04: cr-$e cannot route" "$CR_LOG" ||
				cr_fail "$name: cr-$e neither routed nor refused"
			cr_log "$name: cr-$e refuses this fabric"
			continue
		fi
		routed=$((routed + 1))
		cr_reject_log "croute: ERR"
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$e.osm"
		[ -s "$CR_DIR/$e.osm" ] || cr_fail "$name: cr-$e: empty dump"
		for lids in guid2lid assigned; do
			set -- --lids "$CR_GUID2LID"
			[ $lids = assigned ] && set --
			"$CROUTE" route --topo "$topo" -e $e "$@" \
				-o "$CR_DIR/$e.$lids" 2>"$CR_DIR/$e.err" ||
				cr_fail "$name: croute route -e $e ($lids)"
			cr_lfts_norm "$CR_DIR/$e.$lids" >"$CR_DIR/$e.$lids.n"
			cr_same "$CR_DIR/$e.osm" "$CR_DIR/$e.$lids.n" 10 \
				"$name: cr-$e: opensm's LFTs differ from croute route's ($lids LIDs)"
		done
		# Is the plugin's routing clean? (lash: told its layers.)
		set --
		[ $e = lash ] && set -- --sl "$CR_DUMP/croute-lash-sl.dump" \
			--sl2vl "$CR_DUMP/croute-lash-sl2vl.dump"
		if "$CROUTE" check --topo "$topo" --lids "$CR_GUID2LID" \
			--lfts "$CR_DUMP/opensm-lfts.dump" "$@" \
			>"$CR_DIR/$e.live" 2>&1; then
			"$CROUTE" check --topo "$topo" -e $e \
				>"$CR_DIR/$e.check" 2>&1 || {
				cat "$CR_DIR/$e.check"
				cr_fail "$name: croute check -e $e finds problems the live routing does not have"
			}
		else
			cr_log "$name: cr-$e's live routing has problems:"
			cat "$CR_DIR/$e.live"
		fi
		# compare: the engine's row, with its reachability column.
		"$CROUTE" compare --topo "$topo" --engines $e --pattern shift \
			>"$CR_DIR/$e.cmp" 2>&1 ||
			cr_fail "$name: croute compare --engines $e failed"
		grep -E -q "^$e[[:space:]]" "$CR_DIR/$e.cmp" || {
			cat "$CR_DIR/$e.cmp"
			cr_fail "$name: no row for $e in croute compare"
		}
		# Columns: engine, options, time, unreachable pairs.
		if ! awk -v e=$e '$1 == e && $2 == "-" && $4 == "0" { ok = 1 }
			END { exit !ok }' "$CR_DIR/$e.cmp"; then
			cat "$CR_DIR/$e.cmp"
			cr_fail "$name: croute compare reports unreachable LIDs for $e"
		fi
	done
	[ $routed -gt 0 ] || cr_fail "$name: no engine routed it"
	cr_log "$name: OK ($routed engines routed)"
	CR_STATUS=0
	exit 0
}

if [ "${1:-}" = --one ]; then
	net_one "$2"
fi

cr_need opensm ibsim dpkg
nets=$(dpkg -L ibsim-utils 2>/dev/null | grep '/net-examples/' |
	while read -r f; do
		[ -f "$f" ] && case $f in *README*) ;; *) echo "$f" ;; esac
	done)
[ -n "$nets" ] || cr_skip "ibsim-utils installs no net-examples"

pids=
for net in $nets; do
	log=${TMPDIR:-/tmp}/croute-netex.$$.$(basename "$net").log
	sh "$0" --one "$net" >"$log" 2>&1 &
	pids="$pids $!:$net:$log"
done
status=0
for p in $pids; do
	pid=${p%%:*}
	rest=${p#*:}
	net=${rest%%:*}
	log=${rest#*:}
	wait "$pid"
	rc=$?
	sed "s|^|[$(basename "$net")] |" "$log"
	rm -f "$log"
	case $rc in
	0) ;;
	77) [ $status = 0 ] && status=77 ;;
	*) status=1 ;;
	esac
done
exit $status
