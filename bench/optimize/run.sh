#!/bin/sh
# The improvement pass (--optimize) offline, on the five fabrics of
# bench/auto/run.sh, against `croute bound`:
#   random    croute gen random --switches 64 --links 8 --hosts 4 --seed 1
#   torus     croute gen torus 6 6 6 --hosts 2
#   prod-tree tests/fabrics/prod-tree.topo (irregular two-level tree)
#   director  croute gen two-level --leaves 36 --hosts 18 --uplinks 18
#             --spines 18 --scramble 1 (the scrambled 648-port director)
#   ktree-1   croute gen ktree 8 3 without the spine sw-l0-00
#   ft48      croute gen fat-tree 48 (27,648 hosts): cr-ftree only; the
#             pass must leave shift at 1.0 within its budget
# For cr-minhop, cr-updn, cr-lash and cr-ftree (where it routes): shift
# avg over every phase before and after --optimize; `croute bound` on a
# seeded sample of phases (all phases where the LP is fast, see PHASES
# below) and each routing's shift avg on the same sample as a fraction of
# it; the pass's own time (its log line); `croute check` before and after
# (unreachable pairs, loops, credit loops: lash with its SLs).
#
# usage: bench/optimize/run.sh [FABRIC...]   (default: the first five)
# Environment: top_builddir (default: the source tree, built in place);
# BUDGET: --optimize-budget (default 5, the key's default); PHASES_name:
# phases of the bound sample for fabric name (defaults below);
# BOUND_CACHE: a directory keeping each fabric's bound between runs.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
budget=${BUDGET:-5}
dir=$(mktemp -d "${TMPDIR:-/tmp}/croute-bench-optimize.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
[ $# -gt 0 ] || set -- random torus prod-tree director ktree-1

# Phases of the bound sample: `croute bound` solves one LP per phase,
# from under a second (prod-tree: all 88) to about ten seconds each
# (random, torus) on the machines this ran on.
: "${PHASES_random:=8}" "${PHASES_torus:=4}" "${PHASES_prod_tree:=0}"
: "${PHASES_director:=8}" "${PHASES_ktree_1:=4}"

# make_fabric NAME FILE
make_fabric() {
	case $1 in
	random) "$croute" gen random --switches 64 --links 8 --hosts 4 \
		--seed 1 -o "$2" ;;
	torus) "$croute" gen torus 6 6 6 --hosts 2 -o "$2" ;;
	prod-tree) cp "$top_srcdir/tests/fabrics/prod-tree.topo" "$2" ;;
	director) "$croute" gen two-level --leaves 36 --hosts 18 \
		--uplinks 18 --spines 18 --scramble 1 -o "$2" ;;
	ktree-1)
		"$croute" gen ktree 8 3 -o "$2.full" &&
			awk -v desc=sw-l0-00 \
				-f "$top_srcdir/bench/auto/drop-switch.awk" \
				"$2.full" >"$2" ;;
	ft48) "$croute" gen fat-tree 48 -o "$2" ;;
	*) echo "unknown fabric $1" >&2; return 1 ;;
	esac
}

# shift_avg TOPO LFTS [--phases K]: the shift avg column
shift_avg() {
	t=$1
	l=$2
	shift 2
	"$croute" estimate -t "$t" --lfts "$l" --pattern shift "$@" \
		2>/dev/null | awk '/^shift[ :]/ && !s { s = $4 } END {
		print (s == "" ? "-" : s) }'
}

# check_of TOPO LFTS [SL SL2VL]: "unreachable/loops/credit-loops"
check_of() {
	if [ -n "${3:-}" ]; then
		set -- "$1" "$2" --sl "$3" --sl2vl "$4"
	else
		set -- "$1" "$2"
	fi
	t=$1
	l=$2
	shift 2
	"$croute" check -t "$t" --lfts "$l" "$@" 2>/dev/null | awk '
		/^unreachable:/ { u = $2 }
		/^forwarding loops:/ { l = $3 }
		/^credit loops:/ { c = $3 }
		END { printf "%s/%s/%s", u, l, c }'
}

frac() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 <= 0) print "-"
		else printf "%.3f", a / b }'
}

out=$dir/results
printf "%-9s %-6s %7s %7s %6s  %6s %6s %6s %6s %6s  %6s %7s  %-8s %-8s\n" \
	fabric engine before after gain bound b.smp a.smp frac0 frac1 \
	time tries check0 check1 >"$out"
