#!/bin/sh
# Today's fabrics through the command: croute gen's dragonfly-plus, hyperx
# and rail-tree (node, host and cable counts, even spreading of dragonfly+
# global cables, shared system images of a server's HCAs, refusals with
# exit 2), every one routed by cr-updn and cr-minhop and checked, and the
# rail-ring pattern at full rate on a full-bisection rail tree.

. "$(dirname "$0")/lib.sh"

# counts FILE SWITCHES CAS CABLES: a cable shows on both of its ends.
counts() {
	got=$(awk '/^Switch/ { s++ } /^Ca/ { c++ } /^\[/ { p++ }
		END { printf "%d %d %d", s, c, p / 2 }' "$1")
	[ "$got" = "$2 $3 $4" ] ||
		fail "$1: switches, CAs, cables $got, not $2 $3 $4"
}

gen() {
	name=$1
	shift
	"$croute" gen "$@" -o "$tmp/$name.topo" 2>"$tmp/err" || {
		cat "$tmp/err"
		fail "croute gen $*"
	}
}

# --- dragonfly+ ------------------------------------------------------------
# 5 groups of 2 leaves, 3 spines: 15 spines x 3 global ports is odd, so one
# spine has 2; 22 global cables over 10 group pairs, 2 or 3 each.
gen d5 dragonfly-plus --groups 5 --leaves 2 --spines 3 --hosts 2 --global 3
counts "$tmp/d5.topo" 25 20 72
gen d4 dragonfly-plus --groups 4 --leaves 2 --spines 2 --hosts 1 --global 3 \
	--speed NDR
counts "$tmp/d4.topo" 16 8 36
grep -q '4xNDR' "$tmp/d4.topo" || fail "dragonfly-plus ignores --speed"
# pairs FILE GROUPS MIN MAX: global cables between every two groups
pairs() {
	awk -v G="$2" -v lo="$3" -v hi="$4" '
	/^Switch/ { split($0, q, "\""); cur = q[4]; next }
	/^Ca/ { cur = "" }
	/^\[/ && cur ~ /spine/ {
		split($0, q, "\""); far = q[4]
		if (far !~ /spine/) next
		split(cur, a, "-"); split(far, b, "-")
		if (a[1] == b[1]) { bad = 1; next }
		if (a[1] < b[1]) n[a[1] " " b[1]]++
		spine[cur]++
	}
	END {
		for (k in n) { np++; if (n[k] < lo || n[k] > hi) bad = 1 }
		if (np != G * (G - 1) / 2) bad = 1
		exit bad
	}' "$1" || fail "$1: global cables between groups not all $3..$4"
}
pairs "$tmp/d5.topo" 5 2 3
pairs "$tmp/d4.topo" 4 2 2
awk '/^Switch/ { split($0, q, "\""); cur = q[4]; next }
	/^Ca/ { cur = "" }
	/^\[/ && cur ~ /spine/ && /spine/ {
		split($0, q, "\""); if (q[4] ~ /spine/) g[cur]++ }
	END { for (s in g) c[g[s]]++; exit !(c[3] == 14 && c[2] == 1) }' \
	"$tmp/d5.topo" || fail "d5: not one spine a cable short"

# --- HyperX ----------------------------------------------------------------
gen h34 hyperx 3 4 --hosts 2 --trunk 2
counts "$tmp/h34.topo" 12 24 84
gen h222 hyperx 2 2 2 --hosts 1
counts "$tmp/h222.topo" 8 8 20

# --- rail-optimized tree ----------------------------------------------------
# 6 servers of 2 rails in units of 4 (the second unit has 2): 4 leaves.
gen r6 rail-tree --servers 6 --rails 2 --unit 4 --spines 2
counts "$tmp/r6.topo" 6 12 28
grep -q '"server006 HCA-2"' "$tmp/r6.topo" || fail "rail-tree HCA names"
n=$(awk '/^sysimgguid/ { s = $0 } /^Ca/ { print s }' "$tmp/r6.topo" |
	sort -u | wc -l)
[ "$n" = 6 ] || fail "rail-tree: $n system images for 6 servers"
gen r16 rail-tree --servers 16 --rails 4 --unit 8 --spines 4
counts "$tmp/r16.topo" 12 64 128

# --- the rate asked for, and the same fabric every time ---------------------
gen hw hyperx 2 3 --hosts 1 --width 2 --speed NDR
grep '^\[' "$tmp/hw.topo" | grep -vq '2xNDR$' && fail "hyperx: not all 2xNDR"
gen rw rail-tree --servers 4 --rails 2 --unit 2 --spines 1 --speed EDR
grep '^\[' "$tmp/rw.topo" | grep -vq '4xEDR$' && fail "rail-tree: not all 4xEDR"
gen d5b dragonfly-plus --groups 5 --leaves 2 --spines 3 --hosts 2 --global 3
cmp -s "$tmp/d5.topo" "$tmp/d5b.topo" || fail "dragonfly-plus not deterministic"

# --- refusals ---------------------------------------------------------------
refuse() {
	msg=$1
	shift
	expect_exit 2 gen "$@"
	grep -q "$msg" "$tmp/err" || fail "croute gen $*: no '$msg'"
}
refuse "reach every other group" dragonfly-plus --groups 8 --leaves 2 \
	--spines 2 --hosts 1 --global 3
refuse "at least 2 groups" dragonfly-plus --groups 1 --leaves 2 \
	--spines 2 --hosts 1 --global 1
refuse "dragonfly+ spine would need 300 ports" dragonfly-plus --groups 3 \
	--leaves 200 --spines 2 --hosts 1 --global 100
refuse "needs --global" dragonfly-plus --groups 3 --leaves 2 --spines 2 \
	--hosts 1
refuse "dimension 2 is 1" hyperx 3 1 --hosts 1
refuse "2 to 3 numbers" hyperx 3 --hosts 1
refuse "trunk >= 1" hyperx 3 3 --hosts 1 --trunk 0
refuse "HyperX switch would need 258 ports" hyperx 100 100 --hosts 60
refuse "3 spines do not divide a unit of 4" rail-tree --servers 4 \
	--rails 2 --unit 4 --spines 3
refuse "rail-tree spine would need 512 ports" rail-tree --servers 256 \
	--rails 8 --unit 16 --spines 4
refuse "one port each" rail-tree --servers 4 --rails 2 --unit 4 \
	--spines 2 --hca-ports 2
refuse "takes no --trunk" rail-tree --servers 4 --rails 2 --unit 4 \
	--spines 2 --trunk 2

# --- every fabric routes: complete, no forwarding loop; updn loop free -----
for t in d5 d4 h34 h222 r6 r16; do
	for e in updn minhop; do
		expect_exit 0 route --topo "$tmp/$t.topo" --engine $e \
			-o "$tmp/$t-$e.lfts"
		"$croute" check --topo "$tmp/$t.topo" \
			--lfts "$tmp/$t-$e.lfts" >"$tmp/check" 2>&1
		grep -q '^unreachable: *0$' "$tmp/check" &&
			grep -q '^forwarding loops: *0$' "$tmp/check" ||
			fail "$t routed by cr-$e: incomplete or looping"
		# minhop's shortest paths close credit loops on
		# dragonfly+ and HyperX; on trees they cannot
		case $e-$t in
		minhop-d* | minhop-h*) continue ;;
		esac
		grep -q '^result: *OK$' "$tmp/check" ||
			fail "$t routed by cr-$e: croute check not clean"
	done
done

# --- rail-ring at full rate on a full-bisection rail tree ------------------
for e in ftree updn minhop; do
	expect_exit 0 estimate --topo "$tmp/r16.topo" --engine $e \
		--pattern rail-ring,shift
	grep -Eq '^rail-ring +1/1 +64 +1\.0000 +1\.0000 +0$' "$tmp/out" ||
		fail "rail-ring on r16 with cr-$e not 1.0"
done
expect_exit 2 estimate --topo "$tmp/r16.topo" --engine updn \
	--pattern rail-ring:2

exit $failed
