#!/bin/sh
# What OpenSM reads from the hop tables croute installs (only switch LIDs
# get hop rows, src/plugin/export.c): for cr-ftree, cr-updn and cr-minhop
# on a 3-level tree, hosts on every leaf join the IPoIB broadcast group
# (OpenSM creates it without a partition file) through the SA (mcjoin);
# after a re-sweep opensm.mcfdbs must hold a spanning tree for its MLID:
# the member hosts' ports, switch-to-switch ports in both directions, the
# switches connected without a cycle. opensm.fdbs must give every routed
# LID a hop count, optimal on the minimal engines, and the SA must answer
# path record queries between members (saquery -p).

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

# The spanning tree of MLID 0xC000 in opensm.mcfdbs, checked against
# opensm-subnet.lst; the member port GUIDs in $CR_DIR/members.
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
	}' "$CR_DIR/members" "$CR_DUMP/opensm-subnet.lst" \
		"$CR_DUMP/opensm.mcfdbs"
}

cr_ibsim_start "$topo"
# One host per leaf: the port GUID of every fourth host.
awk '/^Ca[ \t]/ { n++; want = n % 4 == 1 }
	want && /^\[1\]\(/ { g = $1; sub(/^\[1\]\(/, "", g); sub(/\).*/, "", g)
	g = sprintf("%16s", g); gsub(/ /, "0", g); print "0x" g; want = 0 }' \
	"$topo" >"$CR_DIR/members"
for engine in cr-ftree cr-updn cr-minhop; do
	cr_opensm_start -R "$engine"
	cr_wait_log "$CR_LOG" "$CR_UP" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
		cr_fail "$engine: the subnet did not come up"
	cr_quiet
	cr_osm_env "$MCJOIN" "$BCAST" $(cat "$CR_DIR/members") \
		>"$CR_DIR/join-$engine.out" 2>&1 || {
		cat "$CR_DIR/join-$engine.out"
		cr_fail "$engine: mcjoin failed"
	}
	cr_resweep
	grep -qi '^0xc000' "$CR_DUMP/opensm.mcfdbs" ||
		cr_fail "$engine: opensm.mcfdbs has no entry for MLID 0xC000"
	res=$(check_tree) || {
		echo "$res"
		cr_fail "$engine: MLID 0xC000 has no spanning tree"
	}
	cr_log "$engine: multicast spanning tree: $res"
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
CR_STATUS=0
