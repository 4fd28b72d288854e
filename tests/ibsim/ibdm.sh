#!/bin/sh
# ibdm plans under ibsim with a real opensm: each plan the installed
# ibutils ships beside its ibnl files is converted (croute convert),
# simulated, and routed by every croute engine: cr-minhop, cr-updn,
# cr-ftree, cr-lash (with QoS, its layers on SLs) and cr-auto. Every
# engine must route every plan, except cr-ftree, which routes a plan or
# refuses it with its reason. The tables opensm installs must reach every
# LID with no forwarding loop (croute check on opensm's own dumps), with
# no credit loop for cr-updn, cr-ftree and cr-auto (cr-minhop's shortest
# paths may close one; cr-lash's layers are checked offline with its
# SLs); the deterministic engines' tables must be `croute route`'s for the
# same LIDs; and `croute diff` must find nothing between the plan and
# opensm's dump directory: the fabric simulated is the plan. On the first
# plan, `croute diff --live` (when built with it) finds the plan in the
# fabric, then the cable ibsim unplugs: the crew's punch list.
# CR_IBDM_DIR: plans (*.topo) to use instead of the installed ones (their
# system types from the installed ibnl files or CR_IBNL_DIR).

. "$(dirname "$0")/lib.sh"

cr_init ibdm
ibnl=
for d in /usr/lib/*-linux-*/ibdm*/ibnl /usr/lib64/ibdm*/ibnl \
	/usr/lib/ibdm*/ibnl /usr/local/lib/ibdm*/ibnl; do
	[ -d "$d" ] && ibnl=$d
done
plans_dir=${CR_IBDM_DIR:-$ibnl}
[ -n "$plans_dir" ] ||
	cr_skip "no ibdm ibnl directory (Debian package libibdm1)"
plans=$(ls "$plans_dir"/*.topo 2>/dev/null)
[ -n "$plans" ] || cr_skip "$plans_dir holds no plans (*.topo)"
set --
[ -n "${CR_IBNL_DIR:-}" ] && set -- --ibnl-dir "$CR_IBNL_DIR"

# clean B E OUT [credit]: OUT, croute check's report, finds every LID
# reachable and no forwarding loop (and no credit loop).
clean() {
	grep -q '^unreachable: *0$' "$3" &&
		grep -q '^forwarding loops: *0$' "$3" &&
		grep -q '^pairs checked: *[1-9]' "$3" || {
		cat "$3"
		cr_fail "$1: croute check found problems in cr-$2's tables"
	}
	[ "${4:-}" != credit ] || grep -q '^credit loops: *0 ' "$3" || {
		cat "$3"
		cr_fail "$1: cr-$2's tables have a credit loop"
	}
}

# offline B E NET [croute route options]: opensm's tables are those
# `croute route` computes offline for the same fabric and LIDs.
offline() {
	b=$1
	e=$2
	net=$3
	shift 3
	"$CROUTE" route -q -t "$net" --lids "$CR_GUID2LID" -e "$e" "$@" \
		-o "$CR_DIR/offline.dump" 2>"$CR_DIR/offline.err" ||
		cr_fail "$b: croute route -e $e: $(cat "$CR_DIR/offline.err")"
	cr_lfts_norm "$CR_DIR/offline.dump" >"$CR_DIR/offline.norm"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/opensm.norm"
	cr_same "$CR_DIR/opensm.norm" "$CR_DIR/offline.norm" 10 \
		"$b: cr-$e's tables in opensm differ from croute route's"
}

# punch_list B PLAN NET [options]: `croute diff --live` finds the plan in
# the simulated fabric, then the cable ibsim unplugs from a host.
punch_list() {
	b=$1
	p=$2
	net=$3
	shift 3
	cr_osm_env timeout -k "$CR_GRACE" 120 "$CROUTE" diff -t "$p" "$@" \
		--live >"$CR_DIR/live.out" 2>&1 || {
		head -n 20 "$CR_DIR/live.out"
		cr_fail "$b: croute diff --live finds the simulated fabric differs"
	}
	# The last host: ibsim attaches croute to the file's first node.
	h=$(awk '/^Ca/ { gsub(/"/, "", $3); h = $3 } END { print h }' "$net")
	name=$(awk '/^Ca/ { sub(/.*# "/, ""); sub(/".*/, ""); n = $0 }
		END { print n }' "$net")
	cr_ibsim_cmd "Unlink \"$h\"[1]"
	# ibsim reads its console on its own time: ask until it has.
	i=0
	while :; do
		cr_osm_env timeout -k "$CR_GRACE" 120 "$CROUTE" diff -t "$p" \
			"$@" --live >"$CR_DIR/live.out" 2>&1
		rc=$?
		[ $rc != 0 ] || [ $i -ge 50 ] && break
		i=$((i + 1))
		sleep 0.2
	done
	[ $rc = 1 ] && grep -q "^missing cable: .* $name P1 (plan line [0-9]*)$\|^missing cable: $name P1 - .* (plan line [0-9]*)$" \
		"$CR_DIR/live.out" || {
		head -n 20 "$CR_DIR/live.out"
		cr_fail "$b: diff --live (exit $rc) misses $name's unplugged cable"
	}
	cr_log "$b: croute diff --live lists $name's unplugged cable"
}

