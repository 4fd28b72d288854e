#!/bin/sh
# Reports that script and diff: check, estimate and compare give the same
# text on the same input twice (no run times unless --times or -v), -o
# FILE holds what stdout would, and check --json gives each problem as
# fields (kind, nodes with names, GUIDs, ports and LIDs, VL, cables).

. "$(dirname "$0")/lib.sh"

"$croute" gen two-level --leaves 4 --hosts 4 --uplinks 2 --spines 2 \
	-o "$tmp/t.topo" || fail "croute gen"
T=$tmp/t.topo

# twice NAME ARGS...: two runs, stdout compared, the first kept as NAME.
twice() {
	name=$1
	shift
	"$croute" "$@" >"$tmp/$name.1" 2>/dev/null
	"$croute" "$@" >"$tmp/$name.2" 2>/dev/null
	[ -s "$tmp/$name.1" ] || fail "$name: no report"
	diff "$tmp/$name.1" "$tmp/$name.2" >"$tmp/diff" ||
		fail "$name: two runs differ: $(head -4 "$tmp/diff")"
}
twice est estimate --topo "$T" --engine updn --pattern shift,bisect
twice cmp compare --topo "$T" --engines minhop,updn --pattern shift
twice chk check --topo "$T" --engine updn
# The times are there when asked for.
expect_exit 0 estimate --topo "$T" --engine updn --pattern shift --times
grep -q '^# routing time' "$tmp/out" || fail "estimate --times: no time"
grep -q '^pattern shift: .* s)$' "$tmp/out" || fail "estimate --times"
expect_exit 0 estimate --topo "$T" --engine updn --pattern shift -v
grep -q '^# routing time' "$tmp/out" || fail "estimate -v: no time"
expect_exit 0 compare --topo "$T" --engines updn --pattern shift --times
grep -q 'time s' "$tmp/out" || fail "compare --times: no time column"
grep -q 'time s' "$tmp/cmp.1" && fail "compare: a time column by default"
# The tables in place (--dump-dir) make a row of the same columns.
expect_exit 0 compare --dump-dir "$top_srcdir/tests/fabrics/two-level" \
	--engines updn --pattern shift
[ "$(awk '/^engine/ { on = 1 } /^$/ { on = 0 } on { print length($0) }' \
	"$tmp/out" | sort -u | wc -l)" = 1 ] ||
	fail "compare: the installed row is not aligned: $(cat "$tmp/out")"

# -o FILE: the report, nothing on stdout.
for c in "est estimate --topo $T --engine updn --pattern shift,bisect" \
	"cmp compare --topo $T --engines minhop,updn --pattern shift" \
	"chk check --topo $T --engine updn"; do
	set -- $c
	name=$1
	shift
	expect_exit 0 "$@" -o "$tmp/$name.file"
	[ -s "$tmp/out" ] && fail "$name -o: stdout not empty"
	cmp -s "$tmp/$name.file" "$tmp/$name.1" ||
		fail "$name -o: the file is not the report"
done
expect_exit 0 check --topo "$T" --engine updn --json -o "$tmp/chk.json"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
	"$tmp/chk.json" || fail "check --json -o: not JSON"

# check --json: an unreachable LID and a credit loop, as fields.
F=$top_srcdir/tests/fabrics/two-level
awk '/Switch 0x0002c90200000002/ { s = 1 } /Switch 0x0002c90200000003/ { s = 0 }
	s && /^0x0006 / { print "0x0006 : UNREACHABLE"; next } { print }' \
	"$F/opensm.fdbs" >"$tmp/hole.fdbs"
expect_exit 1 check --topo "$F/opensm-subnet.lst" --lfts "$tmp/hole.fdbs" \
	--json
cp "$tmp/out" "$tmp/hole.json"
"$croute" gen torus 4 4 -o "$tmp/r.topo" || fail "croute gen"
expect_exit 0 route --topo "$tmp/r.topo" --engine minhop -o "$tmp/r.lfts"
expect_exit 1 check --topo "$tmp/r.topo" --lfts "$tmp/r.lfts" --json
cp "$tmp/out" "$tmp/loop.json"
python3 - "$tmp/hole.json" "$tmp/loop.json" <<'PY' || fail "check --json problems"
import json, re, sys
hole = json.load(open(sys.argv[1]))
loop = json.load(open(sys.argv[2]))
guid = re.compile(r"^0x[0-9a-f]{16}$")
def node(n, want_port):
    assert n["name"] and guid.match(n["node_guid"]), n
    assert isinstance(n.get("lid", 1), int)
    if want_port:
        assert n["port"] >= 1 and guid.match(n["port_guid"]), n
p = hole["problems"]
assert p and all(isinstance(x, dict) for x in p), p
u = [x for x in p if x["kind"] in ("unreachable", "loop")]
assert u, p
for x in u:
    node(x["from"], False)
    assert x["from"]["type"] == "switch"
    assert isinstance(x["lid"], int)
    node(x["to"], x["to"]["type"] == "ca")
    assert x["to"].get("lid") == x["lid"], x
# the CA by the port GUID opensm-lfts.dump gives LID 6
assert any(x["to"].get("port_guid") == "0x0002c90300000003" for x in u), u
c = [x for x in loop["problems"] if x["kind"] == "credit_loop"]
assert c and loop["credit_loop_vls"] >= 1, loop["problems"]
for x in c:
    assert isinstance(x["vl"], int) and len(x["cables"]) >= 2
    for k in x["cables"]:
        node(k["from"], False)
        node(k["to"], False)
        assert k["from_port"] >= 1 and k["to_port"] >= 1
    # a cycle: each cable starts where the one before ends
    cab = x["cables"]
    for a, b in zip(cab, cab[1:] + cab[:1]):
        assert a["to"]["node_guid"] == b["from"]["node_guid"], (a, b)
PY

# bound --json: the text report's figures as fields.
expect_exit 0 bound --topo "$tmp/r.topo" --pattern shift --phases 2
avg=$(awk '$1 ~ /^shift/ { print $4; exit }' "$tmp/out")
expect_exit 0 bound --topo "$tmp/r.topo" --pattern shift --phases 2 --json
python3 - "$tmp/out" "$avg" <<'PY' || fail "bound --json"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["patterns"]
assert d["command"] == "bound" and len(p) == 1 and p[0]["phases"] == 2
assert abs(p[0]["avg_frac"] - float(sys.argv[2])) < 1e-4, p[0]
assert len(p[0]["per_phase"]) == 2
PY
# doctor --json: each finding with its kind; the problems counted.
expect_exit 1 doctor -F "$tmp/none.conf" --plugin "$tmp/none.so" --json
python3 - "$tmp/out" <<'PY' || fail "doctor --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "doctor" and d["result"] == "PROBLEMS"
k = [f["kind"] for f in d["findings"]]
assert k.count("problem") == d["problems"] >= 2, d
assert any("none.conf" in f["text"] for f in d["findings"]), d
PY
exit $failed
