#!/usr/bin/env python3
"""Check a running SA with saquery against what the diag tools see.

  sa_check.py IBND FTS SMINFO OUT.json [--pairs N]

IBND, FTS and SMINFO are ibnetdiscover, dump_fts and sminfo output from the
same run. saquery runs with the caller's environment (LD_PRELOAD,
IBSIM_SOCKNAME, SIM_HOST), one single-record query at a time, since ibsim
cuts multi-record answers to their first segment. Every check holds for any
correct SA, ours or OpenSM's. OUT.json gets PathRecord properties keyed by
port GUID pair so two SMs' answers can be compared. Exit 1 on a mismatch."""
import ipaddress, json, re, subprocess, sys

def sh(*args):
    r = subprocess.run(["saquery"] + list(args), capture_output=True, text=True, timeout=20)
    return r.returncode, r.stdout + r.stderr

def fields(text):
    """'name....value' lines of a saquery dump, as a list of dicts."""
    recs, cur = [], None
    for line in text.splitlines():
        if re.search(r"(Record dump|ClassPortInfo):?$", line.strip()) or line.strip().endswith("dump:") and "Info" not in line:
            cur = {}
            recs.append(cur)
            continue
        m = re.match(r"\s*([A-Za-z_ 0-9/]+?)[.:]{2,}\s*(.*)$", line)
        if m and cur is not None:
            cur.setdefault(m.group(1).strip(), m.group(2).strip())
    return recs

def num(v):
    return int(v, 0)

def parse_ibnd(path):
    nodes, cur = {}, None
    for line in open(path):
        m = re.match(r'^(Switch|Ca)\s+(\d+)\s+"([SH])-([0-9a-f]+)"\s+#\s+"([^"]*)"(.*)$', line)
        if m:
            g = int(m.group(4), 16)
            cur = {"type": m.group(1), "guid": g, "desc": m.group(5), "ports": {}, "lid": None}
            if m.group(1) == "Switch":
                lm = re.search(r"lid (\d+) lmc (\d+)", m.group(6))
                cur["lid"], cur["lmc"] = int(lm.group(1)), int(lm.group(2))
            nodes[g] = cur
            continue
        m = re.match(r'^\[(\d+)\](?:\(([0-9a-f]+)\))?\s+"([SH])-([0-9a-f]+)"\[(\d+)\](?:\(([0-9a-f]+)\))?\s+#(.*)$', line)
        if m and cur is not None:
            p = {"peer": int(m.group(4), 16), "peer_port": int(m.group(5))}
            if cur["type"] == "Ca":
                lm = re.search(r"lid (\d+) lmc (\d+)", m.group(7))
                p["lid"], p["lmc"] = int(lm.group(1)), int(lm.group(2))
                p["guid"] = int(m.group(2), 16)
            cur["ports"][int(m.group(1))] = p
    return nodes

def lid_of(nodes, guid, port):
    n = nodes[guid]
    return n["lid"] if n["type"] == "Switch" else n["ports"][port]["lid"]

