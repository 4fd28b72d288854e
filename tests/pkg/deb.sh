#!/bin/sh
# The Debian packages as an administrator gets them: `make deb` left
# opensm-croute_*.deb and croute_*.deb in the build directory; this test
# installs them on this machine with `apt-get install ./*.deb` (root only),
# checks what went where, then runs the distribution's opensm with
# "event_plugin_name croute" and -R cr-updn on an ibsim fabric with no
# LD_LIBRARY_PATH: the dynamic loader must find the installed plugin by
# itself. The installed croute(1) then checks the tables opensm wrote.
# Packages this test installed are purged at the end. Run by
# `make check-deb` (scripts/check runs that after make check).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/ibsim/lib.sh"

[ "$(id -u)" = 0 ] || cr_skip "installing packages needs root"
cr_need apt-get dpkg-query opensm ibsim
cd "$top_builddir" || cr_fail "no build directory $top_builddir"
ls ./opensm-croute_*.deb ./croute_*.deb >/dev/null 2>&1 ||
	cr_fail "no opensm-croute_*.deb and croute_*.deb in $PWD (make deb)"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q "install ok installed"
}

# Purges what this test installed, keeps what the machine had before.
purge=
for p in opensm-croute croute; do
	installed "$p" || purge="$purge $p"
done
pkg_cleanup() {
	[ -n "$purge" ] || return 0
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout=300 purge -y -qq $purge \
		>"${TMPDIR:-/tmp}/croute-deb-purge.log" 2>&1 ||
		echo "could not purge$purge: see ${TMPDIR:-/tmp}/croute-deb-purge.log"
}
trap 'pkg_cleanup' EXIT

cr_log "apt-get install ./*.deb: $(ls ./*.deb | tr '\n' ' ')"
# --reinstall: the same version may be installed already, from an older
# build; this build's files must be the ones tested.
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 \
	install -y -q --reinstall --no-install-recommends ./*.deb \
	>apt.out 2>&1 || {
	tail -n 30 apt.out
	cr_fail "apt-get install ./*.deb failed"
}
installed opensm-croute && installed croute ||
	cr_fail "opensm-croute and croute are not both installed"

# --- What went where.
plugin=$(dpkg -L opensm-croute | grep '/libcroute\.so$')
case $plugin in
/usr/lib/*-*/libcroute.so) ;;
*) cr_fail "libcroute.so is not in the multiarch library directory: '$plugin'" ;;
esac
for f in /usr/share/man/man8/croute.8.gz /usr/sbin/croute-slurm \
	/usr/share/man/man8/croute-slurm.8.gz \
	/usr/share/doc/opensm-croute/examples/croute.conf; do
	dpkg -L opensm-croute | grep -qx "$f" || cr_fail "opensm-croute lacks $f"
done
for f in /usr/bin/croute /usr/share/man/man1/croute.1.gz; do
	dpkg -L croute | grep -qx "$f" || cr_fail "croute lacks $f"
done
osm=$(dpkg-query -W -f='${Version}' opensm)
dep=$(dpkg-query -W -f='${Depends}' opensm-croute)
echo "$dep" | grep -qF "opensm (= $osm)" ||
	cr_fail "opensm-croute does not depend on opensm (= $osm): $dep"
version=$(/usr/bin/croute --version) || cr_fail "croute --version failed"
case $version in
"croute "?*) ;;
*) cr_fail "croute --version printed '$version'" ;;
esac
cr_log "installed: $plugin, /usr/bin/croute ($version), Depends: $dep"

# --- The installed doctor on the installed plugin (linked with BIND_NOW
# by the package's hardening), found as opensm finds it.
readelf -d "$plugin" | grep -q BIND_NOW ||
	cr_log "note: $plugin is not linked with BIND_NOW"
doctor_conf=${TMPDIR:-/tmp}/croute-deb-doctor.conf
printf 'event_plugin_name croute\nrouting_engine cr-updn,updn\n' >"$doctor_conf"
env -u LD_LIBRARY_PATH /usr/bin/croute doctor -F "$doctor_conf" \
	>doctor.out 2>&1 || {
	cat doctor.out
	rm -f "$doctor_conf"
	cr_fail "croute doctor finds problems with the installed packages"
}
rm -f "$doctor_conf"
grep -q "^ok: .*libcroute\.so loads in opensm" doctor.out || {
	cat doctor.out
	cr_fail "croute doctor did not judge the installed plugin loadable"
}

# --- opensm with the installed plugin, no LD_LIBRARY_PATH.
CROUTE=/usr/bin/croute
CR_PLUGIN_DIR=$(dirname "$plugin")
CR_LIBPATH=
cr_init deb
trap 'rc=$?; pkg_cleanup; (exit $rc); cr_cleanup' EXIT

topo=$CR_DIR/fabric.topo
cr_gen "$topo" two-level --leaves 4 --hosts 3 --uplinks 4 --spines 2
cr_ibsim_start "$topo"
cr_conf
# LD_DEBUG=files: the loader names each object it initialises, so the
# plugin opensm loaded is the installed file, not another libcroute.so.
LD_DEBUG=files
export LD_DEBUG
cr_opensm_once -R cr-updn
unset LD_DEBUG
out=$CR_DIR/opensm-$CR_RUN.out
# (Through ld.so.cache, maybe as /lib/..., the same file on merged /usr.)
loaded=$(sed -n 's/.*calling init: \(.*\/libcroute\.so\)$/\1/p' "$out" |
	head -n 1)
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$plugin")" ] || {
	grep libcroute "$out" | head -n 5
	cr_fail "opensm did not load $plugin (but '$loaded')"
}
cr_log "opensm loaded $loaded"
cr_expect_log "croute: croute ${version#croute } for OpenSM [0-9.]+ loaded" \
	"the installed plugin did not log its version"
cr_expect_log "routing engines: cr-minhop cr-updn cr-ftree cr-lash"
cr_expect_log "cr-updn tables configured on all switches" \
	"cr-updn did not route"
cr_reject_log "croute: ERR"
cr_check_lfts "$topo" "$CR_DIR/check.out" \
	"croute check finds problems in cr-updn's tables"
grep -Eq "^credit loops: +0 " "$CR_DIR/check.out" || {
	cat "$CR_DIR/check.out"
	cr_fail "cr-updn's tables have credit loops"
}
cr_ibsim_stop
cr_log "all OK"
exit 0
