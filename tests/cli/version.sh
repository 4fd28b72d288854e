#!/bin/sh
# `croute --version` reports the version of the source it was built from:
# what scripts/git-version gave at build time (git describe, or a
# tarball's .tarball-version, or configure's version), recorded in the
# build's cr_version.h. In a git tree it names a commit of this tree's
# history: HEAD, or an older one when commits landed since the build (as
# while make check runs). debian/changelog's version is configure's.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute

pkgver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
	"$top_builddir/config.h")
[ -n "$pkgver" ] || { echo "FAIL: no PACKAGE_VERSION in config.h"; exit 1; }
rec=$(sed -n 's/^#define CR_VERSION "\(.*\)"$/\1/p' \
	"$top_builddir/cr_version.h")
[ -n "$rec" ] || { echo "FAIL: no CR_VERSION in cr_version.h"; exit 1; }
want="croute $rec"
got=$("$croute" --version) || { echo "FAIL: croute --version failed"; exit 1; }
[ "$got" = "$want" ] || {
	echo "FAIL: croute --version printed '$got', expected '$want'"
	exit 1
}
[ "$("$croute" -V)" = "$want" ] || { echo "FAIL: croute -V differs"; exit 1; }
# The Debian packages (make deb) carry configure's version.
deb=$(sed -n '1s/^croute (\([^)]*\)).*/\1/p' "$top_srcdir/debian/changelog")
[ "$deb" = "$pkgver" ] || {
	echo "FAIL: debian/changelog is at '$deb', configure.ac at '$pkgver'"
	exit 1
}
top=$(cd "$top_srcdir" && pwd -P)
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
	# "X.Y.Z[-N]-gHASH[-dirty]", or a tag's "X.Y.Z[-dirty]".
	v=${rec%-dirty}
	case $v in
	*-g*) commit=${v##*-g} ;;
	*) commit=v$v ;;
	esac
	git -C "$top" merge-base --is-ancestor "$commit" HEAD 2>/dev/null || {
		echo "FAIL: '$got' names no commit of HEAD's history"
		exit 1
	}
else
	now=$(sh "$top_srcdir/scripts/git-version" "$top_srcdir" "$pkgver")
	[ "$rec" = "$now" ] || {
		echo "FAIL: built as '$rec', the source says '$now'"
		exit 1
	}
fi
echo "OK: $got"
