#!/bin/sh
# A master that answers SMInfo but does nothing (issue 10: "takes over
# when ... its ActCount stops moving"). IBA 14.4.1 gives SMInfo.ActCount to
# tell a standby the master is at work; OpenSM reports the SMPs it sent, its
# answers to our polls included, so ibsm counts growth beyond its own
# answered polls (master_stall_timeout, here 3 s):
#  1. OpenSM master sweeping every second, ibsm standby: no takeover in 8 s.
#  2. ibsm master with light sweeps every second: no takeover in 8 s.
#  3. OpenSM master with sweeping off (-s 0: it answers, never acts): ibsm
#     takes over, keeps LIDs and OpenSM's (verified) tables, sminfo names
#     ibsm, and a later heavy sweep ignores the still-MASTER OpenSM instead
#     of stepping down to it (priority 10 > 1).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 73 opensm sminfo dump_fts

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c2=$(ca 3); c5=$(ca 6)
master_guid() { SIM_HOST=$c2 sim_run timeout 10 sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\).*state 3 SMINFO_MASTER.*/\1/p'; }
lids() { sim_run ibnetdiscover 2>/dev/null | grep -o "lid [0-9]*"; }
standby() {  # standby NAME: ibsm priority 1 on c5, stall timeout 3 s
	SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree,updn --cache-dir "$W/c$1" \
		--sweep 2 --set sm_priority=1 --set master_stall_timeout=3 \
		--dump "$W/$1.dump" >"$W/$1.log" 2>&1
	STBY=$SIM_LAST_PID
	wait_log "$W/$1.log" "STANDBY: MASTER SM" 30 || { tail "$W/$1.log"; fail "$1: ibsm did not enter STANDBY"; }
}

# --- 1. OpenSM at work ------------------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm1.log" -p 10 -s 1
O=$SIM_LAST_PID
standby a
sleep 8
grep -q "ActCount stayed\|taking over" "$W/a.log" && { grep "ActCount\|taking over" "$W/a.log"; fail "ibsm took over from an OpenSM sweeping every second"; }
echo "ok 1: no takeover from OpenSM sweeping every second ($(grep -c . "$W/a.log") log lines)"
kill "$STBY" "$O"
sim_cleanup

# --- 2. ibsm at work ----------------------------------------------------------
sm_sim "$W/ft.net" 2
sm_daemon "$W/m.log" -R ftree,updn --cache-dir "$W/cm" --sweep 1 --set sm_priority=5
M=$SMPID
standby b
sleep 8
grep -q "ActCount stayed\|taking over" "$W/b.log" && { grep "ActCount\|taking over" "$W/b.log"; fail "ibsm took over from an ibsm master sweeping every second"; }
echo "ok 2: no takeover from an ibsm master sweeping every second"
kill "$STBY" "$M"
sim_cleanup

# --- 3. OpenSM answering but idle -----------------------------------------------
sm_sim "$W/ft.net" 3
osm_daemon "$W/osm3.log" -p 10 -s 0
O=$SIM_LAST_PID
lids >"$W/lids.1"
sim_run dump_fts >"$W/fts.1" 2>/dev/null || fail "dump_fts under OpenSM"
standby c
wait_log "$W/c.log" "ActCount stayed" 30 || { tail "$W/c.log"; fail "ibsm did not notice OpenSM's ActCount standing still"; }
wait_log "$W/c.log" "takeover: MASTER, fabric UP" 30 || { tail -20 "$W/c.log"; fail "ibsm did not take over from the idle OpenSM"; }
grep "ActCount stayed\|takeover" "$W/c.log"
kill -0 "$O" 2>/dev/null || fail "OpenSM died: this phase needs it alive"
lids >"$W/lids.2"
cmp -s "$W/lids.1" "$W/lids.2" || fail "LIDs changed at the takeover"
sim_run dump_fts >"$W/fts.2" 2>/dev/null || fail "dump_fts after the takeover"
diff "$W/fts.1" "$W/fts.2" >/dev/null || fail "LFTs changed at the takeover (OpenSM's minhop tables verify)"
guid_c=$(sed -n 's/.*port GUID \(0x[0-9a-f]*\).*/\1/p' "$W/c.log" | head -1)
[ "$(master_guid)" = "$(printf '0x%x' "$guid_c")" ] || fail "sminfo names '$(master_guid)', not ibsm ($guid_c)"
# A heavy sweep sees OpenSM still MASTER with a better priority: ignored.
kill -HUP "$STBY"
wait_log "$W/c.log" "still says MASTER with ActCount .*stuck" 20 || { tail "$W/c.log"; fail "the heavy sweep did not ignore the stuck OpenSM"; }
sleep 2
[ "$(grep -c "STANDBY: MASTER SM" "$W/c.log")" -eq 1 ] || fail "ibsm stepped down to the stuck OpenSM"
kill -USR1 "$STBY"; sleep 0.5
sm_check_fabric c
echo "ok 3: ibsm took over from an OpenSM that answers but does not act, and stays master"
