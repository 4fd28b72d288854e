#!/bin/sh
# croute resilience: each row is what croute route, check and estimate
# give on the topology with that cable or switch deleted (the file edited
# by resilience_ref.py, not by croute); reports are byte-identical across
# thread counts and across --shard + merge; bad input exits 2 and writes
# nothing.
. "$(dirname "$0")/lib.sh"
ref=$top_srcdir/tests/cli/resilience_ref.py

# rows ENGINE ORDERS SEED INCR TOPO IDX...: rows against the reference.
rows() {
	eng=$1 ord=$2 seed=$3 incr=$4 t=$5
	shift 5
	flag=
	[ "$incr" = 1 ] && flag=--incremental
	expect_exit 0 resilience -t "$t" -e "$eng" --orders "$ord" \
		--seed "$seed" --faults all --json $flag -o "$tmp/rows.json"
	python3 "$ref" "$croute" "$t" "$eng" "$ord" "$seed" "$incr" \
		"$tmp/rows.json" "$tmp" "$@" ||
		fail "rows of $t ($eng, incremental $incr) differ from" \
			"croute route + check + estimate"
}

"$croute" gen ktree 4 2 --lmc 0 -o "$tmp/kt.topo" || exit 1
"$croute" gen random --switches 10 --links 3 --hosts 2 --seed 4 --lmc 0 \
	-o "$tmp/rnd.topo" || exit 1
"$croute" gen torus 3 3 --hosts 1 --lmc 0 -o "$tmp/tor.topo" || exit 1

# cables first, then switches: pick some of each (never the file's first
# switch, whose port a topology file makes the SM's)
rows updn 2 3 0 "$tmp/kt.topo" 0 7 15 17 22
rows updn 3 5 1 "$tmp/kt.topo" 1 9 14 18 23
rows minhop 2 1 1 "$tmp/rnd.topo" 0 3 9 16 18
rows minhop 2 7 0 "$tmp/rnd.topo" 2 5 11 17
rows lash 2 1 0 "$tmp/tor.topo" 0 5 17 20

# The -R list: cr-ftree refuses a torus, OpenSM goes on to cr-updn.
expect_exit 0 resilience -t "$tmp/tor.topo" -R cr-ftree,cr-updn \
	--orders 1 --json -o "$tmp/chain.json"
grep -q '"routed_by": "cr-updn"' "$tmp/chain.json" ||
	fail "-R cr-ftree,cr-updn: rows not routed by cr-updn"

# -F: the engine list and croute_incremental from opensm.conf.
printf 'routing_engine cr-updn\ncroute_incremental TRUE\n' >"$tmp/osm.conf"
expect_exit 0 resilience -t "$tmp/kt.topo" -F "$tmp/osm.conf" --orders 2 \
	--faults all --json -o "$tmp/conf.json"
expect_exit 0 resilience -t "$tmp/kt.topo" -e updn --incremental \
	--orders 2 --faults all --json -o "$tmp/flag.json"
grep -q '"incremental": true' "$tmp/conf.json" ||
	fail "-F with croute_incremental TRUE: no row repaired"
cmp -s "$tmp/conf.json" "$tmp/flag.json" ||
	fail "-F's cr-updn and croute_incremental differ from -e updn" \
		"--incremental"

# The same report on 1 and 2 threads, and from shards merged.
for fmt in "" --json; do
	expect_exit 0 resilience -t "$tmp/rnd.topo" -e updn --orders 2 \
		--faults all $fmt --threads 1 -o "$tmp/t1"
	expect_exit 0 resilience -t "$tmp/rnd.topo" -e updn --orders 2 \
		--faults all $fmt --threads 2 -o "$tmp/t2"
	cmp -s "$tmp/t1" "$tmp/t2" ||
		fail "resilience $fmt: --threads 1 and 2 differ"
	for k in 1 2 3; do
		expect_exit 0 resilience -t "$tmp/rnd.topo" -e updn \
			--orders 2 --faults all --shard "$k/3" \
			-o "$tmp/s$k"
	done
	expect_exit 0 resilience merge "$tmp/s3" "$tmp/s1" "$tmp/s2" \
		$fmt -o "$tmp/merged"
	cmp -s "$tmp/t1" "$tmp/merged" ||
		fail "resilience $fmt: merged shards differ from one process"
