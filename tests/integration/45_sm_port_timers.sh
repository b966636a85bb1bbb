#!/bin/sh
# Switch and port timers (issue 25), as OpenSM programs them, read back
# with smpquery:
#  1. defaults: a leaf switch's CA-facing port HOQLife 0x10, its uplink
#     0x12, VLStallCount 7 on both; SwitchInfo.LifeTimeValue 0x12
#     (packet_life_time).
#  2. diff-only: a second heavy sweep (SIGHUP) writes no PortInfo and no
#     SwitchInfo (the switches hold the values).
#  3. the keys: head_of_queue_lifetime, leaf_head_of_queue_lifetime,
#     vl_stall_count, leaf_vl_stall_count and packet_life_time change them
#     (ibsim does not store VLStallCount, it always reads 7: only the
#     count of ports set is checked for it).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 45 smpquery

sm_topo ft fattree --levels 2 --radix 4
# node-0's port 1 faces leaf-0 port 1; leaf-0's ports 3, 4 go up.
pi() { sim_run smpquery -D portinfo 0,1 "$1" 2>/dev/null | sed -n "s/^$2:\.*//p"; }
si_life() { sim_run smpquery -D switchinfo 0,1 2>/dev/null | sed -n 's/^LifeTime:\.*//p'; }
check() { # what want-leaf-hoq want-hoq want-leaf-stall want-stall want-life
	[ "$(pi 1 HoqLife)" = "$2" ] || fail "$1: leaf-0[1] (CA-facing) HoqLife $(pi 1 HoqLife), want $2"
	[ "$(pi 3 HoqLife)" = "$3" ] || fail "$1: leaf-0[3] (uplink) HoqLife $(pi 3 HoqLife), want $3"
	[ "$4" = - ] || [ "$(pi 1 VLStallCount)" = "$4" ] || fail "$1: leaf-0[1] VLStallCount $(pi 1 VLStallCount), want $4"
	[ "$5" = - ] || [ "$(pi 3 VLStallCount)" = "$5" ] || fail "$1: leaf-0[3] VLStallCount $(pi 3 VLStallCount), want $5"
	[ "$(si_life)" = "$6" ] || fail "$1: leaf-0 SwitchInfo LifeTime $(si_life), want $6"
	echo "$1: HoqLife $2 (leaf) / $3, VLStallCount $4 / $5, LifeTime $6: ok"
}

# --- 1. defaults -----------------------------------------------------------------
sm_sim "$W/ft.net"
sm_daemon "$W/a.log" --cache-dir "$W/ca" --sweep 0
check defaults 16 18 7 7 18
grep "timers:" "$W/a.log" || fail "no timers line"

# --- 2. diff-only ------------------------------------------------------------------
kill -HUP "$SMPID"
wait_log "$W/a.log" "sweep 2: heavy sweep" 20 || fail "no second heavy sweep after SIGHUP"
grep "sweep 2: program" "$W/a.log"
grep "sweep 2: program" "$W/a.log" | grep -q "PortInfo 0 set, .*SwitchInfo 0 set" ||
	fail "the second sweep wrote PortInfo or SwitchInfo"
grep -q "sweep 2: timers" "$W/a.log" && fail "the second sweep changed timers"
kill "$SMPID"; wait "$SMPID" 2>/dev/null

# --- 3. the keys -------------------------------------------------------------------
sm_daemon "$W/b.log" --cache-dir "$W/ca" --sweep 0 --set head_of_queue_lifetime=0x14 \
	--set leaf_head_of_queue_lifetime=12 --set vl_stall_count=5 \
	--set leaf_vl_stall_count=3 --set packet_life_time=0x13
check configured 12 20 - - 19
grep "sweep 1: timers: HOQLife/VLStallCount set on 24 switch ports, LifeTimeValue on 6 switches" "$W/b.log" ||
	fail "configured timers: not every switch port and switch set"
kill "$SMPID"; wait "$SMPID" 2>/dev/null
# the range of each key is checked
"$IBSM_BUILD/bin/ibsm" --once --set vl_stall_count=8 >"$W/c.log" 2>&1 && fail "vl_stall_count=8 accepted"
grep -q "vl_stall_count" "$W/c.log" || { cat "$W/c.log"; fail "vl_stall_count=8: the message does not name the key"; }
echo "ok: HOQLife, VLStallCount and LifeTimeValue programmed as configured, diff-only"
