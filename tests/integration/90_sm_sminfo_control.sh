#!/bin/sh
# SMInfo by the spec (issue 26, finding 1; standby/sminfo_control.h): an
# ordinary host cannot stop or demote the master.
#  1. `smpdump -L <sm lid> 0x20` from a host reads SM_Key 0 (it read the
#     key, 1 by default, before).
#  2. SubnSet(SMInfo) DISABLE and STANDBY with the right SM_Key (1, the
#     default) from a host that does not claim IsSM: refused (status 0x1c,
#     SM_Key 0 in the answer), each logged with the source LID and counted
#     (ibsm_sminfo_controls_total{verdict="not_sm"}).
#  3. The same DISABLE from a port that does claim IsSM and that the
#     master's sweep found (a listening sm-rogue on that host): refused
#     too, not legal in MASTER (verdict "our_state").
#  4. The master is still MASTER (sminfo) and a link lost afterwards
#     (Unlink) is re-routed: the fabric checks pass.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 90 smpdump sminfo curl
test_need_built sm-rogue
PY=/usr/bin/python3
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c2=$(ca 3); c5=$(ca 6)
master_guid() { SIM_HOST=$c2 sim_run timeout 10 sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\).*state 3 SMINFO_MASTER.*/\1/p'; }
rogue() { SIM_HOST=$c5 sim_run timeout 20 "$IBSM_BUILD/bin/sm-rogue" "$@"; }
metric() { curl -sf --max-time 2 "http://127.0.0.1:$PORT/metrics" | sed -n "s/^ibsm_sminfo_controls_total{verdict=\"$1\"} //p"; }
# want_metric VERDICT N: the counter reaches N within 6 s (the text is
# refreshed every 5 s).
want_metric() {
	_i=0
	until [ "$(metric "$1")" = "$2" ]; do
		_i=$((_i + 1)); [ $_i -gt 30 ] && fail "ibsm_sminfo_controls_total{verdict=\"$1\"} is '$(metric "$1")', want $2"
		sleep 0.2
	done
}

sm_sim "$W/ft.net"
sm_daemon "$W/a.log" -R ftree,updn --cache-dir "$W/ca" --sweep 0 --dump "$W/a.dump" \
	--set metrics_listen=127.0.0.1:$PORT
guid=$(sed -n 's/.*port GUID \(0x[0-9a-f]*\).*/\1/p' "$W/a.log" | head -1)
guid=$(printf '0x%x' "$guid")
smlid=$(sed -n 's/.*SM LID \([0-9]*\).*/\1/p' "$W/a.log" | head -1)
[ -n "$smlid" ] || fail "no SM LID in the log"
[ "$(master_guid)" = "$guid" ] || fail "sminfo does not name ibsm as master"

# --- 1. SM_Key hidden from a plain Get ----------------------------------------
SIM_HOST=$c2 sim_run timeout 10 smpdump -L "$smlid" 0x20 >"$W/smpdump.out" 2>&1 || { cat "$W/smpdump.out"; fail "smpdump"; }
# The dump is 16-bit hex words, 8 a line: SMInfo's GUID is words 1-4,
# SM_Key words 5-8.
gd=$(awk 'NR == 1 { print $1 $2 $3 $4 }' "$W/smpdump.out")
key=$(awk 'NR == 1 { print $5 $6 $7 $8 }' "$W/smpdump.out")
[ "$(printf '0x%x' "0x$gd")" = "$guid" ] || { cat "$W/smpdump.out"; fail "smpdump output not understood (GUID '$gd')"; }
[ "$key" = 0000000000000000 ] || { cat "$W/smpdump.out"; fail "a plain SubnGet(SMInfo) from a host reads SM_Key $key"; }
echo "ok 1: smpdump -L $smlid 0x20 from $c2 reads GUID $guid, SM_Key 0"

# --- 2. DISABLE / STANDBY from a host without IsSM -----------------------------
for c in 3 4; do
	rogue set --no-issm --lid "$smlid" --control $c --state master --sm-key 1 >"$W/s$c.out"
	rc=$?
	[ $rc -eq 3 ] && grep -q "^status 0x001c" "$W/s$c.out" || { cat "$W/s$c.out"; fail "control $c from a host: exit $rc, not refused with 0x1c"; }
	grep -q "^sm_key 0x0000000000000000" "$W/s$c.out" || fail "the refusal gave the SM_Key away"
	grep -q "^state 3" "$W/s$c.out" || { cat "$W/s$c.out"; fail "control $c: ibsm answered not MASTER"; }
done
rlid=$(grep "control 3 DISABLE) from LID" "$W/a.log" | sed -n 's/.*from LID \([0-9]*\).*/\1/p' | head -1)
[ -n "$rlid" ] && grep -q "control 4 STANDBY) from LID $rlid, claiming SM .*: requester is not an SM port" "$W/a.log" ||
	{ grep "SMInfo Set" "$W/a.log"; fail "no log line naming the source LID of the refused controls"; }
want_metric not_sm 2
echo "ok 2: DISABLE and STANDBY from LID $rlid (no IsSM) refused with 0x1c, logged, counted"

# --- 3. DISABLE from a known SM port: not legal in MASTER -----------------------
SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/sm-rogue" listen --seconds 60 --priority 0 --state standby --sm-key 1 >"$W/r.out" 2>&1
ROGUE=$SIM_LAST_PID
sleep 0.5
n=$(($(grep -c "sweep [0-9]*: heavy sweep" "$W/a.log") + 1))
kill -HUP "$SMPID"
i=0; until [ "$(grep -c "sweep [0-9]*: heavy sweep" "$W/a.log")" -ge $n ]; do i=$((i + 1)); [ $i -gt 100 ] && fail "no heavy sweep"; sleep 0.1; done
grep -q "SMs: 0x[0-9a-f]* LID $rlid priority 0 STANDBY" "$W/a.log" || { grep "SMs:" "$W/a.log"; fail "the sweep did not find the listening rogue"; }
rogue set --lid "$smlid" --control 3 --state master --sm-key 1 >"$W/s5.out"
rc=$?
[ $rc -eq 3 ] || { cat "$W/s5.out"; fail "DISABLE from a known SM port to the MASTER: exit $rc"; }
grep -q "control 3 DISABLE) from LID $rlid.*: not legal in our state: ignored" "$W/a.log" || { grep "SMInfo Set" "$W/a.log"; fail "no 'not legal in our state' line"; }
want_metric our_state 1
sim_stop_pid "$ROGUE"
echo "ok 3: DISABLE from a known SM port with the key refused: not legal in MASTER"

# --- 4. still master; a link loss is re-routed ----------------------------------
[ "$(master_guid)" = "$guid" ] || fail "after the controls sminfo names '$(master_guid)', not ibsm"
grep -q "NOTACTIVE\|stepping down\|STANDBY: " "$W/a.log" && { grep "NOTACTIVE\|STANDBY" "$W/a.log"; fail "ibsm left MASTER"; }
ups=$(grep -c "fabric UP" "$W/a.log")
ibsim_cmd 'Unlink "leaf-2"[6]'
i=0; until [ "$(grep -c "fabric UP" "$W/a.log")" -gt "$ups" ]; do i=$((i + 1)); [ $i -gt 100 ] && { tail "$W/a.log"; fail "the link loss was not re-routed in 10 s"; }; sleep 0.1; done
kill -USR1 "$SMPID"; sleep 0.5
sm_check_fabric a
echo "ok 4: still MASTER; Unlink leaf-2[6] re-routed, fabric verified"
sm_stop_clean "$W/a.log"
echo "PASS"
