#!/bin/bash
# Hostile and damaged inputs: each must give a clear message
# and exit 2 (bad input), never a silently different answer; an engine
# refusing a fabric exits 1; messages do not contradict each other.
. "$(dirname "$0")/lib.sh"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

"$croute" gen ktree 2 3 -o "$tmp/k.topo" || exit 1
mkdir "$tmp/conf"

# 1. A directory where a file is expected.
for opt in --root-guids --cn-guids --io-guids --guid-order --port-order; do
	expect 2 "conf.*directory" "$opt DIR" \
		"$croute" route -t "$tmp/k.topo" -e updn $opt "$tmp/conf"
done
expect 2 "directory" "--topo DIR" "$croute" route -t "$tmp/conf"
expect 2 "directory" "--lids DIR" "$croute" route -t "$tmp/k.topo" \
	--lids "$tmp/conf"
expect 2 "directory" "--lfts DIR" "$croute" check -t "$tmp/k.topo" \
	--lfts "$tmp/conf"

# 3. An LFT dump cut short: an error naming the file, not a routing with
# unreachable LIDs.
"$croute" route -q -t "$tmp/k.topo" -e updn -o "$tmp/lfts" || exit 1
expect 0 "result: +OK" "check of the whole dump" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/lfts"
head -n -1 "$tmp/lfts" >"$tmp/cut"
expect 2 "cut:[0-9]+:.*truncated" "check of a dump without its last line" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/cut"
# ... cut inside a table that is not the last one.
awk '/lids dumped/ && !done { done = 1; next } { print }' "$tmp/lfts" \
	>"$tmp/cut2"
expect 2 "truncated" "check of a dump missing a table's trailer" \
	"$croute" check -t "$tmp/k.topo" --lfts "$tmp/cut2"

# 4. A topology whose last line lost its rate keeps the link's rate: the
# far end's line gives it. Two ends that disagree are an error.
"$croute" gen two-level --leaves 2 --hosts 1 --uplinks 1 --spines 1 \
	-o "$tmp/t.topo" || exit 1
last=$(grep -c '' "$tmp/t.topo")
while [ "$(sed -n "${last}p" "$tmp/t.topo")" = "" ]; do
	last=$((last - 1))
done
sed -n "${last}p" "$tmp/t.topo" | grep -q '4xQDR$' ||
	{ echo "FAIL: the last port line has no 4xQDR"; failed=1; }
head -n "$last" "$tmp/t.topo" | head -c -11 >"$tmp/t-cut.topo"
"$croute" route -q -t "$tmp/t.topo" -o "$tmp/t.lfts" || exit 1
for t in t t-cut; do
	"$croute" estimate -t "$tmp/$t.topo" --lfts "$tmp/t.lfts" \
		--pattern shift --json >"$tmp/$t.json" 2>/dev/null
done
python3 - "$tmp/t.json" "$tmp/t-cut.json" <<'PY' || fail "rates of the cut topology differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def rates(d):
    return [(p["name"], p["avg_gbps"], p["min_gbps"]) for p in d["patterns"]]
sys.exit(rates(a) != rates(b))
PY
sed 's/^\(\[1\].*"S-[0-9a-f]*"\[1\].*\)4xQDR$/\14xSDR/' "$tmp/t.topo" \
	>"$tmp/t-rate.topo"
cmp -s "$tmp/t.topo" "$tmp/t-rate.topo" &&
	{ echo "FAIL: no rate changed in the test topology"; failed=1; }
expect 2 "t-rate.topo:[0-9]+:.*must agree" "ends disagreeing on the rate" \
	"$croute" route -t "$tmp/t-rate.topo"
# A port GUID given on the far side that is not the port's own.
awk '!done && /"H-[0-9a-f]+"\[1\]\([0-9a-f]+\)/ {
	sub(/\)/, "f)"); done = 1 } { print }' "$tmp/t.topo" >"$tmp/t-guid.topo"
expect 2 "t-guid.topo:[0-9]+:.*port GUID" "ends disagreeing on a port GUID" \
	"$croute" route -t "$tmp/t-guid.topo"

# 5. Two ports with one GUID.
cat >"$tmp/dup.topo" <<'TOPO'
Switch 4 "s"
[1] "a"[1]
[2] "b"[1]

Ca 1 "a"
[1](abc) "s"[1]

Ca 1 "b"
[1](abc) "s"[2]
TOPO
expect 2 "dup.topo:[0-9]+:.*0x0000000000000abc" "duplicate port GUIDs" \
	"$croute" route -t "$tmp/dup.topo"