for fab in "$@"; do
	topo=$dir/$fab.topo
	make_fabric "$fab" "$topo" || exit 1
	var=PHASES_$(echo "$fab" | tr - _)
	eval "k=\${$var:-4}"
	popt=
	[ "$fab" = ft48 ] && k=64
	[ "$k" -gt 0 ] && popt="--phases $k"
	bound=-
	bsec=-
	cache=${BOUND_CACHE:+$BOUND_CACHE/$fab-$k.bound}
	if [ -n "$cache" ] && [ -s "$cache" ]; then
		read -r bound bsec <"$cache"
		bsec="$bsec (cached in $cache)"
	elif [ "$fab" != ft48 ]; then
		t0=$(date +%s)
		# shellcheck disable=SC2086
		bound=$("$croute" bound -t "$topo" --pattern shift $popt \
			2>/dev/null | awk '/^shift/ && !s { s = $4 }
			END { print (s == "" ? "-" : s) }')
		bsec=$(($(date +%s) - t0))
		[ -z "$cache" ] || echo "$bound $bsec" >"$cache"
	fi
	if [ "$fab" = ft48 ]; then
		what="no bound (the pass must find 1.0 and stop)"
	else
		what="bound on ${popt:-every phase} took ${bsec} s"
	fi
	echo "# $fab: $(grep -c '^Switch' "$topo") switches," \
		"$(grep -c '^Ca' "$topo") hosts; $what" >>"$out.notes"
	if [ "$fab" = ft48 ]; then
		# its LFT dump would be 6 GB of text: the pass's own log line
		# (shift sampled to 64 phases, as the estimate samples it)
		"$croute" route -t "$topo" -e ftree --optimize \
			--optimize-budget "$budget" -o /dev/null 2>"$dir/ft48.log"
		awk -v b="$budget" '/optimize:/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "->") { s0 = $(i - 1); s1 = $(i + 1) }
				if ($i == "s" && t == "") t = $(i - 1)
			}
			printf "%-9s %-6s %7s %7s %6s  %6s %6s %6s %6s %6s  %6s %7s  (budget %s s)\n",
				"ft48", "ftree", s0, s1, "-", "-", "-", "-",
				"-", "-", t, "-", b }' "$dir/ft48.log" >>"$out"
		continue
	fi
	for e in minhop updn lash ftree; do
		a=$dir/$fab-$e
		sl=
		[ "$e" = lash ] && sl="--lash-sl $a.sl --lash-sl2vl $a.sl2vl"
		# shellcheck disable=SC2086
		if ! "$croute" route -t "$topo" -e "$e" -o "$a.lft" $sl \
			>/dev/null 2>&1; then
			printf "%-9s %-6s does not route this fabric\n" "$fab" \
				"$e" >>"$out"
			continue
		fi
		# the pass may move cr-lash's sources to other layers: its SLs
		[ "$e" = lash ] &&
			sl="--lash-sl $a.opt.sl --lash-sl2vl $a.opt.sl2vl"
		# shellcheck disable=SC2086
		"$croute" route -t "$topo" -e "$e" --optimize $sl \
			--optimize-budget "$budget" -o "$a.opt" >/dev/null \
			2>"$a.log" || { echo "$fab $e: --optimize failed" >&2
			cat "$a.log" >&2; continue; }
		sec=$(sed -n 's/.*optimize: .* \([0-9.]*\) s.*/\1/p' "$a.log")
		tries=$(sed -n 's/.*kept of \([0-9]*\) tried.*/\1/p' "$a.log")
		grep -q "stopped by the wall clock" "$a.log" && sec="${sec}B"
		s0=$(shift_avg "$topo" "$a.lft")
		s1=$(shift_avg "$topo" "$a.opt")
		# shellcheck disable=SC2086
		m0=$(shift_avg "$topo" "$a.lft" $popt)
		# shellcheck disable=SC2086
		m1=$(shift_avg "$topo" "$a.opt" $popt)
		if [ "$e" = lash ]; then
			c0=$(check_of "$topo" "$a.lft" "$a.sl" "$a.sl2vl")
			c1=$(check_of "$topo" "$a.opt" "$a.opt.sl" "$a.opt.sl2vl")
		else
			c0=$(check_of "$topo" "$a.lft")
			c1=$(check_of "$topo" "$a.opt")
		fi
		gain=$(awk -v a="$s0" -v b="$s1" 'BEGIN {
			if (a + 0 > 0) printf "%+.1f%%", 100 * (b - a) / a
			else print "-" }')
		printf "%-9s %-6s %7s %7s %6s  %6s %6s %6s %6s %6s  %6s %7s  %-8s %-8s\n" \
			"$fab" "$e" "$s0" "$s1" "$gain" "$bound" "$m0" "$m1" \
			"$(frac "$m0" "$bound")" "$(frac "$m1" "$bound")" \
			"$sec" "${tries:--}" "$c0" "$c1" >>"$out"
	done
done
echo "# --optimize-budget $budget s; before/after: shift avg over every"
echo "# phase; bound: croute bound's shift avg on the sample (phases below),"
echo "# b.smp/a.smp: the routing's shift avg on that same sample, frac0/1"
echo "# their fractions of the bound; time: the pass's log line (B: the"
echo "# wall clock stopped it, at 4x the budget + 2 s); tries: moves it scored"
echo "# (the budget is counted in work, so the same whatever the load); check: unreachable/loops/credit loops (lash with"
echo "# its SLs). The pass optimizes cr-auto's objective, whose shift is"
echo "# sampled to 65536 flows (random: all phases; torus, director,"
echo "# ktree-1: 100-150 phases), while before/after score every phase."
cat "$out.notes" 2>/dev/null
cat "$out"