done
expect_exit 0 resilience merge "$tmp/s1" "$tmp/s2" "$tmp/s3" \
	--html "$tmp/r.html" -o /dev/null
worst=$(sed -n 's/^{"summary".*"worst_failure": \([0-9]*\).*/\1/p' \
	"$tmp/merged")
name=$(grep "^{\"failure\": $worst," "$tmp/merged" |
	sed 's/.*"from": {"name": "\([^"]*\)", "guid": "\([^"]*\)".*/\1 \2/')
grep -q "$name" "$tmp/r.html" ||
	fail "the HTML report does not name the worst failure ($name)"
grep -q "<svg" "$tmp/r.html" || fail "the HTML report has no plot"

# A list of failures by name and by GUID.
printf '# rack 1\nsw-l0-1 2\n"sw-l1-3" 6 sw-l0-1 4\n0x0002c90200000005\n' \
	>"$tmp/faults"
expect_exit 0 resilience -t "$tmp/kt.topo" -e updn --orders 1 \
	--faults "$tmp/faults" --json -o "$tmp/f.json"
[ "$(grep -c '"failure"' "$tmp/f.json")" = 3 ] ||
	fail "--faults FILE: not 3 rows"
grep -q '"kind": "switch", "switch": {"name": "sw-l1-1"' "$tmp/f.json" ||
	fail "--faults FILE: the switch by GUID is not sw-l1-1"

# Bad input: exit 2, the file and line named, nothing written.
bad_faults() {
	printf "$1" >"$tmp/bad"
	rm -f "$tmp/none"
	expect 2 "$tmp/bad:$2: .*$3" "faults file: $3" "$croute" resilience \
		-t "$tmp/kt.topo" -e updn --faults "$tmp/bad" -o "$tmp/none"
	[ -e "$tmp/none" ] && fail "a bad faults file still wrote a report"
}
bad_faults 'sw-l0-1 2\nsw-l0-1 2 sw-l1-3 6\n' 2 "no cable between"
bad_faults '\n0x0002c902000000ff\n' 2 "no node has this GUID"
bad_faults 'h0001 HCA-1\n' 1 "no node has this GUID or description"
bad_faults 'sw-l0-1 9\n' 1 "not a port"
bad_faults '"h0001 HCA-1"\n' 1 "must be a switch"

expect_exit 0 resilience -t "$tmp/kt.topo" -e updn --orders 2 \
	--faults all --shard 1/2 -o "$tmp/k1"
expect_exit 0 resilience -t "$tmp/kt.topo" -e minhop --orders 2 \
	--faults all --shard 2/2 -o "$tmp/m2"
rm -f "$tmp/none"
expect 2 "another fabric, configuration" "another configuration's shard" \
	"$croute" resilience merge "$tmp/k1" "$tmp/m2" -o "$tmp/none"
expect 2 "another fabric, configuration" "another fabric's shard" \
	"$croute" resilience merge "$tmp/k1" "$tmp/s2" -o "$tmp/none"
expect 2 "part 2 of 2 .* missing" "a missing shard" \
	"$croute" resilience merge "$tmp/k1" -o "$tmp/none"
expect 2 "earlier shard too" "a shard given twice" \
	"$croute" resilience merge "$tmp/s1" "$tmp/s1" "$tmp/s2" "$tmp/s3" \
	-o "$tmp/none"
head -n 12 "$tmp/s2" >"$tmp/cut"
expect 2 "$tmp/cut:.*cut short" "a shard cut short" \
	"$croute" resilience merge "$tmp/s1" "$tmp/cut" "$tmp/s3" \
	-o "$tmp/none"
[ -e "$tmp/none" ] && fail "a failed merge still wrote a report"
expect 2 "K/N" "--shard 3/2" "$croute" resilience -t "$tmp/kt.topo" \
	--shard 3/2 -o "$tmp/none"
exit $failed
