#!/bin/bash
# Path models: at LMC 0 split and indep print base's figures; with LMC 2
# on a tree less a top switch, split differs from base and indep is at
# least split; bad model names and lane counts are usage errors (exit 2).
. "$(dirname "$0")/lib.sh"

# figures TOPO ARGS...: the per-flow average and minimum of shift and
# bisect, without the lines that name the model.
figures() {
	local t=$1
	shift
	"$croute" estimate --topo "$t" -e updn --pattern shift,bisect "$@" \
		2>/dev/null | awk '($1 == "shift" || $1 == "bisect") &&
			$2 ~ /\// { print $1, $4, $5 }'
}

"$croute" gen ktree 4 3 -o "$tmp/kt" || fail "gen ktree 4 3"
awk -v desc=sw-l0-00 -f "$top_srcdir/bench/auto/drop-switch.awk" "$tmp/kt" \
	>"$tmp/kt1" || fail "drop-switch"

base=$(figures "$tmp/kt1" --lmc 0)
[ -n "$base" ] || fail "no figures at LMC 0"
for m in split indep split:1 indep:3; do
	got=$(figures "$tmp/kt1" --lmc 0 --paths $m)
	[ "$got" = "$base" ] || fail "LMC 0, --paths $m: '$got', not '$base'"
done
# one lane of several is the base path
got=$(figures "$tmp/kt1" --lmc 2 --paths split --lanes 1)
want=$(figures "$tmp/kt1" --lmc 2)
[ "$got" = "$want" ] || fail "--lanes 1: '$got', not base's '$want'"

avg() { echo "$1" | awk '$1 == "shift" { print $2 }'; }
b=$(avg "$(figures "$tmp/kt1" --lmc 2)")
s=$(avg "$(figures "$tmp/kt1" --lmc 2 --paths split)")
i=$(avg "$(figures "$tmp/kt1" --lmc 2 --paths indep)")
awk -v b="$b" -v s="$s" -v i="$i" 'BEGIN { exit !(s != b && i >= s) }' ||
	fail "LMC 2 shift: base $b, split $s, indep $i: want split != base, <= indep"

"$croute" estimate --topo "$tmp/kt1" -e updn --lmc 2 --paths split \
	>"$tmp/out" 2>&1 || fail "estimate --paths split"
grep -q "^# paths: split" "$tmp/out" || fail "the report does not name the model"

for bad in "--paths both" "--paths split:0" "--paths split:x" "--lanes 0" \
	"--lanes 999" "--paths split --bound"; do
	# shellcheck disable=SC2086
	"$croute" estimate --topo "$tmp/kt1" -e updn $bad >"$tmp/err" 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "$bad: exit $rc, not 2"
	grep -q -- "--" "$tmp/err" || fail "$bad: the message names no option"
done
exit $failed
