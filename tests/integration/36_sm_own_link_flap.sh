#!/bin/sh
# The SM's own link flaps (issue: a sweep during the outage saw 1 node and
# logged "fabric UP"; after ReLink the SM's port stayed INIT for 20 s or
# more because the light sweep had no switch left to poll and traps cannot
# cross an INIT link). With the daemon up on a fat-tree:
#  1. Unlink the SM's own link for 2 s: no sweep may log "fabric UP" for the
#     lone view, nothing is programmed from it (sweep_guard: HOLD);
#  2. ReLink: within a few sweeps every linked port is ACTIVE again, the SM's
#     included, with every LID unchanged and the tables whole (diag tools).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 36

sm_topo ft fattree --levels 2 --radix 8
# The SM sits on port 1 of the first node of the net file (a CA).
smnode=$(ibsim_ca_name "$W/ft.net" 1)
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1
sim_run ibnetdiscover >"$W/before.ibnd" 2>/dev/null || fail "ibnetdiscover"
ibnd_lids "$W/before.ibnd" | sort -n >"$W/before.lids"
ups=$(grep -c "fabric UP" "$W/sm.log")

ibsim_cmd "Unlink \"$smnode\"[1]"
sleep 2.5
[ "$(grep -c "fabric UP" "$W/sm.log")" -eq "$ups" ] ||
	{ tail -20 "$W/sm.log"; fail "a sweep during the outage logged fabric UP"; }
grep -q "reaches no fabric" "$W/sm.log" || { tail -20 "$W/sm.log"; fail "the outage was not noticed"; }
ibsim_cmd "ReLink \"$smnode\"[1]"
t0=$(date +%s.%N)
sm_wait_more "$W/sm.log" "fabric UP" "$ups" 30 ||
	{ tail -20 "$W/sm.log"; fail "not up again 30 s after ReLink"; }
echo "up again $(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }') s after ReLink"
kill -0 "$SMPID" || fail "ibsm died"
sim_run ibnetdiscover >"$W/after.ibnd" 2>/dev/null || fail "ibnetdiscover after"
ibnd_lids "$W/after.ibnd" | sort -n >"$W/after.lids"
cmp -s "$W/before.lids" "$W/after.lids" || fail "LIDs changed across the flap"
sm_check_fabric ft
echo "PASS"