expect 2 "twice.lst:10: port GUID 0x0002c90300000001 of 0x0002c90300000002 port 1 is also that of 0x0002c90300000000 port 1" \
	"duplicate port GUIDs in opensm-subnet.lst" "$croute" route -t \
	"$top_srcdir/tests/fuzz/corpus/topo/bad-subnet-lst-port-guid-twice.lst"

# 7. A switch cabled to another port of itself.
cat >"$tmp/self.topo" <<'TOPO'
Switch 4 "s"
[1] "a"[1]
[2] "s"[3]

Ca 1 "a"
[1] "s"[1]
TOPO
expect 2 "self.topo:3:.*its own port" "a switch cabled to itself" \
	"$croute" route -t "$tmp/self.topo"

# 6. One message per fault.
expect 2 "" "gen fat-tree 1000" "$croute" gen fat-tree 1000
grep -q "even number" "$tmp/out" &&
	fail "gen fat-tree 1000 also says it needs an even number of ports"
grep -q "1000 ports" "$tmp/out" || fail "gen fat-tree 1000: no port count"
expect 2 "" "gen ktree 99999 99999" "$croute" gen ktree 99999 99999
grep -q "k >= 2" "$tmp/out" &&
	fail "gen ktree 99999 99999 also says it needs k >= 2"
expect 2 "" "gen ktree 1 2" "$croute" gen ktree 1 2
grep -q "k >= 2" "$tmp/out" || fail "gen ktree 1 2 does not say k >= 2"

# 7. --matrix only means something with --json.
expect 2 "--matrix.*--json" "--matrix without --json" \
	"$croute" estimate -t "$tmp/k.topo" -e updn --matrix

# 7. compare shows the whole of ftree's refusal.
"$croute" gen torus 3 3 -o "$tmp/torus" || exit 1
expect 0 "" "compare on a torus" "$croute" compare -t "$tmp/torus" \
	--engines ftree,updn --pattern shift
reason=$("$croute" route -t "$tmp/torus" -e ftree 2>&1 >/dev/null |
	grep -m1 'not a fat tree' | sed 's/^croute: error: //')
[ -n "$reason" ] || fail "croute route -e ftree gives no reason on a torus"
# The switches by name as well as GUID.
echo "$reason" | grep -Eq "switch '[^']+' \(0x[0-9a-f]{16}, rank [0-9]+\) port [0-9]+ is linked to switch '[^']+' \(0x[0-9a-f]{16}, rank" ||
	fail "ftree's refusal does not name the switches: $reason"
grep -F -q -- "$reason" "$tmp/out" ||
	fail "compare cuts ftree's refusal short: $reason"

# 8. An engine given a fabric not of its kind: bad input, exit 2, as
# cr-dfp and cr-hyperx.
for cmd in route check estimate; do
	expect 2 "cannot route" "$cmd: ftree refuses a torus" \
		"$croute" $cmd -t "$tmp/torus" -e ftree
done

# 2. check --lfts on a cr-lash routing: told its layers (croute's dumps,
# or OpenSM's opensm-sl2vl.dump format), no credit loop; without them, it
# says it assumed one VL.
"$croute" gen torus 4 4 --hosts 2 -o "$tmp/t4.topo" || exit 1
"$croute" route -q -t "$tmp/t4.topo" -e lash -o "$tmp/t4.lfts" \
	--lash-sl "$tmp/t4.sl" --lash-sl2vl "$tmp/t4.sl2vl" || exit 1
expect 1 "one VL assumed" "check --lfts of lash without its SLs" \
	"$croute" check -t "$tmp/t4.topo" --lfts "$tmp/t4.lfts"
expect 0 "credit loops: +0 " "check --lfts --sl --sl2vl of lash" \
	"$croute" check -t "$tmp/t4.topo" --lfts "$tmp/t4.lfts" \
	--sl "$tmp/t4.sl" --sl2vl "$tmp/t4.sl2vl"
grep -q "assumed" "$tmp/out" && fail "check with --sl still assumes one VL"
# The same tables as OpenSM's opensm-sl2vl.dump prints them.
awk 'function hex(s,  v, i) {
	v = 0; s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
/^0x/ {
	if ($1 != sw) { sw = $1; printf "Switch %s, base LID 1, \"x\"\n", sw }
	line = sprintf("%-3d %-3d :", $2, $3)
	for (i = 4; i <= 11; i++) {
		v = hex($i)
		line = line sprintf(" %-2d %-2d", int(v / 16), v % 16)
	}
	print line
}' "$tmp/t4.sl2vl" >"$tmp/t4.osm-sl2vl" || exit 1
grep -q '^Switch 0x' "$tmp/t4.osm-sl2vl" || fail "no OpenSM-format SL2VL"
expect 0 "credit loops: +0 " "check --sl2vl in OpenSM's format" \
	"$croute" check -t "$tmp/t4.topo" --lfts "$tmp/t4.lfts" \
	--sl "$tmp/t4.sl" --sl2vl "$tmp/t4.osm-sl2vl"
