#!/bin/sh
# ibsm-route's tables work in the real stack, and the verifier reads what
# the real tools print:
#  1. OpenSM (minhop) brings a generated fat-tree up under ibsim; its tables,
#     dumped by dump_fts, with the topology dumped by ibnetdiscover, are
#     read and verified clean by ibsm-route --lfts-in (reader agrees with
#     the tools; minhop on a tree is complete and credit-loop free);
#  2. ibsm-route routes that dump (same LIDs: OpenSM keeps them in its cache
#     dir) and writes the tables; a fresh ibsim + `opensm -R file -U FILE -o`
#     loads them: the log says the file engine configured the tables;
#  3. dump_fts after that equals our file entry for entry, and verifies
#     clean with --lfts-in;
#  4. ibtracert between sampled CA pairs (preferring pairs whose route
#     differs from OpenSM's own minhop) leaves every switch by the port our
#     table gives and ends at the destination.
. "$(dirname "$0")/sm_lib.sh"
B=$IBSM_BUILD
ROUTE=$B/bin/ibsm-route
TOPO=$B/bin/ibsm-topo
test_need_built ibsm-route ibsm-topo
[ -f "$UMAD2SIM" ] || { echo "skip: no libumad2sim"; exit 77; }
test_start 11 ibsim opensm ibnetdiscover dump_fts ibtracert python3

export OSM_CACHE_DIR="$W/cache"
mkdir -p "$OSM_CACHE_DIR"
"$TOPO" fattree --levels 2 --radix 8 -o "$W/ft.net" >"$W/topo.log" 2>&1 || fail "ibsm-topo"

# --- 1. OpenSM's own routing, judged by our verifier -----------------------
ibsim_start "$W/ft.net" || fail "ibsim did not load the fat-tree"
sim_bg_run opensm -d2 -f "$W/osm1.log" >"$W/osm1.out" 2>&1
i=0
until grep -q "SUBNET UP" "$W/osm1.log" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 600 ] && fail "OpenSM did not bring the fabric up in 60 s"
	sleep 0.1
done
sim_run ibnetdiscover >"$W/fab.ibnd" 2>"$W/ibnd.err" || fail "ibnetdiscover"
sim_run dump_fts >"$W/osm.fts" 2>"$W/fts.err" || fail "dump_fts"
sim_cleanup
"$ROUTE" --topo "$W/fab.ibnd" --lfts-in "$W/osm.fts" --check >"$W/osm.json" 2>"$W/osm.log"
rc=$?
[ $rc -eq 0 ] || { cat "$W/osm.log"; fail "OpenSM's minhop tables: exit $rc"; }
python3 - "$W/osm.json" <<'EOF' || fail "OpenSM's tables as read by us"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] and not d["credit_loop"], d["first_error"]
assert d["terminals"] == 32 and d["switches"] == 12, (d["terminals"], d["switches"])
assert d["missing_entries"] == 0 and d["pairs_unreachable"] == 0
print("1. OpenSM minhop via ibnetdiscover + dump_fts: ok, %d pairs, max hops %d, a2a %.2fx"
      % (d["pairs_checked"], d["max_hops"], d["a2a_ratio"]))
EOF

# --- 2. our tables through OpenSM's file engine ----------------------------
"$ROUTE" --topo "$W/fab.ibnd" --engine ftree,updn --out "$W/ours.lfts" --check \
	>"$W/ours.json" 2>"$W/ours.log" || { cat "$W/ours.log"; fail "ibsm-route"; }
ibsim_start "$W/ft.net" || fail "ibsim did not load the fat-tree again"
sim_run timeout 120 opensm -R file -U "$W/ours.lfts" -o -d2 -f "$W/osm2.log" \
	>/dev/null 2>&1
grep -q "file tables configured on all switches" "$W/osm2.log" ||
	{ grep -iE "tables configured|ucast|file|ERR" "$W/osm2.log" | tail -5; \
	  fail "OpenSM's file engine did not configure our tables"; }
echo "2. opensm -R file -U: file tables configured on all switches"

# --- 3. what the switches hold is our file --------------------------------
sim_run dump_fts >"$W/after.fts" 2>"$W/fts2.err" || fail "dump_fts after"
"$ROUTE" --topo "$W/fab.ibnd" --lfts-in "$W/after.fts" --check >"$W/after.json" \
	2>"$W/after.log" || { cat "$W/after.log"; fail "switch tables do not verify"; }
