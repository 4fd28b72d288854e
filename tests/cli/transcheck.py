#!/usr/bin/env python3
# An independent oracle for `croute check --transition` on one VL: reads
# an ibnetdiscover file (switch-to-switch cables only) and two
# opensm-lfts.dump files, and prints
#   changed N
#   loops LID LID ...     (LIDs toward which old and new next hops cycle)
#   credit yes|no         (dependencies of every mix of entries cycle)
# Plain Python, written apart from the C code, on the rule alone: a
# packet may take either table's entry at every switch it crosses.
import re
import sys


def read_topo(path):
    cables = {}  # (switch guid, port) -> (switch guid, port)
    sw = None
    for line in open(path):
        m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-fA-F]+)"', line)
        if m:
            sw = int(m.group(1), 16)
            continue
        if re.match(r'^(Ca|Rt)\s', line):
            sw = None
            continue
        m = re.match(r'^\[(\d+)\]\s+"S-([0-9a-fA-F]+)"\[(\d+)\]', line)
        if m and sw is not None:
            cables[(sw, int(m.group(1)))] = (int(m.group(2), 16),
                                            int(m.group(3)))
    return cables


def read_lfts(path):
    lft = {}  # switch guid -> {lid: port}
    cur = None
    for line in open(path):
        m = re.match(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)', line)
        if m:
            cur = lft.setdefault(int(m.group(1), 16), {})
            continue
        m = re.match(r'^(0x[0-9a-fA-F]+)\s+(\d+)', line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return lft


def has_cycle(succ):
    colour = {}
    for root in succ:
        if colour.get(root):
            continue
        stack = [(root, iter(succ[root]))]
        colour[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
            elif colour.get(nxt) == 1:
                return True
            elif not colour.get(nxt):
                colour[nxt] = 1
                stack.append((nxt, iter(succ.get(nxt, ()))))
    return False


def main():
    cables = read_topo(sys.argv[1])
    tables = [read_lfts(sys.argv[2]), read_lfts(sys.argv[3])]
    switches = sorted(set(tables[0]) | set(tables[1]))
    lids = sorted({lid for t in tables for s in t.values() for lid in s})

    def ports(sw, lid):
        return {t.get(sw, {}).get(lid) for t in tables} - {None, 255, 0}

    changed = sum(1 for sw in switches for lid in lids
                  if tables[0].get(sw, {}).get(lid)
                  != tables[1].get(sw, {}).get(lid))
    loops = []
    deps = {}
    for lid in lids:
        succ = {}
        for sw in switches:
            succ[sw] = [cables[(sw, p)][0] for p in ports(sw, lid)
                        if (sw, p) in cables]
            for p in ports(sw, lid):
                if (sw, p) not in cables:
                    continue
                m = cables[(sw, p)][0]
                for q in ports(m, lid):
                    deps.setdefault((sw, p), set()).add((m, q))
        if has_cycle(succ):
            loops.append(lid)
    print("changed", changed)
    print("loops", *loops)
    print("credit", "yes" if has_cycle(deps) else "no")


main()
