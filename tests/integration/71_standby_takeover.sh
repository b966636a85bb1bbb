#!/bin/sh
# Standby and takeover (issue 10), judged by sminfo, ibnetdiscover,
# dump_fts, ibtracert and our verifier on the switches' tables:
#  1. two ibsm: A (sm_priority 5) master, B (priority 1, another CA) finds A
#     MASTER through SMInfo and enters STANDBY, programming nothing; sminfo
#     names A. A's heavy sweep (after B's trap 144) sees B.
#  2. kill -9 A: B notices within sminfo_polling_timeout x
#     polling_retry_number, takes over, keeps every LID and writes no LFT
#     block (the tables A left are the ones B computes); sminfo names B;
#     the fabric checks out.
#  3. OpenSM master (priority 10, updn: its tables differ from ibsm ftree's
#     in 12 entries on this tree) and ibsm beside it: ibsm follows OpenSM as
#     STANDBY; kill -9 OpenSM: ibsm takes over with OpenSM's LIDs and, as
#     OpenSM's tables verify (complete, credit-loop-free), keeps them:
#     dump_fts unchanged (takeover_keep_tables).
#  4. the same with takeover_keep_tables off: ibsm routes anew, the fabric
#     checks out with its own tables.
# Takeover times are printed, not asserted.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 71 opensm sminfo dump_fts

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c2=$(ca 3); c5=$(ca 6)
master_guid() { SIM_HOST=$c2 sim_run timeout 10 sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\).*state 3 SMINFO_MASTER.*/\1/p'; }
lids() { sim_run ibnetdiscover 2>/dev/null | grep -o "lid [0-9]*"; }

# --- 1. two ibsm ---------------------------------------------------------------
sm_sim "$W/ft.net"
sm_daemon "$W/a.log" -R ftree,updn --cache-dir "$W/ca" --sweep 2 --set sm_priority=5
A=$SMPID
SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree,updn --cache-dir "$W/cb" \
	--sweep 2 --set sm_priority=1 --dump "$W/b.dump" >"$W/b.log" 2>&1
B=$SIM_LAST_PID
wait_log "$W/b.log" "STANDBY: MASTER SM" 30 || { tail "$W/b.log"; fail "B did not enter STANDBY"; }
grep "STANDBY" "$W/b.log"
grep -q "LFT blocks [1-9]\|PortInfo [1-9][0-9]* set" "$W/b.log" && fail "the standby programmed something"
guid_a=$(sed -n 's/.*STANDBY: MASTER SM \(0x[0-9a-f]*\).*/\1/p' "$W/b.log" | head -1)
[ "$(master_guid)" = "$(printf '0x%x' "$guid_a")" ] || fail "sminfo does not name A ($guid_a) the master: $(master_guid)"
wait_log "$W/a.log" "SMs: 0x[0-9a-f]* LID [0-9]* priority 1 " 20 || fail "A's sweeps do not see B"
lids >"$W/lids.1"
sim_run dump_fts >"$W/fts.1" 2>/dev/null || fail "dump_fts"
sleep 1
kill -9 "$A"
t0=$(date +%s.%N)
wait_log "$W/b.log" "takeover: MASTER, fabric UP" 30 || { tail -20 "$W/b.log"; fail "B did not take over"; }
echo "takeover noticed by this test $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s after kill -9"
grep "gone\|takeover" "$W/b.log"
lids >"$W/lids.2"
cmp -s "$W/lids.1" "$W/lids.2" || fail "LIDs changed at the takeover"
sim_run dump_fts >"$W/fts.2" 2>/dev/null || fail "dump_fts after takeover"
diff "$W/fts.1" "$W/fts.2" >/dev/null || fail "LFTs changed at the takeover"
grep "takeover" -B3 "$W/b.log" | grep -q "LFT blocks 0 written" ||
	grep -A0 "sweep [0-9]*: program" "$W/b.log" | tail -1 | grep -q "LFT blocks 0 written" || fail "the takeover wrote LFT blocks"
[ "$(master_guid)" != "$(printf '0x%x' "$guid_a")" ] && [ -n "$(master_guid)" ] || fail "sminfo still names A or nobody"
kill -USR1 "$B"; sleep 0.5
sm_check_fabric b
kill "$B"
sim_cleanup

# --- 3. OpenSM master, ibsm standby ------------------------------------------------
sm_sim "$W/ft.net" "OpenSM run"
osm_daemon "$W/osm.log" -p 10 -R updn
O=$SIM_LAST_PID
SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree,updn --cache-dir "$W/cc" \
	--sweep 2 --set sm_priority=1 --dump "$W/c.dump" >"$W/c.log" 2>&1
C=$SIM_LAST_PID
wait_log "$W/c.log" "STANDBY: MASTER SM .*priority 10" 30 || { tail "$W/c.log"; fail "ibsm did not follow OpenSM as STANDBY"; }
lids >"$W/lids.3"
sim_run dump_fts >"$W/fts.3" 2>/dev/null || fail "dump_fts under OpenSM"
kill -9 "$O"
wait_log "$W/c.log" "takeover: MASTER, fabric UP" 30 || { tail -20 "$W/c.log"; fail "ibsm did not take over from OpenSM"; }
grep "gone\|takeover\|LFT blocks" "$W/c.log" | tail -4
grep -q "takeover: keeping the tables the switches hold" "$W/c.log" || fail "ibsm did not keep OpenSM's verified tables"
lids >"$W/lids.4"
cmp -s "$W/lids.3" "$W/lids.4" || fail "LIDs changed when ibsm took over from OpenSM"
sim_run dump_fts >"$W/fts.4" 2>/dev/null || fail "dump_fts after the takeover from OpenSM"
diff "$W/fts.3" "$W/fts.4" >/dev/null || { diff "$W/fts.3" "$W/fts.4" | head; fail "LFTs changed when ibsm took over from OpenSM"; }
kill -USR1 "$C"; sleep 0.5
SM_SWITCH_HOLES_OK=1; sm_check_fabric c; unset SM_SWITCH_HOLES_OK
kill "$C"
sim_cleanup

# --- 4. the same, takeover_keep_tables off --------------------------------------
sm_sim "$W/ft.net" "OpenSM run 2"
osm_daemon "$W/osm2.log" -p 10 -R updn
O=$SIM_LAST_PID
SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree,updn --cache-dir "$W/cd" \
	--sweep 2 --set sm_priority=1 --set takeover_keep_tables=0 --dump "$W/d.dump" >"$W/d.log" 2>&1
D=$SIM_LAST_PID
wait_log "$W/d.log" "STANDBY: MASTER SM .*priority 10" 30 || { tail "$W/d.log"; fail "ibsm did not follow OpenSM as STANDBY (run 2)"; }
kill -9 "$O"
wait_log "$W/d.log" "takeover: MASTER, fabric UP" 30 || { tail -20 "$W/d.log"; fail "ibsm did not take over from OpenSM (run 2)"; }
grep -q "takeover: keeping" "$W/d.log" && fail "takeover_keep_tables=0 still kept the tables"
grep "LFT blocks" "$W/d.log" | tail -1
grep "sweep [0-9]*: program" "$W/d.log" | tail -1 | grep -q "LFT blocks [1-9][0-9]* written" ||
	fail "takeover_keep_tables=0: ibsm wrote none of its own tables over OpenSM's updn"
kill -USR1 "$D"; sleep 0.5
sm_check_fabric d
echo "ok: standby follows the master (ibsm or OpenSM), takes over keeping LIDs and the verified tables the switches hold (routes anew with takeover_keep_tables off)"
