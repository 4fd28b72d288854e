#!/usr/bin/env python3
# The share of host pairs whose destination's LIDs take pairwise distinct
# paths, from an ibnetdiscover topology and an opensm-lfts.dump alone: the
# reference tests/cli/lmc.sh holds croute compare --lmc's column to.
# usage: lmc_ref.py TOPO LFTS  -> prints "PAIRS DISTINCT"
import re
import sys

node_re = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"([SHR])-([0-9a-fA-F]+)"')
port_re = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"[SHR]-([0-9a-fA-F]+)"\[(\d+)\]')


def read_topo(path):
    link = {}  # (node guid, port) -> (node guid, port)
    kind = {}  # node guid -> 'S' | 'H' | 'R'
    pguid = {}  # CA port guid -> (node guid, port)
    cur = None
    with open(path) as f:
        for line in f:
            m = node_re.match(line)
            if m:
                cur = int(m.group(3), 16)
                kind[cur] = m.group(2)
                continue
            m = port_re.match(line)
            if m and cur is not None:
                p = int(m.group(1))
                link[(cur, p)] = (int(m.group(3), 16), int(m.group(4)))
                if m.group(2):
                    pguid[int(m.group(2), 16)] = (cur, p)
    return link, kind, pguid


def read_lfts(path):
    lft = {}  # switch guid -> {lid: port}
    lids = {}  # CA port guid -> [lids]
    sw = None
    head = re.compile(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)')
    row = re.compile(r'^(0x[0-9a-fA-F]+) (\d+) # (.*)$')
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                sw = int(m.group(1), 16)
                lft[sw] = {}
                continue
            m = row.match(line)
            if not m or sw is None:
                continue
            lid, port = int(m.group(1), 16), int(m.group(2))
            lft[sw][lid] = port
            c = re.search(r'Channel Adapter portguid (0x[0-9a-fA-F]+)', m.group(3))
            if c:
                g = int(c.group(1), 16)
                lids.setdefault(g, set()).add(lid)
    return lft, {g: sorted(v) for g, v in lids.items()}


def main():
    link, kind, pguid = read_topo(sys.argv[1])
    lft, lids = read_lfts(sys.argv[2])
    ports = [g for g in sorted(lids) if g in pguid and
             link.get(pguid[g], (None,))[0] in kind and
             kind[link[pguid[g]][0]] == 'S']
    pairs = distinct = 0
    for s in ports:
        sw = link[pguid[s]][0]
        for d in ports:
            if d == s:
                continue
            pairs += 1
            paths = []
            for lid in lids[d]:
                node, seq, ok = sw, [], True
                while kind.get(node) == 'S' and ok:
                    p = lft.get(node, {}).get(lid)
                    if p is None or p in (0, 255) or len(seq) > 64 or \
                            (node, p) not in link:
                        ok = False
                        break
                    seq.append(p)
                    node, inport = link[(node, p)]
                if ok and (node, inport) == pguid[d]:
                    paths.append(tuple(seq))
                else:
                    ok = False
            if ok and len(set(paths)) == len(paths):
                distinct += 1
    print(pairs, distinct)


main()
