#!/bin/sh
# One name per concept: gen --hosts-per-leaf (--hosts: other commands'
# --hosts is a host order file), hosts --engine (as every command names
# the engine), route --sl and --sl2vl (every layered engine, the names
# check reads them by). The old spellings stay as aliases: each gives the
# same output as its option, and --help and croute(1) say "alias of" it.
# And every error, usage or file, has one format: "croute: error:
# SUBJECT: message", the subject the file (and line) or the command.
. "$(dirname "$0")/lib.sh"
man1=$top_srcdir/man/croute.1

# same NAME ARGS1 -- ARGS2: the two runs exit 0 with the same stdout.
same() {
	name=$1
	shift
	a=
	while [ "$1" != -- ]; do
		a="$a $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$croute" $a >"$tmp/$name.1" 2>"$tmp/$name.1.err" ||
		fail "$name: croute$a failed: $(cat "$tmp/$name.1.err")"
	"$croute" "$@" >"$tmp/$name.2" 2>"$tmp/$name.2.err" ||
		fail "$name: croute $* failed: $(cat "$tmp/$name.2.err")"
	cmp -s "$tmp/$name.1" "$tmp/$name.2" ||
		fail "$name: croute$a and croute $* differ"
	[ -s "$tmp/$name.1" ] || fail "$name: no output"
}

# alias CMD ALIAS OPTION: --help and croute(1) call ALIAS an alias of OPTION
alias_doc() {
	"$croute" "$1" --help | grep -q -- "^ *--$2 [A-Z]* *alias of --$3\$" ||
		fail "$1 --help: --$2 is not 'alias of --$3'"
	# ".BI \-\-NAME " in the source, then the item's text
	tag=$(printf '.BI %s "' "$(echo "--$2" | sed 's/-/\\-/g')")
	opt=$(echo "--$3" | sed 's/-/\\-/g')
	n=$(grep -n -F -- "$tag" "$man1" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] && sed -n "$n,$((n + 12))p" "$man1" >"$tmp/item" &&
		grep -q "^Alias of" "$tmp/item" &&
		grep -q -F -- "$opt" "$tmp/item" ||
		fail "croute(1): --$2 is not documented as an alias of --$3"
}

same gen gen fat-tree 8 --hosts-per-leaf 2 -- gen fat-tree 8 --hosts 2
alias_doc gen hosts hosts-per-leaf
"$croute" gen ktree 4 3 -o "$tmp/k.topo" || fail "gen ktree"
same hosts hosts --topo "$tmp/k.topo" --engine updn -- \
	hosts --topo "$tmp/k.topo" --order updn
alias_doc hosts order engine
"$croute" route -q --topo "$tmp/k.topo" -e lash --sl "$tmp/a.sl" \
	--sl2vl "$tmp/a.sl2vl" -o "$tmp/a.lfts" || fail "route --sl"
"$croute" route -q --topo "$tmp/k.topo" -e lash --lash-sl "$tmp/b.sl" \
	--lash-sl2vl "$tmp/b.sl2vl" -o "$tmp/b.lfts" || fail "route --lash-sl"
[ -s "$tmp/a.sl" ] && [ -s "$tmp/a.sl2vl" ] || fail "route --sl: no files"
cmp -s "$tmp/a.sl" "$tmp/b.sl" && cmp -s "$tmp/a.sl2vl" "$tmp/b.sl2vl" ||
	fail "route --sl and --lash-sl write different files"
alias_doc route lash-sl sl
alias_doc route lash-sl2vl sl2vl
# --sl reads back what --sl writes.
expect_exit 0 check --topo "$tmp/k.topo" --lfts "$tmp/a.lfts" \
	--sl "$tmp/a.sl" --sl2vl "$tmp/a.sl2vl"

# One format of errors, usage or file; usage adds where to find help.
printf 'no-such-host\n' >"$tmp/bad.hosts"
# err WHAT PATTERN ARGS...: exit 2, stderr's first line matches PATTERN.
err() {
	what=$1
	pat=$2
	shift 2
	expect_exit 2 "$@"
	head -n 1 "$tmp/err" | grep -E -q -- "^croute: error: $pat" ||
		fail "$what: not 'croute: error: $pat': $(head -n 1 "$tmp/err")"
}
err "usage, an option's number" "gen: --hosts-per-leaf: 'x' is not a number" \
	gen fat-tree 4 --hosts x
grep -q "^Try 'croute help gen'\.\$" "$tmp/err" || fail "usage: no help hint"
err "usage, unknown option" "route: unknown option '--bogus'" \
	route --bogus
err "usage, not layered" "route: --sl, --sl2vl and --switch-sl need a layered engine" \
	route --topo "$tmp/k.topo" -e minhop --sl "$tmp/x.sl"
err "usage, unknown command" "unknown command 'no-such-command'" \
	no-such-command
err "file cannot be read" "$tmp/nothere: " \
	route --topo "$tmp/nothere" -e updn
err "malformed line" "$tmp/bad.hosts:1: " \
	estimate --topo "$tmp/k.topo" -e updn --hosts "$tmp/bad.hosts"
exit $failed
