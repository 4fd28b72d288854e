#!/usr/bin/env python3
# How much better balance alone could make a routing on minimal paths
# for a job whose host order is not known: a model, not a bound.
#
# On a random host order a phase of shift is close to a random
# permutation. A destination-routed flow then shares each switch-to-switch
# channel of its path with a number of other flows that is close to
# Poisson distributed, with mean L_c: the channel's route count under
# uniform all-to-all divided by hosts - 1. The model scores a flow as the
# expectation of min(1, min over its channels of
# (rate_c / its injection rate) / (1 + X_c)), X_c ~ Poisson(L_c) for each
# channel independently, and a routing as the mean over every host pair.
#
# "balanced" is the model on the most even loads minimal paths allow:
# every switch pair's flows split over all its minimal paths so that the
# sum over channels of L_c^2 / rate_c is least (Frank-Wolfe), which no
# LFT, one path per destination, can better on balance. Longer paths only
# add load. The gap "balanced / model - 1" is what balance could still
# give the routing. The model leaves out the penalty model and the spare
# capacity max-min fairness hands on, and takes channels as independent,
# so it is blind to structure: a channel that carries one destination's
# flows alone never has two on a permutation, whatever its load. Check
# it against `croute estimate --orders` (MC_ORDERS below does, with plain
# max-min rates on sampled shift phases).
#
# usage: bench/auto/ceiling.py TOPO LFTS...
#   TOPO  ibnetdiscover format, as `croute gen` writes it
#   LFTS  opensm-lfts.dump format (croute route -o, OpenSM's dump); each
#         line's port GUID ties the LID to a port, so no guid2lid is needed
# Environment: MC_ORDERS (0: off) random host orders of MC_PHASES (16)
# sampled phases each, scored with max-min rates (seeded: the same figures
# every run); ROUNDS (200) of Frank-Wolfe. Python 3, standard library only.
# It lists every minimal path of every switch pair: meant for the trees,
# random and dragonfly-like fabrics of bench/auto, not for large tori,
# whose pairs have thousands.
import math
import os
import random
import re
import sys

RATES = {'SDR': 2.5, 'DDR': 5, 'QDR': 10, 'FDR10': 10, 'FDR': 14.0625,
         'EDR': 25, 'HDR': 50, 'NDR': 100, 'XDR': 200}
KMAX = 64


def link_rate(text):
    m = re.search(r'(\d+)x([A-Z0-9]+)\s*$', text.strip())
    if not m or m.group(2) not in RATES:
        return None
    return int(m.group(1)) * RATES[m.group(2)]


