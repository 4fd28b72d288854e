#!/bin/bash
# croute bound --jobs: the jobs pattern's ceiling on the hosts estimate
# scores it on. One job is shift among its hosts in Slurm's order, so its
# bound equals bound --pattern shift on a host file in that order, on the
# own order and on --orders random ones (same --seed); the order matters
# on an oversubscribed tree, so the equality is no accident. Every
# routing's estimate --jobs (own order and mean over the orders) stays
# under the minimal-path bound, that under the all-path one. --stat
# solves one statistic's LPs and gives the full run's figure. Bad input:
# exit 2.
. "$(dirname "$0")/lib.sh"
# the "# on N random host orders" table's row: own mean worst
orders_row() {
	awk '/random host orders/ { on = 1; next }
		on && $1 ~ /^(jobs|shift)/ { print $2, $3, $4; exit }' "$1"
}

# 4 leaves of 4 hosts, one uplink each: 4:1 oversubscribed
"$croute" gen two-level --leaves 4 --hosts 4 --uplinks 1 --spines 1 \
	-o "$tmp/t.topo" >/dev/null || exit 1
printf '# one job, hosts out of order\n7 h[0001,0005,0002,0006]\n' \
	>"$tmp/one.jobs"
printf 'h0001\nh0005\nh0002\nh0006\n' >"$tmp/one.hosts"
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/one.jobs" --orders 3 \
	--seed 5 >"$tmp/bj" || fail "bound --jobs"
"$croute" bound -t "$tmp/t.topo" --hosts "$tmp/one.hosts" \
	--pattern shift --orders 3 --seed 5 >"$tmp/bs" ||
	fail "bound --hosts --pattern shift"
a=$(orders_row "$tmp/bj")
b=$(orders_row "$tmp/bs")
[ -n "$a" ] && [ "$a" = "$b" ] ||
	fail "one job: bound --jobs ($a) is not shift in its order ($b)"
# Slurm's order, not the fabric's: the sorted job bounds otherwise
printf '7 h[0001-0002,0005-0006]\n' >"$tmp/sorted.jobs"
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/sorted.jobs" >"$tmp/bsort" ||
	fail "bound --jobs, sorted"
own() { awk '$1 ~ /^(jobs|shift)/ { print $4; exit }' "$1"; }
[ "$(own "$tmp/bsort")" != "$(own "$tmp/bj")" ] ||
	fail "the job's order does not change its bound: the test is moot"

# estimate --bound divides by the same bound (Slurm's order)
"$croute" estimate -t "$tmp/t.topo" -e updn --jobs "$tmp/one.jobs" --bound \
	>"$tmp/eb" || fail "estimate --jobs --bound"
eb=$(awk '/^# against croute bound/ { on = 1; next }
	on && $1 == "jobs" { print $3; exit }' "$tmp/eb")
[ -n "$eb" ] && [ "$eb" = "$(own "$tmp/bj")" ] ||
	fail "estimate --bound's bound $eb is not bound --jobs' $(own "$tmp/bj")"

# two jobs and a name not in the fabric (warned about, left out)
printf '7 h[0001,0005,0002,0006]\n8 h[0009-0012],h0003\n9 h[0013,0099]\n' \
	>"$tmp/two.jobs"
for p in all minimal; do
	"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/two.jobs" \
		--paths $p --orders 3 --seed 5 >"$tmp/b.$p" 2>"$tmp/w.$p" ||
		fail "bound --jobs --paths $p"
done
grep -q "two.jobs:3:" "$tmp/w.all" ||
	fail "the unknown host's line is not named"
read -r ball mall _ <<<"$(orders_row "$tmp/b.all")"
read -r bmin mmin _ <<<"$(orders_row "$tmp/b.minimal")"
awk -v a="$ball" -v b="$bmin" -v c="$mall" -v d="$mmin" 'BEGIN {
	exit !(a != "" && b != "" && b <= a + 1e-4 && d <= c + 1e-4) }' ||
	fail "minimal-path bound ($bmin $mmin) above all paths ($ball $mall)"
for e in minhop updn ftree; do
	"$croute" estimate -t "$tmp/t.topo" -e $e --jobs "$tmp/two.jobs" \
		--orders 3 --seed 5 >"$tmp/e.$e" 2>/dev/null ||
		fail "estimate --jobs -e $e"
	read -r own mean _ <<<"$(orders_row "$tmp/e.$e")"
	awk -v o="$own" -v m="$mean" -v b="$bmin" -v mb="$mmin" 'BEGIN {
		exit !(o != "" && m != "" && o <= b + 1e-4 && m <= mb + 1e-4) }' ||
		fail "$e: estimate $own / $mean above the bound $bmin / $mmin"
done
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/two.jobs" --orders 2 \
	--json >"$tmp/json" 2>/dev/null || fail "bound --jobs --json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["patterns"][0]
sys.exit(not (p["pattern"] == "jobs" and p["orders"] == 2 and
	0 < p["orders_worst_avg"] <= p["orders_mean_avg"] <= 1))' "$tmp/json" ||
	fail "--json lacks the orders' bound"

# --stat: only the LPs asked for, the same figures as both. avg is what
# the jobs score needs (its orders table), min has no orders table.
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/two.jobs" --orders 3 --seed 5 \
	--stat avg >"$tmp/b.avg" 2>/dev/null || fail "bound --stat avg"
[ -n "$(orders_row "$tmp/b.avg")" ] &&
	[ "$(orders_row "$tmp/b.avg")" = "$(orders_row "$tmp/b.all")" ] ||
	fail "--stat avg's orders ($(orders_row "$tmp/b.avg")) are not" \
		"the full run's ($(orders_row "$tmp/b.all"))"
# the pattern row: name phases flows avg min
prow() { awk '$1 ~ /^jobs/ && NF >= 6 { print $4, $5; exit }' "$1"; }
read -r fa fm <<<"$(prow "$tmp/b.all")"
read -r sa sm <<<"$(prow "$tmp/b.avg")"
[ "$sa" = "$fa" ] && [ "$sm" = - ] ||
	fail "--stat avg: avg $sa min $sm, the full run avg $fa"
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/two.jobs" --stat min \
	>"$tmp/b.min" 2>/dev/null || fail "bound --stat min"
read -r na nm <<<"$(prow "$tmp/b.min")"
[ "$na" = - ] && [ "$nm" = "$fm" ] ||
	fail "--stat min: avg $na min $nm, the full run min $fm"
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/two.jobs" --stat avg \
	--json >"$tmp/json.avg" 2>/dev/null || fail "bound --stat avg --json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["patterns"][0]
sys.exit(not (d["stat"] == "avg" and p["min_frac"] is None and
	"%.4f" % p["avg_frac"] == sys.argv[2] and
	all(q["min_frac"] is None for q in p["per_phase"])))' \
	"$tmp/json.avg" "$fa" || fail "--stat avg --json: min not null"

# bad input: exit 2
for bad in "--stat max" "--stat" "--stat min --orders 2" \
	"--stat min --one-routing"; do
	# shellcheck disable=SC2086
	"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/two.jobs" $bad \
		>/dev/null 2>&1
	[ $? -eq 2 ] || fail "bound $bad is not exit 2"
done
"$croute" bound -t "$tmp/t.topo" --jobs "$tmp/none.jobs" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a missing jobs file is not exit 2"
"$croute" bound -t "$tmp/t.topo" --pattern jobs >/dev/null 2>&1
[ $? -eq 2 ] || fail "pattern jobs without --jobs is not exit 2"
[ $failed = 0 ] && echo "PASS: bound --jobs"
exit $failed
