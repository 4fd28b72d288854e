#!/bin/sh
# cr-auto (--qos) of two builds on dragonflies+ that lost switch cables
# at random (cut-random.py, any kind), offline: for each fabric, count of
# cut cables and seed, each build's winner and VLs, and shift (16
# sampled phases) and bisect:10 as the mean over ORDERS random host
# orders (default 24) seeded by ORDER_SEED (default 303; seed 1 gives
# the orders cr-auto trains on), the new build's less the old's, and
# the new build's user seconds.
#
#   bench/modern/autocmp.sh OLD NEW
# FABRICS (default "dfly dfly12"), CUTS ("3 6") and SEEDS ("1 2 3 4 5")
# choose the cases, TEAR=N tears N groups of each draw, as
# bench/modern/cuts.sh's (the same fabrics).
set -u
[ $# -eq 2 ] || { echo "usage: autocmp.sh OLD NEW" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
old=$1 new=$2
orders=${ORDERS:-24}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

. "$here/lib.sh"

# score LFTS: "shift bisect", the means over the random orders
score() {
	orders_score "$new" "$t" "$1" "$orders" "${ORDER_SEED:-303}"
}

# auto BUILD NAME: its tables into $tmp/NAME.*; prints "winner VLs"
auto() {
	/usr/bin/time -f %U -o "$tmp/$2.time" "$1" route -t "$t" -e auto \
		--qos -o "$tmp/$2.lft" --lash-sl "$tmp/$2.sl" \
		--lash-sl2vl "$tmp/$2.sl2vl" 2>"$tmp/$2.err" >/dev/null
	w=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' "$tmp/$2.err" |
		tail -n 1)
	echo "${w:-?} $(sl_vls "$tmp/$2.sl")"
}

printf '%-7s %4s %4s  %-11s %3s %7s %7s  %-11s %3s %7s %7s  %7s %7s %5s\n' \
	fabric cuts seed old VLs shift bisect new VLs shift bisect \
	d_shift d_bisec user
for fab in ${FABRICS:-dfly dfly12}; do
	# shellcheck disable=SC2046
	"$new" gen dragonfly-plus $(gen_args "$fab") -o "$tmp/$fab.topo" ||
		exit 2
	for cuts in ${CUTS:-3 6}; do
		for seed in ${SEEDS:-1 2 3 4 5}; do
			t=$tmp/$fab-$cuts-$seed.topo
			python3 "$here/cut-random.py" --count "$cuts" \
				--tear "${TEAR:-0}" --seed "$seed" "$tmp/$fab.topo" >"$t" \
				2>"$tmp/cuts" || exit 2
			a=$(auto "$old" old)
			b=$(auto "$new" new)
			so=$(score "$tmp/old.lft")
			if cmp -s "$tmp/old.lft" "$tmp/new.lft" &&
				cmp -s "$tmp/old.sl" "$tmp/new.sl"; then
				sn=$so
			else
				sn=$(score "$tmp/new.lft")
			fi
			set -- $a $so $b $sn
			fmt='%-7s %4s %4s  %-11s %3s %7s %7s  %-11s %3s %7s'
			printf "$fmt"' %7s  %+7.4f %+7.4f %5s\n' \
				"$fab" "$cuts" "$seed" "$1" "$2" "$3" "$4" \
				"$5" "$6" "$7" "$8" \
				"$(awk -v a="$7" -v b="$3" 'BEGIN { print a - b }')" \
				"$(awk -v a="$8" -v b="$4" 'BEGIN { print a - b }')" \
				"$(cat "$tmp/new.time")"
		done
	done
done
