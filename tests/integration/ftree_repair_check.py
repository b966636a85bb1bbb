#!/usr/bin/env python3
"""Judge re-routed tables from the outside (test 24_ftree_repair).

  ftree_repair_check.py NET LFTS [OLD_NET OLD_LFTS]

NET is an ibsim net file as ibsm-topo writes it, LFTS a dump_fts-format
table file (ibsm-route --out). Checks, with every switch as a source (the
verifier's own credit-loop check takes CA sources only):
  - every switch reaches every LID of the dump (CA and switch LIDs), no loop;
  - the channel dependency graph of all those paths is acyclic.
With the previous fabric and tables, also: which links were lost; every
changed entry belongs to a switch whose previous path to that LID crossed
a lost link (the set the repair may touch); every entry that pointed at a
lost port changed. Prints "changed N broken B affected A" and exits 1 on
the first failed check.
"""
import re
import sys
from collections import defaultdict, deque


def read_net(path):
    """name -> {port: (peer name, peer port)}, and the set of switch names."""
    ports, switches, cur = defaultdict(dict), set(), None
    for line in open(path):
        m = re.match(r'(Switch|Ca|Hca)\s+\d+\s+"([^"]+)"', line)
        if m:
            cur = m.group(2)
            if m.group(1) == 'Switch':
                switches.add(cur)
            continue
        m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
        if m and cur:
            ports[cur][int(m.group(1))] = (m.group(2), int(m.group(3)))
    return ports, switches


def read_lfts(path):
    """switch name -> {lid: port}; lid -> owner node name; switch -> own LID."""
    tab, owner, own, cur = {}, {}, {}, None
    for line in open(path):
        m = re.match(r'Unicast lids .* Lid (\d+) guid 0x[0-9a-f]+ \((.*)\):', line)
        if m:
            cur = m.group(2)
            tab[cur] = {}
            own[cur] = int(m.group(1))
            owner[int(m.group(1))] = cur
            continue
        m = re.match(r"0x([0-9a-f]+) (\d+) : \(.*: '(.*)'\)", line)
        if m and cur is not None:
            lid = int(m.group(1), 16)
            tab[cur][lid] = int(m.group(2))
            owner.setdefault(lid, m.group(3))
        elif cur is not None:
            m = re.match(r'0x([0-9a-f]+) (\d+) ', line)
            if m:
                tab[cur][int(m.group(1), 16)] = int(m.group(2))
    return tab, owner, own


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_tables(ports, switches, tab, owner, own):
    lids = sorted(owner)
    edges = set()
    for s in switches:
        for lid in lids:
            x, hops = s, 0
            while True:
                p = tab[x].get(lid)
                if p is None:
                    fail(f"{x} has no entry for LID {lid} (from {s})")
                if own.get(x) == lid:
                    if p != 0:
                        fail(f"{x}: own LID {lid} not on port 0")
                    break
                peer = ports[x].get(p)
                if peer is None:
                    fail(f"{x} LID {lid}: port {p} has no link")
                if peer[0] not in switches:
                    if peer[0] != owner[lid]:
                        fail(f"{x} LID {lid}: port {p} leads to {peer[0]}")
                    break
                nxt = peer[0]
                q = tab[nxt].get(lid)
                if q is not None and q in ports[nxt] and ports[nxt][q][0] in switches:
                    edges.add(((x, p), (nxt, q)))
                x, hops = nxt, hops + 1
                if hops > 64:
                    fail(f"loop: {s} to LID {lid}")
    succ, indeg = defaultdict(list), defaultdict(int)
    nodes = set()
    for a, b in edges:
        succ[a].append(b)
        indeg[b] += 1
        nodes.update((a, b))
    queue = deque(n for n in nodes if not indeg[n])
    seen = 0
    while queue:
        n = queue.popleft()
        seen += 1
        for m in succ[n]:
            indeg[m] -= 1
            if not indeg[m]:
                queue.append(m)
    if seen != len(nodes):
        fail(f"credit loop: {len(nodes) - seen} channels on cycles "
             f"(all switch-sourced paths)")
    return len(edges)


def main():
    if len(sys.argv) not in (3, 5):
        print(__doc__)
        sys.exit(2)
    ports, switches = read_net(sys.argv[1])
    tab, owner, own = read_lfts(sys.argv[2])
    nedges = check_tables(ports, switches, tab, owner, own)
    print(f"complete, loop-free, CDG of all switch-sourced paths acyclic "
          f"({nedges} dependencies)")
    if len(sys.argv) == 3:
        return
    oports, _ = read_net(sys.argv[3])
    otab, _, _ = read_lfts(sys.argv[4])
    lost = {(n, p) for n in oports for p in oports[n] if p not in ports.get(n, {})}
    print("lost ports:", " ".join(f"{n}[{p}]" for n, p in sorted(lost)))
    # entries of LIDs that left the fabric are cleared: not counted here
    changed = {(s, lid) for s in tab for lid in set(tab[s]) | set(otab.get(s, {}))
               if tab[s].get(lid) != otab.get(s, {}).get(lid) and lid in owner}
    broken = {(s, lid) for s in otab if s in tab
              for lid, p in otab[s].items() if (s, p) in lost and lid in owner}
    # affected: the previous path from s to lid crossed a lost link
    affected = set()
    for lid in {lid for _, lid in broken}:
        memo = {}
        for s in otab:
            x, path = s, []
            while x in otab and (x, lid) not in memo and len(path) < 64:
                p = otab[x].get(lid)
                path.append(x)
                if p is None or (x, p) in lost or p == 0:
                    memo[(x, lid)] = (x, p) in lost
                    path.pop()
                    break
                peer = oports[x].get(p)
                if peer is None or peer[0] not in otab:
                    memo[(x, lid)] = False
                    path.pop()
                    break
                x = peer[0]
            hit = memo.get((x, lid), False)
            for y in path:
                memo[(y, lid)] = hit
        affected |= {(s, lid) for s in otab if memo.get((s, lid))}
    if not broken <= changed:
        fail(f"{len(broken - changed)} entries on a lost port kept, e.g. "
             f"{sorted(broken - changed)[:3]}")
    # a switch that no switch sent the LID to carried no flow for it: its
    # entry was arbitrary, and the repair may re-choose it for moved flow
    into = defaultdict(set)
    for s in otab:
        for lid, p in otab[s].items():
            peer = oports[s].get(p)
            if peer and peer[0] in otab:
                into[peer[0]].add(lid)
    free = {(s, lid) for s, lid in changed if lid not in into[s]}
    if not changed <= affected | free:
        bad = changed - affected - free
        fail(f"{len(bad)} changed entries neither crossed a lost link nor "
             f"were free, e.g. {sorted(bad)[:3]}")
    print(f"changed {len(changed)} broken {len(broken)} affected "
          f"{len(affected)} free {len(changed & free - affected)}")


if __name__ == "__main__":
    main()
