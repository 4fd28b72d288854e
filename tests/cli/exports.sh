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

. "$(dirname "$0")/lib.sh"


# min rate of the shift pattern in an estimate report
shift_min() {
	awk '$1 == "shift" { print $5; exit }' "$tmp/out"
}

# --- hosts: ftree's order on a full fat tree -------------------------------
"$croute" gen fat-tree 8 -o "$tmp/ft.topo" || fail "croute gen"
T=$tmp/ft.topo
expect_exit 0 hosts --topo "$T" --order ftree -o "$tmp/ft.hosts"
grep -v '^#' "$tmp/ft.hosts" >"$tmp/names"
[ "$(wc -l <"$tmp/names")" = 128 ] || fail "not 128 hosts in the host file"
[ "$(sort -u "$tmp/names" | wc -l)" = 128 ] || fail "a host twice"
grep '^Ca' "$T" | sed 's/.*# "\([^ "]*\).*/\1/' | sort >"$tmp/cas"
sort "$tmp/names" | cmp -s - "$tmp/cas" || fail "hosts are not the CAs"
# The estimator takes hosts by full node description.
sed 's/.*/"& HCA-1"/' "$tmp/names" >"$tmp/order"
expect_exit 0 estimate --topo "$T" --engine ftree --pattern shift \
	--hosts "$tmp/order"
[ "$(shift_min)" = 1.0000 ] || fail "shift min $(shift_min) in ftree order"
awk 'BEGIN { srand(7) } { print rand(), $0 }' "$tmp/order" | sort -n |
	cut -d' ' -f2- >"$tmp/shuffled"
cmp -s "$tmp/order" "$tmp/shuffled" && fail "shuffle did nothing"
expect_exit 0 estimate --topo "$T" --engine ftree --pattern shift \
	--hosts "$tmp/shuffled"
awk -v m="$(shift_min)" 'BEGIN { exit !(m < 0.99) }' ||
	fail "shift min $(shift_min) in a shuffled order: the test proves nothing"
# --score says the same with exit 0, and 1 where the order is not free.
expect_exit 0 hosts --topo "$T" --order ftree --score -o /dev/null
grep -q 'min 1.0000' "$tmp/err" || fail "--score: $(cat "$tmp/err")"
expect_exit 0 hosts --topo "$T" --order minhop --port-shifting --score -o /dev/null
expect_exit 0 hosts --topo "$T" --order minhop --score -o /dev/null
expect_exit 1 hosts --topo "$T" --order minhop --scatter-ports 1 --score -o /dev/null
# From LFTs (no CA order): leaf order; hosts with two ports once.
"$croute" gen two-level --leaves 4 --hosts 4 --uplinks 4 --spines 2 \
	--hca-ports 2 -o "$tmp/two.topo" || fail "croute gen"
expect_exit 0 route --topo "$tmp/two.topo" --engine updn -o "$tmp/two.lfts"
expect_exit 0 hosts --topo "$tmp/two.topo" --lfts "$tmp/two.lfts"
grep -v '^#' "$tmp/out" >"$tmp/names"
[ "$(wc -l <"$tmp/names")" = 16 ] || fail "two-port hosts not once each"
seq -f 'h%04g' 1 16 | cmp -s - "$tmp/names" || fail "not leaf order"
expect_exit 2 hosts --topo "$tmp/two.topo"
"$croute" gen torus 3 3 -o "$tmp/t.topo" || fail "croute gen"
# ftree's order on a torus: not its kind of fabric, bad input
expect_exit 2 hosts --topo "$tmp/t.topo" --order ftree
expect_exit 2 hosts --topo "$tmp/two.topo" --order nosuch

# --- export --slurm --------------------------------------------------------
check_slurm() {
	expect_exit 0 export --slurm --topo "$1" -o "$tmp/topology.conf"
	python3 "$top_srcdir/tests/cli/slurmcheck.py" "$1" \
		"$tmp/topology.conf" || fail "topology.conf of $1"
}
"$croute" gen ktree 4 3 -o "$tmp/k.topo" || fail "croute gen"
check_slurm "$tmp/k.topo"
check_slurm "$T"
check_slurm "$tmp/two.topo"
"$croute" gen two-level --leaves 6 --hosts 3 --uplinks 4 --spines 2 \
	--scramble 3 -o "$tmp/scr.topo" || fail "croute gen"
