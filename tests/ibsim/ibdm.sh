#!/bin/sh
# ibdm plans under ibsim with a real opensm: each plan the installed
# ibutils ships beside its ibnl files is converted (croute convert),
# simulated, and routed by cr-updn and cr-ftree. The tables opensm
# installs must check clean (no unreachable pair, no forwarding or credit
# loop), cr-updn must route every plan, cr-ftree route it or refuse it
# with its reason, and `croute diff` must find nothing between the plan
# and opensm's dump directory: the fabric simulated is the plan.

. "$(dirname "$0")/lib.sh"

cr_init ibdm
ibnl=
for d in /usr/lib/*-linux-*/ibdm*/ibnl /usr/lib64/ibdm*/ibnl \
	/usr/lib/ibdm*/ibnl /usr/local/lib/ibdm*/ibnl; do
	[ -d "$d" ] && ibnl=$d
done
[ -n "$ibnl" ] || cr_skip "no ibdm ibnl directory (Debian package libibdm1)"
plans=$(ls "$ibnl"/*.topo 2>/dev/null)
[ -n "$plans" ] || cr_skip "$ibnl holds no plans (*.topo)"

for p in $plans; do
	b=$(basename "$p" .topo)
	"$CROUTE" convert -q -t "$p" -o "$CR_DIR/$b.net" ||
		cr_fail "$b: croute convert failed"
	cr_ibsim_start "$CR_DIR/$b.net"
	for e in updn ftree; do
		cr_conf
		cr_opensm_once -R "cr-$e"
		if grep -q "cr-$e tables configured on all switches" \
			"$CR_LOG"; then
			# OpenSM's own view (opensm-subnet.lst): its guid2lid
			# may keep a LID for a host's uncabled port 1.
			"$CROUTE" check --dump-dir "$CR_DUMP" \
				>"$CR_DIR/check-$b-$e.out" 2>&1 || {
				cat "$CR_DIR/check-$b-$e.out"
				cr_fail "$b: croute check found problems in cr-$e's tables"
			}
			grep -q "credit loops: *0 " "$CR_DIR/check-$b-$e.out" ||
				cr_fail "$b: no credit loop verdict for cr-$e"
			cr_log "$b: cr-$e routed it, checked clean"
		elif [ "$e" = ftree ] && grep -q "croute: cr-ftree" "$CR_LOG"; then
			cr_log "$b: cr-ftree refused: $(grep 'croute: cr-ftree' \
				"$CR_LOG" | tail -n 1 | sed 's/.*croute: //')"
		else
			cr_fail "$b: cr-$e did not route the plan"
		fi
	done
	"$CROUTE" diff -t "$p" --dump-dir "$CR_DUMP" >"$CR_DIR/diff-$b.out" \
		2>&1 || {
		head -n 20 "$CR_DIR/diff-$b.out"
		cr_fail "$b: croute diff finds the simulated fabric differs"
	}
	cr_ibsim_stop
done
cr_log "every installed plan simulated, routed and checked"