def main():
    ibnd, fts, sminfo, out = sys.argv[1:5]
    npairs = int(sys.argv[sys.argv.index("--pairs") + 1]) if "--pairs" in sys.argv else 40
    nodes = parse_ibnd(ibnd)
    bad = []
    def check(cond, what):
        if not cond:
            bad.append(what)
    # dump_fts: switch guid -> {lid: port}
    lft, g = {}, None
    for line in open(fts):
        m = re.search(r"guid (0x[0-9a-fA-F]+)", line)
        if line.startswith("Unicast lids") and m:
            g = int(m.group(1), 16); lft[g] = {}
        m = re.match(r"^(0x[0-9a-fA-F]+)\s+(\d+)\s", line)
        if m and g is not None:
            lft[g][int(m.group(1), 16)] = int(m.group(2))
    endpoints = []  # (lid, node guid, port num, port guid)
    for n in nodes.values():
        if n["type"] == "Switch":
            endpoints.append((n["lid"], n["guid"], 0, n["guid"]))
        else:
            for pn, p in n["ports"].items():
                endpoints.append((p["lid"], n["guid"], pn, p["guid"]))
    counts = {}
    for lid, ng, pn, pg in endpoints:
        n = nodes[ng]
        rc, t = sh("NR", str(lid))
        r = fields(t)
        check(rc == 0 and len(r) == 1, f"NR {lid}: rc {rc}, {len(r)} records")
        if r:
            r = r[0]
            check(num(r.get("lid", "0")) == lid, f"NR {lid}: lid {r.get('lid')}")
            check(num(r.get("node_guid", "0")) == ng, f"NR {lid}: node_guid {r.get('node_guid')} != {ng:#x}")
            check(num(r.get("port_guid", "0")) == pg, f"NR {lid}: port_guid {r.get('port_guid')} != {pg:#x}")
            check(r.get("NodeDescription", "") == n["desc"], f"NR {lid}: desc {r.get('NodeDescription')!r} != {n['desc']!r}")
            check(r.get("node_type", "").startswith("Switch" if n["type"] == "Switch" else "Channel Adapter"), f"NR {lid}: type {r.get('node_type')}")
        rc, t = sh("PIR", f"{lid}/{pn}")
        r = fields(t)
        check(rc == 0 and len(r) == 1, f"PIR {lid}/{pn}: rc {rc}, {len(r)} records")
        if r:
            r = r[0]
            check(num(r.get("EndPortLid", "0")) == lid and num(r.get("PortNum", "-1")) == pn, f"PIR {lid}/{pn}: RID {r.get('EndPortLid')}/{r.get('PortNum')}")
            check(num(r.get("Lid", "0")) == lid, f"PIR {lid}/{pn}: PortInfo.Lid {r.get('Lid')}")
            check(r.get("LinkState") == "Active", f"PIR {lid}/{pn}: LinkState {r.get('LinkState')}")
        rc, t = sh("GIR", f"{lid}/0")
        r = fields(t)
        if r and "GUID 0" in r[0]:
            check(num(r[0]["GUID 0"]) == pg, f"GIR {lid}: GUID 0 {r[0]['GUID 0']} != {pg:#x}")
        else:
            check(False, f"GIR {lid}: no record")
        counts["endpoints"] = counts.get("endpoints", 0) + 1
        if n["type"] != "Switch":
            continue
        rc, t = sh("SWIR", str(lid))
        r = fields(t)
        check(len(r) == 1 and num(r[0].get("LID", "0")) == lid, f"SWIR {lid}: {len(r)} records")
        if r:
            top = max(lft.get(ng, {0: 0}))
            check(num(r[0].get("LinearFDBTop", "0")) >= top, f"SWIR {lid}: LinearFDBTop {r[0].get('LinearFDBTop')} < {top}")
        # LinkRecords from this switch, one port at a time (single records).
        for pnum, p in sorted(n["ports"].items()):
            rc, t = sh("LR", f"{lid}/{pnum}")
            r = fields(t)
            want = (pnum, p["peer_port"], lid_of(nodes, p["peer"], p["peer_port"]))
            got = [(num(x["FromPort"]), num(x["ToPort"]), num(x["ToLID"])) for x in r if "ToLID" in x]
            check(got == [want], f"LR {lid}/{pnum}: {got} != {[want]}")
            counts["links"] = counts.get("links", 0) + 1
        rc, t = sh("LFTR", f"{lid}/0")
        r = fields(t)
        m = re.findall(r"^\s*(\d+)\s+(\d+)\s*$", t, re.M)
        check(len(m) == 64, f"LFTR {lid}/0: {len(m)} entries")
        for l, port in m:
            l, port = int(l), int(port)
            if l in lft.get(ng, {}):
                check(lft[ng][l] == port, f"LFTR {lid}/0: LID {l} port {port} != dump_fts {lft[ng][l]}")
        counts["lft_blocks"] = counts.get("lft_blocks", 0) + 1
    # SMInfoRecord against sminfo
    sm = re.search(r"sm lid (\d+) sm guid (0x[0-9a-f]+), activity count \d+ priority (\d+) state (\d+)", open(sminfo).read())
    rc, t = sh("SMIR")
    r = fields(t)
    check(sm and len(r) == 1, f"SMIR: {len(r)} records, sminfo {bool(sm)}")
    if sm and r:
        r = r[0]
        check(num(r.get("LID", "0")) == int(sm.group(1)) and num(r.get("GUID", "0")) == int(sm.group(2), 16)
              and num(r.get("SMState", "0")) == int(sm.group(4)), f"SMIR {r} vs sminfo {sm.group(0)}")
    rc, t = sh("-c")
    check(rc == 0 and re.search(r"Class version\.+2", t), "ClassPortInfo: class version 2")
    # PathRecords between CA ports (every pair up to npairs).
    cas = sorted((lid, pg) for lid, ng, pn, pg in endpoints if nodes[ng]["type"] == "Ca")
    pairs = [(a, b) for a in cas for b in cas if a != b]
    step = max(1, len(pairs) // npairs)
    paths = {}
    for (sl, sg), (dl, dg) in pairs[::step][:npairs]:
        rc, t = sh("-p", "--slid", str(sl), "--dlid", str(dl))
        r = fields(t)
        check(rc == 0 and len(r) == 1, f"PR {sl}->{dl}: rc {rc}, {len(r)} records")
        if not r:
            continue
        r = r[0]
        check(num(r["slid"]) == sl and num(r["dlid"]) == dl, f"PR {sl}->{dl}: lids {r['slid']}->{r['dlid']}")
        low = lambda g: int(ipaddress.IPv6Address(g)) & ((1 << 64) - 1)
        check(low(r["sgid"]) == sg and low(r["dgid"]) == dg, f"PR {sl}->{dl}: gids {r['sgid']} {r['dgid']}")
        check(num(r["pkey"]) & 0x7fff == 0x7fff, f"PR {sl}->{dl}: pkey {r['pkey']}")
        check(num(r["num_path_revers"]) & 0x80, f"PR {sl}->{dl}: not reversible")
        paths[f"{sg:x}-{dg:x}"] = {k: r[k] for k in ("mtu", "rate", "pkt_life", "sl", "pkey", "num_path_revers")}
    counts["paths"] = len(paths)
    json.dump({"bad": bad, "counts": counts, "paths": paths}, open(out, "w"), indent=1)
    for b in bad[:20]:
        print("MISMATCH:", b)
    print(f"sa_check: {counts}, {len(bad)} mismatches")
    return 1 if bad else 0

sys.exit(main())
