#!/bin/sh
# cr-lash under ibsim with a real opensm (-Q -R cr-lash): a 5x5 torus (two
# layers), a random irregular fabric (LMC 0 and 1), a fat tree, a two-level
# tree with parallel links and the 6x6x6 torus that OpenSM's own lash cannot
# fit in 8 VLs. Each routing must be cr-lash's (no fall-through), complete
# over shortest paths, identical to what `croute route` computes offline
# for the same LIDs, and free of credit loops per layer by `croute check`
# (offline, with the SLs) and by ibdmchk with the plugin's path-SL and
# SL2VL dumps (the same files `croute route --lash-sl/--lash-sl2vl` writes).
# On the torus and the random fabric with LMC 1, `saquery -p` returns the SL
# of croute-lash-sl.dump for (source node, destination LID): between hosts,
# from and to a port's further LMC LIDs, from and to switches
# (lash_start_vl shifts the SLs off OpenSM's default SL 0), and OpenSM
# programs cr-lash's SL2VL map on CA ports as on switch ports.
# croute_lash_sl_dump FALSE leaves the SL file out (tests/ibsim/qos.sh
# covers QoS off). Last, too few VLs: a clear error with the numbers, and
# OpenSM falls back.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_init lash
cr_need saquery

# lash_ibdmchk NAME [SL_FILE]: ibdmchk's credit-loop verdict on the last
# sweep's dumps, told the layers by SL_FILE (default croute-lash-sl.dump)
# and croute-lash-sl2vl.dump: prints "none", "loops" or "unknown". Its
# report counts, not its exit status: Debian's 1.5.7 may crash after it.
lash_ibdmchk() {
	out=$CR_DIR/ibdmchk-$1.out
	# No -l: ibdmchk's LMC model gives switches 2^LMC LIDs too, which
	# OpenSM does not ("Fail to update Min Hops Tables"); croute check
	# covers every LID of every port.
	(cd "$CR_DUMP" && timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
		ibdmchk -s opensm-subnet.lst -f opensm.fdbs \
		-m opensm.mcfdbs -c "${2:-croute-lash-sl.dump}" \
		-d croute-lash-sl2vl.dump
	true) >"$out" 2>&1
	if grep -q -i -- "-I- no credit loops found" "$out"; then
		echo none
	elif grep -q -i -- "-E- .*credit loop" "$out"; then
		echo loops
	else
		echo unknown
	fi
}

# lash_verify NAME TOPO START_VL: checks the last sweep of fabric TOPO;
# the offline runs take the options in LASH_OPTS too.
LASH_OPTS=
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
	cr_check_lfts "$topo" "$CR_DIR/$name.check" \
		"$name: croute check found problems in opensm's LFTs" \
		--require-minimal --skip-credit-loops
	# The same tables offline, where the check also sees the layers.
	# shellcheck disable=SC2086
	"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" --engine lash \
		$LASH_OPTS \
		--lash-start-vl "$start" -o "$CR_DIR/$name.offline" \
		2>"$CR_DIR/$name.route.err" ||
		cr_fail "$name: croute route failed: $(cat "$CR_DIR/$name.route.err")"
	cr_lfts_norm "$CR_DIR/$name.offline" >"$CR_DIR/$name.offline.norm"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.opensm.norm"
	cr_same "$CR_DIR/$name.opensm.norm" "$CR_DIR/$name.offline.norm" 10 \
		"$name: opensm's LFTs differ from croute route's"
	# shellcheck disable=SC2086
	"$CROUTE" check --topo "$topo" --lids "$CR_GUID2LID" --engine lash \
		$LASH_OPTS \
		--lash-start-vl "$start" --require-minimal --switches \
		>"$CR_DIR/$name.check-sl" 2>&1 || {
		cat "$CR_DIR/$name.check-sl"
		cr_fail "$name: croute check (with the layers) found problems"
	}
	grep -q "credit loops: *0" "$CR_DIR/$name.check-sl" ||
		cr_fail "$name: croute check did not look for credit loops"

	# The layer dumps: what croute route writes offline for these LIDs.
	for f in sl sl2vl; do
		[ -s "$CR_DUMP/croute-lash-$f.dump" ] ||
			cr_fail "$name: the plugin wrote no croute-lash-$f.dump"
	done
	# shellcheck disable=SC2086
	"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" --engine lash \
		$LASH_OPTS \
		--lash-start-vl "$start" -o /dev/null \
		--lash-sl "$CR_DIR/$name.sl" --lash-sl2vl "$CR_DIR/$name.sl2vl" \
		2>/dev/null || cr_fail "$name: croute route --lash-sl failed"
	# Node order differs between the plugin's import and the file.
	for f in "$CR_DIR/$name.sl" "$CR_DUMP/croute-lash-sl.dump"; do
		grep -v '^#' "$f" | LC_ALL=C sort >"$f.sorted"
	done
	cmp -s "$CR_DIR/$name.sl.sorted" \
		"$CR_DUMP/croute-lash-sl.dump.sorted" ||
		cr_fail "$name: croute-lash-sl.dump differs from croute route's"
	rm -f "$CR_DUMP/croute-lash-sl.dump.sorted"

	# ibdmchk, told the layers: its own credit-loop check.
	if command -v ibdmchk >/dev/null 2>&1; then
		verdict=$(lash_ibdmchk "$name")
		grep -i -- "credit loops\|^-E-" "$CR_DIR/ibdmchk-$name.out" |
			head -n 3 | sed "s/^/[ibdmchk $name] /"
		[ "$verdict" = none ] ||
			cr_fail "$name: ibdmchk: credit loops ($verdict)"
	else
		cr_log "$name: ibdmchk is not installed: its check skipped"
	fi
}

