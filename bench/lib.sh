# Shared helpers of the benchmarks; sourced after tests/ibsim/lib.sh.
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
