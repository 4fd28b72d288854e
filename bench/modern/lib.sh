# Shared by bench/modern/cuts.sh, autocmp.sh and hxcuts.sh: the
# dragonflies+ by name, a routing's mean shift and bisect over random
# host orders, and the VLs its path SLs use.

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

# sl_vls SLFILE: the VLs (SL i travels on VL i) the path SLs of SLFILE
# use; 1 when there is none (a routing without layers writes none)
sl_vls() {
	v=$(awk '$3 ~ /^[0-9]+$/ { s[$3] = 1 }
		END { for (k in s) n++; print n + 0 }' "$1" 2>/dev/null)
	[ "${v:-0}" -gt 0 ] || v=1
	echo "$v"
}
