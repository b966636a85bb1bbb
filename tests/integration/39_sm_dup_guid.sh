#!/bin/sh
# Two live nodes answering with one NodeGUID (issue: ibsim `Guid` gave leaf-3
# the GUID of leaf-0; the sweep merged them silently, `--once` returned 0 and
# logged "fabric UP" with 4 ports not ACTIVE and 4 pairs unreachable).
#  1. Two switches with one GUID: the log names the GUID and both DR paths,
#     the second switch and what hangs below it are left out of the graph
#     (no link merged into the first), `--once` exits 2. The rest of the
#     fabric is routed: ibtracert from the SM reaches a host of every other
#     leaf, the hosts behind the duplicate have no LID.
#  2. Two CAs with one GUID: the same, for the CA reached second.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 39

sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sim_run ibnetdiscover >"$W/pre.ibnd" 2>/dev/null || fail "ibnetdiscover"
guid_of() { # node description -> node GUID, from the ibnetdiscover dump
	awk -v d="\"$1\"" '/^(switchguid|caguid)=/ { split($1, a, "[=(]"); g = a[2] }
		/^(Switch|Ca)/ && index($0, "# " d) { print g; exit }' "$W/pre.ibnd"
}
g_leaf0=$(guid_of leaf-0); g_leaf3=$(guid_of leaf-3)
g_node4=$(guid_of node-4); g_node5=$(guid_of node-5)
[ -n "$g_leaf0" ] && [ -n "$g_leaf3" ] && [ -n "$g_node4" ] && [ -n "$g_node5" ] ||
	fail "GUIDs not found in the ibnetdiscover dump"
hex16() { printf '0x%016x' "$1"; }

# --- 1. two switches ------------------------------------------------------
ibsim_cmd "Guid \"leaf-3\" $g_leaf0"
sleep 0.3
sim_run "$IBSM_BUILD/bin/ibsm" --once -R updn --cache-dir "$W/c1" >"$W/sm1.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { tail -20 "$W/sm1.log"; fail "--once exited $rc with two switches on one GUID (want 2)"; }
grep -q "duplicate GUID $(hex16 "$g_leaf0"): node \"leaf-0\" at path [0-9,]* and another node at path [0-9,]*" "$W/sm1.log" ||
	{ cat "$W/sm1.log"; fail "the duplicate switch GUID is not named with both paths"; }
grep -q "fabric UP" "$W/sm1.log" && fail "fabric UP logged with a duplicate GUID"
# 8 leaves x 4 spines + 32 hosts = 64 links; leaf-3 out: 60 - its 4 up
# links and 4 hosts = 56. A merge would show 12 switches or extra links.
grep -q "discovered 39 nodes (11 switches, 28 CAs, 0 routers), 56 links" "$W/sm1.log" ||
	{ grep discovered "$W/sm1.log"; fail "the duplicate switch was merged or more was lost"; }
for h in node-1 node-5 node-9 node-17 node-31; do
	lid=$(SIM_HOST=$h sim_run smpquery -D portinfo 0 1 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)/\1/p')
	[ -n "$lid" ] && [ "$lid" -gt 0 ] || fail "$h has no LID"
	sim_run ibtracert 1 "$lid" >"$W/tr.$h" 2>&1 || { cat "$W/tr.$h"; fail "ibtracert to $h (LID $lid) failed"; }
done
for h in node-12 node-13; do # under leaf-3, the duplicate: left out
	lid=$(SIM_HOST=$h sim_run smpquery -D portinfo 0 1 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)/\1/p')
	[ "${lid:-0}" -eq 0 ] || fail "$h behind the duplicate switch got LID $lid"
done
ibsim_cmd "Guid \"leaf-3\" $g_leaf3"

# --- 2. two CAs -------------------------------------------------------------
ibsim_cmd "Guid \"node-5\" $g_node4"
sleep 0.3
sim_run "$IBSM_BUILD/bin/ibsm" --once -R updn --cache-dir "$W/c2" >"$W/sm2.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { tail -20 "$W/sm2.log"; fail "--once exited $rc with two CAs on one GUID (want 2)"; }
grep -q "duplicate GUID $(hex16 "$g_node4"): node \"node-[45]\" at path [0-9,]* and another node at path" "$W/sm2.log" ||
	{ cat "$W/sm2.log"; fail "the duplicate CA GUID is not named"; }
grep -q "discovered 43 nodes (12 switches, 31 CAs, 0 routers), 63 links" "$W/sm2.log" ||
	{ grep discovered "$W/sm2.log"; fail "the duplicate CA was merged"; }
ibsim_cmd "Guid \"node-5\" $g_node5"

# --- the fabric fixed: up, and 0 exit --------------------------------------
sleep 0.3
sim_run "$IBSM_BUILD/bin/ibsm" --once -R updn --cache-dir "$W/c3" >"$W/sm3.log" 2>&1 ||
	{ tail -20 "$W/sm3.log"; fail "--once failed once the GUIDs were fixed"; }
grep -q "duplicate" "$W/sm3.log" && fail "duplicate reported on a fixed fabric"
echo "PASS"
