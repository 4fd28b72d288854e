#!/bin/sh
# croute(8) lists every opensm.conf key croute accepts, with its default,
# and nothing else: the keys of the key table in the source (conf_keys[],
# found wherever it lives under src/) must be exactly the .TP entries of
# the OPENSM.CONF KEYS section of man/croute.8. Each entry gives
# "Default: VALUE", and conf/croute.conf has a line "KEY VALUE" (or
# "#KEY VALUE") with that same default.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
man=$top_srcdir/man/croute.8
conf=$top_srcdir/conf/croute.conf
tmp=$(mktemp -d "${TMPDIR:-/tmp}/croute-conf-keys.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

src=$(grep -rl --include='*.c' 'conf_keys\[\] *= *{' "$top_srcdir/src")
[ "$(echo "$src" | wc -w)" = 1 ] || {
	echo "FAIL: expected one source file with the conf_keys[] table: $src"
	exit 1
}
# The table's entries: {"key", setter, "expected"}.
awk '/conf_keys\[\] *= *\{/ { in_t = 1; next }
	in_t && /^};/ { exit }
	in_t {
		line = $0
		while (match(line, /\{"[a-z_0-9]+"/)) {
			print substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$src" | LC_ALL=C sort >"$tmp/code"
[ -s "$tmp/code" ] || { echo "FAIL: no keys found in $src"; exit 1; }

# The man page: ".TP" then ".B key", up to "Default:" then the value.
awk '/^\.SH / { in_s = ($0 ~ /^\.SH "?OPENSM\.CONF KEYS"?$/); next }
	!in_s { next }
	/^\.TP/ { want = 1; next }
	want && /^\.B / { key = $2; want = 0; def = 0; next }
	key != "" && /Default:$/ { def = 1; next }
	key != "" && def && /^\.BR? / {
		v = $2; sub(/\.$/, "", v); gsub(/\\/, "", v)
		print key, v; key = ""; def = 0
	}
	/^\.PP/ { key = "" }' "$man" | LC_ALL=C sort >"$tmp/man.defaults"
cut -d ' ' -f 1 "$tmp/man.defaults" >"$tmp/man"
[ -s "$tmp/man" ] || { echo "FAIL: no keys found in $man"; exit 1; }

if ! cmp -s "$tmp/code" "$tmp/man"; then
	echo "FAIL: the keys of $src and of croute(8) differ"
	echo "(< in the code only, > in the man page only, or without Default:)"
	diff "$tmp/code" "$tmp/man" | grep '^[<>]'
	fail=1
fi

while read -r key def; do
	# The test hook (CROUTE_TEST_HOOKS=1 only) is kept out of croute.conf.
	[ "$key" = croute_fail_engine ] && continue
	if ! grep -Eq "^#?$key[ 	]+$(printf '%s' "$def" |
		sed 's/[.[\*^$]/\\&/g')[ 	]*\$" "$conf"; then
		echo "FAIL: conf/croute.conf has no line '$key $def' (croute(8)'s default)"
		fail=1
	fi
done <"$tmp/man.defaults"
[ $fail = 0 ] && echo "$(wc -l <"$tmp/code") keys: code, croute(8) and croute.conf agree"
exit $fail