# The punch list of a live fabric: on the first plan, when croute can
# discover one.
live=
"$CROUTE" diff --live -C none 2>&1 | grep -q "built without" || live=1

for p in $plans; do
	b=$(basename "$p" .topo)
	net=$CR_DIR/$b.net
	"$CROUTE" convert -q -t "$p" "$@" -o "$net" ||
		cr_fail "$b: croute convert failed"
	rm -f "$CR_GUID2LID"
	cr_ibsim_start "$net"
	for e in minhop updn ftree lash auto; do
		q=
		case $e in
		lash)
			cr_conf "qos TRUE"
			q=-Q ;;
		auto) cr_conf "croute_auto_budget 1" ;;
		*) cr_conf ;;
		esac
		# shellcheck disable=SC2086
		cr_opensm_once $q -R "cr-$e"
		if ! grep -q "cr-$e tables configured on all switches" \
			"$CR_LOG"; then
			if [ "$e" = ftree ] &&
				grep -q "croute: cr-ftree: .*not a" "$CR_LOG"; then
				cr_log "$b: cr-ftree refused: $(grep \
					'croute: cr-ftree: ' "$CR_LOG" | tail -n 1 |
					sed 's/.*croute: //')"
				continue
			fi
			cr_fail "$b: cr-$e did not route the plan"
		fi
		out=$CR_DIR/check-$b-$e.out
		# OpenSM's own view (opensm-subnet.lst): its guid2lid may
		# keep a LID for a host's uncabled port 1.
		"$CROUTE" check --dump-dir "$CR_DUMP" >"$out" 2>&1
		case $e in
		minhop) clean "$b" "$e" "$out" ;;
		lash)
			clean "$b" "$e" "$out"
			"$CROUTE" check -q -t "$net" --lids "$CR_GUID2LID" \
				-e lash >"$out" 2>&1
			clean "$b" "$e" "$out" credit ;;
		*) clean "$b" "$e" "$out" credit ;;
		esac
		[ "$e" = auto ] || offline "$b" "$e" "$net"
		cr_log "$b: cr-$e routed it, checked clean"
	done
	"$CROUTE" diff -t "$p" "$@" --dump-dir "$CR_DUMP" \
		>"$CR_DIR/diff-$b.out" 2>&1 || {
		head -n 20 "$CR_DIR/diff-$b.out"
		cr_fail "$b: croute diff finds the simulated fabric differs"
	}
	[ -n "$live" ] && punch_list "$b" "$p" "$net" "$@"
	live=
	cr_ibsim_stop
done
cr_log "every plan simulated, routed by every engine and checked"
