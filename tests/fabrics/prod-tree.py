#!/usr/bin/env python3
# Writes prod-tree.topo (ibnetdiscover format): an irregular production
# two-level tree, as the cr-auto issue describes it. 11 switches of 36
# ports: four spines; six leaves with 89 hosts in all, on 4xDDR (older
# nodes) and 4xQDR links; leaf-6 is wired to spine-1 and spine-2 only;
# "bridge", a switch without hosts, hangs between spine-3 and spine-4.
# Switch-to-switch links are 4xQDR. Usage: prod-tree.py > prod-tree.topo
import sys

SW_GUID = 0x0008F10500200000
CA_GUID = 0x0002C90300450000

# leaf name: (hosts, host rate, {spine: links}, first uplink port)
LEAVES = [
    ("leaf-1", 16, "4xDDR", {1: 2, 2: 2, 3: 2, 4: 2}, 19),
    ("leaf-2", 16, "4xDDR", {1: 2, 2: 2, 3: 2, 4: 2}, 19),
    ("leaf-3", 16, "4xQDR", {1: 2, 2: 2, 3: 2, 4: 2}, 19),
    ("leaf-4", 16, "4xQDR", {1: 2, 2: 2, 3: 2, 4: 2}, 19),
    ("leaf-5", 14, "4xQDR", {1: 2, 2: 2, 3: 2, 4: 2}, 19),
    ("leaf-6", 11, "4xDDR", {1: 4, 2: 4}, 19),
]
SPINES = ["spine-1", "spine-2", "spine-3", "spine-4"]
BRIDGE = ("bridge", {3: 2, 4: 2})


def main():
    switches = {}  # name -> (guid, {port: (remote id, rport, rname, rate)})
    names = SPINES + [l[0] for l in LEAVES] + [BRIDGE[0]]
    for i, n in enumerate(names):
        switches[n] = (SW_GUID + i, {})
    next_free = {n: 1 for n in SPINES}
    cas = []
    hostno = 1

    def sid(n):
        return "S-%016x" % switches[n][0]

    def link(a, pa, b, pb, rate="4xQDR"):
        switches[a][1][pa] = (sid(b), pb, b, rate)
        switches[b][1][pb] = (sid(a), pa, a, rate)

    for name, hosts, rate, wiring, up in LEAVES:
        ports = switches[name][1]
        for h in range(hosts):
            guid = CA_GUID + 2 * (hostno - 1)
            desc = "n%03d HCA-1" % hostno
            cid = "H-%016x" % guid
            ports[h + 1] = (cid, 1, desc, rate, guid + 1)
            cas.append((guid, cid, desc, sid(name), h + 1, name, rate))
            hostno += 1
        p = up
        for s, k in sorted(wiring.items()):
            for _ in range(k):
                spine = SPINES[s - 1]
                link(name, p, spine, next_free[spine])
                next_free[spine] += 1
                p += 1
    name, wiring = BRIDGE
    p = 1
    for s, k in sorted(wiring.items()):
        for _ in range(k):
            spine = SPINES[s - 1]
            link(name, p, spine, next_free[spine])
            next_free[spine] += 1
            p += 1

    out = sys.stdout
    out.write("#\n# Topology file: tests/fabrics/prod-tree.py, an irregular"
              " production two-level tree\n#\n\n")
    for n in names:
        guid, ports = switches[n]
        out.write("sysimgguid=0x%x\nswitchguid=0x%x(%x)\n" % (guid, guid, guid))
        out.write('Switch\t36 "S-%016x"\t\t# "%s" base port 0 lid 0 lmc 0\n'
                  % (guid, n))
        for p in sorted(ports):
            e = ports[p]
            if len(e) == 5:
                out.write('[%d]\t"%s"[%d](%x) \t\t# "%s" lid 0 %s\n'
                          % (p, e[0], e[1], e[4], e[2], e[3]))
            else:
                out.write('[%d]\t"%s"[%d]\t\t# "%s" lid 0 %s\n'
                          % (p, e[0], e[1], e[2], e[3]))
        out.write("\n")
    for guid, cid, desc, swid, swp, swname, rate in cas:
        out.write("sysimgguid=0x%x\ncaguid=0x%x\n" % (guid, guid))
        out.write('Ca\t1 "%s"\t\t# "%s"\n' % (cid, desc))
        out.write('[1](%x) \t"%s"[%d]\t\t# lid 0 lmc 0 "%s" lid 0 %s\n\n'
                  % (guid + 1, swid, swp, swname, rate))


main()
