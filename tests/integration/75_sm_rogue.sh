#!/bin/sh
# A rogue SM against the master (issue 10: "bad SMInfo from a rogue SM
# (wrong SM_Key, absurd priority, flapping state): the master does not step
# down to it unless the spec says so"), and M_Key in every SMP. The rogue is
# build/bin/sm-rogue: it claims IsSM and answers SMInfo as told, or sends one
# SubnSet(SMInfo) control.
#  1. ibsm master with sm_key 0x1234 and m_key 0xabcd (protect bits 1): the
#     rogue (priority 15, MASTER, SM_Key 0x999) is seen and ignored by heavy
#     sweeps; the SMInfo Gets it receives carry M_Key 0xabcd; sminfo names
#     ibsm; the log says ibsim keeps no M_Key and a second sweep rewrites no
#     PortInfo.
#  2. SubnSet(SMInfo) HANDOVER and DISABLE with the wrong SM_Key are refused
#     (status 0x1c); HANDOVER with the right key from a port no sweep found
#     as an SM too (standby/sminfo_control.h); a Set with the wrong M_Key
#     gets no answer. ibsm stays master.
#  3. Flapping state (MASTER / NOTACTIVE on alternate answers), priority 15
#     with the wrong SM_Key, then priority 2 with the right one: three heavy
#     sweeps each, no step-down, no handover.
#  4. Control: the same rogue against ibsm with sm_key 0 (no check; the
#     default is 1, as OpenSM's, and a rogue answering 0 is ignored): ibsm
#     steps down to the "better master", as the spec says it must. This is
#     what phases 1-3 would show without the SM_Key check.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 75 sminfo
test_need_built sm-rogue

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c2=$(ca 3); c5=$(ca 6)
master_guid() { SIM_HOST=$c2 sim_run timeout 10 sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\).*state 3 SMINFO_MASTER.*/\1/p'; }
rogue() { SIM_HOST=$c5 sim_run timeout 60 "$IBSM_BUILD/bin/sm-rogue" "$@"; }
# rogue_listen OUT args...: the rogue answering in the background.
rogue_listen() {
	_o=$1; shift
	SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/sm-rogue" listen --seconds 120 "$@" >"$_o" 2>&1
	ROGUE=$SIM_LAST_PID
	sleep 0.5
}
# heavy LOG: ask for a heavy sweep and wait for it to end (traps from the
# rogue's port claiming IsSM bring sweeps of their own: count from now).
heavy() {
	_n=$(($(grep -c "sweep [0-9]*: heavy sweep" "$1") + 1))
	kill -HUP "$SMPID"
	_i=0
	until [ "$(grep -c "sweep [0-9]*: heavy sweep" "$1")" -ge "$_n" ]; do
		_i=$((_i + 1)); [ $_i -gt 200 ] && { tail "$1"; fail "heavy sweep $_n did not end"; }
		sleep 0.1
	done
}

sm_sim "$W/ft.net"


# --- 1. wrong SM_Key, priority 15: ignored; M_Key in SMPs ---------------------
sm_daemon "$W/a.log" -R ftree,updn --cache-dir "$W/ca" --sweep 0 --dump "$W/a.dump" \
	--set sm_priority=5 --set sm_key=0x1234 --set m_key=0xabcd \
	--set m_key_protect_bits=1 --set m_key_lease_period=60
grep -q "sweep [0-9]*: heavy sweep" "$W/a.log" || { tail "$W/a.log"; fail "no 'sweep N: heavy sweep' line (log format changed?)"; }
guid=$(sed -n 's/.*port GUID \(0x[0-9a-f]*\).*/\1/p' "$W/a.log" | head -1)
guid=$(printf '0x%x' "$guid")
smlid=$(sed -n 's/.*SM LID \([0-9]*\).*/\1/p' "$W/a.log" | head -1)
[ -n "$smlid" ] || fail "no SM LID in the log"
grep -q "M_Key 0x000000000000abcd" "$W/a.log" || fail "no M_Key line in the log"
wait_log "$W/a.log" "do not keep M_Key" 5 || { grep -i m_key "$W/a.log"; fail "ibsm did not notice that ibsim keeps no M_Key"; }
rogue_listen "$W/r1.out" --priority 15 --state master --sm-key 0x999
heavy "$W/a.log"
grep -q "answered SM_Key 0x0000000000000999, not ours: ignored" "$W/a.log" ||
	{ grep "SMs:" "$W/a.log"; fail "the rogue's SM_Key was not refused"; }
grep -q "stepping down\|STANDBY:" "$W/a.log" && fail "ibsm stepped down to a rogue with the wrong SM_Key"
[ "$(master_guid)" = "$guid" ] || fail "sminfo names '$(master_guid)', not ibsm ($guid)"
grep -q "^smp get SMInfo mod 0 mkey 0x000000000000abcd from dr" "$W/r1.out" ||
	{ cat "$W/r1.out"; fail "ibsm's SMInfo Get did not carry M_Key 0xabcd"; }
# Ports hold no M_Key under ibsim: once seen, no sweep rewrites PortInfo
# for it (the second sweep's port setup changed nothing).
sed -n 's/.*sweep 2: program .*PortInfo \([0-9]*\) set.*/\1/p' "$W/a.log" | grep -qx 0 ||
	{ grep "sweep 2: program" "$W/a.log"; fail "the second sweep rewrote PortInfo"; }
echo "ok 1: rogue with priority 15 and the wrong SM_Key ignored; SMPs carry M_Key 0xabcd"

