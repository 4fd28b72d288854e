#!/bin/sh
# Multicast with croute's engines. On a 3-level tree, hosts on every leaf
# join the IPoIB broadcast group (OpenSM creates it without a partition
# file) through the SA (mcjoin); after a re-sweep its MLID must have a
# spanning tree: the member hosts' ports, switch-to-switch ports in both
# directions, the switches connected without a cycle.
# - croute's own trees (src/plugin/mcast.c) for cr-ftree, cr-updn and
#   cr-minhop, read from opensm.mcfdbs; with the routing dumps on, croute
#   also installs hop rows for switch LIDs: opensm.fdbs must give every
#   routed LID a hop count, optimal on the minimal engines, and the SA
#   must answer path record queries between members (saquery -p).
# - croute_mcast_trees FALSE: OpenSM's own builder, from croute's hop rows.
# - Without the dumps (no log flag 0x40) croute installs no hop rows: the
#   tree is read back from the switches with ibroute -M.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

MCJOIN=$top_builddir/tests/ibsim/mcjoin
cr_need saquery
cr_init mcast
[ -x "$MCJOIN" ] || cr_fail "$MCJOIN is not built"
BCAST=ff12:401b:ffff::ffff:ffff

topo=$CR_DIR/fabric.topo
cr_gen "$topo" ktree 4 3
cr_conf "sweep_interval 0" "croute_estimate none"

