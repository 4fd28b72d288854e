#!/bin/bash
# ibdm cluster plans: every plan Debian's ibutils installs beside its ibnl
# files reads, converts and routes (cr-minhop, cr-updn; cr-auto on the
# small ones) with no unreachable pair and no forwarding loop, cr-updn and
# cr-auto with no credit loop; the host count is the HCAs the plan
# cables; `croute diff` finds removed cables and swapped ports; bad plans
# exit 2 naming file and line; --ibnl-dir definitions come first.
. "$(dirname "$0")/lib.sh"

for cmd in convert diff; do
	expect_exit 0 "$cmd" --help
	grep -q "^Usage: croute $cmd" "$tmp/out" || fail "$cmd --help: no usage"
	expect_exit 2 "$cmd" --no-such-option
done
expect_exit 2 convert
expect_exit 2 diff /dev/null

ibnl=
for d in /usr/lib/*-linux-*/ibdm*/ibnl /usr/lib64/ibdm*/ibnl \
	/usr/lib/ibdm*/ibnl /usr/local/lib/ibdm*/ibnl; do
	[ -d "$d" ] && ibnl=$d
done
[ -n "$ibnl" ] || {
	echo "SKIP: no ibdm ibnl directory (Debian package libibdm1)"
	exit 77
}
plans=$(ls "$ibnl"/*.topo 2>/dev/null)
[ -n "$plans" ] || {
	echo "SKIP: $ibnl holds no plans (*.topo)"
	exit 77
}

# The types whose systems are one HCA, from the ibnl files.
ca_types=$(grep -l 'NODE CA' "$ibnl"/*.ibnl | xargs grep -L 'NODE SW' |
	xargs grep -h '^TOPSYSTEM' | sed 's/^TOPSYSTEM *//; s/ //g' |
	tr ',\n' '  ')

# check_ok PLAN ENGINE CREDIT: croute check routes PLAN cleanly.
check_ok() {
	"$croute" check -q -t "$1" -e "$2" --auto-budget 1 >"$tmp/check" 2>&1
	grep -q '^unreachable: *0$' "$tmp/check" ||
		fail "$(basename "$1") $2: unreachable pairs"
	grep -q '^forwarding loops: *0$' "$tmp/check" ||
		fail "$(basename "$1") $2: forwarding loops"
	[ "${3:-}" = credit ] && ! grep -q '^credit loops: *0 ' "$tmp/check" &&
		fail "$(basename "$1") $2: credit loops"
	grep -q '^pairs checked: *[1-9]' "$tmp/check" ||
		fail "$(basename "$1") $2: nothing checked"
}

