#!/bin/sh
# cr-auto against OpenSM's built-in engines on today's fabrics, each in
# one ibsim run (same LIDs for every engine):
#   dfly      dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts 4
#             --global 2 (one cable between every two groups)
#   dfly-cut  the same less 3 global cables (drop-global.awk)
#   hyperx    hyperx 6 6 --hosts 6
#   rail      rail-tree --servers 32 --rails 8 --unit 8 --spines 4
# Rows: cr-auto (qos TRUE, -Q, both steps in the sweep:
# croute_auto_background FALSE, so that opensm -o installs its final
# tables and route_s is their time), cr-hyperx (-Q) on the HyperX, and
# OpenSM's minhop, updn, ftree, and dfsssp, nue and lash with -Q. Each
# installed opensm-lfts.dump is scored with `croute estimate` (shift on
# PHASES sampled phases, default 16, or "all" of them; bisect:10;
# rail-ring on the rail tree; fractions of injection) on the fabric's
# own host order and the mean over ORDERS random orders (default 6;
# SEED, default 1, seeds them, the phases and the matchings), and
# checked by
# `croute check` (with the plugin's path-SL and SL2VL dumps for cr-auto's
# layered winners: "OK" or u<unreachable>,c<VLs with credit loops>; the
# built-ins' SLs are not dumped, so dfsssp's, nue's and lash's loops on
# one VL are expected). "VLs": cr-auto's SLs in use, else "-". "/bound"
# is the own-order figure over `croute bound`'s for the same phases. The
# "auto offline" row is `croute route -e auto --qos`, the same tables
# cr-auto installs unless its wall clock cut candidates.
#
# Any other size: LABEL=ARGS, where ARGS are `croute gen`'s (a label
# ending in -cut loses 3 global cables as dfly-cut does, one ending in
# -rcutNsS N switch cables of any kind drawn by cut-random.py with seed
# S), e.g.
#   ibsim.sh 'dfly4=dragonfly-plus --groups 5 --leaves 4 --spines 4
#   --hosts 4 --global 4'
#   ibsim.sh 'dfly-rcut6s7=dragonfly-plus --groups 9 --leaves 4
#   --spines 4 --hosts 4 --global 2'
#
# BOUND=0 leaves `croute bound` out (over 8 minutes at 768 hosts).
#
# usage: bench/modern/ibsim.sh [FABRIC...]   (default: all four)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"
here=$top_srcdir/bench/modern

cr_init bench-modern
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- dfly dfly-cut hyperx rail
# A sample of phases is a second source of noise beside the orders':
# two routings level on every phase can differ by .002 on 16 of them.
case ${PHASES:-16} in
all) phase_opt= ;;
*) phase_opt="--phases ${PHASES:-16}" ;;
esac
orders=${ORDERS:-6}

make_fabric() {
	case $1 in
	dfly) cr_gen "$2" dragonfly-plus --groups 9 --leaves 4 --spines 4 \
		--hosts 4 --global 2 ;;
	dfly-cut)
		make_fabric dfly "$2.full"
		awk -v count=3 -f "$here/drop-global.awk" "$2.full" \
			"$2.full" >"$2" ;;
	hyperx) cr_gen "$2" hyperx 6 6 --hosts 6 ;;
	rail) cr_gen "$2" rail-tree --servers 32 --rails 8 --unit 8 \
		--spines 4 ;;
	*-rcut*s*=*)
		# LABEL-rcutNsS=ARGS: N switch cables cut at random, seed S
		_rc=${1%%=*}
		_rc=${_rc##*-rcut}
		make_fabric "${1%%-rcut*}=${1#*=}" "$2.full"
		python3 "$here/cut-random.py" --count "${_rc%%s*}" \
			--seed "${_rc#*s}" "$2.full" >"$2" 2>"$2.cuts" ||
			cr_fail "cut-random.py: $(cat "$2.cuts")" ;;
	*-cut=*)
		make_fabric "${1%%-cut=*}=${1#*=}" "$2.full"
		awk -v count=3 -f "$here/drop-global.awk" "$2.full" \
			"$2.full" >"$2" ;;
	*=*)
		# shellcheck disable=SC2086
		cr_gen "$2" ${1#*=} ;;
	*) cr_fail "unknown fabric $1" ;;
	esac
}

