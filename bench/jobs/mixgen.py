#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A job mix as a busy machine has it, as a croute jobs file.

usage: mixgen.py TOPO SEED > jobs.txt

The hosts are the topology's CAs (the first word of their descriptions)
in natural order, the order Slurm's node list has them. Jobs arrive and
leave for EVENTS steps (each running job leaves with probability
0.05 a step, then up to 4 arrive while they fit); each arrival is placed by first fit (the first
free hosts in that order, contiguous or not), so that after many
departures allocations are fragmented. Sizes are skewed to small: half
are powers of two up to 32, a third uniform from 2 to 24, the rest one
host or large (an eighth to a half of the machine). The mix is the jobs
running at the end.
"""
import random
import re
import sys

EVENTS = 400


def hosts_of(topo):
    names = []
    for line in open(topo):
        if re.match(r'^(Ca|Hca)\s', line):
            m = re.search(r'#\s*"([^"]*)"', line)
            if m and m.group(1).split():
                name = m.group(1).split()[0]
                if name not in names:
                    names.append(name)
    key = lambda s: [int(t) if t.isdigit() else t
                     for t in re.split(r'(\d+)', s)]
    return sorted(names, key=key)


def size_of(rng, n):
    r = rng.random()
    if r < 0.5:
        return min(n, 2 ** rng.randint(1, 5))
    if r < 0.83:
        return min(n, rng.randint(2, 24))
    if r < 0.9:
        return 1
    return rng.randint(max(2, n // 8), max(2, n // 2))


def compress(names):
    """Slurm's hostlist compression of names that share a prefix."""
    groups, order = {}, []
    for s in names:
        m = re.match(r'^(.*?)(\d+)$', s)
        k = (m.group(1), len(m.group(2))) if m else (s, 0)
        if k not in groups:
            groups[k] = []
            order.append(k)
        groups[k].append(int(m.group(2)) if m else None)
    out = []
    for k in order:
        pre, w = k
        if not w:
            out.append(pre)
            continue
        nums, parts, i = groups[k], [], 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            a = '%0*d' % (w, nums[i])
            parts.append(a if i == j else a + '-' + '%0*d' % (w, nums[j]))
            i = j + 1
        if len(nums) == 1:
            out.append(pre + parts[0])
        else:
            out.append(pre + '[' + ','.join(parts) + ']')
    return ','.join(out)


def main():
    topo, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    hosts = hosts_of(topo)
    n = len(hosts)
    free = [True] * n
    running = {}
    next_id = 1000 * seed
    for _ in range(EVENTS):
        for jid in sorted(running):
            if rng.random() < 0.05:
                for h in running.pop(jid):
                    free[h] = True
        for _ in range(4):
            size = size_of(rng, n)
            if size > sum(free):
                break
            got = [h for h in range(n) if free[h]][:size]
            for h in got:
                free[h] = False
            next_id += 1
            running[next_id] = got
    print('# mixgen.py seed %d: %d jobs on %d of %d hosts'
          % (seed, len(running), n - sum(free), n))
    for jid in sorted(running):
        print(jid, compress([hosts[h] for h in running[jid]]))


main()