python3 - "$W/ours.lfts" "$W/after.fts" "$W/osm.fts" "$W/fab.ibnd" "$W/pairs" <<'EOF' || fail "tables differ"
import re, sys, random
def lfts(path):
    t, sw = {}, None
    for line in open(path):
        m = re.match(r"\s*Unicast lids .* guid 0x([0-9a-f]+)", line)
        if m:
            sw = int(m.group(1), 16); t[sw] = {}; continue
        m = re.match(r"\s*0x([0-9a-f]+)\s+(\d+)\s", line)
        if m and sw is not None:
            t[sw][int(m.group(1), 16)] = int(m.group(2))
    return t
ours, after, osm = lfts(sys.argv[1]), lfts(sys.argv[2]), lfts(sys.argv[3])
assert set(ours) == set(after) and len(ours) == 12, "switch sets differ"
top = max(max(r) for r in ours.values())
diff = [(s, l) for s in ours for l in ours[s]
        if after[s].get(l) != ours[s][l] and not (l == top and top % 64 == 0)]
assert not diff, "switch tables differ from our file at %s" % diff[:5]
# CAs: LID and the switch (GUID) each hangs off, from the ibnetdiscover dump.
cas = []
for line in open(sys.argv[4]):
    m = re.match(r'\[(\d+)\]\([0-9a-f]+\)\s+"S-([0-9a-f]+)"\[\d+\].*# lid (\d+)', line)
    if m:
        cas.append((int(m.group(3)), int(m.group(2), 16)))
assert len(cas) == 32, "found %d CAs in the dump" % len(cas)
moved = sum(1 for s in ours for l in ours[s] if osm[s].get(l) != ours[s][l])
pairs = [(a, b) for a in cas for b in cas if a[1] != b[1]]
differ = [p for p in pairs if ours[p[0][1]][p[1][0]] != osm[p[0][1]].get(p[1][0])]
rnd = random.Random(11)
pick = rnd.sample(differ, min(6, len(differ))) + rnd.sample(pairs, 4)
with open(sys.argv[5], "w") as f:
    for a, b in pick:
        f.write("%d %d\n" % (a[0], b[0]))
print("3. dump_fts equals our file (%d switches); %d entries differ from OpenSM's minhop, "
      "%d of %d cross-leaf pairs leave their leaf differently" % (len(ours), moved, len(differ), len(pairs)))
EOF

# --- 4. ibtracert follows our tables ---------------------------------------
n=0
while read -r s d; do
	sim_run ibtracert "$s" "$d" </dev/null >"$W/tr.$s.$d" 2>&1 || { cat "$W/tr.$s.$d"; fail "ibtracert $s $d"; }
	python3 - "$W/ours.lfts" "$W/tr.$s.$d" "$s" "$d" <<'EOF' || fail "ibtracert $s -> $d does not follow our tables"
import re, sys
t, sw = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"\s*Unicast lids .* guid 0x([0-9a-f]+)", line)
    if m:
        sw = int(m.group(1), 16); t[sw] = {}; continue
    m = re.match(r"\s*0x([0-9a-f]+)\s+(\d+)\s", line)
    if m:
        t[sw][int(m.group(1), 16)] = int(m.group(2))
dlid = int(sys.argv[4])
lines = open(sys.argv[2]).read().splitlines()
lines = lines[next(i for i, l in enumerate(lines) if l.startswith("From ca")):]
# "From ca {GUID} portnum 1 lid S-S ...", then "[OUT] -> switch port {GUID}[IN] ...",
# ..., "[OUT] -> ca port {GUID}[1] lid D-D ...", "To ca ...".
hops = [re.match(r"\[(\d+)\] -> (\w+) port \{0x([0-9a-f]+)\}\[(\d+)\]", l) for l in lines]
hops = [h for h in hops if h]
assert hops and lines[0].startswith("From ca"), "unexpected ibtracert output"
prev = None
for h in hops:
    out, kind, guid = int(h.group(1)), h.group(2), int(h.group(3), 16)
    if prev is not None:
        want = t[prev][dlid]
        assert out == want, "switch 0x%x: left by port %d, our table says %d" % (prev, out, want)
    prev = guid if kind == "switch" else None
assert hops[-1].group(2) == "ca", "path does not end at a CA"
assert any(l.startswith("To ca") and ("lid %d-" % dlid) in l for l in lines), "wrong destination"
print("   ibtracert %s -> %d: %d switches, every egress port as in our table"
      % (sys.argv[3], dlid, len(hops) - 1))
EOF
	n=$((n + 1))
done <"$W/pairs"
[ $n -ge 4 ] || fail "only $n pairs traced"
echo "4. ibtracert: $n CA pairs follow our tables"
exit 0
