#!/bin/sh
# croute doctor: each mistake that makes opensm quietly route with minhop
# gives one clear line and exit status 1; a sound setup gives 0.
. "$(dirname "$0")/lib.sh"

plugin=$top_builddir/.libs/libcroute.so
[ -f "$plugin" ] || {
	echo "SKIP: $plugin is not built"
	exit 77
}

# The doctor reads the opensm program's exports, so it needs the real
# one, of the version the plugin was built for.
version=$(strings "$plugin" | grep -m1 '^OpenSM [0-9]')
osm=$(command -v opensm || ls /usr/sbin/opensm 2>/dev/null) || {
	echo "SKIP: no opensm"
	exit 77
}
"$osm" --version 2>/dev/null | grep -qx "$version" || {
	echo "SKIP: $osm is not $version"
	exit 77
}
ln -s "$osm" "$tmp/opensm-same"
# An opensm of another version: the same program printing another one.
sed "s/$version/OpenSM 3.3.99/g" "$osm" >"$tmp/opensm-other"
chmod +x "$tmp/opensm-other"

printf '0x0002c90200000001\n' >"$tmp/roots"
good() {
	cat <<END
event_plugin_name croute
routing_engine cr-updn,updn
root_guid_file $tmp/roots
croute_balance global
END
}
good >"$tmp/good.conf"
doctor() {
	expect_exit "$1" doctor --plugin "$plugin" --opensm "$tmp/opensm-same" \
		-F "$tmp/$2"
}

doctor 0 good.conf
grep -q "^no problems found" "$tmp/out" || fail "a sound setup: $(cat "$tmp/out")"

# The plugin was built for another OpenSM: opensm would skip it.
expect_exit 1 doctor --plugin "$plugin" --opensm "$tmp/opensm-other" \
	-F "$tmp/good.conf"
grep -q "^problem: .*built for $version, but .* is OpenSM 3.3.99" "$tmp/out" ||
	fail "version mismatch not reported: $(cat "$tmp/out")"

