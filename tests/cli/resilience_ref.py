#!/usr/bin/env python3
"""Checks rows of `croute resilience --json` against croute route, check
and estimate run on the topology file with that cable or switch deleted
(by editing the ibnetdiscover text here, not by croute).

usage: resilience_ref.py CROUTE TOPO ENGINE ORDERS SEED INCR ROWS TMPDIR IDX...
INCR: 1 when the rows were made with --incremental (the reference then
routes with --incremental-from TOPO). Exit 1 on a mismatch.
"""
import json
import re
import subprocess
import sys

croute, topo, engine, orders, seed, incr, rows_path, tmp = sys.argv[1:9]
picks = [int(i) for i in sys.argv[9:]]
rows = {}
for line in open(rows_path):
    o = json.loads(line)
    if "failure" in o:
        rows[o["failure"]] = o
failed = False


def node_id(guid):
    return '"S-%016x"' % int(guid, 16)


def edit(lines, row):
    """The topology without the row's cable or switch."""
    out, cur, skip = [], None, False
    if row["kind"] == "cable":
        ends = {(node_id(row["from"]["guid"]), row["from"]["port"]),
                (node_id(row["to"]["guid"]), row["to"]["port"])}
        for ln in lines:
            m = re.match(r'(Switch|Ca)\s+\d+\s+("[^"]+")', ln)
            if m:
                cur = m.group(2)
            p = re.match(r'\[(\d+)\]', ln)
            if p and (cur, int(p.group(1))) in ends:
                continue
            out.append(ln)
        return out
    sw = node_id(row["switch"]["guid"])
    block = []
    for ln in lines + [""]:
        if ln.strip() == "":
            if not any(re.match(r'Switch\s+\d+\s+' + re.escape(sw), b)
                       for b in block):
                out.extend(b for b in block if sw + "[" not in b)
            block = []
            out.append(ln)
        else:
            block.append(ln)
    return out


def lfts(path):
    """{switch GUID: {LID: port}} of an opensm-lfts.dump."""
    t, cur = {}, None
    for ln in open(path):
        m = re.match(r"Unicast lids .* guid (0x[0-9a-f]+)", ln)
        if m:
            cur = t.setdefault(int(m.group(1), 16), {})
            continue
        m = re.match(r"(0x[0-9a-f]+) (\d+)", ln)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return t


def churn(a, b):
    blocks, entries = set(), 0
    for sw, ta in a.items():
        if sw not in b:
            continue
        tb = b[sw]
        for lid in set(ta) | set(tb):
            if ta.get(lid, 255) != tb.get(lid, 255):
                entries += 1
                blocks.add((sw, lid // 64))
    return len(blocks), entries


def run(args):
    p = subprocess.run([croute] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("croute %s: exit %d: %s" % (" ".join(args), p.returncode,
                                             p.stderr))
    return p.stdout


lines = open(topo).read().split("\n")
run(["route", "-t", topo, "-e", engine, "-q", "-o", tmp + "/intact.lfts"])
intact = lfts(tmp + "/intact.lfts")
for i in picks:
    row = rows[i]
    red = "%s/cut%d.topo" % (tmp, i)
    with open(red, "w") as f:
        f.write("\n".join(edit(lines, row)))
    L = "%s/cut%d.lfts" % (tmp, i)
    if incr == "1":
        run(["route", "-q", "--incremental-from", topo, "-t", red, "-e",
             engine, "-o", L])
        how = ["--lfts", L]
    else:
        run(["route", "-q", "-t", red, "-e", engine, "-o", L])
        how = ["-e", engine]
    chk = json.loads(run(["check", "-t", red, "--json", "-q"] + how))
    est = json.loads(run(["estimate", "-t", red, "--json", "-q", "--orders",
                          orders, "--seed", seed] + how))
    blocks, entries = churn(intact, lfts(L))
    want = {
        "unreachable": chk["unreachable"],
        "forwarding_loops": chk["forwarding_loops"],
        "credit_loop_vls": chk["credit_loop_vls"],
        "pairs": chk["pairs"],
        "lft_blocks": blocks,
        "lft_entries": entries,
    }
    for k, v in want.items():
        if row[k] != v:
            print("FAIL: %s failure %d: %s %s, croute route/check says %s"
                  % (topo, i, k, row[k], v))
            failed = True
    pats = list(row["patterns"].values())
    for j, p in enumerate(est["orders"]["patterns"]):
        for a, b in (("mean_avg", "avg_frac"), ("mean_min", "min_frac")):
            if "%.6g" % pats[j][a] != "%.6g" % p["mean"][b]:
                print("FAIL: %s failure %d: %s %s %s, croute estimate"
                      " says %s" % (topo, i, p["pattern"], a, pats[j][a],
                                    p["mean"][b]))
                failed = True
sys.exit(1 if failed else 0)
