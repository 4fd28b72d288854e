# Helpers of the tests that change a fabric under a running opensm
# (faults.sh, sighup.sh, soak.sh) and of bench/churn; sourced after
# lib.sh, not run. POSIX sh. Their own variables are named cr_*, so that
# they leave the callers' alone.
#
# The fabric changes through ibsim's console; ibsim sends the SM a trap
# and OpenSM re-sweeps. cr_settle waits for that routing run (with a
# SIGHUP when no trap arrived) and for the end of the sweep, so that the
# dump files are complete; cr_discover reads the fabric back with
# ibnetdiscover, which is what the routing has to match.

# The end of a heavy sweep: OpenSM writes its dump files just before.
CR_UP="SUBNET UP|Errors during initialization"

# cr_quiet: waits until the sweep of the last routing run has ended (a
# "SUBNET UP" or error line after it: OpenSM has written its dump files)
# and no other sweep has followed within a second (a change can bring
# several traps).
cr_quiet() {
	cr_i=0
	cr_stable=0
	cr_last=
	while [ $cr_i -lt $((CR_TIMEOUT * 5)) ]; do
		# The line numbers of the last routing run and sweep end.
		cr_now=$(awk -v d="$CR_DONE" -v u="$CR_UP" '
			$0 ~ d { ld = NR } $0 ~ u { lu = NR }
			END { print ld + 0, lu + 0 }' "$CR_LOG" 2>/dev/null)
		if [ "$cr_now" = "$cr_last" ]; then
			cr_stable=$((cr_stable + 1))
		else
			cr_stable=0
		fi
		cr_last=$cr_now
		# 1 s after the sweep that routed ended; 10 s if it never says
		# (a sweep cut short), since a slow one (valgrind) may be long.
		if { [ "${cr_now#* }" -gt "${cr_now% *}" ] &&
			[ $cr_stable -ge 5 ]; } || [ $cr_stable -ge 50 ]; then
			return 0
		fi
		kill -0 "$CR_OSM_PID" 2>/dev/null || cr_fail "opensm is gone"
		sleep 0.2
		cr_i=$((cr_i + 1))
	done
	cr_fail "opensm keeps sweeping"
}

# cr_settle BEFORE: waits for a routing run after the first BEFORE ones
# (count them with cr_count "$CR_DONE" before changing the fabric). ibsim's
# trap starts it; after CR_SETTLE_HUP seconds without one, a SIGHUP does.
cr_settle() {
	if ! cr_wait_log "$CR_LOG" "$CR_DONE" $(($1 + 1)) \
		"${CR_SETTLE_HUP:-5}" "$CR_OSM_PID"; then
		cr_log "no sweep after the change: SIGHUP"
		cr_hup
		cr_wait_log "$CR_LOG" "$CR_DONE" $(($1 + 1)) "$CR_TIMEOUT" \
			"$CR_OSM_PID" ||
			cr_fail "no routing run after the change"
	fi
	cr_quiet
}

# cr_resweep: a SIGHUP re-sweep (OpenSM and croute re-read their keys).
cr_resweep() {
	cr_n=$(cr_count "$CR_DONE")
	cr_hup
	cr_wait_log "$CR_LOG" "$CR_DONE" $((cr_n + 1)) "$CR_TIMEOUT" \
		"$CR_OSM_PID" || cr_fail "no routing run after SIGHUP"
	cr_quiet
}

# cr_engine_used: the engine whose tables the last routing run installed.
cr_engine_used() {
	sed -n 's/.*-> osm_ucast_mgr_process: \(.*\) tables configured.*/\1/p' \
		"$CR_LOG" | tail -n 1
}

# cr_discover FILE: the fabric as the SM's port sees it now (ibnetdiscover
# through ibsim), nodes in GUID order (see cr_topo_by_guid).
cr_discover() {
	cr_osm_env timeout -k "$CR_GRACE" 60 ibnetdiscover >"$1.raw" \
		2>"$1.err" || cr_fail "ibnetdiscover: $(tail -n 3 "$1.err")"
	grep -q '^Switch' "$1.raw" || cr_fail "ibnetdiscover found no switch"
	cr_topo_by_guid "$1.raw" "$1"
}

# cr_topo_by_guid IN OUT: the topology file IN with its nodes in node GUID
# order. The plugin imports OpenSM's nodes in that order, `croute route`
# takes a file's order, and the engines' results depend on it (LIDs are
# routed switch by switch); ibnetdiscover writes nodes as it finds them.
cr_topo_by_guid() {
	awk 'BEGIN { RS = "" }
	{
		key = "0"
		n = split($0, line, "\n")
		for (i = 1; i <= n; i++)
			if (line[i] ~ /^(Switch|Ca|Hca|Rt)[ \t]/) {
				split(line[i], q, "\"")
				key = tolower(substr(q[2], 3))
				break
			}
		gsub(/\n/, "\001")
		print key "\t" $0
	}' "$1" | LC_ALL=C sort -s -k1,1 | cut -f 2- |
		awk '{ gsub(/\001/, "\n"); print; print "" }' >"$2"
}

# cr_topo_links TOPO: "id port remote-id remote-port" for every linked port
# of every node (each link twice, once from each end).
cr_topo_links() {
	awk '
	/^(Switch|Ca|Hca|Rt)[ \t]/ { split($0, q, "\""); id = q[2]; next }
	/^\[/ && id != "" {
		p = substr($1, 2, index($1, "]") - 2) + 0
		split($0, q, "\"")
		rest = substr($0, index($0, q[2]) + length(q[2]) + 1)
		rp = substr(rest, 2, index(rest, "]") - 2) + 0
		print id, p, q[2], rp
	}' "$1"
}

# cr_topo_id TOPO DESC: the node id ("S-...") of the node described DESC.
cr_topo_id() {
	awk -v d="\"$2\"" '/^(Switch|Ca)/ && $0 ~ "# " d {
		split($0, q, "\""); print q[2]; exit }' "$1"
}

cr_guid_of() {
	echo "0x${1#?-}"
}

# cr_link_ends LINKS ID PORT: "switch-guid port" of both ends of the link
# at port PORT of node ID (LINKS: cr_topo_links output), for cr_churn.
cr_link_ends() {
	awk -v id="$2" -v p="$3" '$1 == id && $2 == p' "$1" |
		while read -r a ap b bp; do
			echo "$(cr_guid_of "$a") $ap"
			echo "$(cr_guid_of "$b") $bp"
		done
}

# cr_dead_routes TOPO NORM: the entries of the normalised LFTs NORM that
# lead into a port without a link in TOPO (ibnetdiscover of the current
# fabric) or route a LID no port of TOPO has; prints them, one a line.
cr_dead_routes() {
	awk '
	FNR == 1 { file++ }
	file == 1 && /^Switch/ {
		split($0, q, "\"")
		sw = "0x" tolower(substr(q[2], 3))
		up[sw " 0"] = 1
		if (match($0, /base port 0 lid [0-9]+ lmc [0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), w, " ")
			live[sprintf("0x%04x", w[5])] = 1
		}
		next
	}
	file == 1 && /^(Ca|Hca|Rt)/ { sw = ""; next }
	file == 1 && /^\[/ {
		if (sw != "") {
			p = substr($1, 2, index($1, "]") - 2) + 0
			up[sw " " p] = 1
		} else if (match($0, /# lid [0-9]+ lmc [0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), w, " ")
			for (l = 0; l < 2 ^ w[5]; l++)
				live[sprintf("0x%04x", w[3] + l)] = 1
		}
		next
	}
	file == 2 && !(($1 " " $3) in up) { print "dead port: " $0; next }
	file == 2 && !($2 in live) { print "dead LID: " $0 }
	' "$1" "$2"
}

# cr_ibdm_verdict DIR [ARGS...]: ibdmchk on the dump files in DIR,
# multicast included (-M). Prints its credit loop line; returns 0 when it
# found none, 1 when it found some, 2 without a verdict. Debian's 1.5.7
# may crash after its report: its exit status means nothing.
cr_ibdm_verdict() {
	cr_dir=$1
	shift
	(cd "$cr_dir" && timeout -k "$CR_GRACE" "$CR_TIMEOUT" ibdmchk \
		-s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs -M "$@"
	true) >"$cr_dir/ibdmchk.out" 2>&1
	cr_line=$(grep -E -i -- "credit loop" "$cr_dir/ibdmchk.out" | tail -n 1)
	echo "${cr_line:-no verdict}"
	case $cr_line in
	*"no credit loops found"*) return 0 ;;
	*[Cc]redit*) return 1 ;;
	esac
	return 2
}

# cr_churn BEFORE AFTER DEAD: compares two normalised LFTs; DEAD lists
# "switch-guid port" pairs whose link failed. Prints "total changed forced
# unforced": entries of BEFORE, entries that differ in AFTER, those that
# had to (they pointed into a failed port, or their LID or their switch is
# gone), and the others.
cr_churn() {
	# (By name: an empty file has no first line to count.)
	awk '
	FILENAME == ARGV[1] { dead[$1 " " $2] = 1; next }
	FILENAME == ARGV[2] { before[$1 " " $2] = $3; n++; next }
	{ after[$1 " " $2] = $3; lid[$2] = 1; sw[$1] = 1 }
	END {
		for (k in before) {
			split(k, w, " ")
			forced = ((w[1] " " before[k]) in dead) ||
			    !(w[2] in lid) || !(w[1] in sw)
			if (!(k in after) || after[k] != before[k]) {
				changed++
				if (forced)
					f++
			}
		}
		for (k in after)
			if (!(k in before))
				changed++
		printf "%d %d %d %d\n", n, changed, f, changed - f
	}' "$3" "$1" "$2"
}

# cr_fault_pick TOPO LINKS: the faults the churn benches apply, away from
# the SM's switch (the first node of TOPO). Sets cr_leaf (the last switch
# with hosts), cr_up (its first port cabled to another switch), cr_mid (the
# switch at the other end, empty when it has hosts of its own) and
# cr_hostp (the leaf's first host port). LINKS is cr_topo_links's output.
cr_fault_pick() {
	cr_sm=$(awk '/^Switch/ { split($0, q, "\""); print q[2]; exit }' "$1")
	cr_leaf=$(awk -v sm="$cr_sm" '
		$1 ~ /^S-/ && $3 ~ /^H-/ && $1 != sm { l = $1 }
		END { print l }' "$2")
	set -- "$2" $(awk -v l="$cr_leaf" -v sm="$cr_sm" '
		$1 == l && $3 ~ /^S-/ && $3 != sm { print $2, $3; exit }' "$2")
	cr_up=${2:-}
	cr_mid=${3:-}
	cr_hostp=$(awk -v l="$cr_leaf" '$1 == l && $3 ~ /^H-/ {
		print $2; exit }' "$1")
	if [ -n "$cr_mid" ] && awk -v m="$cr_mid" '
		$1 == m && $3 ~ /^H-/ { f = 1 } END { exit !f }' "$1"; then
		cr_mid=
	fi
	[ -n "$cr_leaf" ] && [ -n "$cr_up" ] ||
		cr_fail "no leaf with an uplink in $1"
}
