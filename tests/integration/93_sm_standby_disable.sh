#!/bin/sh
# A legal DISABLE (IBA 14.4.1: a MASTER turns a STANDBY off) is obeyed and
# sticks (issue 26, finding 1): nothing but SMInfo(STANDBY) brings the SM
# back, not a trap, not the master's death; then it follows again.
#  1. ibsm A master; an SM port with our SM_Key (sm-rogue listening,
#     STANDBY) that ibsm B's sweep finds; B STANDBY under A.
#  2. From that port, SubnSet(SMInfo) DISABLE claiming MASTER to B: obeyed
#     (status 0, B answers NOTACTIVE); DISCOVER to the NOTACTIVE B is
#     refused (not legal in NOTACTIVE).
#  3. A link lost (Unlink) and A killed: B sweeps nothing, takes nothing
#     over (3 s).
#  4. SubnSet(SMInfo) STANDBY to B: obeyed; B polls the sender, finds it
#     is no master, sweeps, elects itself and takes the fabric: MASTER,
#     fabric verified.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 93 sminfo ibstat
test_need_built sm-rogue

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c2=$(ca 3); c5=$(ca 6)
rogue() { SIM_HOST=$c5 sim_run timeout 20 "$IBSM_BUILD/bin/sm-rogue" "$@"; }

sm_sim "$W/ft.net"
sm_daemon "$W/a.log" -R ftree,updn --cache-dir "$W/ca" --sweep 1 --set sm_priority=5
A=$SMPID
SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/sm-rogue" listen --seconds 60 --priority 0 --state standby --sm-key 1 >"$W/r.out" 2>&1
ROGUE=$SIM_LAST_PID
sleep 0.5
SIM_HOST=$c2 sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree,updn --cache-dir "$W/cb" --sweep 1 \
	--set sm_priority=1 --dump "$W/b.dump" >"$W/b.log" 2>&1
B=$SIM_LAST_PID
wait_log "$W/b.log" "STANDBY: MASTER SM" 20 || { tail "$W/b.log"; fail "B did not enter STANDBY"; }
blid=$(SIM_HOST=$c2 sim_run ibstat 2>/dev/null | awk '/Base lid/ { print $3; exit }')
rlid=$(SIM_HOST=$c5 sim_run ibstat 2>/dev/null | awk '/Base lid/ { print $3; exit }')
grep -q "SMs: 0x[0-9a-f]* LID $rlid priority 0 STANDBY" "$W/b.log" || { grep "SMs:" "$W/b.log"; fail "B's sweep did not find the SM port at LID $rlid"; }
echo "ok 1: A master, B (LID $blid) STANDBY, an SM port at LID $rlid"

# --- 2. DISABLE obeyed, DISCOVER then refused -----------------------------------
rogue set --lid "$blid" --control 3 --state master --sm-key 1 >"$W/s1.out" || { cat "$W/s1.out"; fail "DISABLE to the STANDBY B refused"; }
grep -q "^state 0" "$W/s1.out" || { cat "$W/s1.out"; fail "B did not answer NOTACTIVE"; }
grep -q "SMInfo(DISABLE) from SM .*(LID $rlid): NOTACTIVE" "$W/b.log" || fail "no DISABLE line in B's log"
rogue set --lid "$blid" --control 5 --state master --sm-key 1 >"$W/s2.out"
rc=$?
[ $rc -eq 3 ] || { cat "$W/s2.out"; fail "DISCOVER to the NOTACTIVE B: exit $rc, not refused"; }
grep -q "control 5 DISCOVER) from LID $rlid.*not legal in our state" "$W/b.log" || fail "no refusal line for DISCOVER"
echo "ok 2: DISABLE from the SM port obeyed (B NOTACTIVE); DISCOVER then refused"

# --- 3. nothing brings B back by itself ---------------------------------------------
n=$(grep -c "heavy sweep" "$W/b.log")
ibsim_cmd 'Unlink "leaf-2"[6]'
sim_stop_pid "$A"
sleep 3
[ "$(grep -c "heavy sweep" "$W/b.log")" = "$n" ] || { tail "$W/b.log"; fail "the NOTACTIVE B swept"; }
grep -q "taking over" "$W/b.log" && fail "the NOTACTIVE B took over"
o=$(SIM_HOST=$c5 sim_run timeout 10 sminfo "$blid" 2>&1); echo "$o" | grep -q "state 0 SMINFO_NOTACT" || fail "sminfo does not show B NOTACTIVE: $o"
echo "ok 3: link lost and master killed: B stays NOTACTIVE, no sweep"

# --- 4. STANDBY brings it back; it elects itself ------------------------------------
rogue set --lid "$blid" --control 4 --state master --sm-key 1 >"$W/s3.out" || { cat "$W/s3.out"; fail "STANDBY to the NOTACTIVE B refused"; }
grep -q "^state 2" "$W/s3.out" || { cat "$W/s3.out"; fail "B did not answer STANDBY"; }
wait_log "$W/b.log" "fabric UP" 20 || { tail "$W/b.log"; fail "B did not become master after STANDBY"; }
sim_stop_pid "$ROGUE"
SIMS=$(SIM_HOST=$c5 sim_run timeout 10 sminfo 2>/dev/null)
echo "$SIMS" | grep -q "SMINFO_MASTER" || fail "sminfo: $SIMS"
SMPID=$B
kill -USR1 "$SMPID"; sleep 0.5
sm_check_fabric b
echo "ok 4: SMInfo(STANDBY) brought B back; it became master and routed around leaf-2[6]"
sm_stop_clean "$W/b.log"
echo "PASS"
