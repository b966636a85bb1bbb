#!/bin/sh
# ibsm-route offline on generated fabrics (ibsm-topo), judged by the
# verifier's JSON read with python3's json module:
#  - updn: complete, loop-free and credit-loop-free on every shape
#    (fat-trees, degraded fat-trees, 2D/3D tori, dragonfly, random graph),
#    routes to switch LIDs included;
#  - minhop: complete and loop-free everywhere, credit-loop-free on trees;
#  - --out tables read back with --lfts-in give the same verdict and loads;
#  - bad input exits 2 with a FILE:LINE message; unknown engine exits 2.
# Skips (77) until ibsm-topo and ibsm-route are built.
. "$(dirname "$0")/sm_lib.sh"
ROUTE=$IBSM_BUILD/bin/ibsm-route
TOPO=$IBSM_BUILD/bin/ibsm-topo
test_need_built ibsm-route ibsm-topo
test_start 10 python3

# check FILE.json ENGINE RC: the properties each engine must have.
check() {
	python3 - "$1" "$2" "$3" "$4" <<'EOF'
import json, sys
path, engine, rc, tree = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "tree"
d = json.load(open(path))
name = path.rsplit("/", 1)[-1]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
need(d["missing_entries"] == 0, "missing entries %d" % d["missing_entries"])
need(d["bad_port_entries"] == 0, "bad ports %d" % d["bad_port_entries"])
need(d["pairs_unreachable"] == 0, "unreachable pairs %d" % d["pairs_unreachable"])
need(d["pairs_looping"] == 0, "looping pairs %d" % d["pairs_looping"])
need(d["pairs_checked"] > 0, "no pairs checked")
need(d["terminals"] > 0 and d["lids_total"] >= d["terminals"], "counts")
need(d["max_stretch"] >= 1.0 and d["avg_stretch"] >= 1.0, "stretch < 1")
need(d["a2a_ratio"] >= 1.0, "a2a ratio %.3f below its lower bound" % d["a2a_ratio"])
need(d["shifts_checked"] > 0, "no shifts")
if engine == "updn" or tree:
    need(not d["credit_loop"], "credit loop: " + d["cdg_cycle"])
    need(d["ok"] and rc == 0, "not ok (rc %d): %s" % (rc, d["first_error"]))
if engine == "minhop":
    need(d["max_stretch"] == 1.0, "minhop stretch %.3f" % d["max_stretch"])
    need(rc == (0 if d["ok"] else 1), "exit %d with ok=%s" % (rc, d["ok"]))
if bad:
    print("%s %s: %s" % (name, engine, "; ".join(bad)))
    sys.exit(1)
print("%-12s %-6s ok=%-5s %5d CAs  max hops %d  stretch %.2f  credit loop %-5s  a2a %.2fx  worst shift %d" %
      (name[:-5], engine, d["ok"], d["terminals"], d["max_hops"], d["max_stretch"],
       d["credit_loop"], d["a2a_ratio"], d["shift_worst_load"]))
EOF
}

gen() { # name, ibsm-topo args...
	n=$1; shift
	"$TOPO" "$@" -o "$W/$n.net" >"$W/$n.topo.log" 2>&1 ||
		{ cat "$W/$n.topo.log"; fail "ibsm-topo $*"; }
}

gen ft2-r8 fattree --levels 2 --radix 8
gen ft3-r8 fattree --levels 3 --radix 8
gen ft3-r12-d1 fattree --levels 3 --radix 12 --remove 0.05 --seed 1
gen ft3-r12-d2 fattree --levels 3 --radix 12 --remove 0.05 --seed 2
gen ft3-r12-d3 fattree --levels 3 --radix 12 --remove 0.05 --seed 3
gen torus2d torus --dims 6x6 --hcas-per-switch 2
gen torus3d torus --dims 4x4x4 --hcas-per-switch 2
gen dragonfly dragonfly --groups 9 --switches 4 --hosts 2 --global 2
gen random random --switches 64 --degree 4 --hosts 4 --seed 7
gen ft3-r20 fattree --levels 3 --radix 20
# The other shapes at about 2,000 CAs too (the size issue 2 names).
gen torus3d-2k torus --dims 10x10x10 --hcas-per-switch 2
gen dragonfly-2k dragonfly --groups 21 --switches 12 --hosts 8 --global 2
gen random-2k random --switches 500 --degree 6 --hosts 4 --seed 3