# --- 2. controls the spec does not allow ---------------------------------------
kill "$ROGUE"; wait "$ROGUE" 2>/dev/null
# A sweep after the rogue left, so no sweep has found its port as an SM
# (without it, a slower daemon, e.g. the ASan build, may still hold the
# sweep that saw the rogue when the controls arrive).
heavy "$W/a.log"
rogue set --lid "$smlid" --control 1 --state master --sm-key 0x999 --mkey 0xabcd >"$W/s1.out"
rc=$?
[ $rc -eq 3 ] && grep -q "^status 0x001c" "$W/s1.out" || { cat "$W/s1.out"; fail "HANDOVER with the wrong SM_Key: exit $rc, not refused with 0x1c"; }
grep -q "^sm_key 0x0000000000000000" "$W/s1.out" || fail "the answer gave the SM_Key to a sender of another subnet"
rogue set --lid "$smlid" --control 3 --state master --sm-key 0x999 --mkey 0xabcd >"$W/s2.out"
rc=$?
[ $rc -eq 3 ] || { cat "$W/s2.out"; fail "DISABLE with the wrong SM_Key: exit $rc"; }
rogue set --lid "$smlid" --control 1 --state standby --priority 1 --sm-key 0x1234 --mkey 0xabcd >"$W/s3.out"
rc=$?
[ $rc -eq 3 ] || { cat "$W/s3.out"; fail "HANDOVER from a STANDBY sender: exit $rc"; }
rogue set --lid "$smlid" --control 3 --state master --priority 1 --sm-key 0x1234 --mkey 0 >"$W/s4.out"
rc=$?
[ $rc -eq 4 ] || { cat "$W/s4.out"; fail "DISABLE with the wrong M_Key was answered (exit $rc)"; }
# The answer may reach the rogue before ibsm's log line is written: wait.
wait_log "$W/a.log" "wrong SM_Key: ignored" 5 || fail "no log line for the wrong SM_Key"
wait_log "$W/a.log" "requester is not an SM port .*: ignored" 5 || fail "no log line for the sender no sweep found"
wait_log "$W/a.log" "SMInfo Set from LID .* with a wrong M_Key: ignored" 5 || fail "no log line for the wrong M_Key"
sleep 1
[ "$(master_guid)" = "$guid" ] || fail "after the controls sminfo names '$(master_guid)', not ibsm"
grep -q "HANDOVER from SM\|SMInfo(DISABLE)\|stepping down\|STANDBY:" "$W/a.log" && { grep "HANDOVER\|DISABLE\|STANDBY" "$W/a.log"; fail "ibsm obeyed a control it must refuse"; }
echo "ok 2: HANDOVER/DISABLE with the wrong SM_Key, from a port no sweep found as an SM, or with the wrong M_Key refused"

# --- 3. flapping state ------------------------------------------------------------
rogue_listen "$W/r3.out" --priority 15 --state master --sm-key 0x999 --flap
heavy "$W/a.log"; heavy "$W/a.log"; heavy "$W/a.log"
kill "$ROGUE"; wait "$ROGUE" 2>/dev/null
rogue_listen "$W/r4.out" --priority 2 --state master --sm-key 0x1234 --flap
heavy "$W/a.log"; heavy "$W/a.log"; heavy "$W/a.log"
kill "$ROGUE"; wait "$ROGUE" 2>/dev/null
[ "$(grep -c "^smp get" "$W/r3.out")" -ge 3 ] || { cat "$W/r3.out"; fail "the flapping rogue (wrong key) was asked fewer than 3 times"; }
[ "$(grep -c "^smp get" "$W/r4.out")" -ge 3 ] || { cat "$W/r4.out"; fail "the flapping rogue (right key) was asked fewer than 3 times"; }
grep -q "priority 2 NOTACTIVE" "$W/a.log" && grep -q "priority 2 MASTER" "$W/a.log" ||
	{ grep "SMs:" "$W/a.log" | tail; fail "the sweeps did not see the rogue flap"; }
grep -q "stepping down\|STANDBY:\|handing over\|HANDOVER: \|HANDOVER from\|HANDOVER ack" "$W/a.log" &&
	{ grep "stepping\|STANDBY\|hand" "$W/a.log"; fail "ibsm stepped down or handed over to a flapping rogue"; }
[ "$(master_guid)" = "$guid" ] || fail "after the flapping rogue sminfo names '$(master_guid)', not ibsm"
kill -USR1 "$SMPID"; sleep 0.5
sm_check_fabric a
echo "ok 3: flapping rogue (priority 15 wrong key, priority 2 right key): ibsm stays master, fabric verified"
kill "$SMPID"; wait "$SMPID" 2>/dev/null

# --- 4. control: no SM_Key, the spec makes ibsm step down ----------------------------
sm_daemon "$W/b.log" -R ftree,updn --cache-dir "$W/ca" --sweep 0 --set sm_priority=5 --set sm_key=0
SMB=$SMPID
rogue_listen "$W/r5.out" --priority 15 --state master
SMPID=$SMB
kill -HUP "$SMPID"  # (the trap from the rogue's IsSM may have swept already)
wait_log "$W/b.log" "better master SM .* stepping down" 10 || { tail "$W/b.log"; fail "control: ibsm with sm_key 0 did not step down to a priority-15 MASTER"; }
echo "ok 4: control: with sm_key 0 ibsm steps down to the priority-15 master (the spec's rule)"
echo "PASS"
