#!/bin/sh
# cr-lash under ibsim with a real opensm (-Q -R cr-lash): a 5x5 torus (two
# layers), a random irregular fabric (LMC 0 and 1), a fat tree, a two-level
# tree with parallel links and the 6x6x6 torus that OpenSM's own lash cannot
# fit in 8 VLs. Each routing must be cr-lash's (no fall-through), complete
# over shortest paths, identical to what `croute route` computes offline
# for the same LIDs, and free of credit loops per layer by `croute check`
# (offline, with the SLs) and by ibdmchk with the path-SL and SL2VL dumps
# when the plugin writes them. On the torus, `saquery -p` between hosts
# returns the SL cr-lash assigned (lash_start_vl 1 shifts them off OpenSM's
# default SL 0). Last, too few VLs: a clear error with the numbers, and
# OpenSM falls back.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init lash
cr_need saquery

# lash_verify NAME TOPO START_VL: checks the last sweep of fabric TOPO.
lash_verify() {
	name=$1
	topo=$2
	start=$3
	switches=$(grep -c '^Switch' "$topo")
	cr_expect_log "croute: cr-lash: routed $switches switches" \
		"$name: cr-lash did not route the fabric"
	cr_expect_log "cr-lash: .* routed over [0-9]+ layer" \
		"$name: no layer count logged"
	cr_reject_log "croute: ERR" "$name: croute errors in the opensm log"
	LASH_LAYERS=$(sed -n 's/.*routed over \([0-9]*\) layer.*/\1/p' \
		"$CR_LOG" | tail -n 1)
	cr_log "$name: $LASH_LAYERS layer(s)"

	# Reachability and shortest paths on the installed tables.
	"$CROUTE" check --topo "$topo" --lids "$CR_GUID2LID" \
		--lfts "$CR_DUMP/opensm-lfts.dump" --require-minimal \
		--no-credit-loops >"$CR_DIR/$name.check" 2>&1 || {
		cat "$CR_DIR/$name.check"
		cr_fail "$name: croute check found problems in opensm's LFTs"
	}
	# The same tables offline, where the check also sees the layers.
	"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" --engine lash \
		--lash-start-vl "$start" -o "$CR_DIR/$name.offline" \
		2>"$CR_DIR/$name.route.err" ||
		cr_fail "$name: croute route failed: $(cat "$CR_DIR/$name.route.err")"
	cr_lfts_norm "$CR_DIR/$name.offline" >"$CR_DIR/$name.offline.norm"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.opensm.norm"
	cmp -s "$CR_DIR/$name.offline.norm" "$CR_DIR/$name.opensm.norm" || {
		diff "$CR_DIR/$name.opensm.norm" "$CR_DIR/$name.offline.norm" |
			head -n 10
		cr_fail "$name: opensm's LFTs differ from croute route's"
	}
	"$CROUTE" check --topo "$topo" --lids "$CR_GUID2LID" --engine lash \
		--lash-start-vl "$start" --require-minimal --switches \
		>"$CR_DIR/$name.check-sl" 2>&1 || {
		cat "$CR_DIR/$name.check-sl"
		cr_fail "$name: croute check (with the layers) found problems"
	}
	grep -q "credit loops: *0" "$CR_DIR/$name.check-sl" ||
		cr_fail "$name: croute check did not look for credit loops"

	# ibdmchk, told the layers, when the plugin dumped them.
	if [ -s "$CR_DUMP/croute-lash-sl.dump" ] &&
		[ -s "$CR_DUMP/croute-lash-sl2vl.dump" ] &&
		command -v ibdmchk >/dev/null 2>&1; then
		(cd "$CR_DUMP" && timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
			ibdmchk -s opensm-subnet.lst -f opensm.fdbs \
			-m opensm.mcfdbs -c croute-lash-sl.dump \
			-d croute-lash-sl2vl.dump
		true) >"$CR_DIR/ibdmchk-$name.out" 2>&1
		grep -q -- "-I- no credit loops found" \
			"$CR_DIR/ibdmchk-$name.out" || {
			grep -i -- "credit\|^-E-" "$CR_DIR/ibdmchk-$name.out" |
				head
			cr_fail "$name: ibdmchk reports credit loops (or no verdict)"
		}
	else
		cr_log "$name: no croute-lash-sl.dump/-sl2vl.dump (or no" \
			"ibdmchk): ibdmchk skipped"
	fi
}

# lash_case NAME START_VL [opensm.conf lines...]: routes $CR_DIR/NAME.topo
# with one sweep.
lash_case() {
	name=$1
	start=$2
	shift 2
	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$CR_DIR/$name.topo"
	cr_conf "qos TRUE" "lash_start_vl $start" "$@"
	cr_opensm_once -Q -R cr-lash
	lash_verify "$name" "$CR_DIR/$name.topo" "$start"
	cr_ibsim_stop
}

# --- 5x5 torus, opensm staying up for SA queries ---------------------------
name=torus
topo=$CR_DIR/$name.topo
cr_gen "$topo" torus 5 5 --hosts 1
rm -f "$CR_GUID2LID"
cr_ibsim_start "$topo"
cr_conf "qos TRUE" "lash_start_vl 1"
cr_opensm_start -Q -R cr-lash
cr_wait_log "$CR_DIR/opensm-$CR_RUN.log" "SUBNET UP" 1 "$CR_TIMEOUT" \
	"$CR_OSM_PID" || cr_fail "$name: the subnet did not come up"
