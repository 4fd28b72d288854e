#!/bin/sh
# The adapter itself, through a real opensm on an ibsim fabric: every
# symbol libcroute.so leaves undefined is one opensm provides; the engines
# register; croute's dump files appear, follow the latest run and disappear
# when it has nothing for them; an unwritable dump directory is an error in
# the log but routing goes on; croute's keys and OpenSM's GUID files reach
# the engines, and a bad GUID file fails the engine so OpenSM falls back.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

cr_need nm ldd
cr_init plugin

# --- Symbols: the plugin's undefined symbols resolve against opensm, its
# libraries and the plugin's own (some, like osm_switch_set_hops, only
# opensm exports, so the link cannot check them). dlopen(RTLD_LAZY) defers
# functions: a symbol nobody defines would only show, as a crash, when its
# code path runs. Check them all now.
opensm_bin=$(command -v opensm)
plugin=$CR_PLUGIN_DIR/libcroute.so
{
	nm -D --defined-only "$opensm_bin"
	{
		ldd "$opensm_bin"
		LD_LIBRARY_PATH=$CR_LIBPATH ldd "$plugin"
	} | awk '/=>/ && $3 ~ /^\// { print $3 }' | LC_ALL=C sort -u |
		while read -r lib; do
			nm -D --defined-only "$lib"
		done
} 2>/dev/null | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
	LC_ALL=C sort -u >"$CR_DIR/provided"
nm -D --undefined-only "$plugin" |
	awk '$1 == "U" { sub(/@.*/, "", $2); print $2 }' |
	LC_ALL=C sort -u >"$CR_DIR/needed"
missing=$(LC_ALL=C comm -23 "$CR_DIR/needed" "$CR_DIR/provided")
[ -z "$missing" ] ||
	cr_fail "libcroute.so needs symbols opensm does not provide: $missing"
exported=$(nm -D --defined-only "$plugin" |
	awk '$2 != "A" { print $3 }' | sed 's/@.*//')
[ "$exported" = osm_event_plugin ] ||
	cr_fail "libcroute.so exports more than osm_event_plugin: $exported"
cr_log "symbols: OK"

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 4 --hosts 3 --uplinks 4 --spines 2
cr_ibsim_start "$topo"
roots=$CR_DUMP/croute-updn-roots.dump

# --- Registration and croute's own dump file.
cr_conf
cr_opensm_once -R cr-updn
engines="cr-minhop cr-updn cr-ftree cr-lash cr-dfp cr-hyperx cr-auto"
cr_expect_log "routing engines: $engines" "not all seven engines registered"
cr_expect_log "cr-updn tables configured on all switches"
[ -f "$roots" ] || cr_fail "no $roots after cr-updn"
n=$(grep -c '^0x' "$roots")
[ "$n" -ge 1 ] || cr_fail "$roots lists no root"
# (A pipeline's loop runs in a subshell: report, then fail out here.)
grep -v '^#' "$roots" | while read -r guid lid desc; do
	if ! grep -q "switchguid=$(printf '0x%x' "$guid")(" "$topo"; then
		echo "root $guid of $roots is not a switch of the fabric"
		exit 1
	fi
	case $desc in
	'"spine-'*) ;;
	*) echo "root $guid $lid $desc is not a spine"; exit 1 ;;
	esac
done || cr_fail "bad $roots"
ls "$CR_DUMP"/*.tmp* 2>/dev/null && cr_fail "temporary files left behind"
cr_log "roots dump: OK ($n roots)"

# A run with nothing to say about roots removes the file.
cr_opensm_once -R cr-minhop
[ -f "$roots" ] && cr_fail "stale $roots after cr-minhop"
cr_log "stale dump removed: OK"

# --- An unwritable dump directory: an error, but the routing stands.
: >"$CR_DIR/not-a-dir"
save=$CR_DUMP
CR_DUMP=$CR_DIR/not-a-dir/dump
CR_RUN=$((CR_RUN + 1))
CR_LOG=$CR_DIR/opensm-$CR_RUN.log
cr_osm_env timeout -k "$CR_GRACE" "$CR_TIMEOUT" opensm -o -F "$CR_CONF" \
	-f "$CR_LOG" -D 0x43 --dump_files_dir "$CR_DUMP" -R cr-updn \
	>"$CR_DIR/opensm-$CR_RUN.out" 2>&1 ||
	cr_fail "opensm failed with an unwritable dump directory"
CR_DUMP=$save
cr_expect_log "croute: ERR CR46: .*/croute-updn-roots.dump: cannot" \
	"no error about the unwritable dump directory"
cr_expect_log "cr-updn tables configured on all switches"
cr_log "unwritable dump directory: OK"

# --- OpenSM's root_guid_file reaches cr-updn.
spine=$(awk -F'[=(]' '/^switchguid=/ { g = $2 } /^Switch/ && /"spine-1"/ {
	print g; exit }' "$topo")
[ -n "$spine" ] || cr_fail "no spine-1 in $topo"
printf '# the one root\n%s\n' "$spine" >"$CR_DIR/roots"
cr_conf "root_guid_file $CR_DIR/roots"
cr_opensm_once -R cr-updn
cr_expect_log "cr-updn tables configured on all switches"
got=$(grep '^0x' "$roots" | awk '{ print $1 }')
[ "$(printf '0x%016x' "$got")" = "$(printf '0x%016x' "$spine")" ] ||
	cr_fail "root_guid_file names $spine, cr-updn used: $got"
cr_log "root_guid_file: OK"

# --- A malformed GUID file fails the engine; OpenSM falls back.
printf '%s\nnot-a-guid\n' "$spine" >"$CR_DIR/roots"
cr_opensm_once -R cr-updn,minhop
cr_expect_log "croute: ERR CR40: $CR_DIR/roots:2: 'not-a-guid' is not a GUID" \
	"no error naming the bad line of root_guid_file"
cr_expect_log " minhop tables configured on all switches"
cr_reject_log "cr-updn tables configured"
[ -f "$roots" ] && cr_fail "stale $roots after OpenSM's minhop took over"
cr_log "bad root_guid_file: OK"

# --- croute's keys: malformed values and unknown keys are named.
cr_conf "remote_guid_sorting yes" "croute_no_such_key 3" \
	"croute_fail_engine cr-nothing" "connect_roots TRUE"
cr_opensm_once -R cr-minhop
cr_expect_log "croute: ERR CR40: .*remote_guid_sorting 'yes' is not valid"
cr_expect_log "croute: ERR CR40: .*unknown key croute_no_such_key \\(value '3'\\)"
cr_expect_log "croute: ERR CR40: .*croute_fail_engine 'cr-nothing' is not valid"
cr_expect_log "connect_roots is set, but croute's engines do not implement it"
cr_expect_log "cr-minhop tables configured on all switches"
cr_conf "remote_guid_sorting TRUE"
cr_opensm_once -R cr-minhop
cr_reject_log "croute: ERR"
cr_expect_log "cr-minhop tables configured on all switches"
cr_log "configuration keys: OK"

cr_ibsim_stop
cr_log "all OK"
exit 0
