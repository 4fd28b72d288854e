#!/bin/sh
# cr-updn under ibsim with a real opensm (-R cr-updn): two three-level fat
# trees (the second with port_shifting), a two-level director with
# scrambled spine wiring (remote_guid_sorting and port_shifting; also with
# LMC 2), a torus, a random fabric, and root GUID files (a CA's GUID on
# the torus, the spines' on the director). Each routing must be complete
# and free of credit loops by `croute check` and by ibdmchk (Debian's
# ibutils; it may crash after its report, so its "credit loops" line is
# read, not its exit status), and cr-updn must have routed it (no
# fall-through to another engine). On the director and on the second
# tree, no two flows of any shift may share a link (hosts in the order of
# their names). A negative control shows the checks see min-hop's credit
# loops. Roots that leave CAs without a path make cr-updn fail, so that
# OpenSM routes with the next engine of its list.

. "$(dirname "$0")/lib.sh"

cr_init updn
have_ibdmchk=
if command -v ibdmchk >/dev/null 2>&1; then
	have_ibdmchk=1
else
	cr_log "ibdmchk is not installed (Debian's ibutils): croute check only"
fi

# updn_verify NAME TOPO: the last sweep was cr-updn's, complete and
# credit-loop free.
updn_verify() {
	cr_expect_log "cr-updn tables configured on all switches" \
		"$1: cr-updn did not route the fabric"
	# One line per root is detail: VERBOSE, not at these flags.
	cr_reject_log "croute: cr-updn: root 0x" "$1: a line per root at INFO"
	cr_expect_log "croute: cr-updn: .*root" "$1: the roots not summed up"
	cr_reject_log "croute: ERR" "$1: croute errors in the opensm log"
	[ -s "$CR_DUMP/croute-updn-roots.dump" ] ||
		cr_fail "$1: no croute-updn-roots.dump"
	cr_check_lfts "$2" "$CR_DIR/check-$1.out" \
		"$1: croute check found problems"
	grep -q "credit loops: *0 " "$CR_DIR/check-$1.out" ||
		cr_fail "$1: croute check did not look for credit loops"
	if [ -n "$have_ibdmchk" ]; then
		# The subshell reports ibdmchk's crash into the file.
		(cd "$CR_DUMP" && timeout -k "$CR_GRACE" "$CR_TIMEOUT" \
			ibdmchk -s opensm-subnet.lst -f opensm.fdbs \
			-m opensm.mcfdbs
		true) >"$CR_DIR/ibdmchk-$1.out" 2>&1
		grep -q -- "-I- no credit loops found" \
			"$CR_DIR/ibdmchk-$1.out" || {
			grep -i -- "credit\|^-E-" "$CR_DIR/ibdmchk-$1.out" |
				head
			cr_fail "$1: ibdmchk reports credit loops (or no verdict)"
		}
	fi
	cr_log "$1: complete, no credit loops ($(grep -c '^0x' \
		"$CR_DUMP/croute-updn-roots.dump") roots)"
}

# updn_case NAME [opensm.conf lines...]: generates nothing; routes
# $CR_DIR/NAME.topo (already written) and verifies it.
updn_case() {
	name=$1
	shift
	cr_ibsim_start "$CR_DIR/$name.topo"
	cr_conf "$@"
	cr_opensm_once -R cr-updn
	updn_verify "$name" "$CR_DIR/$name.topo"
	cr_ibsim_stop
}

# updn_shift_free NAME: in the last sweep, every flow of every shift has
# its links to itself (hosts in the order of their names), counted on
# opensm's own dumps.
updn_shift_free() {
	cr_host_lids "$CR_DUMP/opensm-subnet.lst" >"$CR_DIR/hosts"
	load=$(awk -f "$top_srcdir/bench/updn/shiftload.awk" "$CR_DIR/hosts" \
		"$CR_DUMP/opensm-subnet.lst" "$CR_DUMP/opensm-lfts.dump")
	cr_log "$1 shift: $load"
	case $load in
	"worst 1 "*" lost 0") ;;
	*) cr_fail "$1: shifts share links ($load)" ;;
	esac
}

cr_gen "$CR_DIR/ftree.topo" ktree 2 3
updn_case ftree
# The top level of the tree is the root set.
[ "$(grep -c '^0x' "$CR_DUMP/croute-updn-roots.dump")" = 4 ] ||
	cr_fail "ftree: expected the 4 top switches as roots"

# croute's port_shifting (D-mod-k) on a 3-level tree: no shared link in
# any shift, where least-loaded picks (and OpenSM's rotation) align the
# levels.
cr_gen "$CR_DIR/ftree3.topo" ktree 3 3
updn_case ftree3 "port_shifting TRUE"
updn_shift_free ftree3

cr_gen "$CR_DIR/director.topo" two-level --leaves 6 --hosts 4 \
	--uplinks 4 --spines 4 --scramble 7