def read_topo(name):
    """(node, port) -> (node, port, rate); port GUID -> (node, port)."""
    link, port_of, is_switch, desc = {}, {}, {}, {}
    node = None
    for no, line in enumerate(open(name), 1):
        m = re.match(r'^(Switch|Ca|Hca)\s+\d+\s+"([^"]+)"\s*#\s*"([^"]*)"',
                     line)
        if m:
            node = m.group(2)
            is_switch[node] = m.group(1) == 'Switch'
            desc[node] = m.group(3)
            if is_switch[node]:
                port_of[int(node[2:], 16)] = (node, 0)
            continue
        m = re.match(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([^"]+)"'
                     r'\[(\d+)\](?:\(([0-9a-fA-F]+)\))?(.*)$', line)
        if m and node:
            rate = link_rate(m.group(6))
            if rate is None:
                raise ValueError('%s:%d: no link width and speed' %
                                 (name, no))
            port = int(m.group(1))
            if m.group(2):
                port_of[int(m.group(2), 16)] = (node, port)
            link[(node, port)] = (m.group(3), int(m.group(4)), rate)
    return link, port_of, is_switch, desc


def read_lfts(name):
    """switch GUID -> {LID: port}; LID -> port GUID."""
    lft, guid_of = {}, {}
    rows = None
    for line in open(name):
        m = re.match(r'^Unicast lids .* guid 0x([0-9a-fA-F]+)', line)
        if m:
            rows = lft.setdefault(int(m.group(1), 16), {})
            continue
        m = re.match(r'^0x([0-9a-fA-F]+)\s+(\d+)\s+#.*portguid '
                     r'0x([0-9a-fA-F]+)', line)
        if m and rows is not None:
            lid = int(m.group(1), 16)
            rows[lid] = int(m.group(2))
            guid_of[lid] = int(m.group(3), 16)
    return lft, guid_of


def natural(s):
    return [int(t) if t.isdigit() else t for t in re.split(r'(\d+)', s)]


def trace(link, lft, lid, src, dst):
    """Channels (node, out port) from src's port to dst, or None."""
    path = [src]
    sw = link[src][0]
    for _ in range(64):
        port = lft.get(int(sw[2:], 16), {}).get(lid, 255)
        if port in (0, 255) or (sw, port) not in link:
            return None
        path.append((sw, port))
        far = link[(sw, port)]
        if (far[0], far[1]) == dst:
            return path
        sw = far[0]
    return None


def poisson_cdf(lam):
    out, term, acc = [], math.exp(-lam), 0.0
    for k in range(KMAX + 1):
        acc += term
        out.append(min(acc, 1.0))
        term *= lam / (k + 1)
    return out


def expected_rate(cap, chans):
    """E[min(cap, min_c a_c / (1 + X_c))], chans: [(a_c, L_c)]."""
    cdfs = [(a, poisson_cdf(lam)) for a, lam in chans]
    # P(rate >= r) steps at the values a / (1 + k) and at cap
    steps = sorted({cap} | {a / (1 + k) for a, _ in chans
                            for k in range(KMAX) if a / (1 + k) < cap},
                   reverse=True)
    total = 0.0
    for i, r in enumerate(steps):
        lower = steps[i + 1] if i + 1 < len(steps) else 0.0
        p = 1.0
        for a, cdf in cdfs:
            k = int(math.floor(a / r - 1 + 1e-9))
            p *= cdf[min(k, KMAX)] if k >= 0 else 0.0
        total += p * (r - lower)
    return total


def maxmin(flows, cap):
    users = {}
    for i, f in enumerate(flows):
        for c in f:
            users.setdefault(c, []).append(i)
    left = {c: cap[c] for c in users}
    active = {c: len(u) for c, u in users.items()}
    rate = [None] * len(flows)
    todo = len(flows)
    while todo:
        share, chan = min((left[c] / k, c) for c, k in active.items() if k)
        for i in users[chan]:
            if rate[i] is None:
                rate[i] = share
                todo -= 1
                for c in flows[i]:
                    left[c] -= share
                    active[c] -= 1
    return rate


def min_paths(link, is_switch, switches):
    """(S, D) -> minimal channel paths between switches S != D."""
    nbr = {s: [] for s in is_switch if is_switch[s]}
    for (node, port), far in link.items():
        if is_switch[node] and is_switch[far[0]]:
            nbr[node].append(((node, port), far[0]))
    out = {}
    for dst in switches:
        dist = {dst: 0}
        todo = [dst]
        for sw in todo:
            for _, far in nbr[sw]:
                if far not in dist:
                    dist[far] = dist[sw] + 1
                    todo.append(far)
        for src in switches:
            if src == dst:
                continue
            if src not in dist:
                raise ValueError('no path between switches %s and %s' %
                                 (src, dst))
            found = []

            def walk(sw, acc):
                if sw == dst:
                    found.append(tuple(acc))
                    return
                for chan, far in nbr[sw]:
                    if dist.get(far, -1) == dist[sw] - 1:
                        walk(far, acc + [chan])
            walk(src, [])
            out[(src, dst)] = found
    return out


def balance(demand, paths, rate, rounds):
    """Split each switch pair's demand over its minimal paths so that the
    sum of load^2 / rate over channels is least (Frank-Wolfe): the best
    balance any routing on minimal paths could reach, splitting flows."""
    split = {k: [1.0 / len(paths[k])] * len(paths[k]) for k in demand}

    def loads():
        lam = {}
        for k, w in split.items():
            for p, x in zip(paths[k], w):
                for c in p:
                    lam[c] = lam.get(c, 0.0) + demand[k] * x
        return lam
    for _ in range(rounds):
        lam = loads()
        # all or nothing on the cheapest path at the gradient
        step = {}
        for k in demand:
            cost = [sum(2 * lam[c] / rate[c] for c in p) for p in paths[k]]
            step[k] = cost.index(min(cost))
        dir_ = {}
        for k, i in step.items():
            for j, p in enumerate(paths[k]):
                d = demand[k] * ((1.0 if j == i else 0.0) - split[k][j])
                for c in p:
                    dir_[c] = dir_.get(c, 0.0) + d
        num = sum(lam.get(c, 0.0) * d / rate[c] for c, d in dir_.items())
        den = sum(d * d / rate[c] for c, d in dir_.items())
        if den <= 0 or num >= 0:
            break
        t = min(1.0, -num / den)
        for k, i in step.items():
            split[k] = [(1 - t) * x + (t if j == i else 0.0)
                        for j, x in enumerate(split[k])]
    return split, loads()


def flow_rate(memo, cap, chans):
    key = (cap, tuple(sorted((a, round(x, 5)) for a, x in chans)))
    if key not in memo:
        memo[key] = expected_rate(cap, chans)
    return memo[key]


def host_list(topo):
    link, port_of, is_switch, desc = topo
    return sorted((p for p in port_of.values() if not is_switch[p[0]]),
                  key=lambda p: natural(desc[p[0]]) + [p[1]])


def ideal(topo, rounds):
    """The model on the balanced split of every switch pair's demand."""
    link, port_of, is_switch, desc = topo
    hosts = host_list(topo)
    n = len(hosts)
    home = {h: link[h][0] for h in hosts}
    count = {}
    for h in hosts:
        count[home[h]] = count.get(home[h], 0) + 1
    paths = min_paths(link, is_switch, list(count))
    demand = {(a, b): count[a] * count[b] / (n - 1)
              for a in count for b in count if a != b}
    rate = {c: r for c, (_, _, r) in link.items()}
    split, lam = balance(demand, paths, rate, rounds)
    memo = {}
    total = 0.0
    for s in hosts:
        inj = link[s][2]
        for d in hosts:
            if s == d:
                continue
            cap = min(1.0, link[d][2] / inj)
            key = (home[s], home[d])
            if key[0] == key[1]:
                total += cap
                continue
            for p, w in zip(paths[key], split[key]):
                if w > 1e-9:
                    total += w * flow_rate(memo, cap, [
                        (rate[c] / inj, max(0.0, lam[c] - w / (n - 1)))
                        for c in p])
    return total / (n * (n - 1))


def score(topo, name, best, mc_orders, mc_phases):
    link, port_of, is_switch, desc = topo
    lft, guid_of = read_lfts(name)
    if not lft:
        raise ValueError('%s: no "Unicast lids" tables' % name)
    lid_of = {}
    for lid, guid in sorted(guid_of.items()):
        if guid in port_of:
            lid_of.setdefault(port_of[guid], lid)
    hosts = host_list(topo)
    n = len(hosts)
    paths, load = {}, {}
    for s in hosts:
        for d in hosts:
            if s == d:
                continue
            p = trace(link, lft, lid_of.get(d), s, d)
            if p is None:
                sys.exit('%s: no path from %s to %s' %
                         (name, desc[s[0]], desc[d[0]]))
            paths[(s, d)] = p
            for c in p[1:-1]:
                load[c] = load.get(c, 0) + 1
    isl = [c for c in link if is_switch[c[0]] and is_switch[link[c][0]]]
    lam = {c: load.get(c, 0) / (n - 1) for c in isl}
    unit = [lam[c] / link[c][2] for c in isl]
    mean_u = sum(unit) / len(unit)
    model = hops = 0.0
    memo = {}
    for (s, d), p in paths.items():
        inj = link[s][2]
        hops += len(p) - 2
        # the flow itself is on each of its channels
        model += flow_rate(memo, min(1.0, link[d][2] / inj), [
            (link[c][2] / inj, max(0.0, lam[c] - 1.0 / (n - 1)))
            for c in p[1:-1]])
    model /= len(paths)
    line = ('%s: hops %.3f max load/rate %.2f x mean | model %.4f, '
            'balanced %.4f (%+.2f%%)' %
            (name, hops / len(paths), max(unit) / mean_u, model, best,
             100 * (best / model - 1)))
    if mc_orders:
        rng = random.Random(1)
        cap = {c: link[c][2] for c in link}
        tot = cnt = 0
        for _ in range(mc_orders):
            order = hosts[:]
            rng.shuffle(order)
            for k in rng.sample(range(1, n), min(mc_phases, n - 1)):
                flows = [paths[(order[i], order[(i + k) % n])]
                         for i in range(n)]
                for f, r in zip(flows, maxmin(flows, cap)):
                    tot += r / cap[f[0]]
                    cnt += 1
        line += ' | max-min %.4f' % (tot / cnt)
    print(line, flush=True)


def main():
    if len(sys.argv) < 3:
        print('usage: ceiling.py TOPO LFTS...', file=sys.stderr)
        sys.exit(2)
    try:
        topo = read_topo(sys.argv[1])
        if not host_list(topo):
            raise ValueError('%s: no hosts' % sys.argv[1])
        best = ideal(topo, int(os.environ.get('ROUNDS', '200')))
        for name in sys.argv[2:]:
            score(topo, name, best, int(os.environ.get('MC_ORDERS', '0')),
                  int(os.environ.get('MC_PHASES', '16')))
    except (OSError, ValueError) as err:
        print('ceiling.py: %s' % err, file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main()