[ -f "$CR_DUMP/opensm-lfts.dump" ] || sleep 1
lash_verify "$name" "$topo" 1
[ "$LASH_LAYERS" -ge 2 ] || cr_fail "$name: a 5x5 torus needs 2 layers"

# Host LIDs from guid2lid (CA port GUIDs follow the caguid= lines).
awk '/^caguid=/ { g = $0; sub(/^caguid=/, "", g); print g }' "$topo" |
	head -n 25 >"$CR_DIR/ca-guids"
: >"$CR_DIR/host-lids"
while read -r g; do
	# The port GUID of port 1: the topology lists it on the port line.
	pg=$(awk -v g="$g" '
		/^caguid=/ { want = (substr($0, 8) == g); next }
		want && /^\[1\]\(/ { s = $0; sub(/^\[1\]\(/, "", s);
				     sub(/\).*/, "", s); print "0x" s; exit }' "$topo")
	[ -n "$pg" ] || pg=$g
	# guid2lid pads GUIDs to 16 digits, the topology does not.
	lid=$(awk -v g="$pg" '
		function norm(x) { x = tolower(x); sub(/^0x0*/, "", x)
				   return x }
		norm($1) == norm(g) { print $2 + 0; exit }' "$CR_GUID2LID")
	[ -n "$lid" ] && echo "$lid $g" >>"$CR_DIR/host-lids"
done <"$CR_DIR/ca-guids"
[ "$(wc -l <"$CR_DIR/host-lids")" -ge 10 ] ||
	cr_fail "$name: could not find the hosts' LIDs"

seen_sls=
pairs=0
while read -r slid sguid; do
	while read -r dlid _; do
		[ "$slid" = "$dlid" ] && continue
		# A few pairs per source keep the test short.
		[ $(((slid + dlid) % 8)) = 0 ] || continue
		out=$(cr_osm_env timeout -k "$CR_GRACE" 30 saquery -p \
			--src-to-dst "$slid:$dlid" </dev/null 2>&1) ||
			cr_fail "saquery -p $slid:$dlid failed: $out"
		sl=$(echo "$out" | sed -n 's/^[ \t]*sl\.*\(0x[0-9a-fA-F]*\|[0-9]*\)$/\1/p' |
			head -n 1)
		[ -n "$sl" ] || cr_fail "no SL in saquery's answer: $out"
		sl=$((sl))
		if [ "$sl" -lt 1 ] || [ "$sl" -gt "$LASH_LAYERS" ]; then
			cr_fail "$slid -> $dlid: SL $sl outside 1..$LASH_LAYERS"
		fi
		if [ -s "$CR_DUMP/croute-lash-sl.dump" ]; then
			want=$(awk -v g="$sguid" -v l="$dlid" '
				function norm(x) { x = tolower(x); sub(/^0x0*/, "", x)
						   return x }
				norm($1) == norm(g) && $2 == l { print $3 }' \
				"$CR_DUMP/croute-lash-sl.dump")
			[ "$sl" = "$want" ] ||
				cr_fail "$slid -> $dlid: saquery SL $sl, dump $want"
		fi
		case " $seen_sls " in
		*" $sl "*) ;;
		*) seen_sls="$seen_sls $sl" ;;
		esac
		pairs=$((pairs + 1))
	done <"$CR_DIR/host-lids"
done <"$CR_DIR/host-lids"
[ "$pairs" -ge 10 ] || cr_fail "$name: only $pairs path records checked"
[ "$(echo "$seen_sls" | wc -w)" -ge 2 ] ||
	cr_fail "$name: every path record has SL$seen_sls: not the layers"
cr_log "$name: $pairs path records, SLs$seen_sls"
cr_opensm_stop 10
cr_ibsim_stop

# --- a random irregular fabric and a fat tree ------------------------------
cr_gen "$CR_DIR/random.topo" random --switches 24 --links 4 --hosts 1 \
	--seed 5
lash_case random 0
# LMC 1: each LID of a port has its own tree and layers.
cp "$CR_DIR/random.topo" "$CR_DIR/random-lmc.topo"
lash_case random-lmc 2 "lmc 1"
cr_gen "$CR_DIR/ftree.topo" ktree 2 3
# Switch-to-switch shortest paths turn down then up too: not always 1.
lash_case ftree 0
# Two cables between every leaf and spine: parallel links.
cr_gen "$CR_DIR/parallel.topo" two-level --leaves 4 --hosts 4 --uplinks 4 \
	--spines 2
lash_case parallel 0

# --- 6x6x6 torus: OpenSM's lash needs 9 VLs, cr-lash at most 8 -------------
cr_gen "$CR_DIR/torus3d.topo" torus 6 6 6 --hosts 1
lash_case torus3d 0
[ "$LASH_LAYERS" -le 8 ] || cr_fail "torus3d: more than 8 layers"

# --- too few VLs: refusal with the numbers, OpenSM falls back --------------
rm -f "$CR_GUID2LID"
cr_ibsim_start "$CR_DIR/torus.topo"
cr_conf "qos TRUE" "lash_start_vl 7"
cr_opensm_once -Q -R cr-lash,minhop
cr_expect_log "cr-lash: the fabric needs [0-9]+ layers .*1 available" \
	"too few VLs: no error with the numbers"
cr_reject_log "croute: cr-lash: routed" "too few VLs: cr-lash claimed success"
cr_ibsim_stop

CR_STATUS=0
exit 0
