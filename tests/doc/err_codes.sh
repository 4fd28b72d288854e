#!/bin/sh
# Every error the plugin writes to OpenSM's log carries an "ERR CRnn" code
# (hexadecimal), one per place in the code, listed in croute(8)'s LOG
# MESSAGES section: the codes are the string literals "CRnn" of
# src/plugin/*.c (pl_err's first argument, the steps' pl_core_code() and
# the sink's default). Checks that no error escapes a code (no bare
# cr_err() in the plugin, every pl_err() names a literal code), that no
# code is used twice, and that the man page lists exactly these codes.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
man=$top_srcdir/man/croute.8
tmp=$(mktemp -d "${TMPDIR:-/tmp}/croute-err-codes.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

cd "$top_srcdir/src/plugin" || exit 1
if grep -n '\bcr_err *(' ./*.c; then
	echo "FAIL: the plugin logs errors without a code (use pl_err)"
	fail=1
fi
# pl_err( followed (maybe after a line break) by a literal code.
perl -0777 -ne '
	while (/\bpl_err\((\s*)("CR[0-9A-F]{2}")?/g) {
		print "$ARGV\n" unless defined $2;
	}' ./*.c >"$tmp/nocode"
if [ -s "$tmp/nocode" ]; then
	echo "FAIL: pl_err() without a literal \"CRnn\" code in:"
	sort -u "$tmp/nocode"
	fail=1
fi
grep -o '"CR[0-9A-Fa-f]*"' ./*.c | sed 's/.*"\(CR[^"]*\)"/\1/' |
	LC_ALL=C sort >"$tmp/all"
[ -s "$tmp/all" ] || { echo "FAIL: no error codes in src/plugin"; exit 1; }
if grep -v -x 'CR[0-9A-F][0-9A-F]' "$tmp/all"; then
	echo "FAIL: codes not of the form CRnn (two upper-case hex digits)"
	fail=1
fi
dups=$(uniq -d "$tmp/all")
if [ -n "$dups" ]; then
	echo "FAIL: codes used at more than one place:" $dups
	fail=1
fi
uniq "$tmp/all" >"$tmp/code"

# croute(8): '.B "ERR CRnn"' entries of the LOG MESSAGES section.
awk '/^\.SH / { in_s = ($0 ~ /^\.SH "?LOG MESSAGES"?$/); next }
	in_s && /^\.B "?ERR CR/ { c = $3; gsub(/"/, "", c); print c }' \
	"$man" | LC_ALL=C sort >"$tmp/man"
if ! cmp -s "$tmp/code" "$tmp/man"; then
	echo "FAIL: croute(8) LOG MESSAGES and the plugin's codes differ" \
		"(< code only, > man page only):"
	diff "$tmp/code" "$tmp/man" | grep '^[<>]'
	fail=1
fi
[ $fail = 0 ] && echo "$(wc -l <"$tmp/code") error codes, unique and documented: OK"
exit $fail