# lash_ends LMC: "LID NODE_GUID sw|ca" for every LID of every end port of the
# last sweep (opensm-subnet.lst: base LIDs; CA ports have 2^LMC each).
lash_ends() {
	awk -v lmc="$1" '
	function hex(s,   i, n) {
		n = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	{
		for (i = 1; i <= NF; i++) {
			if ($i == "{")
				type = ($(i + 1) ~ /^SW/) ? "sw" : "ca"
			else if ($i ~ /^NodeGUID:/)
				guid = "0x" tolower(substr($i, 10))
			else if ($i ~ /^LID:/) {
				base = hex(substr($i, 5))
				top = type == "ca" ? base + 2 ^ lmc - 1 : base
				for (l = base; l <= top; l++)
					print l, guid, type
			}
		}
	}' "$CR_DUMP/opensm-subnet.lst" | sort -n -u
}

# lash_sa_check NAME START LMC: path records from OpenSM's SA (opensm up)
# carry the SL croute-lash-sl.dump gives for (source node, destination LID),
# within START..START+layers-1: between hosts, from and to further LMC
# LIDs, from and to switch LIDs. A few pairs of each keep it short.
lash_sa_check() {
	name=$1
	start=$2
	lash_ends "$3" >"$CR_DIR/$name.ends"
	awk '$3 == "ca" { n++; if (n <= 24) print $1 }' "$CR_DIR/$name.ends" \
		>"$CR_DIR/$name.hosts"
	awk '$3 == "sw" { n++; if (n <= 3) print $1 }' "$CR_DIR/$name.ends" \
		>"$CR_DIR/$name.switches"
	[ "$(wc -l <"$CR_DIR/$name.hosts")" -ge 10 ] ||
		cr_fail "$name: could not find the hosts' LIDs"
	: >"$CR_DIR/$name.pairs"
	# Hosts to hosts, any of their LIDs; switches to hosts and back.
	while read -r s; do
		while read -r d; do
			[ "$s" != "$d" ] && [ $(((s + d) % 11)) = 0 ] &&
				echo "$s $d host"
		done <"$CR_DIR/$name.hosts"
	done <"$CR_DIR/$name.hosts" >>"$CR_DIR/$name.pairs"
	while read -r s; do
		sed -n '1p;5p;9p' "$CR_DIR/$name.hosts" | while read -r d; do
			echo "$s $d switch-to-host"
			echo "$d $s host-to-switch"
		done
	done <"$CR_DIR/$name.switches" >>"$CR_DIR/$name.pairs"
	# And three host pairs the dump puts on a later layer than the
	# first, so that the SA is seen to answer more than one layer's SL.
	awk -v start="$start" '
		FILENAME == ARGV[1] { guid[$1] = $2; next }
		FILENAME == ARGV[2] { sl[$1 " " $2] = $3; next }
		{ host[++n] = $1 }
		END {
			for (i = 1; i <= n && k < 3; i++)
			for (j = 1; j <= n && k < 3; j++) {
				v = sl[guid[host[i]] " " host[j]]
				if (i != j && v != "" && v != start) {
					print host[i], host[j], "host"
					k++
				}
			}
		}' "$CR_DIR/$name.ends" "$CR_DUMP/croute-lash-sl.dump" \
		"$CR_DIR/$name.hosts" >>"$CR_DIR/$name.pairs"
	seen_sls=
	pairs=0
	kinds=
	while read -r slid dlid kind; do
		out=$(cr_osm_env timeout -k "$CR_GRACE" 30 saquery -p \
			--src-to-dst "$slid:$dlid" </dev/null 2>&1) ||
			cr_fail "$name: saquery -p $slid:$dlid failed: $out"
		sl=$(echo "$out" |
			sed -n 's/^[ \t]*sl\.*\(0x[0-9a-fA-F]*\|[0-9]*\)$/\1/p' |
			head -n 1)
		[ -n "$sl" ] || cr_fail "$name: no SL in saquery's answer: $out"
		sl=$((sl))
		want=$(awk -v s="$slid" -v d="$dlid" '
			NR == FNR { if ($1 == s) g = $2; next }
			$1 == g && $2 == d { print $3; exit }' \
			"$CR_DIR/$name.ends" "$CR_DUMP/croute-lash-sl.dump")
		[ "$sl" = "$want" ] ||
			cr_fail "$name: $kind $slid -> $dlid: saquery SL $sl," \
				"croute-lash-sl.dump ${want:-nothing}"
		if [ "$sl" -lt "$start" ] ||
			[ "$sl" -ge $((start + LASH_LAYERS)) ]; then
			cr_fail "$name: $slid -> $dlid: SL $sl outside the layers"
		fi
		case " $kinds " in
		*" $kind "*) ;;
		*) kinds="$kinds $kind" ;;
		esac
		case " $seen_sls " in
		*" $sl "*) ;;
		*) seen_sls="$seen_sls $sl" ;;
		esac
		pairs=$((pairs + 1))
	done <"$CR_DIR/$name.pairs"
	[ "$pairs" -ge 10 ] || cr_fail "$name: only $pairs path records checked"
	[ "$(echo "$seen_sls" | wc -w)" -ge 2 ] ||
		cr_fail "$name: every path record has SL$seen_sls: not the layers"
	cr_log "$name: $pairs path records ($kinds ) match the dump, SLs$seen_sls"
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

