#!/bin/sh
# cr-dfp and cr-auto against cr-lash on dragonflies+ that lost switch
# cables at random (cut-random.py: any kind, the switches kept
# connected), offline. For each fabric, count of cut cables and seed:
# cr-dfp's check with its path SLs ("OK", else croute check's verdict),
# its VLs, and shift (16 sampled phases) and bisect:10 as the mean over
# ORDERS random host orders (default 6), beside cr-lash's and cr-auto's
# (--qos); "ratio" is cr-dfp's over cr-lash's.
#
#   bench/modern/cuts.sh [CROUTE]       (default: build/src/cli/croute)
# FABRICS (default "dfly dfly12"), CUTS ("3 6") and SEEDS ("1 2 3 4 5")
# choose the cases; AUTO=0 leaves cr-auto out; TEAR=N also tears N
# groups of each draw (cut-random.py --tear: every leaf there loses a
# spine); ORDER_SEED (default 1) seeds the orders, phases and matchings.
#   dfly    dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts 4
#           --global 2
#   dfly12  dragonfly-plus --groups 12 --leaves 6 --spines 6 --hosts 6
#           --global 2
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
croute=${1:-$top/build/src/cli/croute}
orders=${ORDERS:-6}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

. "$here/lib.sh"

# score LFTS: "shift bisect", the means over the random orders
score() {
	orders_score "$croute" "$t" "$1" "$orders" "${ORDER_SEED:-1}"
}

# route ENGINE NAME [options]: LFTs (and SLs) into $tmp/NAME.*; prints
# the VLs (SL i travels on VL i) its paths use
route() {
	e=$1 n=$2
	shift 2
	"$croute" route -t "$t" -e "$e" -o "$tmp/$n.lft" \
		--lash-sl "$tmp/$n.sl" --lash-sl2vl "$tmp/$n.sl2vl" -v "$@" \
		2>"$tmp/$n.err"
	sl_vls "$tmp/$n.sl"
}

printf '%-7s %4s %4s  %-5s %3s %7s %7s  %7s %7s  %5s %5s  %3s %7s %7s\n' \
	fabric cuts seed check VLs shift bisect lash_sh lash_bi r_sh r_bi \
	aVL auto_sh auto_bi
for fab in ${FABRICS:-dfly dfly12}; do
	"$croute" gen dragonfly-plus $(gen_args "$fab") -o "$tmp/$fab.topo" ||
		exit 2
	for cuts in ${CUTS:-3 6}; do
		for seed in ${SEEDS:-1 2 3 4 5}; do
			t=$tmp/$fab-$cuts-$seed.topo
			python3 "$here/cut-random.py" --count "$cuts" \
				--tear "${TEAR:-0}" \
				--seed "$seed" "$tmp/$fab.topo" >"$t" \
				2>"$tmp/cuts" || exit 2
			dv=$(route dfp dfp)
			if grep -q "up\*/down\*" "$tmp/dfp.err"; then
				chk=FALLB
			else
				chk=$("$croute" check -t "$t" \
					--lfts "$tmp/dfp.lft" --sl "$tmp/dfp.sl" \
					--sl2vl "$tmp/dfp.sl2vl" 2>&1 |
					sed -n 's/^result: *//p')
			fi
			route lash lash >/dev/null
			d=$(score "$tmp/dfp.lft")
			l=$(score "$tmp/lash.lft")
			a="- - -"
			if [ "${AUTO:-1}" != 0 ]; then
				av=$(route auto auto --qos)
				a="$av $(score "$tmp/auto.lft")"
			fi
			set -- $d $l $a
			printf '%-7s %4s %4s  %-5s %3s %7s %7s  %7s %7s  %5s %5s  %3s %7s %7s\n' \
				"$fab" "$cuts" "$seed" "$chk" "$dv" "$1" "$2" \
				"$3" "$4" \
				"$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.3f", a / b }')" \
				"$(awk -v a="$2" -v b="$4" 'BEGIN { printf "%.3f", a / b }')" \
				"$5" "$6" "$7"
		done
	done
done
