#!/bin/bash
# The tables of two builds on fabrics that lost cables, routed in full and
# repaired from the intact fabric (--incremental-from), byte for byte:
# every engine (cr-auto with and without --qos; the layered engines' path
# SLs too), one and two switch cables cut at random (cut-random.py, seeds
# 1 and 2) from a 4-ary 3-tree, a random graph of 32 switches, a
# dragonfly+, a 4 x 4 HyperX and tests/fabrics/prod-tree.topo. Refusals
# are compared by exit status.
#
# usage: bench/lftdiff/cuts.sh OLD_CROUTE NEW_CROUTE [OUTDIR]
# Prints "DIFF fabric engine [--qos] full|incr" per case that differs and
# a summary; exit 1 when any differs. A few minutes on 2 cores.
set -u
[ $# -ge 2 ] || {
	echo "usage: $0 OLD_CROUTE NEW_CROUTE [OUTDIR]" >&2
	exit 2
}
old=$1
new=$2
out=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$out" && cd "$out" || exit 2

"$old" gen ktree 4 3 -o kt.topo 2>/dev/null &&
	"$old" gen random --switches 32 --links 6 --hosts 3 --seed 5 \
		-o rnd.topo 2>/dev/null &&
	"$old" gen dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts 2 \
		--global 2 -o dfly.topo 2>/dev/null &&
	"$old" gen hyperx 4 4 --hosts 2 -o hx.topo 2>/dev/null &&
	cp "$top/tests/fabrics/prod-tree.topo" prod.topo || exit 2

n=0 d=0
for fab in kt rnd dfly hx prod; do
	for s in 1 2; do
		python3 "$top/bench/modern/cut-random.py" --count $s --seed $s \
			$fab.topo >$fab-c$s.topo 2>/dev/null || continue
		for e in minhop updn ftree lash dfp hyperx auto auto:--qos; do
			q=${e#*:}
			[ "$q" = "$e" ] && q=
			e=${e%%:*}
			case $e in
			lash | dfp | hyperx) so="--lash-sl o.sl" sn="--lash-sl n.sl" ;;
			*) so= sn= ;;
			esac
			for mode in full incr; do
				args="-t $fab-c$s.topo"
				[ $mode = incr ] && args="$args --incremental-from $fab.topo"
				n=$((n + 1))
				rm -f o.lft n.lft o.sl n.sl
				# shellcheck disable=SC2086
				"$old" route $args -e $e $q -o o.lft $so >/dev/null 2>&1
				ro=$?
				# shellcheck disable=SC2086
				"$new" route $args -e $e $q -o n.lft $sn >/dev/null 2>&1
				rn=$?
				if [ $ro != $rn ] ||
				   { [ -f o.lft ] && ! cmp -s o.lft n.lft; } ||
				   { [ -f o.sl ] && ! cmp -s o.sl n.sl; }; then
					d=$((d + 1))
					echo "DIFF $fab-c$s $e $q $mode (exit $ro/$rn)"
				fi
			done
		done
	done
done
echo "lftdiff cuts: $n cases, $d differ"
[ "$d" -eq 0 ]
