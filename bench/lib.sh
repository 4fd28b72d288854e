# Shared helpers of the benchmarks; sourced after tests/ibsim/lib.sh
# (bench/jobs/lib.sh, outside an ibsim run, gives its own cr_gen, cr_fail).
#
# Every benchmark runs OpenSM's built-in engine and croute's on the same
# simulated fabric in the same ibsim run (so with the same LIDs), and
# reports ratios, never absolute thresholds: the machines are shared.

# bench_routing_time LOG ENGINE: seconds from opensm's "building routing
# with 'ENGINE'" to "ENGINE tables configured on all switches" (its
# timestamps: "Mon DD HH:MM:SS usec"), so built-in and croute engines are
# timed over the same span; "-" when the engine did not route.
bench_routing_time() {
	awk -v e="$2" '
	function t() {
		split($3, h, ":")
		return h[1] * 3600 + h[2] * 60 + h[3] + $4 / 1e6
	}
	index($0, "building routing with \047" e "\047") { t0 = t() }
	index($0, ": " e " tables configured on all switches") { t1 = t() }
	END { if (t0 && t1) printf "%.4f", t1 - t0; else print "-" }' "$1"
}

# bench_ratio A B: A / B with two decimals, "-" when either is missing.
bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 <= 0) print "-"
		else printf "%.2f", a / b }'
}

# bench_min A B ...: the smallest of the numbers given ("-" ignored).
bench_min() {
	printf '%s\n' "$@" | awk '$1 != "-" && (m == "" || $1 + 0 < m) {
		m = $1 + 0 } END { print (m == "" ? "-" : m) }'
}

# bench_fabric NAME FILE: writes the fabric NAME to FILE, one of the
# fabrics of bench/auto (random, torus, prod-tree, director, ktree-1: a
# 3-level tree with one top switch dropped, slim: a 2:1 two-level tree),
# "gen:ARGS" (the arguments of `croute gen`) or a topology file.
bench_fabric() {
	case $1 in
	random) cr_gen "$2" random --switches 64 --links 8 --hosts 4 \
		--seed 1 ;;
	torus) cr_gen "$2" torus 6 6 6 --hosts 2 ;;
	prod-tree) cp "$top_srcdir/tests/fabrics/prod-tree.topo" "$2" ;;
	director) cr_gen "$2" two-level --leaves 36 --hosts 18 --uplinks 18 \
		--spines 18 --scramble 1 ;;
	ktree-1)
		cr_gen "$2.full" ktree 8 3
		awk -v desc=sw-l0-00 \
			-f "$top_srcdir/bench/auto/drop-switch.awk" "$2.full" \
			>"$2" || cr_fail "cannot drop the spine" ;;
	slim) cr_gen "$2" two-level --leaves 12 --hosts 16 --uplinks 8 \
		--spines 8 ;;
	gen:*)
		# shellcheck disable=SC2086
		cr_gen "$2" ${1#gen:} ;;
	*)
		[ -f "$1" ] || cr_fail "unknown fabric $1 (not a file either)"
		cp "$1" "$2" ;;
	esac
}
