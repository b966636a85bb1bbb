#!/bin/sh
# Subnet Administration judged by the real tools: on one generated fat-tree,
# first OpenSM and then ibsm bring the fabric up under ibsim, and the same
# checker (sa_check.py) compares saquery's single-record answers with
# ibnetdiscover, dump_fts and sminfo from the same run: NodeRecord,
# PortInfoRecord, GUIDInfoRecord by LID, SwitchInfoRecord, LinkRecord by LID
# and port, LFT records, SMInfoRecord, ClassPortInfo and PathRecords between
# CA pairs. A check that failed against OpenSM would be a wrong check.
# Then ibsm's PathRecords must equal OpenSM's for the same port pairs
# (rate, P_Key, SL, reversibility, packet lifetime). Last, ibsm with LMC 1:
# every LID pair of two ports has its own PathRecord.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 50 opensm saquery sminfo python3
CHECK="python3 $top/tests/integration/sa_check.py"

sm_topo ft fattree --levels 2 --radix 8
# Queries come from a CA that is not the SM's node.
client=$(ibsim_ca_name "$W/ft.net" 3)

observe() { # name: the diag tools' view, then the SA check
	sim_run ibnetdiscover >"$W/$1.ibnd" 2>/dev/null || fail "$1: ibnetdiscover"
	sim_run dump_fts >"$W/$1.fts" 2>/dev/null || fail "$1: dump_fts"
	sim_run sminfo >"$W/$1.sminfo" 2>&1 || fail "$1: sminfo"
	SIM_HOST=$client sim_run $CHECK "$W/$1.ibnd" "$W/$1.fts" "$W/$1.sminfo" \
		"$W/$1.json" --pairs ${2:-40} || fail "$1: SA answers disagree with the diag tools"
}

# --- OpenSM: judges the checker --------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm.log"
observe osm
sim_cleanup

# --- ibsm ------------------------------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --dump "$W/dump"
observe ibsm
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died while answering the SA"

# Same fabric, same port pairs: the same path properties as OpenSM's.
python3 - "$W/osm.json" "$W/ibsm.json" <<'PY' || fail "PathRecords differ from OpenSM's"
import json, sys
a, b = (json.load(open(p))["paths"] for p in sys.argv[1:3])
common = sorted(set(a) & set(b))
assert len(common) >= 10, f"only {len(common)} pairs in common"
diff = []
for k in common:
    for f in ("rate", "pkey", "sl", "num_path_revers", "pkt_life"):
        if a[k][f] != b[k][f]:
            diff.append((k, f, a[k][f], b[k][f]))
for d in diff[:10]:
    print("differs from OpenSM:", d)
mtu = sum(a[k]["mtu"] != b[k]["mtu"] for k in common)
print(f"{len(common)} pairs compared with OpenSM, {len(diff)} differences; MTU differs on {mtu} (see docs/sa.md)")
sys.exit(1 if diff else 0)
PY

# The SA statistics reach the dump.
sm_sa_stats "$W/dump"
awk '$1 == "NodeRecord" && $2 + $3 > 0 { ok = 1 } END { exit !ok }' "$W/dump/sa-stats.txt" || { cat "$W/dump/sa-stats.txt"; fail "NodeRecord queries not counted"; }
sm_reroute "$W/ft.net" "$W/sm.log"
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sim_cleanup

# --- ibsm with LMC 1 ---------------------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm1.log" -R updn --set lmc=1 --cache-dir "$W/cache1"
sim_run ibnetdiscover >"$W/lmc.ibnd" 2>/dev/null || fail "lmc: ibnetdiscover"
# Four LID pairs between two CA ports, each its own PathRecord.
set -- $(awk '/^\[/ && /lmc 1/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); break } }' "$W/lmc.ibnd" | sort -n | sed -n '1p;$p')
[ $# -eq 2 ] || fail "lmc: no CA LIDs with lmc 1 in ibnetdiscover"
for ds in 0 1; do
	for dd in 0 1; do
		s=$(($1 + ds)); d=$(($2 + dd))
		out=$(SIM_HOST=$client sim_run saquery -p --slid $s --dlid $d 2>&1)
		echo "$out" | grep -q "slid\.*$s\$" && echo "$out" | grep -q "dlid\.*$d\$" ||
			{ echo "$out"; fail "lmc: no PathRecord $s -> $d"; }
	done
done
echo "ok lmc 1: PathRecords for all 4 LID pairs of LIDs $1 and $2"
echo "PASS"