for p in $plans; do
	b=$(basename "$p" .topo)
	"$croute" convert -q -t "$p" -o "$tmp/$b.net" ||
		{ fail "$b: convert"; continue; }
	hosts=$(awk -v types="$ca_types" '
		BEGIN { n = split(types, t, " ")
			for (i = 1; i <= n; i++) ca[t[i]] = 1 }
		/->/ && ($3 in ca) && !($4 in h) { h[$4] = 1; k++ }
		/^[^ \t#]/ && !/->/ && ($1 in ca) && !($2 in h) { h[$2] = 1; k++ }
		END { print k + 0 }' "$p")
	cas=$(grep -c '^Ca' "$tmp/$b.net")
	[ "$hosts" -gt 0 ] && [ "$hosts" = "$cas" ] ||
		fail "$b: $cas hosts, the plan cables $hosts HCAs"
	check_ok "$p" minhop
	check_ok "$p" updn credit
	# The plan and its conversion are the same fabric.
	"$croute" route -q -t "$p" -e updn -o "$tmp/a.dump" &&
		"$croute" route -q -t "$tmp/$b.net" -e updn -o "$tmp/b.dump" &&
		cmp -s "$tmp/a.dump" "$tmp/b.dump" ||
		fail "$b: the plan and its conversion route differently"
	expect_exit 0 diff -t "$p" "$tmp/$b.net"
done
for b in Buffalo8 FullGnu SingleRhino; do
	[ -f "$ibnl/$b.topo" ] && check_ok "$ibnl/$b.topo" auto credit
done

# A fabric that names its nodes as ibdm and hosts do
# ("MF0;SW:MTS14400/L1/U1", "H001 HCA-1") matches its plan.
if [ -f "$ibnl/Buffalo8.topo" ]; then
	sed 's/# "\(SL[0-9]-[0-9]\)"/# "MF0;\1:MTS800\/U1"/
	s/# "\(H[0-9]*\)"$/# "\1 HCA-1"/' "$tmp/Buffalo8.net" >"$tmp/real.net"
	grep -q 'MF0;SL1-1:MTS800/U1' "$tmp/real.net" &&
		grep -q '"H01 HCA-1"' "$tmp/real.net" ||
		fail "test setup: no ibdm-style names"
	expect_exit 0 diff -t "$ibnl/Buffalo8.topo" "$tmp/real.net"
fi
if [ -f "$ibnl/SingleRhino.topo" ]; then
	sed 's/# "SW\/\(L[0-9]*\/U[0-9]\)"/# "MF0;SW:MTS14400\/\1"/' \
		"$tmp/SingleRhino.net" >"$tmp/real.net"
	grep -q 'MF0;SW:MTS14400/L1/U1' "$tmp/real.net" ||
		fail "test setup: no ibdm-style chip names"
	expect_exit 0 diff -t "$ibnl/SingleRhino.topo" "$tmp/real.net"
fi

# Descriptions keep the system's name; a one-HCA host is the host.
p=$ibnl/RhinoBased512.topo
if [ -f "$p" ]; then
	grep -q '# "SL1-1/L3/U1"' "$tmp/RhinoBased512.net" ||
		fail "no chip named SL1-1/L3/U1"
	grep -q '^Ca.*# "H-1"$' "$tmp/RhinoBased512.net" ||
		fail "host H-1 is not named H-1"
	# The plan's rates: "-8X-5G->" on line 17, "-12X->" on line 18.
	grep -q '"H-1" lid 0 8xDDR$' "$tmp/RhinoBased512.net" ||
		fail "line 17's 8X-5G is lost"
	grep -q '"H-2" lid 0 12xSDR$' "$tmp/RhinoBased512.net" ||
		fail "line 18's 12X is lost"

	# Three cables removed, two hosts swapped (lines 31 and 32).
	awk 'NR == 20 || NR == 40 || NR == 60 { next }
	NR == 31 { sub(/H-15 P1$/, "H-16 P1") }
	NR == 32 { sub(/H-16 P1$/, "H-15 P1") }
	{ print }' "$p" >"$tmp/cut.topo"
	cmp -s "$p" "$tmp/cut.topo" && fail "test setup: no change"
	"$croute" convert -q -t "$tmp/cut.topo" -o "$tmp/cut.net" ||
		fail "convert the changed plan"
	expect_exit 1 diff -t "$p" "$tmp/cut.net"
	for l in 20 40 60; do
		grep -q "^missing cable: .*(plan line $l)$" "$tmp/out" ||
			fail "diff misses the cable of line $l"
	done
	grep -q '^miswired: SL1-1 L3/P2 - H-15 P1 (plan line 31): SL1-1 L3/P2 is cabled to H-16 P1, H-15 P1 to SL1-1 L4/P2$' \
		"$tmp/out" || fail "diff misses the swap of line 31"
	grep -q '^miswired: SL1-1 L4/P2 - H-16 P1 (plan line 32)' \
		"$tmp/out" || fail "diff misses the swap of line 32"
	grep -q '^summary: 3 missing, 2 miswired, 0 extra' "$tmp/out" ||
		fail "diff: $(tail -n 1 "$tmp/out")"
	# --json: the same findings, each a kind and its text.
	expect_exit 1 diff -t "$p" "$tmp/cut.net" --json
	python3 - "$tmp/out" <<'PY' || fail "diff --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "diff" and d["result"] == "DIFFERENT"
assert (d["missing"], d["miswired"], d["extra"]) == (3, 2, 0), d
k = [f["kind"] for f in d["findings"]]
assert k.count("missing cable") == 3 and k.count("miswired") == 2, k
m = [f["text"] for f in d["findings"] if f["kind"] == "miswired"]
assert any("is cabled to H-16 P1" in t for t in m), m
PY
	# The other way round, the cables are extra.
	expect_exit 1 diff -t "$tmp/cut.topo" "$tmp/RhinoBased512.net"
	grep -q '^summary: 0 missing, 2 miswired, 3 extra' "$tmp/out" ||
		fail "diff extra: $(tail -n 1 "$tmp/out")"
	# A rate the plan gives that the fabric lacks.
	sed '21s/-4X->/-4X-10G->/' "$p" >"$tmp/rate.topo"
	expect_exit 1 diff -t "$tmp/rate.topo" "$tmp/RhinoBased512.net"
	grep -q '^wrong rate: SL1-1 L5/P1 - H-5 P1 (plan line 21): QDR planned, 4xSDR found$' \
		"$tmp/out" || fail "diff misses the rate of line 21"
fi

# Bad plans: exit 2, the file and line named.
bad() {
	printf "$2" >"$tmp/bad.topo"
	expect_exit 2 route -q -t "$tmp/bad.topo" -o "$tmp/x"
	grep -q "bad.topo:$1: .*$3" "$tmp/err" ||
		fail "bad plan ($3): $(cat "$tmp/err")"
}
bad 3 'MTS2400 S-1\n  P1 -> MT23108 H-1 P1\n  P2 -> NoSuch H-2 P1\n' \
	'unknown system type "NoSuch"'
bad 2 'MTS2400 S-1\n  P25 -> MT23108 H-1 P1\n' 'has no port P25'
bad 3 'MTS2400 S-1\n  P1 -> MT23108 H-1 P1\n  P2 -> MT23108 H-1 P1\n' \
	'H-1 P1 is already cabled on line 2'
bad 3 'MTS2400 S-1\n  P1 -> MT23108 H-1 P1\n  P2 -> MT23108 H-2\n' \
	'truncated'
bad 3 'MTS2400 S-1\n  P1 -> MT23108 H-1 P1\nMTS2400 S-2\n' 'truncated'
bad 1 'Gazelle G CFG: leaf9=R\n  L1/P1 -> MT23108 H-1 P1\n' 'no board leaf9'
bad 2 'Gazelle G CFG: leaf1=R\n  L1/P1 -> MT23108 H-1 P1\n' 'no port L1/P1'
bad 3 'MTS2400 S-1\n  P1 -> MT23108 H-1 P1\n  P2 -4Y-> MT23108 H-2 P1\n' \
	'bad link'

# --ibnl-dir: its definitions come before the installed ones. A board
# of two chips, one chip in its "half" flavour; and a one-port MT23108.
mkdir "$tmp/ibnl"
cat >"$tmp/ibnl/Box.ibnl" <<'EOF'
SYSTEM CARD
NODE SW 4 X U1
   1 -> P1
   2 -> P2
   3 -10G-> U2 3
NODE SW 4 X U2
   1 -> P3
   3 -> U1 3

SYSTEM CARD:half

NODE SW 4 X U1
   1 -> P1
   2 -> P2

TOPSYSTEM Box
SUBSYSTEM CARD card1
   P1 -> A1
   P2 -> A2
   P3 -> A3
EOF
printf 'TOPSYSTEM Tiny,MT23108\nNODE CA 1 X U1\n   1 -> P1\n' \
	>"$tmp/ibnl/Tiny.ibnl"
printf '%s\n' 'Box B1' '  A1 -> Box B2 A1' '  A3 -4X-> Box B3 A3' \
	'  A2 -> MT23108 H-1 P1' '' 'Box B2 CFG: card1=half' \
	'  A2 -> Box B3 A2' >"$tmp/box.topo"
expect_exit 2 convert -t "$tmp/box.topo"
expect_exit 0 convert -t "$tmp/box.topo" --ibnl-dir "$tmp/ibnl" \
	-o "$tmp/box.net"
n=$(grep -c '^Switch' "$tmp/box.net")
[ "$n" = 5 ] || fail "--ibnl-dir: $n switches, not 5"
grep -q '"B1/card1/U2"' "$tmp/box.net" || fail "--ibnl-dir: no B1/card1/U2"
grep -q '"B2"' "$tmp/box.net" || fail "one-chip B2 is not named B2"
grep -q '"B1/card1/U2" lid 0 4xQDR$' "$tmp/box.net" ||
	fail "--ibnl-dir: the inner link's 10G is lost"
grep -q '^Ca	1 .*"H-1"' "$tmp/box.net" ||
	fail "--ibnl-dir does not come before the installed MT23108"
expect_exit 2 convert -t "$tmp/box.topo" --ibnl-dir "$tmp/ibnl" \
	--ibnl-dir "$tmp/nosuch"
grep -q 'nosuch' "$tmp/err" || fail "a missing --ibnl-dir is not named"
# Same plan, same GUIDs.
"$croute" convert -q -t "$tmp/box.topo" --ibnl-dir "$tmp/ibnl" \
	-o "$tmp/box2.net"
cmp -s "$tmp/box.net" "$tmp/box2.net" || fail "convert is not deterministic"
exit $failed