check_slurm "$tmp/scr.topo"
"$croute" gen torus 3 3 --hosts 2 -o "$tmp/torus.topo" || fail "croute gen"
check_slurm "$tmp/torus.topo"
grep -q '^SwitchName=croute-fabric ' "$tmp/topology.conf" ||
	fail "torus: no switch above the fabric"
"$croute" gen random --switches 12 --links 4 --hosts 2 --seed 3 \
	-o "$tmp/rand.topo" || fail "croute gen"
check_slurm "$tmp/rand.topo"
# Two hosts that share a name: GUIDs are not host names, so neither file
# is written, and the error says how to name them.
sed 's/# "h0002 HCA-1"/# "h0001 HCA-1"/' "$tmp/k.topo" >"$tmp/dup.topo"
expect_exit 2 export --slurm --topo "$tmp/dup.topo" -o "$tmp/dup.conf"
grep -q "2 hosts and 0 switches have no name of their own .*--node-name-map" \
	"$tmp/err" || fail "export --slurm, shared names: $(cat "$tmp/err")"
[ -e "$tmp/dup.conf" ] && fail "a topology.conf with GUIDs was written"
expect_exit 2 hosts --topo "$tmp/dup.topo" --order minhop
grep -q "no hostfile is written; give --node-name-map" "$tmp/err" ||
	fail "hosts, shared names: $(cat "$tmp/err")"
grep -q 0x "$tmp/out" && fail "hosts wrote GUIDs"
# Shared switch descriptions too.
sed 's/"sw-l2-01"/"sw-l2-00"/' "$tmp/k.topo" >"$tmp/dupsw.topo"
expect_exit 2 export --slurm --topo "$tmp/dupsw.topo"
grep -q "0 hosts and 2 switches have no name" "$tmp/err" ||
	fail "export --slurm, shared switch names: $(cat "$tmp/err")"
# A node-name map that names them: written, with names only.
g=$(grep '^Ca.*"h0001 HCA-1"' "$tmp/dup.topo" | sed -n '2s/.*"H-\([0-9a-f]*\)".*/\1/p')
printf '0x%s "h0002 mlx5_0"\n' "$g" >"$tmp/dup.map"
expect_exit 0 export --slurm --topo "$tmp/dup.topo" --node-name-map "$tmp/dup.map"
grep -q '^SwitchName=sw-l2-00 Nodes=h\[0001-0004\]$' "$tmp/out" ||
	fail "the map's names not used: $(cat "$tmp/out")"
expect_exit 0 export --slurm --topo "$tmp/k.topo"
grep -q '^SwitchName=sw-l2-00 Nodes=h\[0001-0004\]$' "$tmp/out" ||
	fail "no hostlist compression"
# --node-name-map names hosts and switches in both exports.
g=$(grep '^Ca.*"h0001 HCA-1"' "$tmp/k.topo" | sed 's/.*"H-\([0-9a-f]*\)".*/\1/')
s=$(grep '^Switch.*"sw-l2-00"' "$tmp/k.topo" | sed 's/.*"S-\([0-9a-f]*\)".*/\1/')
printf '0x%s "alpha mlx5_0"\n0x%s leafA\n' "$g" "$s" >"$tmp/names.map"
expect_exit 0 export --slurm --topo "$tmp/k.topo" --node-name-map "$tmp/names.map"
grep -q '^SwitchName=leafA Nodes=alpha,h\[0002-0004\]$' "$tmp/out" ||
	fail "export --slurm ignores --node-name-map"
expect_exit 0 hosts --topo "$tmp/k.topo" --order ftree \
	--node-name-map "$tmp/names.map"
[ "$(grep -v '^#' "$tmp/out" | head -n 1)" = alpha ] ||
	fail "hosts ignores --node-name-map"
expect_exit 2 export --topo "$tmp/k.topo"
expect_exit 2 export --slurm --topo "$tmp/nosuch.topo"
echo "exports: hosts order and Slurm topology checked"
exit $failed
