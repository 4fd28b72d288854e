#!/bin/sh
# The rail order (rank = server x rails + rail) through the command: on
# rail-optimized trees whose spines divide the unit, with the routing
# cr-auto picks, rail-ring and every phase of shift over that order run at
# full rate, every flow (min 1.0): no two flows of a phase share a cable.
# croute hosts --rail writes it (each server once) and scores it; the
# order is the servers' (by system image GUID) with their HCAs by rail,
# also when the fabric's own order is not.

. "$(dirname "$0")/lib.sh"

# full TOPO [ENGINE]: rail-ring and shift over the rail order with the
# engine's routing (default cr-auto's), avg and min 1.0.
full() {
	"$croute" route -t "$1" -e "${2:-auto}" -o "$tmp/l" 2>/dev/null ||
		fail "${2:-auto} did not route $1"
	"$croute" estimate -t "$1" --lfts "$tmp/l" --rail-order \
		--pattern rail-ring,shift >"$tmp/est" 2>&1 ||
		fail "estimate --rail-order failed on $1"
	for p in rail-ring shift; do
		awk -v p="$p" '$1 == p && $2 ~ /\// {
			if ($4 != "1.0000" || $5 != "1.0000") bad = 1; seen = 1 }
			END { exit !seen || bad }' "$tmp/est" ||
			fail "$1: $p over the rail order is not full rate:
$(grep "^$p " "$tmp/est")"
	done
}

for a in "8 4 4 2" "16 8 8 4" "12 2 6 3" "8 4 4 4"; do
	set -- $a
	"$croute" gen rail-tree --servers "$1" --rails "$2" --unit "$3" \
		--spines "$4" -o "$tmp/r.topo" || fail "gen rail-tree $a"
	full "$tmp/r.topo"
done

# Hosts listed server by server even when descriptions sort otherwise:
# rename HCA-1 of every server "a-..." so that the natural order puts
# those first; the rail order must still be server-major, and full rate
# with ftree, updn and minhop. (cr-auto tunes on the description order:
# its improvement pass may then cost the rail order its full rate.)
"$croute" gen rail-tree --servers 8 --rails 4 --unit 4 --spines 2 \
	-o "$tmp/r.topo"
sed 's/"\(server[0-9]*\) HCA-1"/"a-\1 HCA-1"/' "$tmp/r.topo" >"$tmp/x.topo"
grep -q '"a-server001 HCA-1"' "$tmp/x.topo" || fail "rename failed"
for e in ftree updn minhop; do
	full "$tmp/x.topo" "$e"
done
expect 0 "" "hosts --rail --score" "$croute" hosts -t "$tmp/r.topo" \
	--order auto --rail --score -o "$tmp/hosts"
[ "$(grep -vc '^#' "$tmp/hosts")" = 8 ] ||
	fail "hosts --rail does not list the 8 servers once each"
grep -q "rail order" "$tmp/hosts" || fail "hosts --rail does not say so"
exit $failed
