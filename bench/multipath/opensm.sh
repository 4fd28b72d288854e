#!/bin/sh
# OpenSM's own engines at LMC 0 and 2 under ibsim on the 8-ary 3-tree less
# the top switch sw-l0-00 (512 hosts), scored as croute compare --lmc
# scores croute's: shift, every phase, the mean over ORDERS random host
# orders (default 6) of SEED (default 1), under the base and split path
# models, on the installed opensm-lfts.dump with OpenSM's LIDs. A row
# names the engine that configured the tables (an engine refusing the
# LMC falls back to minhop: the row says so). dfsssp runs with -Q.
#
# usage: bench/multipath/opensm.sh [ENGINE...]  (default: minhop updn
# ftree dfsssp)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/ibsim/lib.sh"

cr_init bench-multipath
CR_TIMEOUT=${CR_TEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- minhop updn ftree dfsssp
topo=$CR_DIR/kt83-1.topo
cr_gen "$CR_DIR/kt83.topo" ktree 8 3
awk -v desc=sw-l0-00 -f "$top_srcdir/bench/auto/drop-switch.awk" \
	"$CR_DIR/kt83.topo" >"$topo" || cr_fail "drop-switch"
cr_ibsim_start "$topo"
printf '%-8s %3s %-8s %8s %8s\n' engine LMC used base split
for e in "$@"; do
	for lmc in 0 2; do
		rm -f "$CR_GUID2LID"
		q=
		[ "$e" = dfsssp ] && q=-Q
		cr_conf "lmc $lmc" "croute_estimate none" \
			${q:+"qos TRUE"}
		# shellcheck disable=SC2086
		cr_opensm_once $q -R "$e" -D 0x47 >>"$CR_DIR/run.log"
		used=$(sed -n 's/.*: \([^ ]*\) tables configured on all switches.*/\1/p' \
			"$CR_LOG" | tail -n 1)
		row=
		for m in base split; do
			v=$("$CROUTE" estimate -t "$topo" --lids "$CR_GUID2LID" \
				--lfts "$CR_DUMP/opensm-lfts.dump" --pattern shift \
				--paths $m --orders "${ORDERS:-6}" \
				--seed "${SEED:-1}" 2>/dev/null |
				awk '/^# on [0-9]* random host orders/ { t = 1 }
				t && $1 == "shift" { print $3; exit }')
			row="$row $(printf '%8s' "${v:--}")"
		done
		printf '%-8s %3s %-8s%s\n' "$e" "$lmc" "${used:-?}" "$row"
	done
done
cr_ibsim_stop
