# The setup every test of the command shares, sourced first:
#   $croute   the command under test (top_builddir, else the source tree)
#   $tmp      a scratch folder, removed on exit
#   fail MSG  reports a failure and lets the test go on, so that one run
#             shows every broken check; the test ends with `exit $failed`
#   expect_exit, expect
#             run croute (or any command) and check its exit status and
#             output
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

# expect STATUS PATTERN DESCRIPTION COMMAND...: exits with STATUS and its
# output (stdout and stderr) matches the extended regular expression.
expect() {
	want=$1
	pat=$2
	what=$3
	shift 3
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" != "$want" ]; then
		fail "$what: exit $got, expected $want: $*"
		sed 's/^/  | /' "$tmp/out" | head -n 8
	elif [ -n "$pat" ] && ! grep -E -q -- "$pat" "$tmp/out"; then
		fail "$what: output lacks /$pat/: $*"
		sed 's/^/  | /' "$tmp/out" | head -n 8
	fi
}