# score TOPO LFTS PATS [SL SL2VL]: "check VLs p1 rand1 /b1 p2 ..."
score() {
	_t=$1 _l=$2 _p=$3
	shift 3
	if [ $# -eq 2 ] && [ -s "$1" ]; then
		"$CROUTE" check -t "$_t" --lids "$CR_GUID2LID" --lfts "$_l" \
			--sl "$1" --sl2vl "$2" >"$CR_DIR/check" 2>&1
		vls=$(awk '$3 ~ /^[0-9]+$/ { s[$3] = 1 }
			END { for (k in s) n++; print n + 0 }' "$1")
	else
		"$CROUTE" check -t "$_t" --lids "$CR_GUID2LID" --lfts "$_l" \
			>"$CR_DIR/check" 2>&1
		vls=-
	fi
	res=$(awk '/^result:/ { r = $2 } /^credit loops:/ { c = $3 }
		/^unreachable:/ { u = $2 }
		END { printf "%s", r == "OK" ? "OK" : "u" u ",c" c }' \
		"$CR_DIR/check")
	"$CROUTE" estimate -t "$_t" --lids "$CR_GUID2LID" --lfts "$_l" \
		--pattern "$_p" $phase_opt --orders "$orders" \
		--seed "${SEED:-1}" >"$CR_DIR/est" 2>/dev/null
	printf '%-9s %3s' "$res" "$vls"
	for p in $(echo "$_p" | tr , ' '); do
		awk -v p="$p" -v b="$(awk -v p="$p" '/^pattern/ { on = 1; next }
			on && (index($1, p ":") == 1 || $1 == p) { print $4; exit }' \
			"$CR_DIR/bound")" '
		/^pattern  *own avg/ { on = 1; next }
		on && (index($1, p ":") == 1 || $1 == p) {
			printf " %7s %7s %6s", $2, $3,
				(b + 0 > 0 ? sprintf("%.3f", $2 / b) : "-")
			exit
		}' "$CR_DIR/est"
	done
	echo
}

for spec in "$@"; do
	fab=${spec%%=*}
	topo=$CR_DIR/$fab.topo
	make_fabric "$spec" "$topo"
	pats=shift,bisect
	case $spec in rail | *=rail-tree*) pats=rail-ring,shift,bisect ;; esac
	if [ "${BOUND:-1}" = 0 ]; then
		: >"$CR_DIR/bound"
	else
		"$CROUTE" bound -t "$topo" --pattern "$pats" \
			$phase_opt >"$CR_DIR/bound" 2>/dev/null
	fi
	cr_ibsim_start "$topo" >>"$CR_DIR/run.log"
	echo "== $fab: $(grep -c '^Ca' "$topo") hosts," \
		"$(grep -c '^Switch' "$topo") switches; bound:" \
		"$(awk '/^pattern/ { on = 1; next } on && NF == 0 { exit }
			on { printf " %s %s", $1, $4 }' "$CR_DIR/bound")"
	printf '%-22s %8s %-9s %3s' engine route_s check VLs
	for p in $(echo "$pats" | tr , ' '); do
		printf ' %7s %7s %6s' "$p" rand /bound
	done
	echo
	extra=
	case $spec in hyperx | *=hyperx*) extra=cr-hyperx ;; esac
	for row in "cr-auto Q" ${extra:+"$extra Q"} "minhop -" "updn -" \
		"ftree -" "dfsssp Q" "nue Q" "lash Q"; do
		set -- $row
		if [ "$1" = cr-auto ]; then
			# both steps in the sweep: its time and final winner
			cr_conf "qos TRUE
croute_auto_background FALSE"
			cr_opensm_once -Q -R "$1" -D 0x47 >>"$CR_DIR/run.log"
		elif [ "$2" = Q ]; then
			cr_conf "qos TRUE"
			cr_opensm_once -Q -R "$1" -D 0x47 >>"$CR_DIR/run.log"
		else
			cr_conf
			cr_opensm_once -R "$1" -D 0x47 >>"$CR_DIR/run.log"
		fi
		used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
			"$CR_LOG" | tail -n 1)
		label=$1
		[ "$2" = Q ] && label="$1 -Q"
		[ "$used" = "$1" ] || label="$label (fell back to ${used:-?})"
		t=$(bench_routing_time "$CR_LOG" "$used")
		if [ "$1" = cr-auto ]; then
			win=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' \
				"$CR_LOG" | tail -n 1)
			label="cr-auto -Q ($win)"
			printf '%-22s %8s ' "$label" "${t:--}"
			score "$topo" "$CR_DUMP/opensm-lfts.dump" "$pats" \
				"$CR_DUMP/croute-lash-sl.dump" \
				"$CR_DUMP/croute-lash-sl2vl.dump"
			"$CROUTE" route -t "$topo" --lids "$CR_GUID2LID" -e auto \
				--qos -o "$CR_DIR/off.lfts" \
				--lash-sl "$CR_DIR/off.sl" \
				--lash-sl2vl "$CR_DIR/off.sl2vl" \
				>/dev/null 2>"$CR_DIR/off.err"
			win=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' \
				"$CR_DIR/off.err" | tail -n 1)
			t=$(sed -n 's/.*cr-auto routed .* in \([0-9.]*\) s, peak.*/\1/p' \
				"$CR_DIR/off.err" | tail -n 1)
			printf '%-22s %8s ' "auto offline ($win)" "${t:--}"
			score "$topo" "$CR_DIR/off.lfts" "$pats" \
				"$CR_DIR/off.sl" "$CR_DIR/off.sl2vl"
			rm -f "$CR_DIR/off.sl" "$CR_DIR/off.sl2vl"
			continue
		fi
		printf '%-22s %8s ' "$label" "${t:--}"
		case $used in
		cr-*) score "$topo" "$CR_DUMP/opensm-lfts.dump" "$pats" \
			"$CR_DUMP/croute-lash-sl.dump" \
			"$CR_DUMP/croute-lash-sl2vl.dump" ;;
		*) score "$topo" "$CR_DUMP/opensm-lfts.dump" "$pats" ;;
		esac
	done
	cr_ibsim_stop >>"$CR_DIR/run.log"
done
CR_STATUS=0
exit 0
