#!/bin/sh
# Reloads: one opensm (not -o) routes a small random fabric (not a tree:
# on tree-like fabrics cr-minhop orders ports by the far switch whatever
# remote_guid_sorting says, and the toggle would prove nothing); between
# SIGHUPs the test edits opensm.conf. After each
# re-sweep the installed LFTs must be what `croute route` computes offline
# with the same toggles and OpenSM's LIDs: remote_guid_sorting (croute's
# key), port_shifting and scatter_ports (OpenSM's keys, reloaded on
# SIGHUP), croute_fail_engine (a croute_* key: the next engine of -R
# routes). Back to the defaults, the first tables return. An invalid value
# of a croute key is an error naming the key and the value, and the key
# keeps its default; an unknown croute_* key is named and ignored.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"
. "$top_srcdir/tests/ibsim/faultlib.sh"

cr_init sighup

topo=$CR_DIR/fabric.topo
cr_gen "$topo" random --switches 8 --links 4 --hosts 3 --seed 1
cr_ibsim_start "$topo"
# sweep_interval 0: the SIGHUPs make every sweep. OpenSM keeps the value
# of one of its keys that leaves the file (croute's keys return to their
# defaults): every step states OpenSM's keys, later lines override them.
cr_conf "sweep_interval 0"
cr_opensm_start -R cr-minhop,cr-updn
cr_wait_log "$CR_LOG" "$CR_DONE" 1 "$CR_TIMEOUT" "$CR_OSM_PID" ||
	cr_fail "opensm did not route"
cr_quiet

# step NAME ENGINE "ROUTE OPTIONS" [CONF LINES...]: edits opensm.conf,
# SIGHUP; ENGINE must route, and its tables must equal croute route's.
step() {
	name=$1
	engine=$2
	opts=$3
	shift 3
	cr_conf "sweep_interval 0" "port_shifting FALSE" "scatter_ports 0" "$@"
	MARK=$(wc -l <"$CR_LOG")
	cr_resweep
	used=$(cr_engine_used)
	[ "$used" = "$engine" ] ||
		cr_fail "$name: $used installed the tables, not $engine"
	cr_lfts_norm "$CR_DUMP/opensm-lfts.dump" >"$CR_DIR/$name.norm"
	# shellcheck disable=SC2086
	"$CROUTE" route --topo "$topo" --lids "$CR_GUID2LID" \
		-e "${engine#cr-}" $opts -o "$CR_DIR/$name.offline" \
		2>"$CR_DIR/$name.err" ||
		cr_fail "$name: croute route: $(cat "$CR_DIR/$name.err")"
	cr_lfts_norm "$CR_DIR/$name.offline" |
		cmp -s - "$CR_DIR/$name.norm" || {
		cr_lfts_norm "$CR_DIR/$name.offline" |
			diff "$CR_DIR/$name.norm" - | head -n 6
		cr_fail "$name: the LFTs do not follow the new settings" \
			"(croute route -e ${engine#cr-} $opts)"
	}
	cr_log "$name: $engine, as croute route -e ${engine#cr-} $opts: OK"
}

# new_log: the lines opensm logged since the last step began.
new_log() {
	tail -n +"$((MARK + 1))" "$CR_LOG"
}

# differs A B: the two settings give other tables (else the step above
# proved nothing).
differs() {
	cmp -s "$CR_DIR/$1.norm" "$CR_DIR/$2.norm" &&
		cr_fail "$1 and $2 give the same LFTs on this fabric"
	return 0
}

step default cr-minhop ""
new_log | grep -q "croute: ERR" && cr_fail "errors with the defaults"
step rgs cr-minhop "--remote-guid-sorting" "remote_guid_sorting TRUE"
differs default rgs
step shift cr-minhop "--remote-guid-sorting --port-shifting" \
	"remote_guid_sorting TRUE" "port_shifting TRUE"
differs rgs shift
step scatter cr-minhop "--remote-guid-sorting --scatter-ports 7" \
	"remote_guid_sorting TRUE" "scatter_ports 7"
differs rgs scatter
step updn cr-updn "--remote-guid-sorting --port-shifting" \
	"remote_guid_sorting TRUE" "port_shifting TRUE" \
	"croute_fail_engine cr-minhop:import"
new_log | grep -q "croute: ERR CR0[7A]: cr-minhop failed after" ||
	cr_fail "no failure of cr-minhop logged with croute_fail_engine"
step back cr-minhop ""
cmp -s "$CR_DIR/default.norm" "$CR_DIR/back.norm" ||
	cr_fail "back to the defaults, the LFTs differ from the first ones"
new_log | grep -q "croute: ERR" && cr_fail "errors back at the defaults"

# Invalid values: an error naming key and value; the default holds (the
# previous run had remote_guid_sorting TRUE: not kept either).
step rgs2 cr-minhop "--remote-guid-sorting" "remote_guid_sorting TRUE"
step bad-rgs cr-minhop "" "remote_guid_sorting maybe"
new_log | grep -q "croute: ERR CR40: $CR_CONF:[0-9]*: remote_guid_sorting"\
" 'maybe' is not valid" ||
	cr_fail "no error naming remote_guid_sorting and 'maybe'"
cmp -s "$CR_DIR/default.norm" "$CR_DIR/bad-rgs.norm" ||
	cr_fail "an invalid remote_guid_sorting changed the default tables"
step bad-fail cr-minhop "" "croute_fail_engine cr-nothing:import"
new_log | grep -q \
	"croute: ERR CR40: .*croute_fail_engine 'cr-nothing:import' is not valid" ||
	cr_fail "no error naming croute_fail_engine and its value"
step unknown cr-minhop "" "croute_no_such_key 42"
new_log | grep -q \
	"croute: ERR CR40: .*unknown key croute_no_such_key (value '42')" ||
	cr_fail "no error naming the unknown croute_ key and its value"
for s in bad-fail unknown; do
	cmp -s "$CR_DIR/default.norm" "$CR_DIR/$s.norm" ||
		cr_fail "$s: the default tables changed"
done
cr_log "invalid values: logged, defaults kept: OK"

cr_opensm_stop 10 || cr_fail "opensm exited with status $?"
cr_ibsim_stop
cr_log "all OK"
exit 0
