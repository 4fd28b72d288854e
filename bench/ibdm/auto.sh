#!/bin/sh
# cr-auto against OpenSM's built-in engines on ibdm cluster plans, each
# plan converted (croute convert) and simulated in one ibsim run, so every
# engine has the same LIDs. OpenSM routes it with minhop, updn, ftree,
# and dfsssp and nue with -Q (their layers on SLs); cr-auto's tables are
# computed offline for the LIDs OpenSM assigned (`croute route -e auto
# --qos`: layered candidates qualify, as in the plugin with qos TRUE).
# Each table is scored with `croute estimate --lfts --orders N` (shift and
# bisect averages, fractions of injection) in the plan's own host order
# (node descriptions, natural sort: H-1, H-2, ...) and on N random host
# orders (mean and worst of them), and checked with `croute check`
# (unreachable pairs; credit loops on one VL: the layered routings are
# free of them only with their SLs, marked "L"). A built-in OpenSM could
# not use shows "fell back to X". Times: OpenSM's routing time from its
# log; cr-auto's is the offline run (its candidates, checks, scoring and
# improvement pass).
#
# usage: bench/ibdm/auto.sh PLAN... [-- croute options]
#   PLAN: an ibdm plan (or any topology croute reads); options such as
#   --ibnl-dir DIR go to croute convert and route.
# Environment: as tests/ibsim/lib.sh; CR_ORDERS: random host orders
# (default 6); CR_AUTO_BUDGET: cr-auto's candidate budget (default 5 s).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_init bench-ibdm-auto
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
CR_IBSIM_WAIT=${CR_IBSIM_WAIT:-300}
orders=${CR_ORDERS:-6}
plans=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	plans="$plans $1"
	shift
done
[ "${1:-}" = -- ] && shift
[ -n "$plans" ] || cr_fail "usage: bench/ibdm/auto.sh PLAN... [-- options]"

# score NET LFTS: "own mean worst" of shift, then of bisect, then the
# unreachable pairs and the VLs with a credit loop.
score() {
	"$CROUTE" estimate -t "$1" --lids "$CR_GUID2LID" --lfts "$2" \
		--pattern shift,bisect --orders "$orders" 2>/dev/null | awk '
		/^# on [0-9]+ random host orders/ { r = 1; next }
		r && /^shift / { s = $2 " " $3 " " $4 }
		r && /^bisect/ { b = $2 " " $3 " " $4 }
		END { printf "%s %s", (s == "" ? "- - -" : s),
			(b == "" ? "- - -" : b) }'
	"$CROUTE" check -t "$1" --lids "$CR_GUID2LID" --lfts "$2" \
		2>/dev/null | awk '
		/^unreachable:/ { u = $2 }
		/^credit loops:/ { c = $3 }
		END { printf " %s %s", (u == "" ? "-" : u), (c == "" ? "-" : c) }'
}

results=$CR_DIR/results
: >"$results"
for plan in $plans; do
	name=$(basename "$plan" | sed 's/\.[^.]*$//')
	net=$CR_DIR/$name.net
	"$CROUTE" convert -q -t "$plan" "$@" -o "$net" ||
		cr_fail "cannot convert $plan"
	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$net"
	for e in minhop updn ftree dfsssp nue; do
		q=
		case $e in dfsssp | nue) q=-Q ;; esac
		if [ -n "$q" ]; then cr_conf "qos TRUE"; else cr_conf; fi
		cr_opensm_once $q -R "$e" -D 0x47
		used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
			"$CR_LOG" | tail -n 1)
		label=$e$q
		[ "$used" = "$e" ] || label="$label (fell back to ${used:-?})"
		t=$(bench_routing_time "$CR_LOG" "$used")
		cp "$CR_DUMP/opensm-lfts.dump" "$CR_DIR/$e.lfts"
		lay=
		[ -n "$q" ] && [ "$used" = "$e" ] && lay=L
		echo "$name|$label|$t|$(score "$net" "$CR_DIR/$e.lfts")$lay" \
			>>"$results"
	done
	t0=$(date +%s.%N)
	"$CROUTE" route -t "$net" --lids "$CR_GUID2LID" -e auto --qos \
		--auto-budget "${CR_AUTO_BUDGET:-5}" "$@" -o "$CR_DIR/auto.lfts" \
		-v 2>"$CR_DIR/auto.err" || cr_fail "$name: cr-auto offline failed"
	t1=$(date +%s.%N)
	t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	win=$(sed -n 's/.*cr-auto: chose \([^ ]*\).*/\1/p' "$CR_DIR/auto.err" |
		tail -n 1)
	lay=
	case $win in lash*) lay=L ;; esac
	echo "$name|cr-auto --qos: ${win:-?}|$t|$(score "$net" "$CR_DIR/auto.lfts")$lay" \
		>>"$results"
	cr_ibsim_stop
done

echo "shift and bisect: average rate (fraction of injection) in the own host"
echo "order, and its mean and worst over $orders random host orders;"
echo "unrch: unreachable pairs; cloop: VLs with a credit loop on one VL"
echo "(L: a layered routing, free of them with its SLs)"
printf '%-18s %-30s %8s  %-20s  %-20s %5s %5s\n' plan engine "time s" \
	"shift own/mean/worst" "bisect own/mean/worst" unrch cloop
awk -F '|' '{
	split($4, v, " ")
	printf "%-18s %-30s %8s  %6s %6s %6s  %6s %6s %6s %5s %5s\n",
		$1, $2, $3, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
}' "$results"
CR_STATUS=0
exit 0
