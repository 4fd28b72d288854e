#!/bin/sh
# Long work shows progress on a terminal only: under script(1), whose
# pty makes stderr a terminal, estimate, estimate --bound, bound and
# compare draw a line of steps done and time (bound: a pattern's phases
# too, with the time left); piped, in a file, or with -q, stderr has no
# such line and no carriage return.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null 2>&1 || {
	echo "SKIP: no script(1) (util-linux) to give the command a terminal"
	exit 77
}
"$croute" gen ktree 2 2 -o "$tmp/k.topo" || fail "gen"
k=$tmp/k.topo

# on_tty NAME CMD...: croute CMD with a terminal; what it showed in $tmp/NAME
on_tty() {
	name=$1
	shift
	script -qec "'$croute' $*" /dev/null >"$tmp/$name" 2>&1 ||
		fail "croute $* failed on a terminal: $(cat "$tmp/$name")"
}

on_tty est estimate --topo "$k" -e minhop --pattern shift,bisect
grep -q "estimate: patterns: 0 of 2 done, 0 s" "$tmp/est" ||
	fail "estimate: no progress on a terminal: $(cat "$tmp/est")"
on_tty bound bound --topo "$k" --pattern shift,bisect
grep -q "bound: patterns: 0 of 2 done" "$tmp/bound" ||
	fail "bound: no progress on a terminal: $(cat "$tmp/bound")"
# One pattern may take hours: its phases count, with the time left.
grep -q "bound: patterns: 0 of 2 done (next: 1 of 3 phases), [0-9]* s, about" \
	"$tmp/bound" || fail "bound: no phases on the line: $(cat "$tmp/bound")"
# estimate --bound: the bounds after the scores may take longer still.
on_tty estb estimate --topo "$k" -e minhop --pattern shift,bisect --bound
grep -q "bound: patterns: 0 of 2 done (next: 1 of 3 phases), [0-9]* s, about" \
	"$tmp/estb" ||
	fail "estimate --bound: no progress on a terminal: $(cat "$tmp/estb")"
on_tty cmp compare --topo "$k" --engines minhop,updn
grep -q "compare: engines: 0 of 2 done" "$tmp/cmp" ||
	fail "compare: no progress on a terminal: $(cat "$tmp/cmp")"
on_tty quiet estimate -q --topo "$k" -e minhop --pattern shift,bisect
grep -q "of 2 done" "$tmp/quiet" && fail "estimate -q shows progress"

cr=$(printf '\r')
expect_exit 0 estimate --topo "$k" -e minhop --pattern shift,bisect
grep -q "of 2 done" "$tmp/err" && fail "estimate: progress in a pipe"
expect_exit 0 compare --topo "$k" --engines minhop,updn
grep -q "$cr" "$tmp/err" "$tmp/out" && fail "compare: carriage return in a pipe"
expect_exit 0 bound --topo "$k" --pattern shift
grep -q "$cr" "$tmp/err" "$tmp/out" && fail "bound: carriage return in a pipe"
# stderr a file, not a terminal: silent, even under script's pty.
script -qec "'$croute' estimate --topo '$k' -e minhop --pattern shift --bound \
	2>'$tmp/estb.err'" /dev/null >"$tmp/estb.out" 2>&1 ||
	fail "estimate --bound with stderr in a file failed"
grep -q "of 1 done\|$cr" "$tmp/estb.err" &&
	fail "estimate --bound: progress in a file: $(cat "$tmp/estb.err")"
grep -q "bound: patterns" "$tmp/estb.out" &&
	fail "estimate --bound: progress on the terminal with stderr in a file"
grep -q "of bound" "$tmp/estb.out" ||
	fail "estimate --bound: no bounds: $(cat "$tmp/estb.out")"
exit $failed
