# The setup every test of the command shares, sourced first:
#   $croute   the command under test (top_builddir, else the source tree)
#   $tmp      a scratch folder, removed on exit
#   fail MSG  reports a failure and lets the test go on, so that one run
#             shows every broken check; the test ends with `exit $failed`
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
[ -x "$croute" ] || {
	echo "FAIL: $croute is not built"
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/croute-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*"
	failed=1
}

# expect_exit STATUS ARGS...: croute ARGS exits with STATUS; its output is
# left in $tmp/out and $tmp/err.
expect_exit() {
	want=$1
	shift
	"$croute" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || {
		cat "$tmp/err"
		fail "croute $* exited $rc, not $want"
	}
}
