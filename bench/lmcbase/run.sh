#!/bin/sh
# Base-LID paths at LMC > 0 against LMC 0, and what the extra LIDs give:
# `croute compare --lmc 0,1,2` on the fabrics below, every engine, shift
# over --orders random host orders of one seed, under each path model.
#
# usage: bench/lmcbase/run.sh CROUTE OUTDIR [SEED [ORDERS]]
# Writes OUTDIR/FABRIC.txt (the compare table) for each fabric and prints
# one line per engine and LMC: fabric engine LMC base split indep.
set -u
[ $# -ge 2 ] || {
	echo "usage: $0 CROUTE OUTDIR [SEED [ORDERS]]" >&2
	exit 2
}
c=$1
out=$2
seed=${3:-1}
orders=${4:-6}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$out" || exit 2

"$c" gen ktree 8 3 -o "$out/kt83.topo" &&
	awk -v desc=sw-l0-00 -f "$top/bench/auto/drop-switch.awk" \
		"$out/kt83.topo" >"$out/kt83-1.topo" &&
	"$c" gen ktree 4 3 -o "$out/kt43.topo" &&
	awk -v desc=sw-l0-00 -f "$top/bench/auto/drop-switch.awk" \
		"$out/kt43.topo" >"$out/kt43-1.topo" &&
	"$c" gen hyperx 4 4 --hosts-per-leaf 4 --trunk 2 -o "$out/hx44t2.topo" &&
	"$c" gen random --switches 64 --links 8 --hosts 4 --seed 1 \
		-o "$out/rand64.topo" &&
	"$c" gen torus 4 4 --hosts-per-leaf 2 -o "$out/torus44.topo" &&
	"$c" gen dragonfly-plus --groups 5 --leaves 4 --spines 4 \
		--hosts-per-leaf 4 --global 4 -o "$out/dfp.topo" &&
	cp "$top/tests/fabrics/prod-tree.topo" "$out/prod-tree.topo" || exit 2

for fab in prod-tree kt83-1 kt43-1 hx44t2 rand64 torus44 dfp; do
	"$c" compare --topo "$out/$fab.topo" --lmc 0,1,2 --pattern shift \
		--orders "$orders" --seed "$seed" \
		--engines minhop,updn,ftree,lash,lash+bal,dfp \
		>"$out/$fab.txt" 2>&1
	awk -v fab="$fab" '$3 ~ /^[0-9]$/ && $4 != "refused:" {
		printf "%-10s %-10s %s %s %s %s\n", fab, \
			$1 ($2 == "-" ? "" : "+" $2), $3, \
			$(NF - 2), $(NF - 1), $NF }' "$out/$fab.txt"
done