# check_tree MCFDBS: the spanning tree of MLID 0xC000 in MCFDBS (in the
# form of opensm.mcfdbs), checked against the subnet list of the first
# run ($CR_DIR/subnet.lst); the member port GUIDs in $CR_DIR/members.
check_tree() {
	awk '
	function hex(s,   v, i) {
		s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function norm(g) {
		g = tolower(g); sub(/^0x/, "", g); sub(/^0+/, "", g)
		return g
	}
	function field(s, k,   r) {
		r = s; sub(".*" k ":", "", r); sub(/[ }].*/, "", r)
		return norm(r)
	}
	FILENAME ~ /members$/ { member[norm($1)] = 1; nmem++; next }
	FILENAME ~ /subnet.lst$/ {
		# { TYPE ... NodeGUID:.. PortGUID:.. PN:.. } { ... } ...
		# Descriptions are in braces too: split between the ends.
		if (split($0, e, / \} \{ /) < 2) next
		e[2] = "{ " e[2]
		a = field(e[1], "NodeGUID") " " field(e[1], "PN") + 0
		b = field(e[2], "NodeGUID") " " field(e[2], "PN") + 0
		far[a] = b; far[b] = a
		if (e[1] ~ /\{ *CA/) cap[a] = field(e[1], "PortGUID")
		if (e[2] ~ /\{ *CA/) cap[b] = field(e[2], "PortGUID")
		sw[field(e[1], "NodeGUID")] = e[1] ~ /\{ *SW/
		sw[field(e[2], "NodeGUID")] = e[2] ~ /\{ *SW/
		next
	}
	/^Switch 0x/ { cur = norm($2); next }
	tolower($1) == "0xc000" {
		for (i = 3; i <= NF; i++) {
			p = hex($i)
			out[cur " " p] = 1
			used[cur] = 1
		}
	}
	END {
		for (k in out) {
			split(k, x, " ")
			if (x[2] == 0) continue
			if (!(k in far)) { print "port to nowhere: " k; bad++; continue }
			split(far[k], y, " ")
			if (sw[y[1]]) {
				if (!(far[k] in out)) {
					print "one-way link: " k; bad++
				}
				edges++
			} else if (!(cap[far[k]] in member)) {
				print "non-member host on " k; bad++
			} else {
				reached[cap[far[k]]] = 1
			}
		}
		for (m in member)
			if (!(m in reached)) { print "member not reached: " m; bad++ }
		for (s in used) nsw++
		edges /= 2
		if (edges != nsw - 1) {
			print "not a tree: " nsw " switches, " edges " links"; bad++
		}
		# connected: flood from one switch over tree links
		for (s in used) { start = s; break }
		seen[start] = 1; q[++t] = start
		for (h = 1; h <= t; h++)
			for (k in out) {
				split(k, x, " ")
				if (x[1] != q[h] || x[2] == 0 || !(k in far)) continue
				split(far[k], y, " ")
				if (sw[y[1]] && !(y[1] in seen)) {
					seen[y[1]] = 1; q[++t] = y[1]
				}
			}
		if (t != nsw) { print "not connected: " t " of " nsw; bad++ }
		printf "%d switches, %d tree links, %d members\n", nsw, edges,
		    nmem
		exit bad ? 1 : 0
	}' "$CR_DIR/members" "$CR_DIR/subnet.lst" "$1"
}

# mft_from_switches OUT: MLID 0xC000 of every switch, read from the
# switches themselves (ibroute -M: an x in port i's column, 12 + 2i
# characters in), in opensm.mcfdbs's form.
mft_from_switches() {
	: >"$1"
	for lid in $(awk '
	FILENAME ~ /subnet.lst$/ && /^\{ *SW/ {
		g = $0; sub(/.*NodeGUID:/, "", g); sub(/[ }].*/, "", g)
		g = tolower(g); sub(/^0x/, "", g); sub(/^0+/, "", g)
		sw[g] = 1; next
	}
	FILENAME !~ /subnet.lst$/ {
		g = tolower($1); sub(/^0x/, "", g); sub(/^0+/, "", g)
		if (g in sw) print $2 + 0
	}' "$CR_DIR/subnet.lst" "$CR_GUID2LID"); do
		cr_osm_env timeout 20 ibroute -M "$lid" 0xc000 0xc000 \
			>"$CR_DIR/mft.one" 2>"$CR_DIR/mft.err" || {
			cat "$CR_DIR/mft.err"
			cr_fail "ibroute -M $lid failed"
		}
		awk '
		/^Multicast mlids/ {
			for (i = 1; i < NF; i++)
				if ($i == "guid") print "Switch " $(i + 1)
		}
		tolower($1) == "0xc000" {
			out = "0xC000 :"
			for (p = 0; 13 + 2 * p <= length($0); p++)
				if (substr($0, 13 + 2 * p, 1) == "x")
					out = out sprintf(" 0x%03x", p)
			print out
		}' "$CR_DIR/mft.one" >>"$1"
	done
	grep -q "^Switch" "$1" || cr_fail "ibroute -M read no switch"
}

# join_and_check ENGINE WHAT: the members join, a re-sweep, then the tree
# in $CR_DIR/mft-ENGINE (from opensm.mcfdbs, or the switches when WHAT is
# "switches").
join_and_check() {
	cr_osm_env "$MCJOIN" "$BCAST" $(cat "$CR_DIR/members") \
		>"$CR_DIR/join-$1.out" 2>&1 || {
		cat "$CR_DIR/join-$1.out"
		cr_fail "$1: mcjoin failed"
	}
	cr_resweep
	if [ "$2" = switches ]; then
		mft_from_switches "$CR_DIR/mft-$1"
	else
		cp "$CR_DUMP/opensm.mcfdbs" "$CR_DIR/mft-$1"
	fi
	grep -qi '^0xc000' "$CR_DIR/mft-$1" ||
		cr_fail "$1: no multicast entry for MLID 0xC000 ($2)"
	res=$(check_tree "$CR_DIR/mft-$1") || {
		echo "$res"
		cr_fail "$1: MLID 0xC000 has no spanning tree ($2)"
	}
	cr_log "$1: multicast spanning tree ($2): $res"
}

cr_ibsim_start "$topo"
# One host per leaf: the port GUID of every fourth host.
awk '/^Ca[ \t]/ { n++; want = n % 4 == 1 }
	want && /^\[1\]\(/ { g = $1; sub(/^\[1\]\(/, "", g); sub(/\).*/, "", g)
	g = sprintf("%16s", g); gsub(/ /, "0", g); print "0x" g; want = 0 }' \
	"$topo" >"$CR_DIR/members"
# Verbose too: croute logs each tree it builds.
CR_LOG_FLAGS=0x47
for engine in cr-ftree cr-updn cr-minhop; do
	cr_opensm_start -R "$engine"
	cr_wait_log "$CR_LOG" "$CR_UP" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$engine: the subnet did not come up"
	cr_quiet
	[ -s "$CR_DIR/subnet.lst" ] ||
		cp "$CR_DUMP/opensm-subnet.lst" "$CR_DIR/subnet.lst"
	join_and_check "$engine" opensm.mcfdbs
	cr_expect_log "croute: MLID 0xc000: 16 member ports, a tree of"
	if grep -q UNKNOWN "$CR_DUMP/opensm.fdbs"; then
		cr_fail "$engine: opensm.fdbs has entries without hop counts"
	fi
	if [ "$engine" != cr-updn ] && grep -q "hop path possible" \
		"$CR_DUMP/opensm.fdbs"; then
		grep "hop path possible" "$CR_DUMP/opensm.fdbs" | head -n 3
		cr_fail "$engine: opensm.fdbs shows non-optimal routes"
	fi
	# Path records between the first member and the others.
	first=$(head -n 1 "$CR_DIR/members")
	for m in $(tail -n +2 "$CR_DIR/members"); do
		a=$(cr_lids "$first" | cut -d' ' -f1)
		b=$(cr_lids "$m" | cut -d' ' -f1)
		cr_osm_env timeout 20 saquery -p --src-to-dst "$a:$b" \
			>"$CR_DIR/pr.out" 2>&1 &&
			grep -q "dlid" "$CR_DIR/pr.out" || {
			cat "$CR_DIR/pr.out"
			cr_fail "$engine: no path record from LID $a to $b"
		}
	done
	cr_opensm_stop || cr_fail "$engine: opensm exited with an error"
	cr_log "$engine: opensm.fdbs complete, path records answered: OK"
done

# OpenSM's own builder, from the hop rows croute installs.
cr_conf "sweep_interval 0" "croute_estimate none" "croute_mcast_trees FALSE"
cr_opensm_start -R cr-updn
cr_wait_log "$CR_LOG" "$CR_UP" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "cr-updn: the subnet did not come up"
cr_quiet
join_and_check cr-updn-osm opensm.mcfdbs
cr_reject_log "croute: MLID 0xc000"
cr_opensm_stop || cr_fail "cr-updn: opensm exited with an error"

# No routing dumps: no hop rows, croute's trees, read from the switches.
cr_conf "sweep_interval 0" "croute_estimate none"
CR_LOG_FLAGS=0x07
cr_opensm_start -R cr-ftree
cr_wait_log "$CR_LOG" "$CR_UP" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "cr-ftree: the subnet did not come up"
cr_quiet
cr_expect_log "install: LFTs .* no hop rows"
join_and_check cr-ftree-nodump switches
cr_expect_log "croute: MLID 0xc000: 16 member ports, a tree of"
cr_opensm_stop || cr_fail "cr-ftree: opensm exited with an error"
CR_STATUS=0
