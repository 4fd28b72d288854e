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

# route_ranked ENGINE PATTERN NAME: cr-ENGINE (dfp, hyperx) routes
# $tmp/NAME.topo into NAME.lfts, NAME.sl and NAME.sl2vl, its output
# matching PATTERN, without falling back to up*-down*; croute check finds
# the tables clean and, on the path SLs, free of credit loops.
route_ranked() {
	eng=$1
	pat=$2
	t=$3
	expect 0 "$pat" "$eng routes $t" "$croute" route -v -t "$tmp/$t.topo" \
		-e "$eng" -o "$tmp/$t.lfts" --lash-sl "$tmp/$t.sl" \
		--lash-sl2vl "$tmp/$t.sl2vl"
	grep -q "up\*/down\*" "$tmp/out" && fail "$eng fell back on $t"
	expect 0 "result: +OK" "$eng's $t routing checks clean" \
		"$croute" check -t "$tmp/$t.topo" --lfts "$tmp/$t.lfts" \
		--sl "$tmp/$t.sl" --sl2vl "$tmp/$t.sl2vl"
	grep -Eq "credit loops: +0 " "$tmp/out" ||
		fail "$eng's $t routing has credit loops"
}

# path_sls NAME: the SLs the paths of $tmp/NAME.sl use, "0 1 " style.
path_sls() {
	awk '$3 ~ /^[0-9]+$/ { print $3 }' "$tmp/$1.sl" | sort -u | tr '\n' ' '
}
