# Shared by bench/modern/cuts.sh and autocmp.sh: the dragonflies+ by
# name, and a routing's mean shift and bisect over random host orders.

# gen_args NAME: the arguments of `croute gen dragonfly-plus` for NAME
gen_args() {
	case $1 in
	dfly) echo "--groups 9 --leaves 4 --spines 4 --hosts 4 --global 2" ;;
	dfly12) echo "--groups 12 --leaves 6 --spines 6 --hosts 6 --global 2" ;;
	*) echo "${0##*/}: unknown fabric $1" >&2; exit 2 ;;
	esac
}

# orders_score CROUTE TOPO LFTS ORDERS SEED: "shift bisect", the means
# over ORDERS random host orders of SEED
orders_score() {
	"$1" estimate -t "$2" --lfts "$3" --pattern shift,bisect:10 \
		--phases 16 --orders "$4" --seed "$5" 2>/dev/null |
		awk '/^pattern +own avg/ { on = 1; next }
		     on && /^shift/ { s = $3 } on && /^bisect/ { b = $3 }
		     END { printf "%s %s", s, b }'
}
