#!/usr/bin/env python3
# Checks a Slurm topology.conf written by `croute export --slurm` against
# the fabric of an ibnetdiscover topology file, read here on its own:
# syntax, every host under exactly the switches it is cabled to, every
# switch-to-switch cable said (parent/child or a "# link" comment), and
# nothing that is not in the fabric. Usage: slurmcheck.py TOPO CONF
import re
import sys
from collections import defaultdict

NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-f]+)"\s+#\s+"([^"]*)"')
PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]+)"\[(\d+)\]')


def read_topo(path):
    nodes, links, cur, sysimg, node_sys = {}, set(), None, None, {}
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^sysimgguid=0x([0-9a-f]+)", line)
        if m:
            sysimg = int(m.group(1), 16)
            continue
        m = NODE.match(line)
        if m:
            cur = int(m.group(4), 16)
            nodes[cur] = (m.group(1), m.group(5))
            node_sys[cur] = sysimg
            continue
        m = PORT.match(line)
        if m and cur is not None:
            a = (cur, int(m.group(1)))
            b = (int(m.group(2), 16), int(m.group(3)))
            links.add((min(a, b), max(a, b)))
    return nodes, links, node_sys


def expand(lst):
    out, depth, tok = [], 0, ""
    for ch in lst + ",":
        if ch == "," and depth == 0:
            m = re.match(r"^([^\[\]]*)\[([^\]]+)\]$", tok)
            if m:
                for part in m.group(2).split(","):
                    lo, _, hi = part.partition("-")
                    hi = hi or lo
                    assert len(lo) == len(hi), tok
                    for v in range(int(lo), int(hi) + 1):
                        out.append(m.group(1) + str(v).zfill(len(lo)))
            else:
                assert "[" not in tok and "]" not in tok, tok
                out.append(tok)
            tok = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        tok += ch
    return out


def main():
    nodes, links, node_sys = read_topo(sys.argv[1])
    # expected names: CAs by first word, switches by description; names
    # shared by different systems or by switches become GUIDs
    name = {}
    for g, (t, d) in nodes.items():
        d = d.strip()
        n = d.split()[0] if t != "Switch" and d else d
        name[g] = re.sub(r"[^A-Za-z0-9._-]", "_", n) or "0x%016x" % g
    by = defaultdict(list)
    for g, n in name.items():
        by[n].append(g)
    for n, gs in by.items():
        if len(gs) > 1 and (
            any(nodes[g][0] == "Switch" for g in gs)
            or len({node_sys[g] for g in gs}) > 1
        ):
            for g in gs:
                name[g] = "0x%016x" % g
    switches = {name[g]: g for g, (t, _) in nodes.items() if t == "Switch"}
    assert len(switches) == sum(t == "Switch" for t, _ in nodes.values())

    nodes_of, children, peers, seen = {}, {}, set(), set()
    fabric_top = None
    for line in open(sys.argv[2]):
        line = line.rstrip("\n")
        m = re.match(r"^# link (\S+) port (\d+) - (\S+) port (\d+)$", line)
        if m:
            peers.add(((switches[m.group(1)], int(m.group(2))),
                       (switches[m.group(3)], int(m.group(4)))))
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^SwitchName=([A-Za-z0-9._-]+)((?: (?:Nodes|Switches)=\S+)+)$", line)
        assert m, "bad line: " + line
        sw = m.group(1)
        assert sw not in seen, "switch twice: " + sw
        seen.add(sw)
        for kv in m.group(2).split():
            k, v = kv.split("=", 1)
            (nodes_of if k == "Nodes" else children)[sw] = expand(v)
        if sw == "croute-fabric":
            fabric_top = children[sw]
            continue
        assert sw in switches, "unknown switch " + sw
    assert seen - {"croute-fabric"} == set(switches), "switches missing"

    # hosts: exactly the CAs cabled to each switch
    want = defaultdict(set)
    sw_links = set()
    for (a, pa), (b, pb) in links:
        ta, tb = nodes[a][0], nodes[b][0]
        if ta == "Switch" and tb == "Ca":
            want[name[a]].add(name[b])
        elif tb == "Switch" and ta == "Ca":
            want[name[b]].add(name[a])
        elif ta == tb == "Switch":
            sw_links.add(((a, pa), (b, pb)))
    for sw in switches:
        got = set(nodes_of.get(sw, []))
        assert got == want[sw], "%s: hosts %s, not %s" % (sw, got, want[sw])
        assert len(nodes_of.get(sw, [])) == len(got), sw + ": host twice"
    # switch links: each cable either a parent/child pair or a comment
    pairs = defaultdict(int)
    for (a, _), (b, _) in sw_links:
        pairs[frozenset((name[a], name[b]))] += 1
    for sw, ch in children.items():
        if sw == "croute-fabric":
            continue
        for c in ch:
            assert frozenset((sw, c)) in pairs, "%s-%s not cabled" % (sw, c)
            assert frozenset((c, sw)) not in [
                frozenset((c2, sw)) for c2 in children.get(c, []) if c2 == sw
            ], "%s and %s are each other's child" % (sw, c)
    said = defaultdict(int)
    for sw, ch in children.items():
        for c in ch:
            said[frozenset((sw, c))] += 1
    norm_peers = {(min(a, b), max(a, b)) for a, b in peers}
    assert norm_peers <= sw_links, "a commented link is not a cable"
    for (a, pa), (b, pb) in sw_links:
        key = frozenset((name[a], name[b]))
        assert ((a, pa), (b, pb)) in norm_peers or said[key] == 1, (
            "cable %s/%d - %s/%d not said" % (name[a], pa, name[b], pb))
        assert not (((a, pa), (b, pb)) in norm_peers and said[key]), (
            "cable %s - %s said twice" % (name[a], name[b]))
    if fabric_top is not None:
        assert set(fabric_top) <= set(switches)
    return 0


sys.exit(main())