for n in ft2-r8 ft3-r8 ft3-r12-d1 ft3-r12-d2 ft3-r12-d3 torus2d torus3d \
	dragonfly random ft3-r20 torus3d-2k dragonfly-2k random-2k; do
	case $n in ft*) kind=tree ;; *) kind=other ;; esac
	for e in updn minhop; do
		# updn: the credit-loop check covers routes to switch LIDs too.
		cdg=""
		[ $e = updn ] && cdg=--cdg-switch-lids
		"$ROUTE" --topo "$W/$n.net" --engine $e --check --shifts 64 $cdg \
			--out "$W/$n.$e.lfts" >"$W/$n.$e.json" 2>"$W/$n.$e.log"
		rc=$?
		[ $rc -le 1 ] || { cat "$W/$n.$e.log"; fail "$n $e: exit $rc"; }
		grep -q "peak RSS" "$W/$n.$e.log" || fail "$n $e: no summary line"
		check "$W/$n.$e.json" $e $rc $kind || fail "$n $e"
	done
done

# LMC 2: every LID of every CA port routed, 4 LIDs per CA, and the LIDs of
# a CA reached over link-disjoint paths (a 3-level radix-8 tree has 4).
"$ROUTE" --topo "$W/ft3-r8.net" --engine updn --lmc 2 --check >"$W/lmc.json" 2>"$W/lmc.log" ||
	{ cat "$W/lmc.log"; fail "updn --lmc 2"; }
python3 - "$W/lmc.json" <<'EOF' || fail "updn --lmc 2"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"], d["first_error"]
assert d["lids_total"] == 80 + 128 * 4, d["lids_total"]
assert d["diversity_pairs"] > 0 and d["min_disjoint_paths"] >= 2, d["min_disjoint_paths"]
print("lmc 2: %d LIDs, disjoint paths per CA pair min %.0f avg %.2f"
      % (d["lids_total"], d["min_disjoint_paths"], d["avg_disjoint_paths"]))
EOF

# The written tables, read back, are the same tables: same verdict, loads.
for n in torus3d ft3-r12-d1; do
	"$ROUTE" --topo "$W/$n.net" --lfts-in "$W/$n.minhop.lfts" --check --shifts 64 \
		>"$W/$n.back.json" 2>"$W/$n.back.log"
	python3 - "$W/$n.minhop.json" "$W/$n.back.json" <<'EOF' || fail "$n: --lfts-in differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["ok", "pairs_checked", "max_hops", "avg_hops", "credit_loop", "cdg_edges",
        "a2a_max_link_load", "shift_worst_load", "shifts_congested"]
diff = [k for k in keys if a[k] != b[k]]
if diff:
    print("differs in", diff)
    sys.exit(1)
EOF
done
echo "--out / --lfts-in round trip: same verdict and loads"

# A broken table must be caught through the file path too.
sed '/^0x0010 /d' "$W/ft2-r8.updn.lfts" >"$W/broken.lfts"
"$ROUTE" --topo "$W/ft2-r8.net" --lfts-in "$W/broken.lfts" --check >"$W/broken.json" 2>"$W/broken.log"
rc=$?
[ $rc -eq 1 ] || fail "broken tables: exit $rc, want 1"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['ok'] or d['missing_entries'] == 0)" \
	"$W/broken.json" || fail "broken tables not reported"
echo "broken tables: exit 1, missing entries reported"

# Bad input: exit 2, message names the file and line.
printf 'Switch 4 "S-1"\n[1] "H-1"[1]\nbogus line\n' >"$W/bad.net"
"$ROUTE" --topo "$W/bad.net" --engine updn >"$W/bad.out" 2>"$W/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "bad net file: exit $rc, want 2"
grep -q "bad.net:[0-9]" "$W/bad.err" || { cat "$W/bad.err"; fail "bad net: no FILE:LINE"; }
printf '# roots\n0x2c90300000001\nnot-a-guid\n' >"$W/roots.txt"
"$ROUTE" --topo "$W/ft2-r8.net" --engine updn --roots "$W/roots.txt" >"$W/bad.out" 2>"$W/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "bad roots file: exit $rc, want 2"
grep -q "roots.txt:3:" "$W/bad.err" || { cat "$W/bad.err"; fail "bad roots: no FILE:LINE"; }
printf 'Unicast lids [0x0-0x8] of switch Lid 1 guid 0x1234 (x):\n0x0001 zz : (y)\n' >"$W/bad.lfts"
"$ROUTE" --topo "$W/ft2-r8.net" --lfts-in "$W/bad.lfts" >"$W/bad.out" 2>"$W/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "bad lfts file: exit $rc, want 2"
grep -q "bad.lfts:[0-9]" "$W/bad.err" || { cat "$W/bad.err"; fail "bad lfts: no FILE:LINE"; }
"$ROUTE" --topo "$W/ft2-r8.net" --engine no-such-engine >"$W/bad.out" 2>"$W/bad.err"
[ $? -eq 2 ] || fail "unknown engine: want exit 2"
grep -q "unknown engine" "$W/bad.err" || fail "unknown engine not named"
"$ROUTE" --engine updn >"$W/bad.out" 2>"$W/bad.err"
[ $? -eq 2 ] || fail "missing --topo: want exit 2"
echo "bad input: exit 2 with FILE:LINE"

