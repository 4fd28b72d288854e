#!/usr/bin/env python3
"""Cuts COUNT switch-to-switch cables, drawn at random with SEED, out of an
ibnetdiscover topology (as croute gen writes it), keeping the switches
connected: a draw that would split them is drawn again. Both port lines
of each cut cable go. Names the cut cables on stderr, one a line.
  cut-random.py --count 3 --seed 7 [--kind any|global|local] in.topo > out.topo
"global" draws spine-to-spine cables between groups, "local" leaf-to-spine
ones, "any" both (switch names as croute gen writes dragonflies+: gN-...).
--tear N first tears N groups drawn at random: every leaf (a switch with
CAs) of each loses one cable to a spine of its group, drawn at random, so
that no leaf there reaches all the spines; COUNT cables more follow.
"""
import argparse
import random
import re
import sys

PORT = re.compile(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]')
NODE = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"([^"]+)"\s+#\s+"([^"]*)"')


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--count', type=int, required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--kind', default='any',
                    choices=('any', 'global', 'local'))
    ap.add_argument('--tear', type=int, default=0)
    ap.add_argument('topo')
    a = ap.parse_args()
    try:
        with open(a.topo) as fp:
            lines = fp.read().split('\n')
    except OSError as e:
        print(f'cut-random.py: {a.topo}: {e.strerror}', file=sys.stderr)
        return 2
    desc, kind, cables, leaves = {}, {}, set(), set()
    cur = None
    for ln in lines:
        m = NODE.match(ln)
        if m:
            cur = m.group(2)
            kind[cur] = m.group(1)
            desc[cur] = m.group(3)
            continue
        if not ln.strip():
            cur = None
            continue
        m = PORT.match(ln)
        if m and cur and kind.get(cur) == 'Switch':
            far = m.group(2)
            if far.startswith('H-'):
                leaves.add(cur)
            if far.startswith('S-'):
                a_end = (cur, int(m.group(1)))
                b_end = (far, int(m.group(3)))
                cables.add(tuple(sorted((a_end, b_end))))

    def group(n):
        return desc[n].split('-')[0]

    def ok(c):
        (x, _), (y, _) = c
        glob = group(x) != group(y)
        return a.kind == 'any' or (a.kind == 'global') == glob

    pool = sorted(c for c in cables if ok(c))
    rng = random.Random(a.seed)
    switches = sorted(n for n in kind if kind[n] == 'Switch')

    def connected(cut):
        adj = {s: [] for s in switches}
        for c in cables:
            if c not in cut:
                (x, _), (y, _) = c
                adj[x].append(y)
                adj[y].append(x)
        seen, todo = {switches[0]}, [switches[0]]
        while todo:
            for t in adj[todo.pop()]:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return len(seen) == len(switches)

    cut = set()
    groups = sorted({group(n) for n in leaves})
    for g in rng.sample(groups, min(a.tear, len(groups))):
        for lf in sorted(n for n in leaves if group(n) == g):
            mine = [c for c in sorted(cables) if c not in cut and
                    lf in (c[0][0], c[1][0]) and
                    group(c[0][0]) == group(c[1][0]) and
                    connected(cut | {c})]
            if not mine:
                print(f'cut-random.py: {a.topo}: cannot tear {g}',
                      file=sys.stderr)
                return 2
            cut.add(rng.choice(mine))
    torn = len(cut)
    for _ in range(100 * a.count + 100):
        if len(cut) == a.count + torn or len(cut) == len(pool) + torn:
            break
        c = rng.choice(pool)
        if c in cut or not connected(cut | {c}):
            continue
        cut.add(c)
    if len(cut) < a.count + torn:
        print(f'cut-random.py: {a.topo}: cannot cut {a.count} cables '
              'and keep the switches connected', file=sys.stderr)
        return 2
    drop = set()
    for c in sorted(cut):
        (x, px), (y, py) = c
        drop.add((x, px))
        drop.add((y, py))
        print(f'cut {desc[x]}[{px}] - {desc[y]}[{py}]', file=sys.stderr)
    cur = None
    out = []
    for ln in lines:
        m = NODE.match(ln)
        if m:
            cur = m.group(2)
        elif not ln.strip():
            cur = None
        p = PORT.match(ln)
        if p and cur and (cur, int(p.group(1))) in drop:
            continue
        out.append(ln)
    sys.stdout.write('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
