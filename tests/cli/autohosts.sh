#!/bin/sh
# --auto-hosts FILE and croute_auto_hosts: the host order a scheduler
# gives. cr-auto tunes for it and its log says so; its tables score at
# least as well on that order as the default objective's; croute hosts
# --order auto exports it (never an order that scores below the default
# one); a file that cannot be read or names no host is a clear error,
# naming the option, the key or file and line.

. "$(dirname "$0")/lib.sh"

T=$top_srcdir/tests/fabrics/prod-tree.topo

# A scheduler's order: every host, shuffled (a seeded linear
# congruential shuffle, the same with any awk).
awk '/^Ca/ { d = $0; sub(/^[^#]*# *"/, "", d); sub(/".*/, "", d)
	h[n++] = d }
	END {
		x = 7
		for (i = n - 1; i > 0; i--) {
			x = (x * 1103515245 + 12345) % 2147483648
			k = int(x / 65536) % (i + 1)
			t = h[i]; h[i] = h[k]; h[k] = t
		}
		for (i = 0; i < n; i++) print "\"" h[i] "\""
	}' "$T" >"$tmp/sched"
[ -s "$tmp/sched" ] || fail "no hosts in $T"

# shift over the scheduler's order on LFTS
sched_shift() {
	"$croute" estimate --topo "$T" --lfts "$1" --pattern shift \
		--hosts "$tmp/sched" 2>/dev/null | awk '$1 == "shift" { print $4; exit }'
}

expect_exit 0 route --topo "$T" --engine auto --auto-budget 1 \
	--auto-hosts "$tmp/sched" -o "$tmp/tuned.lfts"
grep -q "cr-auto: tuned for the host order of .*sched (croute_auto_hosts" \
	"$tmp/err" || fail "the log does not say which order cr-auto tuned for"
expect_exit 0 route --topo "$T" --engine auto --auto-budget 1 \
	-o "$tmp/plain.lfts"
grep -q "cr-auto: tuned for the default host order" "$tmp/err" ||
	fail "the log does not name the default order"
a=$(sched_shift "$tmp/tuned.lfts")
b=$(sched_shift "$tmp/plain.lfts")
awk -v a="${a:-0}" -v b="${b:-1}" 'BEGIN { exit !(a >= b) }' ||
	fail "tuned for the order, shift on it $a, below the default's $b"

# The same through opensm.conf's key.
printf 'croute_auto_hosts %s\ncroute_auto_budget 1\n' "$tmp/sched" \
	>"$tmp/opensm.conf"
expect_exit 0 route --topo "$T" --engine auto -F "$tmp/opensm.conf" \
	-o "$tmp/conf.lfts"
grep -q "tuned for the host order of" "$tmp/err" ||
	fail "croute_auto_hosts not taken from -F"

# croute hosts exports the order cr-auto tuned for, or a better one.
expect_exit 0 hosts --topo "$T" --order auto --auto-budget 1 \
	--auto-hosts "$tmp/sched" -o "$tmp/hostfile"
grep -q "cr-auto: shift avg .* over the default order .* over the order of croute_auto_hosts" "$tmp/err" ||
	fail "croute hosts does not compare the orders"
[ "$(grep -c -v '^#' "$tmp/hostfile")" -eq "$(wc -l <"$tmp/sched")" ] ||
	fail "the exported order lacks hosts"

# Bad input: exit 2, naming what.
expect_exit 2 route --topo "$T" --engine auto --auto-hosts "$tmp/none"
grep -q -- "--auto-hosts" "$tmp/err" || fail "a missing file: option not named"
printf 'croute_auto_hosts %s\n' "$tmp/none" >"$tmp/bad.conf"
expect_exit 2 route --topo "$T" --engine auto -F "$tmp/bad.conf"
grep -q "croute_auto_hosts" "$tmp/err" || fail "a missing file: key not named"
printf '"no such host"\n' >"$tmp/unknown"
expect_exit 1 route --topo "$T" --engine auto --auto-hosts "$tmp/unknown" \
	-o "$tmp/x.lfts"
grep -q "unknown:1" "$tmp/err" || fail "an unknown host: file:line not named"

exit $failed