# The plugin linked with BIND_NOW, as Debian's hardening links it: every
# symbol binds at load, among them those only the opensm program exports.
objs=$(ls "$top_builddir"/src/plugin/.libs/libcroute_la-*.o)
core=$top_builddir/src/core/.libs/libcrcore.a
# A sanitizer build's objects need their runtime, which the build links in
# (its DT_NEEDED libraries are where the doctor finds __asan_ symbols).
san=$(sed -n 's/^CR_LDFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)
relink() { # DIR [OBJECT]: the plugin, relinked with -z now into DIR
	mkdir -p "$tmp/$1"
	# shellcheck disable=SC2086
	${CC:-cc} -shared $san -Wl,-z,now \
		-Wl,--version-script="$top_srcdir/src/plugin/libcroute.map" \
		-o "$tmp/$1/libcroute.so" $objs ${2:-} -Wl,--whole-archive \
		"$core" -Wl,--no-whole-archive -lopensm -losmcomp -libumad \
		-lpthread -lm || fail "cannot relink the plugin into $1"
}
relink bindnow
readelf -d "$tmp/bindnow/libcroute.so" | grep -q "BIND_NOW" ||
	fail "the relinked plugin has no BIND_NOW"
expect_exit 0 doctor --plugin "$tmp/bindnow/libcroute.so" \
	--opensm "$tmp/opensm-same" -F "$tmp/good.conf"
grep -q "^ok: $tmp/bindnow/libcroute.so loads in " "$tmp/out" ||
	fail "a BIND_NOW plugin is judged unloadable: $(cat "$tmp/out")"
# Found as opensm finds it, through LD_LIBRARY_PATH.
LD_LIBRARY_PATH=$tmp/bindnow expect_exit 0 doctor \
	--opensm "$tmp/opensm-same" -F "$tmp/good.conf"
grep -q "^ok: $tmp/bindnow/libcroute.so loads in " "$tmp/out" ||
	fail "LD_LIBRARY_PATH's plugin not found: $(cat "$tmp/out")"

# A plugin built for another OpenSM, whose create calls a function this
# opensm does not have: the loader would refuse it.
printf 'void osm_sm_sweep_v2(void *sm);\nvoid cr_other(void *sm)\n{\n\tosm_sm_sweep_v2(sm);\n}\n' >"$tmp/other.c"
${CC:-cc} -fPIC -c -o "$tmp/other.o" "$tmp/other.c" ||
	fail "cannot compile $tmp/other.c"
relink other "$tmp/other.o"
expect_exit 1 doctor --plugin "$tmp/other/libcroute.so" \
	--opensm "$tmp/opensm-same" -F "$tmp/good.conf"
grep -q "^problem: opensm cannot load .*undefined symbol: osm_sm_sweep_v2: neither .* define it" \
	"$tmp/out" || fail "a missing symbol not reported: $(cat "$tmp/out")"

# A plugin opensm cannot find.
expect_exit 1 doctor --plugin "$tmp/libnone.so" --opensm "$tmp/opensm-same" \
	-F "$tmp/good.conf"
grep -q "^problem: opensm cannot load .*Failed to open event plugin" \
	"$tmp/out" || fail "a missing plugin not reported: $(cat "$tmp/out")"

# A root_guid_file that is not there.
good | sed "s|$tmp/roots|$tmp/no-roots|" >"$tmp/noroots.conf"
doctor 1 noroots.conf
grep -q "^problem: .*root_guid_file $tmp/no-roots: No such file" "$tmp/out" ||
	fail "missing root_guid_file not reported: $(cat "$tmp/out")"

# A root_guid_file that does not parse.
printf 'not-a-guid\n' >"$tmp/badroots"
good | sed "s|$tmp/roots|$tmp/badroots|" >"$tmp/badroots.conf"
doctor 1 badroots.conf
grep -q "^problem: $tmp/badroots:1:" "$tmp/out" ||
	fail "bad root_guid_file not reported: $(cat "$tmp/out")"

# A misspelled croute key: the plugin would ignore it.
good | sed "s/croute_balance/croute_balanse/" >"$tmp/typo.conf"
doctor 1 typo.conf
grep -q "^problem: .*typo.conf:4: unknown key croute_balanse" "$tmp/out" ||
	fail "misspelled key not reported: $(cat "$tmp/out")"

# No deadlock-free engine after croute's: a failure ends in minhop.
for list in cr-updn cr-updn,minhop updn,cr-auto; do
	good | sed "s/cr-updn,updn/$list/" >"$tmp/list.conf"
	doctor 1 list.conf
	grep -q "^problem: .*routing_engine $list has no deadlock-free" \
		"$tmp/out" || fail "$list: no fall-back not reported: $(cat "$tmp/out")"
done
for list in cr-auto,minhop,dfsssp cr-updn,no_fallback; do
	good | sed "s/cr-updn,updn/$list/" >"$tmp/list.conf"
	doctor 0 list.conf
done

# A layered engine without qos TRUE (OpenSM's default is FALSE): the
# plugin refuses it, so the fabric would be routed by the next engine.
for engine in cr-lash cr-dfp cr-hyperx; do
	for qos in "" "qos FALSE"; do
		{
			good | sed "s/cr-updn,updn/cr-updn,$engine,updn/"
			echo "$qos"
		} >"$tmp/qos.conf"
		doctor 1 qos.conf
		grep -q "^problem: .*routing_engine lists $engine, which needs qos TRUE, but qos is" \
			"$tmp/out" ||
			fail "$engine, '$qos': no qos problem: $(cat "$tmp/out")"
	done
done
good | sed "s/cr-updn,updn/cr-lash,updn/" >"$tmp/qos.conf"
echo "qos TRUE" >>"$tmp/qos.conf"
doctor 0 qos.conf

# The plugin not named, and an engine croute does not have.
good | sed "s/^event_plugin_name.*/event_plugin_name other/" >"$tmp/np.conf"
doctor 1 np.conf
grep -q "^problem: .*event_plugin_name does not name croute" "$tmp/out" ||
	fail "plugin not named: $(cat "$tmp/out")"
good | sed "s/cr-updn,updn/cr-dfsssp,updn/" >"$tmp/list.conf"
doctor 1 list.conf
grep -q "^problem: .*no croute engine is named cr-dfsssp" "$tmp/out" ||
	fail "unknown engine: $(cat "$tmp/out")"

# Usage.
expect_exit 2 doctor --bogus
expect_exit 2 doctor -F
doctor 1 missing.conf
exit $failed