updn_case director "remote_guid_sorting TRUE" "port_shifting TRUE"
cr_expect_log "tree-like fabric" "director: the spines were not found"
updn_shift_free director

cr_gen "$CR_DIR/director-lmc.topo" two-level --leaves 4 --hosts 3 \
	--uplinks 3 --spines 3 --scramble 2
updn_case director-lmc "lmc 2" "remote_guid_sorting TRUE" \
	"port_shifting TRUE"

cr_gen "$CR_DIR/torus.topo" torus 4 4 --hosts 1
updn_case torus
cr_expect_log "one root per connected part" "torus: not a single root"

cr_gen "$CR_DIR/random.topo" random --switches 12 --links 4 --hosts 1 \
	--seed 3
updn_case random

# Root GUID files. On the torus, one CA's node GUID: its switch is the
# only root. On the director, the spines' GUIDs.
awk '
	/^caguid=/ { ca = $0; sub(/^caguid=/, "", ca) }
	/^Ca[ \t]/ { want = 1; next }
	want && /^\[/ { want = 0; peer = $2; sub(/\[.*/, "", peer);
			 gsub(/"/, "", peer); sub(/^S-/, "", peer);
			 last_ca = ca; last_peer = "0x" peer }
	END { print last_ca; print last_peer }
' "$CR_DIR/torus.topo" >"$CR_DIR/guids"
sed -n 1p "$CR_DIR/guids" >"$CR_DIR/roots"
ca_switch=$(sed -n 2p "$CR_DIR/guids")
[ "$ca_switch" != 0x ] || cr_fail "could not pick a CA from torus.topo"
cp "$CR_DIR/torus.topo" "$CR_DIR/torus-rootfile.topo"
updn_case torus-rootfile "root_guid_file $CR_DIR/roots"
cr_expect_log "is a Channel Adapter: using its switch" \
	"torus-rootfile: the CA GUID was not taken for its switch"
cr_expect_log "roots from the root GUID list" \
	"torus-rootfile: the root GUID file was not used"
if [ "$(grep -c '^0x' "$CR_DUMP/croute-updn-roots.dump")" != 1 ] ||
	! grep -qi "^$ca_switch " "$CR_DUMP/croute-updn-roots.dump"; then
	cr_fail "torus-rootfile: the root is not the CA's switch $ca_switch"
fi

awk '
	/^switchguid=/ { g = $0; sub(/^switchguid=/, "", g); sub(/\(.*/, "", g) }
	/^Switch[ \t]/ && /"spine-/ { print g }
' "$CR_DIR/director.topo" >"$CR_DIR/roots"
cp "$CR_DIR/director.topo" "$CR_DIR/director-rootfile.topo"
updn_case director-rootfile "root_guid_file $CR_DIR/roots" \
	"remote_guid_sorting TRUE"
[ "$(grep -c '^0x' "$CR_DUMP/croute-updn-roots.dump")" = 4 ] ||
	cr_fail "director-rootfile: expected the 4 spines as roots"

# Roots that leave CAs without a path (every leaf of a two-level tree: a
# host's traffic would go down to a spine and up again): cr-updn fails
# with an error, and OpenSM routes with the next engine of the list.
cr_gen "$CR_DIR/strand.topo" two-level --leaves 3 --hosts 2 --uplinks 2 \
	--spines 2
awk '
	/^switchguid=/ { g = $0; sub(/^switchguid=/, "", g); sub(/\(.*/, "", g) }
	/^Switch[ \t]/ && /"leaf-/ { print g }
' "$CR_DIR/strand.topo" >"$CR_DIR/leafroots"
cr_ibsim_start "$CR_DIR/strand.topo"
cr_conf "root_guid_file $CR_DIR/leafroots"
cr_opensm_once -R cr-updn,minhop
cr_expect_log "pairs have no up\*/down\* path with these roots: not installing" \
	"stranding roots: cr-updn did not refuse its tables"
cr_expect_log "minhop tables configured on all switches" \
	"stranding roots: OpenSM did not move on to the next engine"
cr_reject_log "cr-updn tables configured" \
	"stranding roots: cr-updn's tables were installed"
cr_ibsim_stop
cr_log "stranding roots: refused, the next engine routed: OK"

# Negative control: min-hop on the torus has credit loops, and the same
# checks say so.
cr_ibsim_start "$CR_DIR/torus.topo"
cr_conf
cr_opensm_once -R cr-minhop
if "$CROUTE" check --topo "$CR_DIR/torus.topo" \
	--lfts "$CR_DUMP/opensm-lfts.dump" --lids "$CR_GUID2LID" \
	>"$CR_DIR/check-minhop.out" 2>&1; then
	cr_fail "croute check misses cr-minhop's credit loops on a torus"
fi
cr_ibsim_stop

CR_STATUS=0
exit 0
