#!/bin/sh
# The manual pages agree with the program:
# - every option of every command's --help is in croute(1): a command's
#   own option in its section, an option several commands share as an
#   item (.TP) somewhere; and every option croute(1) gives an item is one
#   its section's command takes, or one whose item says which commands
#   take it ("(check, estimate)", "(--live)");
# - each --help lists the command's own options before the shared ones;
# - croute(8) counts the engines croute has;
# - the two pages' .TH lines give the same version (configure's) and date;
# - every "croute(8), SECTION" or "croute(1) SECTION" that README, the
#   pages and conf/croute.conf cite exists.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
croute=$top_builddir/src/cli/croute
man1=$top_srcdir/man/croute.1
man8=$top_srcdir/man/croute.8
tmp=$(mktemp -d "${TMPDIR:-/tmp}/croute-man-help.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}

commands=$("$croute" --help | awk '/^Commands:/ { on = 1; next }
	on && NF == 0 { exit } on { print $1 }')
[ -n "$commands" ] || fail "croute --help lists no command"

# "COMMAND --option", every long option of each command's --help
for c in $commands; do
	"$croute" "$c" --help |
		sed -n "s/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-zA-Z][a-zA-Z0-9-]*\).*/$c \2/p"
done | sort -u >"$tmp/help"
awk '{ print $2 }' "$tmp/help" | sort | uniq -d >"$tmp/shared"

# "SECTION --option" for each option in an item's tag; SECTION is the
# command of its .SS, "common" in DESCRIPTION, "-" elsewhere. A tag
# followed by a line ".RB (" names the commands that take it: "noted".
awk '
/^\.SS croute / { sec = $3; next }
/^\.SH / { sec = ($2 == "DESCRIPTION") ? "common" : "-"; next }
/^\.TP/ { tp = 1; next }
tp == 2 { tp = 0; if ($0 ~ /^\.RB \(/) for (i = 1; i <= n; i++) print "noted", opt[i] }
tp == 1 {
	tp = 2; n = 0; line = $0; gsub(/\\-/, "-", line)
	while (match(line, /--[a-zA-Z][a-zA-Z0-9-]*/)) {
		opt[++n] = substr(line, RSTART, RLENGTH)
		print sec, opt[n]
		line = substr(line, RSTART + RLENGTH)
	}
}' "$man1" | sort -u >"$tmp/items"
# each command's section, options mentioned anywhere in it
for c in $commands; do
	awk -v c="$c" '/^\.SS croute / { on = ($3 == c) }
		/^\.SH / { on = 0 } on' "$man1" | sed 's/\\-/-/g' >"$tmp/sec.$c"
done

while read -r c o; do
	if grep -qxF -- "$o" "$tmp/shared"; then
		grep -q -- " $o\$" "$tmp/items" ||
			fail "croute $c --help has $o, which croute(1) has no item for"
	else
		grep -q -- "$o\([^a-zA-Z0-9-]\|\$\)" "$tmp/sec.$c" ||
			fail "croute $c --help has $o, which croute(1)'s $c section lacks"
	fi
done <"$tmp/help"
while read -r s o; do
	case $s in noted) continue ;; esac
	grep -qxF -- "$s $o" "$tmp/help" && continue
	case $s in
	common | -) grep -q -- " $o\$" "$tmp/help" && continue ;;
	*) grep -qxF -- "noted $o" "$tmp/items" &&
		grep -q -- " $o\$" "$tmp/help" && continue ;;
	esac
	fail "croute(1) has an item for $o ($s), which no such --help has"
done <"$tmp/items"

# Each --help lists the command's own options first, then the shared
# ones (the inputs, the engines' tuning).
for c in $commands; do
	"$croute" "$c" --help | sed -n "s/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-zA-Z][a-zA-Z0-9-]*\).*/\2/p" |
		awk -v c="$c" 'NR == FNR { shared[$1] = 1; next }
		$1 == "--topo" || $1 == "--engine" { if (!first) first = FNR }
		!($1 in shared) && first && $1 !~ /^--(verbose|quiet|help)$/ {
			print "FAIL: croute " c " --help lists " $1 \
				" after the shared options"
		}' "$tmp/shared" -
done | grep . && failed=1

# croute(8): "registers N unicast routing engines"
known=$("$croute" route -e none 2>&1 | sed -n 's/.*(known: \(.*\)).*/\1/p' |
	tr ',' '\n' | grep -c .)
said=$(sed -n 's/.*registers \([a-z]*\) unicast routing engines.*/\1/p' "$man8")
case $said in
one) n=1 ;; two) n=2 ;; three) n=3 ;; four) n=4 ;; five) n=5 ;;
six) n=6 ;; seven) n=7 ;; *) n=? ;;
esac
[ "$n" = "$known" ] ||
	fail "croute(8) says '$said' unicast routing engines; croute has $known"

# .TH: same version (configure's) and date
th() { sed -n 's/^\.TH [A-Z]* [18] "\([^"]*\)" "\([^"]*\)".*/\1|\2/p' "$1"; }
pkgver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
	"$top_builddir/config.h")
[ "$(th "$man1")" = "$(th "$man8")" ] ||
	fail ".TH lines disagree: croute.1 '$(th "$man1")', croute.8 '$(th "$man8")'"
case $(th "$man1") in
*"|croute $pkgver") ;;
*) fail "croute.1's .TH does not give configure's version, $pkgver" ;;
esac

# Sections cited by name
for page in 1 8; do
	sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$top_srcdir/man/croute.$page" |
		sed 's/\\-/-/g' >"$tmp/sections.$page"
done
for f in "$top_srcdir/README" "$man1" "$man8" "$top_srcdir/conf/croute.conf"; do
	perl -0777 -ne 's/\\-/-/g; s/\\f[BIRP]//g; s/\n(?:#\s*|\.[A-Z]+\s+)?/ /g;
		while (/croute\s*\\?\(([18])\\?\),? +([A-Z][A-Z-]+(?: [A-Z][A-Z.-]+)*)/g) {
			print "$1 $2\n" }' "$f" | sort -u |
		while read -r page name; do
			name=${name%.}
			ok=0
			while read -r sec; do
				case "$name " in "$sec "*) ok=1 ;; esac
			done <"$tmp/sections.$page"
			[ $ok = 1 ] ||
				fail "$(basename "$f") cites croute($page), $name: no such section"
		done
done
exit $failed
