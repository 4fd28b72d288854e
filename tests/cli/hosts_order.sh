#!/bin/sh
# croute hosts --order minhop|updn (and --lfts): on full fat trees the
# exported order makes shift congestion free for the engine, and on any
# tree it never scores below the default order (node descriptions).
# Scores come from croute estimate over the exported file, not from the
# command's own --score.

. "$(dirname "$0")/lib.sh"

# "avg min" of shift in the estimate report in $tmp/out
shift_score() {
	awk '$1 == "shift" { print $4, $5; exit }' "$tmp/out"
}

# check TOPO FULL ROUTING...: croute hosts over the routing (--order
# ENGINE or --lfts FILE, options), scored by croute estimate on the same
# routing against the default order; FULL=1 also wants min 1.0.
check() {
	t=$1
	full=$2
	shift 2
	expect_exit 0 hosts --topo "$t" "$@" -o "$tmp/h"
	grep -v '^#' "$tmp/h" | sed 's/.*/"& HCA-1"/' >"$tmp/order"
	if [ "$1" = --order ]; then
		e=$2
		shift 2
		set -- --engine "$e" "$@"
	fi
	expect_exit 0 estimate --topo "$t" "$@" --pattern shift \
		--hosts "$tmp/order"
	got=$(shift_score)
	expect_exit 0 estimate --topo "$t" "$@" --pattern shift
	def=$(shift_score)
	echo "$(basename "$t") $* : order $got, default $def"
	awk -v g="${got% *}" -v d="${def% *}" \
		'BEGIN { exit !(g >= d - 1e-9) }' ||
		fail "$t $*: exported order scores $got, default $def"
	[ "$full" = 0 ] || [ "${got#* }" = 1.0000 ] ||
		fail "$t $*: shift not congestion free over the order ($got)"
}

for k in 10 12 14; do
	"$croute" gen fat-tree $k -o "$tmp/ft$k.topo" || fail "croute gen"
	for e in updn minhop; do
		check "$tmp/ft$k.topo" 1 --order $e
	done
done
# The tables alone (no engine): OpenSM's destination order, or default.
expect_exit 0 route --topo "$tmp/ft12.topo" --engine updn -o "$tmp/ft12.lfts"
check "$tmp/ft12.topo" 1 --lfts "$tmp/ft12.lfts"
# Not full: 4 of 6 hosts per leaf, and an oversubscribed two-level tree.
"$croute" gen fat-tree 12 --hosts 4 -o "$tmp/part.topo" || fail "croute gen"
"$croute" gen two-level --leaves 8 --hosts 6 --uplinks 3 --spines 3 \
	--scramble 5 -o "$tmp/two.topo" || fail "croute gen"
for e in updn minhop; do
	check "$tmp/part.topo" 0 --order $e
	check "$tmp/two.topo" 0 --order $e
	check "$tmp/two.topo" 0 --order $e --scatter-ports 3
done
exit $failed
