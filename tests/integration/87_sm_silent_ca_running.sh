#!/bin/sh
# A CA goes silent on a running fabric (issue 24): node-13's SMA stops
# answering (ibsim `Error "leaf-3"[2] 100`) and then a switch link dies.
# Before, every sweep after the trap was held as "discovery incomplete"
# for as long as node-13 stayed silent: the lost link stayed in the
# tables (114 pairs unreachable on this tree). Now:
#  b. the link loss is re-routed once node-13 has been silent for
#     missing_grace (3 s here): every pair reachable in the switches'
#     tables (sm_check_fabric), node-13 named in the log by GUID and
#     description (it was seen before) with the port it hangs off;
#  c. when node-13 answers again it comes back with the LID it had.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 87
GRACE=3

sm_silent_ca_fabric
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 --dump "$W/ft.dump" \
	--set missing_grace=$GRACE
sim_run ibnetdiscover >"$W/before.ibnd" 2>/dev/null || fail "ibnetdiscover"
lid13() { ibnd_ca_lid "$1" node-13; }
lid=$(lid13 "$W/before.ibnd")
[ -n "$lid" ] || fail "node-13 has no LID"

# --- b. node-13 silent, then a switch link lost: re-routed after the grace
ibsim_cmd "Error $PEER 100"
ups=$(grep -c "fabric UP" "$W/sm.log")
t0=$(date +%s.%N)
ibsim_cmd 'Unlink "leaf-1"[5]'
sm_wait_more "$W/sm.log" "fabric UP" "$ups" $((GRACE + 6)) ||
	{ tail -20 "$W/sm.log"; fail "link loss not re-routed in $((GRACE + 6)) s while node-13 is silent"; }
took=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
echo "link loss re-routed after $took s with node-13 silent (missing_grace $GRACE s)"
grep "unreachable:" "$W/sm.log"
grep -q "unreachable: node 0x[0-9a-f]* \"node-13\" behind 0x[0-9a-f]*\[2\] \"leaf-3\" (DR path [0-9,]*) has not answered NodeInfo" "$W/sm.log" ||
	fail "the log does not name node-13 and the port it hangs off"
kill -USR1 "$SMPID"; sleep 0.5
sm_check_fabric b
grep -q "\"node-13\"" "$W/b.ibnd" && fail "node-13 answered ibnetdiscover: was it silent?"
ibnd_lids "$W/b.ibnd" | grep -qx "$lid" && fail "node-13's LID $lid was given to another port"
echo "ok b: re-routed around leaf-1[5] while node-13 is silent"

# --- c. node-13 answers again, with its LID
sm_silent_ca_back "Error $PEER 0" "unreachable: node .*\"node-13\" .* answers again" \
	"node-13 not picked up after it answers again"
sm_check_fabric c
[ "$(lid13 "$W/c.ibnd")" = "$lid" ] || fail "node-13 came back with LID $(lid13 "$W/c.ibnd"), not $lid"
echo "ok c: node-13 up again with LID $lid"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