# More LIDs than one subnet has (512 CAs x 2^7 LIDs = 65,536 > 0xBFFF):
# refused with a reason, routed and verified with --wide-lids.
"$TOPO" fattree --levels 2 --radix 32 -o "$W/wide.net" || fail "ibsm-topo wide"
"$ROUTE" --topo "$W/wide.net" --engine ftree --lmc 7 >"$W/wide.out" 2>"$W/wide.err"
[ $? -eq 2 ] || fail "LID space exceeded: want exit 2"
grep -q "more LIDs than the unicast range.*--wide-lids" "$W/wide.err" ||
	{ cat "$W/wide.err"; fail "LID space exceeded: no message naming --wide-lids"; }
"$ROUTE" --topo "$W/wide.net" --engine ftree --lmc 7 --wide-lids >"$W/wide.out" 2>"$W/wide.err" ||
	{ cat "$W/wide.err"; fail "--wide-lids: ibsm-route failed"; }
grep -q "past the unicast range.*analysis only" "$W/wide.err" || fail "--wide-lids: no warning"
grep -q '"ok": true' "$W/wide.out" || fail "--wide-lids: tables not verified"
grep -q '"lids_total": 655[0-9][0-9]' "$W/wide.out" || fail "--wide-lids: LID count"
echo "wide LIDs: refused without --wide-lids, verified with it"

# A dump whose port carries a LID past the unicast range: without
# --wide-lids the port gets a new LID, and a warning names the file,
# the port and the LID instead of a silent replacement.
"$TOPO" fattree --levels 2 --radix 8 -o "$W/hi0.net" || fail "ibsm-topo hi"
sed '0,/# lid 0 lmc 0/s//# lid 49200 lmc 0/' "$W/hi0.net" >"$W/hi.net"
"$ROUTE" --topo "$W/hi.net" --engine ftree --check >"$W/hi.out" 2>"$W/hi.err" ||
	{ cat "$W/hi.err"; fail "LID past 0xbfff: ibsm-route failed"; }
grep -q "hi.net: 1 port carries a LID past the unicast range.*LID 0xc030.*--wide-lids keeps" "$W/hi.err" ||
	{ cat "$W/hi.err"; fail "LID past 0xbfff: no warning naming file, port and LID"; }
grep -q '"ok": true' "$W/hi.out" || fail "LID past 0xbfff: tables not verified"
"$ROUTE" --topo "$W/hi.net" --engine ftree --wide-lids >/dev/null 2>"$W/hi.err" ||
	fail "LID past 0xbfff, --wide-lids: ibsm-route failed"
grep -q "carries a LID past" "$W/hi.err" && fail "--wide-lids: LID warned about although kept"
echo "LID past 0xbfff in a dump: warned and replaced, kept with --wide-lids"

# No --engine: the daemon's default list (ftree first; it takes a tree).
"$ROUTE" --topo "$W/wide.net" --check >"$W/default.out" 2>"$W/default.err" ||
	{ cat "$W/default.err"; fail "no --engine: ibsm-route failed (it used to exit 2)"; }
grep -q "engine ftree" "$W/default.err" || { cat "$W/default.err"; fail "no --engine: not routed by ftree"; }
echo "no --engine: ftree,updn,minhop"

# An engine list is chosen from as the daemon chooses (issue 24): tables
# with a credit loop from an engine that promises none are passed over for
# the next engine's, so the tables written are updn's, byte for byte.
LOOPY=$IBSM_BUILD/tests/libibsm-engine-loopy.so
if [ -f "$LOOPY" ]; then
	"$TOPO" fattree --levels 3 --radix 8 -o "$W/sel.net" || fail "ibsm-topo sel"
	IBSM_TEST_LOOPY_MODE=credit "$ROUTE" --topo "$W/sel.net" --engine-path "$LOOPY" \
		--engine loopy,updn --out "$W/sel.lfts" >/dev/null 2>"$W/sel.err" ||
		{ cat "$W/sel.err"; fail "loopy,updn: ibsm-route failed"; }
	grep -q "tables from loopy have a credit loop.*passing it over" "$W/sel.err" ||
		{ cat "$W/sel.err"; fail "loopy,updn: loopy's credit loop not named"; }
	grep -q "engine updn" "$W/sel.err" || { cat "$W/sel.err"; fail "loopy,updn: not updn's tables"; }
	"$ROUTE" --topo "$W/sel.net" --engine updn --out "$W/sel.updn" >/dev/null 2>&1 ||
		fail "updn: ibsm-route failed"
	cmp -s "$W/sel.lfts" "$W/sel.updn" || fail "loopy,updn: tables differ from updn's"
	echo "engine list: loopy's credit-looped tables passed over, updn's written"
fi
exit 0
