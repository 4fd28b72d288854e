#!/bin/sh
# croute hosts and croute export --slurm, offline.
#
# hosts: on a full fat tree, the order `croute hosts --order ftree` writes
# makes shift congestion free, as croute estimate scores it over that order
# (min rate 1.0), where a shuffled order of the same hosts does not; each
# host once. export --slurm: the file is checked against the fabric read
# independently from the topology file (tests/cli/slurmcheck.py): every
# host under exactly its leaf switch, every switch-to-switch cable said
# once (parent and child, or a comment for links within a level), nothing
# invented, and every line in topology.conf's syntax.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
CROUTE=$top_builddir/src/cli/croute
[ -x "$CROUTE" ] || {
	echo "FAIL: $CROUTE is not built"
	exit 1
}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/croute-cli-exports.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

expect() {
	want=$1
	shift
	"$CROUTE" "$@" >"$DIR/out" 2>"$DIR/err"
	rc=$?
	[ "$rc" = "$want" ] || {
		cat "$DIR/err"
		fail "croute $* exited $rc, not $want"
	}
}

# min rate of the shift pattern in an estimate report
shift_min() {
	awk '$1 == "shift" { print $5; exit }' "$DIR/out"
}

# --- hosts: ftree's order on a full fat tree -------------------------------
"$CROUTE" gen fat-tree 8 -o "$DIR/ft.topo" || fail "croute gen"
T=$DIR/ft.topo
expect 0 hosts --topo "$T" --order ftree -o "$DIR/ft.hosts"
grep -v '^#' "$DIR/ft.hosts" >"$DIR/names"
[ "$(wc -l <"$DIR/names")" = 128 ] || fail "not 128 hosts in the host file"
[ "$(sort -u "$DIR/names" | wc -l)" = 128 ] || fail "a host twice"
grep '^Ca' "$T" | sed 's/.*# "\([^ "]*\).*/\1/' | sort >"$DIR/cas"
sort "$DIR/names" | cmp -s - "$DIR/cas" || fail "hosts are not the CAs"
# The estimator takes hosts by full node description.
sed 's/.*/"& HCA-1"/' "$DIR/names" >"$DIR/order"
expect 0 estimate --topo "$T" --engine ftree --pattern shift \
	--hosts "$DIR/order"
[ "$(shift_min)" = 1.0000 ] || fail "shift min $(shift_min) in ftree order"
awk 'BEGIN { srand(7) } { print rand(), $0 }' "$DIR/order" | sort -n |
	cut -d' ' -f2- >"$DIR/shuffled"
cmp -s "$DIR/order" "$DIR/shuffled" && fail "shuffle did nothing"
expect 0 estimate --topo "$T" --engine ftree --pattern shift \
	--hosts "$DIR/shuffled"
awk -v m="$(shift_min)" 'BEGIN { exit !(m < 0.99) }' ||
	fail "shift min $(shift_min) in a shuffled order: the test proves nothing"
# --score says the same with exit 0, and 1 where the order is not free.
expect 0 hosts --topo "$T" --order ftree --score -o /dev/null
grep -q 'min 1.0000' "$DIR/err" || fail "--score: $(cat "$DIR/err")"
expect 0 hosts --topo "$T" --order minhop --port-shifting --score -o /dev/null
expect 0 hosts --topo "$T" --order minhop --score -o /dev/null
expect 1 hosts --topo "$T" --order minhop --scatter-ports 1 --score -o /dev/null
# From LFTs (no CA order): leaf order; hosts with two ports once.
"$CROUTE" gen two-level --leaves 4 --hosts 4 --uplinks 4 --spines 2 \
	--hca-ports 2 -o "$DIR/two.topo" || fail "croute gen"
expect 0 route --topo "$DIR/two.topo" --engine updn -o "$DIR/two.lfts"
expect 0 hosts --topo "$DIR/two.topo" --lfts "$DIR/two.lfts"
grep -v '^#' "$DIR/out" >"$DIR/names"
[ "$(wc -l <"$DIR/names")" = 16 ] || fail "two-port hosts not once each"
seq -f 'h%04g' 1 16 | cmp -s - "$DIR/names" || fail "not leaf order"
expect 2 hosts --topo "$DIR/two.topo"
"$CROUTE" gen torus 3 3 -o "$DIR/t.topo" || fail "croute gen"
expect 1 hosts --topo "$DIR/t.topo" --order ftree
expect 2 hosts --topo "$DIR/two.topo" --order nosuch

# --- export --slurm --------------------------------------------------------
check_slurm() {
	expect 0 export --slurm --topo "$1" -o "$DIR/topology.conf"
	python3 "$top_srcdir/tests/cli/slurmcheck.py" "$1" \
		"$DIR/topology.conf" || fail "topology.conf of $1"
}
"$CROUTE" gen ktree 4 3 -o "$DIR/k.topo" || fail "croute gen"
check_slurm "$DIR/k.topo"
check_slurm "$T"
check_slurm "$DIR/two.topo"
"$CROUTE" gen two-level --leaves 6 --hosts 3 --uplinks 4 --spines 2 \
	--scramble 3 -o "$DIR/scr.topo" || fail "croute gen"
check_slurm "$DIR/scr.topo"
"$CROUTE" gen torus 3 3 --hosts 2 -o "$DIR/torus.topo" || fail "croute gen"
check_slurm "$DIR/torus.topo"
grep -q '^SwitchName=croute-fabric ' "$DIR/topology.conf" ||
	fail "torus: no switch above the fabric"
"$CROUTE" gen random --switches 12 --links 4 --hosts 2 --seed 3 \
	-o "$DIR/rand.topo" || fail "croute gen"
check_slurm "$DIR/rand.topo"
# Two hosts that share a name are told apart by GUID, with a warning.
sed 's/# "h0002 HCA-1"/# "h0001 HCA-1"/' "$DIR/k.topo" >"$DIR/dup.topo"
check_slurm "$DIR/dup.topo"
grep -q "share the name 'h0001'" "$DIR/err" || fail "no warning on h0001"
grep -q '^SwitchName=sw-l2-00 Nodes=0x' "$DIR/topology.conf" ||
	fail "shared host name kept"
expect 0 export --slurm --topo "$DIR/k.topo"
grep -q '^SwitchName=sw-l2-00 Nodes=h\[0001-0004\]$' "$DIR/out" ||
	fail "no hostlist compression"
# --node-name-map names hosts and switches in both exports.
g=$(grep '^Ca.*"h0001 HCA-1"' "$DIR/k.topo" | sed 's/.*"H-\([0-9a-f]*\)".*/\1/')
s=$(grep '^Switch.*"sw-l2-00"' "$DIR/k.topo" | sed 's/.*"S-\([0-9a-f]*\)".*/\1/')
printf '0x%s "alpha mlx5_0"\n0x%s leafA\n' "$g" "$s" >"$DIR/names.map"
expect 0 export --slurm --topo "$DIR/k.topo" --node-name-map "$DIR/names.map"
grep -q '^SwitchName=leafA Nodes=alpha,h\[0002-0004\]$' "$DIR/out" ||
	fail "export --slurm ignores --node-name-map"
expect 0 hosts --topo "$DIR/k.topo" --order ftree \
	--node-name-map "$DIR/names.map"
[ "$(grep -v '^#' "$DIR/out" | head -n 1)" = alpha ] ||
	fail "hosts ignores --node-name-map"
expect 2 export --topo "$DIR/k.topo"
expect 2 export --slurm --topo "$DIR/nosuch.topo"
echo "exports: hosts order and Slurm topology checked"
