#!/usr/bin/env python3
"""The SA's MulticastForwardingTableRecords against the switches' MFTs.

  mftr_check.py IBND DUMP_FTS_M SAQUERY_MFTR

IBND is ibnetdiscover output (switch GUID -> LID), DUMP_FTS_M `dump_fts -M`
(the masks the switches hold), SAQUERY_MFTR `saquery MFTR` from the same
run. Every (switch, MLID, port) set in one must be set in the other, and
every switch with a group on it must have records. Prints one line, exits
1 on any difference."""
import re, sys

def parse_ibnd_lids(path):
    lid_of = {}
    for line in open(path):
        m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)".*\blid (\d+)', line)
        if m:
            lid_of[int(m.group(1), 16)] = int(m.group(2))
    return lid_of

def parse_mfts(path):
    """(guid, mlid, port) for every x in dump_fts -M."""
    bits, guid, cols = set(), None, None
    for line in open(path):
        m = re.search(r"guid (0x[0-9a-fA-F]+)", line)
        if line.startswith("Multicast mlids") and m:
            guid, cols = int(m.group(1), 16), None
            continue
        if line.lstrip().startswith("Ports:"):
            start = line.index("Ports:") + len("Ports:")
            # One column per port number, at the number's last digit.
            cols = [i for i in range(start, len(line))
                    if line[i].isdigit() and not line[i + 1:i + 2].isdigit()]
            continue
        m = re.match(r"^(0x[0-9a-fA-F]+)", line)
        if m and guid is not None and cols:
            mlid = int(m.group(1), 16)
            for p, c in enumerate(cols):
                if c < len(line) and line[c] == "x":
                    bits.add((guid, mlid, p))
    return bits

def parse_mftr(path):
    """(lid, mlid, port) for every bit in saquery MFTR records."""
    bits, lids, lid, pos, block = set(), set(), None, None, None
    for line in open(path):
        s = line.strip()
        m = re.match(r"^LID\.+(\d+)", s)
        if m:
            lid = int(m.group(1)); lids.add(lid); continue
        m = re.match(r"^Position\.+(\d+)", s)
        if m:
            pos = int(m.group(1)); continue
        m = re.match(r"^Block\.+(\d+)", s)
        if m:
            block = int(m.group(1)); continue
        m = re.match(r"^(0x[0-9a-fA-F]+)\s+(0x[0-9a-fA-F]+)$", s)
        if m and lid is not None:
            mlid, mask = int(m.group(1), 16), int(m.group(2), 16)
            if not 0xC000 + 32 * block <= mlid < 0xC000 + 32 * (block + 1):
                print(f"MFTR: MLID {mlid:#x} outside block {block}")
                sys.exit(1)
            for j in range(16):
                if mask >> j & 1:
                    bits.add((lid, mlid, pos * 16 + j))
    return bits, lids

def main():
    lid_of = parse_ibnd_lids(sys.argv[1])
    held = {(lid_of[g], mlid, p) for g, mlid, p in parse_mfts(sys.argv[2])
            if g in lid_of}
    sa, lids = parse_mftr(sys.argv[3])
    if not held:
        print("no MFT entries in dump_fts -M: nothing to compare")
        sys.exit(1)
    only_sw = sorted(held - sa)
    only_sa = sorted(sa - held)
    if only_sw or only_sa:
        print(f"MFTR differs from the switches: {len(only_sw)} bits only in dump_fts -M "
              f"(first {only_sw[:3]}), {len(only_sa)} only in saquery MFTR (first {only_sa[:3]})")
        sys.exit(1)
    sws = {l for l, _, _ in held}
    if not sws <= lids:
        print(f"switches with groups but no MFTRecord: {sorted(sws - lids)}")
        sys.exit(1)
    print(f"ok MFTR: {len(sa)} port bits on {len(sws)} switches, "
          f"{len({m for _, m, _ in sa})} MLIDs, as dump_fts -M")

main()