# lash_up NAME START [opensm.conf lines...]: routes $CR_DIR/NAME.topo with
# opensm staying up (for SA queries) until lash_down.
lash_up() {
	name=$1
	start=$2
	shift 2
	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$CR_DIR/$name.topo"
	cr_conf "qos TRUE" "lash_start_vl $start" "$@"
	rm -f "$CR_DUMP"/opensm*
	cr_opensm_start -Q -R cr-lash
	cr_wait_log "$CR_LOG" "SUBNET UP" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$name: the subnet did not come up"
	# OpenSM writes its dumps (and croute its own) before SUBNET UP.
	lash_verify "$name" "$CR_DIR/$name.topo" "$start"
}

lash_down() {
	cr_opensm_stop 10
	cr_ibsim_stop
}

# lash_sl2vl_check NAME: the SL-to-VL tables OpenSM programmed
# (opensm-sl2vl.dump) are croute-lash-sl2vl.dump's map on every CA port and
# every switch output port: update_sl2vl reached them all.
lash_sl2vl_check() {
	want=$(awk '/^0x/ { s = ""
		for (i = 4; i <= 11; i++)
			s = s " " index("0123456789abcdef", substr($i, 3, 1)) - 1 \
			      " " index("0123456789abcdef", substr($i, 4, 1)) - 1
		print s; exit }' "$CR_DUMP/croute-lash-sl2vl.dump")
	[ -n "$want" ] || cr_fail "$1: no map in croute-lash-sl2vl.dump"
	awk -v want="$want" '
	/^Switch/ { ca = 0; next }
	/^Channel Adapter/ { ca = 1; cas++; next }
	/^[0-9]+ +[0-9]+ +:/ {
		if (!ca && $2 == 0)
			next	# port 0 of a base switch: not programmed
		s = ""
		for (i = 4; i <= NF; i++)
			s = s " " $i
		if (s != want) {
			print "row \"" $0 "\" of " (ca ? "a CA" : "a switch")
			bad++
		}
		rows++
	}
	END {
		print cas + 0, "CA ports,", rows + 0, "rows"
		exit bad || !cas
	}' "$CR_DUMP/opensm-sl2vl.dump" >"$CR_DIR/$1.sl2vl-check" || {
		head -n 5 "$CR_DIR/$1.sl2vl-check"
		cr_fail "$1: OpenSM's SL2VL tables are not cr-lash's map"
	}
	cr_log "$1: SL2VL as cr-lash's map on" \
		"$(tail -n 1 "$CR_DIR/$1.sl2vl-check")"
}