# All layers squeezed onto VL 0: the credit loop is back.
sed 's/ 0x[0-9a-f][0-9a-f]/ 0x00/g' "$tmp/t4.sl2vl" >"$tmp/t4.vl0"
expect 1 "credit loops: +1 " "check with every SL on VL 0" \
	"$croute" check -t "$tmp/t4.topo" --lfts "$tmp/t4.lfts" \
	--sl "$tmp/t4.sl" --sl2vl "$tmp/t4.vl0"
expect 2 "--sl" "--sl without --lfts" "$croute" check -t "$tmp/t4.topo" \
	-e lash --sl "$tmp/t4.sl"

# --json of check, compare and estimate: one versioned schema (croute(1)
# JSON OUTPUT).
"$croute" check -t "$tmp/torus" -e minhop --json >"$tmp/check.json" 2>/dev/null
"$croute" compare -t "$tmp/torus" --engines updn,ftree --pattern shift \
	--json >"$tmp/compare.json" 2>/dev/null
"$croute" estimate -t "$tmp/torus" -e updn --pattern shift --json \
	>"$tmp/estimate.json" 2>/dev/null
python3 - "$tmp" <<'PY' || { echo "FAIL: --json schema"; failed=1; }
import json, sys
d = sys.argv[1]
docs = {c: json.load(open(f"{d}/{c}.json")) for c in ("check", "compare", "estimate")}
for c, j in docs.items():
    assert j["schema"] == "croute-report" and j["version"] == 2, c
    assert j["command"] == c and j["source"], c
ch = docs["check"]
assert ch["result"] == "PROBLEMS" and ch["credit_loop_vls"] >= 1
assert ch["forwarding_loops"] == 0 and ch["unreachable"] == 0
assert any(p["kind"] == "credit_loop" and p["vl"] >= 0 for p in ch["problems"])
rows = {r["engine"]: r for r in docs["compare"]["rows"]}
assert rows["updn"]["unreachable"] == 0 and rows["updn"]["credit_loop_vls"] == 0
assert rows["updn"]["patterns"][0]["pattern"] == "shift"
assert 0 < rows["updn"]["patterns"][0]["min_frac"] <= 1
assert "not a fat tree" in rows["ftree"]["refused"]
assert docs["estimate"]["patterns"][0]["name"] == "shift"
PY

# -F with a bad croute_* line: the command refuses the file (exit 2),
# naming the file, line and key, and does not say it ignored the line (the
# plugin's shared parser logs and ignores it: tests/unit/test_conf.c).
printf 'routing_engine cr-updn\ncroute_no_such_key 1\n' >"$tmp/bad.conf"
expect 2 "bad.conf:2: unknown key croute_no_such_key" "-F unknown croute_ key" \
	"$croute" route -t "$tmp/k.topo" -F "$tmp/bad.conf"
grep -q "ignored" "$tmp/out" && fail "-F unknown key: the message says ignored"
printf 'croute_balance sideways\n' >"$tmp/bad2.conf"
expect 2 "bad2.conf:1: croute_balance 'sideways' is not valid" \
	"-F bad croute_ value" "$croute" estimate -t "$tmp/k.topo" -e updn \
	-F "$tmp/bad2.conf"
grep -q "default" "$tmp/out" && fail "-F bad value: the message says default"

# An output path that is no regular file (a FIFO here, /dev/null in use)
# is written in place: renaming a temporary file over it would replace
# the device with a regular file.
mkfifo "$tmp/fifo" || exit 1
timeout 60 cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
timeout 60 "$croute" route -t "$tmp/k.topo" -e minhop -o "$tmp/fifo" \
	>"$tmp/out" 2>&1 || fail "route -o FIFO exits non-zero"
if [ -p "$tmp/fifo" ]; then
	wait "$reader"
else
	fail "route -o FIFO replaced the FIFO with a file"
	kill "$reader" 2>/dev/null
	wait "$reader"
fi
grep -q "lids dumped" "$tmp/fifo.out" ||
	fail "route -o FIFO: the LFTs did not go through the FIFO"
ls "$tmp" | grep -q 'fifo\.tmp' && fail "route -o FIFO left a temporary file"

[ $failed = 0 ] && echo "PASS: hostile inputs"
exit $failed
