#!/bin/sh
# The SA under load and under odd requests, on an ibsm-run fabric:
#  1. osmtest -f c (inventory) and -f f (100,000 PortInfoRecord queries)
#     pass, as they do against OpenSM (IBSIM-NOTES);
#  2. requests the SM does not serve (an unserved SA attribute, out-of-range
#     LIDs, ibping's vendor class, PerfMgt to the SM's LID) get an answer or
#     a clean error, and the daemon stays alive and keeps sweeping (under
#     ibsim an unregistered class used to crash it: exit 139).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 51 osmtest saquery ibping perfquery

sm_topo ft fattree --levels 2 --radix 8
client=$(ibsim_ca_name "$W/ft.net" 3)
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1 -v
smlid=$(sed -n 's/.*SM LID \([0-9]*\).*/\1/p' "$W/sm.log" | head -1)
[ -n "$smlid" ] || fail "no SM LID in the log"
alive() { kill -0 "$SMPID" 2>/dev/null || { tail -20 "$W/sm.log"; fail "ibsm died after $1"; }; }

# --- 1. osmtest --------------------------------------------------------------
for f in c f; do
	SIM_HOST=$client sim_run timeout 120 osmtest -f $f >"$W/osmtest.$f" 2>&1 ||
		{ tail -20 "$W/osmtest.$f"; fail "osmtest -f $f failed"; }
	grep -q "PASS" "$W/osmtest.$f" || { tail -5 "$W/osmtest.$f"; fail "osmtest -f $f did not pass"; }
	grep -E "took|PASS" "$W/osmtest.$f" | tail -2
	alive "osmtest -f $f"
done

# --- 2. odd requests -----------------------------------------------------------
q() { SIM_HOST=$client sim_run timeout 10 saquery "$@" >"$W/q.out" 2>&1; echo $?; }
# An attribute the SA does not serve (ServiceAssociationRecord 0x003B;
# saquery asks only for served ones now): status 0x000C, IBA 13.4.7.
out=$(SIM_HOST=$client sim_run timeout 10 "$IBSM_BUILD/bin/sa-client" get --attr 0x3B 2>&1)
echo "$out" | grep -q "status 0x000c" || { echo "$out"; fail "unserved attribute: not status 0x000C"; }
alive "an unserved attribute"
q NR 49151 >/dev/null; alive "saquery NR 49151"
[ -z "$(grep -i 'NodeRecord dump' "$W/q.out")" ] || fail "a NodeRecord for an unused LID"
q -p --slid 1 --dlid 65000 >/dev/null; alive "PathRecord to LID 65000"
grep -q "PathRecord dump" "$W/q.out" && fail "a PathRecord to LID 65000"
SIM_HOST=$client sim_run timeout 5 ibping -c 2 "$smlid" >/dev/null 2>&1
alive "ibping to the SM's LID"
SIM_HOST=$client sim_run timeout 5 perfquery "$smlid" 1 >/dev/null 2>&1
alive "perfquery to the SM's LID"

# Still sweeping: a heavy sweep on SIGHUP, after all of the above.
n0=$(grep -c "heavy sweep .* fabric" "$W/sm.log")
kill -HUP "$SMPID"
sm_wait_more "$W/sm.log" "heavy sweep .* fabric" "$n0" 10 ||
	fail "no heavy sweep after SIGHUP"
alive "the last sweep"
echo "PASS"
