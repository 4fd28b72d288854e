#!/usr/bin/env python3
"""Cuts named cables, or removes whole switches, out of an ibnetdiscover
topology (as croute gen writes it). Each CUT is "A,B": every cable
between the switches described A and B goes (both port lines); each
--drop NAME removes switch NAME with its cables and the CAs cabled to it
only. Names what it cut on stderr; status 2 when a name matches nothing.
  cut-named.py [--drop g3-spine-0]... in.topo [g3-leaf-0,g3-spine-1]...
"""
import argparse
import re
import sys

PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([^"]+)"\[(\d+)\]')
NODE = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"([^"]+)"\s+#\s+"([^"]*)"')


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--drop', action='append', default=[])
    ap.add_argument('topo')
    ap.add_argument('cut', nargs='*')
    a = ap.parse_args()
    try:
        with open(a.topo) as fp:
            text = fp.read()
    except OSError as e:
        print(f'cut-named.py: {a.topo}: {e.strerror}', file=sys.stderr)
        return 2
    blocks = text.split('\n\n')
    name = {}  # node id -> description
    links = {}  # node id -> far node ids
    for b in blocks:
        cur = None
        for ln in b.split('\n'):
            m = NODE.match(ln)
            if m:
                cur = m.group(2)
                name[cur] = m.group(3)
                links[cur] = []
            elif cur:
                p = PORT.match(ln)
                if p:
                    links[cur].append(p.group(2))
    by_name = {v: k for k, v in name.items()}
    pairs = set()
    for c in a.cut:
        x, _, y = c.partition(',')
        if x not in by_name or y not in by_name or \
                by_name[y] not in links[by_name[x]]:
            print(f'cut-named.py: {a.topo}: no cable {c}', file=sys.stderr)
            return 2
        pairs.add(frozenset((by_name[x], by_name[y])))
        print(f'cut {x} - {y}', file=sys.stderr)
    gone = set()
    for d in a.drop:
        if d not in by_name:
            print(f'cut-named.py: {a.topo}: no switch {d}', file=sys.stderr)
            return 2
        s = by_name[d]
        gone.add(s)
        gone.update(n for n in links[s] if not n.startswith('S-') and
                    all(t == s for t in links[n]))
        print(f'drop {d}', file=sys.stderr)
    out = []
    for b in blocks:
        cur = None
        keep = []
        for ln in b.split('\n'):
            m = NODE.match(ln)
            if m:
                cur = m.group(2)
            p = PORT.match(ln)
            if p and cur and (p.group(2) in gone or
                              frozenset((cur, p.group(2))) in pairs):
                continue
            keep.append(ln)
        if cur in gone:
            continue
        out.append('\n'.join(keep))
    sys.stdout.write('\n\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
