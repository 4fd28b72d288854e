#!/bin/sh
# Churn: how many LFT entries a fault changes, per engine, against those
# that had to change. One ibsim fabric; for each fault (a link between
# switches, a host link, a switch without hosts) applied through ibsim's
# console, every engine routes it with one opensm sweep (-o, same LIDs
# from guid2lid), and its tables are compared with its tables on the
# intact fabric. Forced: entries that pointed into a failed port, or whose
# LID or switch left. Unforced%: changed entries among those that did not
# have to.
# After each repair every engine must produce its original tables again
# ("back" column; OpenSM's engines included).
#
# usage: bench/churn/run.sh [croute gen arguments] (default: ktree 4 3)
# Environment: as tests/ibsim/lib.sh; CR_CHURN_ENGINES (default
# "cr-minhop minhop cr-updn updn cr-ftree ftree"); CR_CHURN_ROOTS=FILE:
# root_guid_file for every engine (updn's automatic roots can change with
# one link, and then most of its tables do).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_init bench-churn
CR_TIMEOUT=${CR_TEST_TIMEOUT:-300}
ENGINES=${CR_CHURN_ENGINES:-cr-minhop minhop cr-updn updn cr-ftree ftree}
[ $# -gt 0 ] || set -- ktree 4 3
genargs=$*
topo=$CR_DIR/topo
cr_gen "$topo" "$@"
links=$CR_DIR/links
cr_topo_links "$topo" >"$links"

# The faults: see cr_fault_pick; the switch at the other end of the
# leaf's uplink fails too, when it has no hosts.
cr_fault_pick "$topo" "$links"
leaf=$cr_leaf up=$cr_up mid=$cr_mid hostp=$cr_hostp
[ -n "$hostp" ] || cr_fail "no leaf with a host in $topo"

cr_ibsim_start "$topo"
if [ -n "${CR_CHURN_ROOTS:-}" ]; then
	cr_conf "root_guid_file $CR_CHURN_ROOTS"
else
	cr_conf
fi

# route NAME: every engine routes the fabric as it is; NAME-ENGINE.norm.
route() {
	for e in $ENGINES; do
		cr_opensm_once -R "$e"
		used=$(cr_engine_used)
		cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$1-$e.norm"
		echo "$used" >"$CR_DIR/$1-$e.used"
	done
}

printf '%-10s %-7s %-10s %7s %7s %7s %8s %9s %5s\n' engine fault used \
	entries forced changed unforced unforced% back >"$CR_DIR/table"

# fault NAME DEAD-FILE FAULT-CMD... -- REPAIR-CMD...
fault() {
	name=$1
	dead=$2
	shift 2
	while [ "$1" != -- ]; do
		cr_ibsim_cmd "$1"
		shift
	done
	shift
	route "$name"
	for cmd in "$@"; do
		cr_ibsim_cmd "$cmd"
	done
	route "$name-back"
	for e in $ENGINES; do
		back=yes
		cmp -s "$CR_DIR/orig-$e.norm" "$CR_DIR/$name-back-$e.norm" ||
			back=NO
		set -- $(cr_churn "$CR_DIR/orig-$e.norm" \
			"$CR_DIR/$name-$e.norm" "$dead")
		printf '%-10s %-7s %-10s %7d %7d %7d %8d %8s %5s\n' \
			"$e" "$name" "$(cat "$CR_DIR/$name-$e.used")" \
			"$1" "$3" "$2" \
			"$4" "$(awk -v u="$4" -v n="$1" -v f="$3" 'BEGIN {
			printf "%.1f%%", (n > f ? 100 * u / (n - f) : 0) }')" \
			"$back" >>"$CR_DIR/table"
	done
}

route orig
cr_link_ends "$links" "$leaf" "$up" >"$CR_DIR/dead-link"
fault link "$CR_DIR/dead-link" "Unlink \"$leaf\"[$up]" -- \
	"ReLink \"$leaf\"[$up]"
cr_link_ends "$links" "$leaf" "$hostp" >"$CR_DIR/dead-host"
fault host "$CR_DIR/dead-host" "Unlink \"$leaf\"[$hostp]" -- \
	"ReLink \"$leaf\"[$hostp]"
if [ -n "$mid" ]; then
	: >"$CR_DIR/dead-switch"
	for p in $(awk -v m="$mid" '$1 == m { print $2 }' "$links"); do
		cr_link_ends "$links" "$mid" "$p" >>"$CR_DIR/dead-switch"
	done
	fault switch "$CR_DIR/dead-switch" "Unlink \"$mid\"" -- \
		"ReLink \"$mid\""
fi
cr_ibsim_stop

echo "--- churn on $(grep -c '^Switch' "$topo") switches," \
	"$(grep -c '^Ca' "$topo") hosts (croute gen $genargs)"
cat "$CR_DIR/table"
exit 0
