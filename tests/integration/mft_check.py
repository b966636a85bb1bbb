#!/usr/bin/env python3
"""Judge multicast forwarding tables as the switches hold them.

  mft_check.py IBND DUMP_FTS_M MLID MEMBER_DESC...

IBND is ibnetdiscover output, DUMP_FTS_M is `dump_fts -M` output from the
same run, MLID the group (0xc000), MEMBER_DESC the node descriptions of the
CAs that joined it as full members. For that MLID the masks must form a
tree over the switches (every masked switch-switch port masked at both ends,
connected, edges = switches - 1: no loop, no dead end) that reaches every
member's CA port. Prints one line, exits 1 on any fault."""
import re, sys

def parse_ibnd(path):
    sw, links, ca_of = {}, [], {}
    cur = None
    for line in open(path):
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([SH])-([0-9a-f]+)"\s+#\s+"([^"]*)"', line)
        if m:
            cur = (m.group(1), int(m.group(3), 16), m.group(4))
            if cur[0] == "Switch":
                sw[cur[1]] = cur[2]
            continue
        m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([SH])-([0-9a-f]+)"\[(\d+)\]', line)
        if m and cur:
            peer = int(m.group(3), 16)
            if cur[0] == "Switch":
                links.append((cur[1], int(m.group(1)), peer, int(m.group(4)), m.group(2)))
            else:
                ca_of.setdefault(cur[2], []).append((peer, int(m.group(4))))
    return sw, links, ca_of

def parse_mfts(path, mlid):
    masks, guid, cols = {}, None, None
    for line in open(path):
        m = re.search(r"guid (0x[0-9a-fA-F]+)", line)
        if line.startswith("Multicast mlids") and m:
            guid, cols = int(m.group(1), 16), None
            masks[guid] = set()
            continue
        if line.lstrip().startswith("Ports:"):
            start = line.index("Ports:") + len("Ports:")
            cols = [i for i in range(start, len(line)) if line[i].isdigit()]
            continue
        m = re.match(r"^(0x[0-9a-fA-F]+)", line)
        if m and guid is not None and cols and int(m.group(1), 16) == mlid:
            masks[guid] = {p for p, c in enumerate(cols) if c < len(line) and line[c] == "x"}
    return masks

def main():
    ibnd, fts, mlid = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
    members = sys.argv[4:]
    sw, links, ca_of = parse_ibnd(ibnd)
    masks = parse_mfts(fts, mlid)
    bad = []
    missing = [g for g in sw if g not in masks]
    if missing:
        bad.append(f"{len(missing)} switches missing from dump_fts -M")
    edges, nodes = set(), {g for g, m in masks.items() if m}
    for a, pa, b, pb, kind in links:
        if kind != "S":
            continue
        ina, inb = pa in masks.get(a, ()), pb in masks.get(b, ())
        if ina != inb:
            bad.append(f"half edge {sw[a]}[{pa}] - {sw[b]}[{pb}]")
        elif ina and (b, pb, a, pa) not in edges:
            edges.add((a, pa, b, pb))
    for m in members:
        if m not in ca_of:
            bad.append(f"member {m} not in ibnetdiscover")
            continue
        s, p = ca_of[m][0]
        if p not in masks.get(s, ()):
            bad.append(f"member {m}: {sw.get(s)}[{p}] not in the mask")
    # connected and acyclic: |E| = |V| - 1 and one component
    adj = {n: set() for n in nodes}
    for a, pa, b, pb in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    if nodes:
        seen, todo = set(), [next(iter(nodes))]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(adj.get(n, ()))
        if seen != nodes:
            bad.append(f"not connected: {len(seen)} of {len(nodes)} switches reachable")
        if len(edges) != len(nodes) - 1:
            bad.append(f"not a tree: {len(edges)} links for {len(nodes)} switches")
    elif members:
        bad.append("no switch forwards the group")
    for b in bad[:10]:
        print("MFT FAULT:", b)
    print(f"mft_check MLID {mlid:#x}: {len(nodes)} switches, {len(edges)} links, {len(members)} members, {len(bad)} faults")
    return 1 if bad else 0

sys.exit(main())
