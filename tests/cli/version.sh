#!/bin/sh
# `croute --version` reports the version of the source it was built from:
# what scripts/git-version gives for this tree now (git describe, or a
# tarball's .tarball-version, or configure's version). In a git tree it
# names the commit checked out. debian/changelog's version is configure's.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute

pkgver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
	"$top_builddir/config.h")
[ -n "$pkgver" ] || { echo "FAIL: no PACKAGE_VERSION in config.h"; exit 1; }
want="croute $(sh "$top_srcdir/scripts/git-version" "$top_srcdir" "$pkgver")"
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
	head=$(git -C "$top" rev-parse --short HEAD)
	case $got in
	*"$head"*) ;;
	*) echo "FAIL: '$got' does not name commit $head"; exit 1 ;;
	esac
fi
echo "OK: $got"
