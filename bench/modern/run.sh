#!/bin/sh
# croute's engines on today's fabrics, offline: one instance of each kind
# croute gen writes, and a dragonfly+ with global cables removed:
#   dfly      dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts 4
#             --global 2 (one cable between every two groups)
#   dfly-cut  the same without 3 global cables (drop-global.awk): 3 pairs
#             of groups lose their only direct cable
#   hyperx    hyperx 6 6 --hosts 6
#   rail      rail-tree --servers 32 --rails 8 --unit 8 --spines 4
# Every croute engine (cr-auto with --qos, so layered candidates qualify)
# routes each with `croute route`; `croute check` (with the engine, so a
# layered routing is checked with its SLs) says whether the routing is
# complete and free of credit loops; `croute estimate` scores shift and
# bisect (rail trees: rail-ring too) on the fabric's own host order and
# the mean of 3 random host orders, fractions of the injection rate, shift
# on 16 sampled phases; and `croute bound` gives the best any routing
# could do on the own order (the same phases and matchings), of which
# each engine's own-order figure is given as a fraction.
#
# usage: bench/modern/run.sh [FABRIC...]   (default: all four)
# Environment: top_builddir (default: the source tree, built in place).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
here=$top_srcdir/bench/modern
dir=$(mktemp -d "${TMPDIR:-/tmp}/croute-modern.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
[ $# -gt 0 ] || set -- dfly dfly-cut hyperx rail
engines="minhop updn ftree lash dfp auto"
orders="1 2 3"
phases=16

make_fabric() {
	case $1 in
	dfly) "$croute" gen dragonfly-plus --groups 9 --leaves 4 --spines 4 \
		--hosts 4 --global 2 -o "$2" ;;
	dfly-cut)
		make_fabric dfly "$2.full" &&
			awk -v count=3 -f "$here/drop-global.awk" \
				"$2.full" "$2.full" >"$2" ;;
	hyperx) "$croute" gen hyperx 6 6 --hosts 6 -o "$2" ;;
	rail) "$croute" gen rail-tree --servers 32 --rails 8 --unit 8 \
		--spines 4 -o "$2" ;;
	*)
		echo "unknown fabric $1" >&2
		return 1
		;;
	esac
}

# random_order TOPO SEED: the hosts (CA descriptions) shuffled.
random_order() {
	awk -v seed="$2" 'BEGIN { srand(seed) }
	/^Ca/ { split($0, q, "\""); h[n++] = q[4] }
	END {
		for (i = n - 1; i > 0; i--) {
			j = int(rand() * (i + 1)); t = h[i]; h[i] = h[j]; h[j] = t
		}
		for (i = 0; i < n; i++) printf "\"%s\"\n", h[i]
	}' "$1"
}

# avg PATTERN FILE: the pattern's average rate in an estimate summary
avg() {
	awk -v p="$1" '$1 == p || index($1, p ":") == 1 { print $4; exit }' "$2"
}

for fab in "$@"; do
	t=$dir/$fab.topo
	make_fabric "$fab" "$t" || exit 1
	pats=shift,bisect
	[ "$fab" = rail ] && pats=rail-ring,shift,bisect
	for s in $orders; do
		random_order "$t" "$s" >"$dir/order$s"
	done
	"$croute" bound -t "$t" --pattern "$pats" --phases "$phases" >"$dir/bound" \
		2>/dev/null
	echo "== $fab: $(grep -c '^Ca' "$t") hosts, $(grep -c '^Switch' "$t")" \
		"switches; bound (own order):" \
		"$(awk '/^pattern/ { on = 1; next } on && NF == 0 { exit }
			on { printf " %s %s", $1, $4 }' "$dir/bound")"
	printf '%-7s %8s %-9s' engine route_s check
	for p in $(echo "$pats" | tr , ' '); do
		printf ' %9s %9s %6s' "$p" rand "/bound"
	done
	echo
	for e in $engines; do
		qos=
		[ "$e" = auto ] && qos=--qos
		[ "$e" = lash ] && qos=
		"$croute" route -t "$t" -e "$e" $qos -o "$dir/lfts" \
			>/dev/null 2>"$dir/route" || {
			printf '%-7s refused: %s\n' "$e" \
				"$(grep -m1 -i error "$dir/route" | cut -c1-60)"
			continue
		}
		secs=$(awk '/^croute route:/ { for (i = 1; i < NF; i++)
			if ($(i + 1) == "s,") print $i }' "$dir/route")
		"$croute" check -t "$t" -e "$e" $qos >"$dir/check" 2>/dev/null
		res=$(awk '/^result:/ { r = $2 }
			/^credit loops:/ { c = $3 }
			/^unreachable:/ { u = $2 }
			END { printf "%s", r == "OK" ? "OK" : "u" u ",c" c }' \
			"$dir/check")
		"$croute" estimate -t "$t" --lfts "$dir/lfts" --pattern "$pats" \
			--phases "$phases" >"$dir/own" 2>/dev/null
		for s in $orders; do
			"$croute" estimate -t "$t" --lfts "$dir/lfts" \
				--pattern "$pats" --hosts "$dir/order$s" \
				--phases "$phases" >"$dir/rand$s" 2>/dev/null
		done
		printf '%-7s %8s %-9s' "$e" "$secs" "$res"
		for p in $(echo "$pats" | tr , ' '); do
			own=$(avg "$p" "$dir/own")
			rnd=$(for s in $orders; do avg "$p" "$dir/rand$s"; done |
				awk '{ s += $1; n++ } END { printf "%.4f", s / n }')
			b=$(awk -v p="$p" '/^pattern/ { on = 1; next }
				on && (index($1, p ":") == 1 || $1 == p) {
					print $4; exit }' "$dir/bound")
			frac=$(awk -v a="$own" -v b="$b" 'BEGIN {
				if (b + 0 > 0) printf "%.3f", a / b; else print "-" }')
			printf ' %9s %9s %6s' "$own" "$rnd" "$frac"
		done
		echo
	done
done