# --- 5x5 torus, opensm staying up for SA queries ---------------------------
cr_gen "$CR_DIR/torus.topo" torus 5 5 --hosts 1
# OpenSM's own map sends every SL to VL 0: only cr-lash's update_sl2vl makes
# the tables carry the layers.
lash_up torus 1 "qos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
[ "$LASH_LAYERS" -ge 2 ] || cr_fail "torus: a 5x5 torus needs 2 layers"
lash_sl2vl_check torus
lash_sa_check torus 1 0
# ibdmchk's "none" means something: told that every path takes one SL, it
# finds the torus's credit loops.
if command -v ibdmchk >/dev/null 2>&1; then
	sed '/^0x/ s/ [0-9]*$/ 1/' "$CR_DUMP/croute-lash-sl.dump" \
		>"$CR_DIR/torus-one-sl.dump"
	verdict=$(lash_ibdmchk torus-one-sl "$CR_DIR/torus-one-sl.dump")
	[ "$verdict" = loops ] ||
		cr_fail "torus: ibdmchk sees no loop with one SL ($verdict)"
	cr_log "torus: ibdmchk with every SL 1: credit loops, as it should"
fi
lash_down

# --- a random irregular fabric and a fat tree ------------------------------
cr_gen "$CR_DIR/random.topo" random --switches 24 --links 4 --hosts 1 \
	--seed 5
lash_case random 0
# LMC 1: each LID of a port has its own tree and layers; path records from
# and to the further LIDs, and from and to switches, carry the dump's SLs.
cp "$CR_DIR/random.topo" "$CR_DIR/random-lmc.topo"
lash_up random-lmc 2 "lmc 1"
lash_sa_check random-lmc 2 1
lash_down
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
# croute_lash_balance TRUE: the balanced pass, more layers, still no loop.
cp "$CR_DIR/torus3d.topo" "$CR_DIR/torus3d-bal.topo"
LASH_OPTS=--lash-balance
lash_case torus3d-bal 0 "croute_lash_balance TRUE"
LASH_OPTS=
cr_expect_log "cr-lash: .* layer\(s\), SL .*\(balanced paths\)" \
	"croute_lash_balance TRUE: not the balanced pass"

# --- croute_lash_sl_dump FALSE: no path-SL file (none stale either) --------
rm -f "$CR_GUID2LID"
cr_ibsim_start "$CR_DIR/torus.topo"
cr_conf "qos TRUE" "croute_lash_sl_dump FALSE"
cr_opensm_once -Q -R cr-lash
cr_expect_log "croute: cr-lash: routed 25 switches" \
	"croute_lash_sl_dump FALSE: cr-lash did not route"
cr_reject_log "croute: ERR" \
	"croute_lash_sl_dump FALSE: croute errors in the opensm log"
[ ! -e "$CR_DUMP/croute-lash-sl.dump" ] ||
	cr_fail "croute_lash_sl_dump FALSE: croute-lash-sl.dump is there"
[ -s "$CR_DUMP/croute-lash-sl2vl.dump" ] ||
	cr_fail "croute_lash_sl_dump FALSE: no croute-lash-sl2vl.dump either"
cr_ibsim_stop

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
