#!/bin/sh
# cr-hyperx on HyperX fabrics that lost switch cables at random
# (cut-random.py: any kind, the switches kept connected), offline: for
# each size and seed, whether it fell back to up*/down*, the VLs its
# path SLs use, and `croute check` with them.
#
#   bench/modern/hxcuts.sh [CROUTE]     (default: build/src/cli/croute)
# CUTS (default 6) cables a draw, SEEDS (default "21 22 23 24 25 26").
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
croute=${1:-$top/build/src/cli/croute}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$here/lib.sh"

printf '%-26s %4s %4s  %-8s %3s  %s\n' hyperx cuts seed fallback VLs check
for size in "6 6 --hosts 6" "4 4 3 --hosts 3" "3 3 3 --hosts 2 --trunk 2" \
	"5 4 --hosts 4" "8 8 --hosts 4"; do
	# shellcheck disable=SC2086
	"$croute" gen hyperx $size -o "$tmp/h.topo" || exit 2
	for seed in ${SEEDS:-21 22 23 24 25 26}; do
		python3 "$here/cut-random.py" --count "${CUTS:-6}" \
			--seed "$seed" "$tmp/h.topo" >"$tmp/t.topo" \
			2>"$tmp/cuts" || exit 2
		"$croute" route -t "$tmp/t.topo" -e hyperx -o "$tmp/l" \
			--sl "$tmp/sl" --sl2vl "$tmp/sl2vl" -v \
			>/dev/null 2>"$tmp/err" || exit 2
		fb=no
		grep -q "up\*/down\*" "$tmp/err" && fb=yes
		vls=$(sl_vls "$tmp/sl")
		chk=$("$croute" check -t "$tmp/t.topo" --lfts "$tmp/l" \
			--sl "$tmp/sl" --sl2vl "$tmp/sl2vl" 2>&1 |
			sed -n 's/^result: *//p')
		printf '%-26s %4s %4s  %-8s %3s  %s\n' "$size" "${CUTS:-6}" \
			"$seed" "$fb" "$vls" "$chk"
	done
done
