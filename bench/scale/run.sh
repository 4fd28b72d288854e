#!/bin/sh
# The largest fabrics in a real opensm: OpenSM's ftree against croute's
# cr-ftree, cr-updn and cr-minhop on the same fabric, one ibsim run (same
# LIDs), one opensm sweep (-o) per engine, one opensm at a time. Per
# engine: OpenSM's routing time ("building routing with 'X'" to "X tables
# configured", from its own log), croute's own account of that time
# (import, route, install), and opensm's peak resident memory
# (/usr/bin/time's maximum RSS) over the whole run, and when croute's
# install ends (@install, from the plugin's log). The contention
# estimate is off (croute_estimate none): this measures routing only.
# OpenSM runs with log flags 0x07, as in production: no routing dumps,
# so croute (building the multicast trees itself) installs no hop rows,
# while OpenSM's ftree fills its own as part of its routing.
#
# usage: bench/scale/run.sh [croute gen arguments | FILE [croute options]]
#   (default: fat-tree 48); FILE: a topology in any format croute reads
#   (an ibdm cluster plan too, options such as --ibnl-dir after it),
#   converted for ibsim.
# Environment: as tests/ibsim/lib.sh; CR_ENGINES: the engines to run
# (default "ftree cr-ftree cr-updn cr-minhop"); CR_THREADS: croute_threads;
# CR_SCALE_CONF: more opensm.conf lines (e.g. "root_guid_file FILE").
# Memory: the default fabric needs about 3 GB per opensm.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/bench/lib.sh"

cr_need /usr/bin/time
cr_init bench-scale
CR_TIMEOUT=${CR_TEST_TIMEOUT:-1800}
CR_IBSIM_WAIT=${CR_IBSIM_WAIT:-900}
[ $# -gt 0 ] || set -- fat-tree 48
engines=${CR_ENGINES:-ftree cr-ftree cr-updn cr-minhop}
topo=$CR_DIR/topo
if [ -f "$1" ]; then
	"$CROUTE" convert -q -t "$@" -o "$topo" || cr_fail "cannot convert $1"
else
	cr_gen "$topo" "$@"
fi

conf="croute_estimate none"
[ -n "${CR_SCALE_CONF:-}" ] && conf="$conf
$CR_SCALE_CONF"
[ -n "${CR_THREADS:-}" ] && conf="$conf
croute_threads $CR_THREADS"
cr_conf "$conf"
cr_ibsim_start "$topo"
out=$CR_DIR/table
for e in $engines; do
	CR_RUN=$((CR_RUN + 1))
	CR_LOG=$CR_DIR/opensm-$CR_RUN.log
	cr_log "opensm -o -R $e"
	cr_osm_env timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
		/usr/bin/time -f %M -o "$CR_DIR/rss-$e" ${CR_OSM_WRAP:-} \
		opensm -o -F "$CR_CONF" -f "$CR_LOG" -D 0x07 -R "$e" \
		>"$CR_DIR/opensm-$CR_RUN.out" 2>&1 ||
		cr_fail "opensm -R $e failed"
	rss=$(awk '{ printf "%.2f", $1 / 1048576 }' "$CR_DIR/rss-$e")
	# An engine that refuses the fabric is a row: its first error, and
	# the engine OpenSM fell back to with that one's routing time.
	grep -q ": $e tables configured" "$CR_LOG" || {
		used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
			"$CR_LOG" | tail -n 1)
		why=$(grep -m 1 -E "ERR|disabling|cannot" "$CR_LOG" |
			sed 's/.*-> //; s/croute: ERR CR[0-9A-F]*: //' | cut -c 1-60)
		echo "$e - $rss - - refused, ${used:-?} in" \
			"$(bench_routing_time "$CR_LOG" "$used") s: $why" >>"$out"
		continue
	}
	t=$(bench_routing_time "$CR_LOG" "$e")
	own=$(sed -n 's/.*croute: cr-[a-z]*: routed .* in \([0-9.]*\) ms (import \([0-9.]*\), route \([0-9.]*\), install \([0-9.]*\)).*/\1 \2 \3 \4/p' \
		"$CR_LOG" | tail -n 1)
	# opensm's peak when croute's install ends (the plugin's log line)
	inst=$(sed -n 's/.*croute: cr-[a-z]*: routed .* peak \([0-9]*\) MB.*/\1/p' \
		"$CR_LOG" | tail -n 1)
	echo "$e $t $rss ${inst:--} ${own:--}" >>"$out"
done
cr_ibsim_stop

if [ -f "$1" ]; then f="$*"; else f="croute gen $*"; fi
echo "fabric: $f  (threads: ${CR_THREADS:-default})"
printf "%-10s %11s %10s %9s %9s  %s\n" engine "routing (s)" "vs ftree" \
	"RSS (GB)" "@install" "croute: total ms (import, route, install)"
base=$(awk '$1 == "ftree" { print $2 }' "$out")
while read -r e t rss at total imp rt inst; do
	if [ "$t" = - ]; then own="$imp $rt $inst"
	elif [ "$total" = - ]; then own=-; else
		own="$total ($imp, $rt, $inst)"; fi
	[ "$at" = - ] || at=$(awk -v m="$at" 'BEGIN { printf "%.2f", m / 1024 }')
	printf "%-10s %11s %10s %9s %9s  %s\n" "$e" "$t" \
		"$(bench_ratio "$t" "${base:--}")" "$rss" "$at" "$own"
done <"$out"
CR_STATUS=0
exit 0
