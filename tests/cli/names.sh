#!/bin/sh
# Reports name both ends of a link by description and GUID (JSON, HTML),
# and state the host order actually used when descriptions are shared.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 2 2 -o "$tmp/k.topo" || fail "gen"
sed 's/# "h0002 HCA-1"/# "h0001 HCA-1"/' "$tmp/k.topo" >"$tmp/dup.topo"

# Each node's GUID by its description, as the checks below compare them.
python3 - "$tmp/k.topo" >"$tmp/guids" <<'END' || fail "GUIDs of k.topo"
import json, re, sys
guid = {}
for line in open(sys.argv[1]):
    m = re.match(r'^(?:Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"\s+# "([^"]*)"', line)
    if m:
        guid[m.group(2)] = int(m.group(1), 16)
json.dump(guid, sys.stdout)
END

# JSON hot links: from_guid and to_guid, each the GUID of its end.
expect_exit 0 estimate --topo "$tmp/k.topo" -e minhop --json
python3 - "$tmp/out" "$tmp/guids" <<'END' || fail "hot links' GUIDs"
import json, sys
guid = json.load(open(sys.argv[2]))
links = [l for p in json.load(open(sys.argv[1]))["patterns"]
         for l in p["hot_links"]]
assert links, "no hot links"
for l in links:
    assert int(l["from_guid"], 16) == guid[l["from"]], l
    assert int(l["to_guid"], 16) == guid[l["to"]], l
END

# JSON flows without a path: their source and where they stopped, by GUID.
"$croute" route --topo "$tmp/k.topo" -e minhop -o "$tmp/m.dump" 2>/dev/null ||
	fail "route"
grep -v '^0x0003 ' "$tmp/m.dump" >"$tmp/holes.dump"
expect_exit 1 estimate --topo "$tmp/k.topo" --lfts "$tmp/holes.dump" --json
python3 - "$tmp/out" "$tmp/guids" <<'END' || fail "unrouted flows' GUIDs"
import json, sys
guid = json.load(open(sys.argv[2]))
flows = [u for p in json.load(open(sys.argv[1]))["patterns"]
         for u in p["unrouted_flows"]]
assert flows, "no flow without a path"
for u in flows:
    assert int(u["src_guid"], 16) == guid[u["src"]], u
    assert int(u["stop_guid"], 16) == guid[u["stop"]], u
END

# HTML: the hot-link table and the drawing's tooltips name each end by
# description and GUID, so hosts that share a description differ; every
# switch's and host's GUID is on the page.
expect_exit 0 estimate --topo "$tmp/dup.topo" -e minhop --html "$tmp/r.html"
for g in $(sed -n 's/^\(Switch\|Ca\).*"[SH]-\([0-9a-f]*\)".*/\2/p' \
	"$tmp/dup.topo"); do
	grep -q "0x$g" "$tmp/r.html" || fail "HTML lacks GUID 0x$g"
done
grep -q "<td>sw-l1-0 0x0002c90200000002 LID [0-9]* port 2 &rarr; h0001 HCA-1 0x0002c90300000002 LID [0-9]* port 1</td>" \
	"$tmp/r.html" || fail "HTML hot link without both GUIDs"
grep -q "<title>h0001 HCA-1 0x0002c90300000002 LID [0-9]*</title>" \
	"$tmp/r.html" || fail "HTML host tooltip without its GUID"

# The host order says when shared descriptions fell back to GUIDs.
expect_exit 0 estimate --topo "$tmp/k.topo" -e minhop
grep -q "order of node descriptions, natural sort" "$tmp/out" ||
	fail "estimate: no host order stated"
grep -q "share one by node GUID" "$tmp/out" &&
	fail "estimate: GUID order claimed with unique descriptions"
expect_exit 0 estimate --topo "$tmp/dup.topo" -e minhop
grep -q "natural sort; hosts that share one by node GUID" "$tmp/out" ||
	fail "estimate, shared descriptions: $(grep order "$tmp/out")"

# Shared names are said once, however many: one line with an example.
sed 's/# "h0004 HCA-1"/# "h0003 HCA-1"/' "$tmp/dup.topo" >"$tmp/dup2.topo"
expect_exit 2 export --slurm --topo "$tmp/dup2.topo"
[ "$(grep -c "shared by different nodes" "$tmp/err")" = 1 ] ||
	fail "shared names not said once: $(cat "$tmp/err")"
grep -q "2 names are shared by different nodes (e.g. 2 nodes named 'h0001')" \
	"$tmp/err" || fail "shared names: $(cat "$tmp/err")"
exit $failed
