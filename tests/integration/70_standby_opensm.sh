#!/bin/sh
# OpenSM as a standby under an ibsm master (issue 10, first step): OpenSM
# started beside ibsm used to stay in DISCOVERING, because ibsm ignored
# directed-route SMInfo Gets. Now ibsm answers them along the return path,
# with its SM_Key (same key as OpenSM's default 1), and OpenSM, with a
# lower priority, enters STANDBY. sminfo from both nodes names ibsm as the
# one master, and sminfo to OpenSM's port shows it STANDBY.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 70 opensm sminfo ibstat

sm_topo ft fattree --levels 2 --radix 8
osmhost=$(ibsim_ca_name "$W/ft.net" 3)
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1 --set sm_priority=5
our_guid=$(sim_run sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\).*/\1/p')
[ -n "$our_guid" ] || fail "sminfo does not answer"

export OSM_CACHE_DIR="$W/osm-cache"
mkdir -p "$OSM_CACHE_DIR"
SIM_HOST=$osmhost sim_bg_run opensm -d2 -p 0 -f "$W/osm.log" >"$W/osm.out" 2>&1
wait_log "$W/osm.log" "Entering STANDBY state" 30 ||
	{ grep -E "Entering|ERR" "$W/osm.log" | tail -5; fail "OpenSM did not enter STANDBY under ibsm"; }
grep -q "SUBNET UP\|Entering MASTER" "$W/osm.log" && fail "OpenSM became master too"
for host in "" "$osmhost"; do
	m=$(SIM_HOST=$host sim_run sminfo 2>/dev/null)
	echo "$m" | grep -q "sm guid $our_guid.*SMINFO_MASTER" ||
		fail "sminfo from ${host:-the SM's node} names another master: $m"
done
osmlid=$(SIM_HOST=$osmhost sim_run ibstat 2>/dev/null | awk '/Base lid/ { print $3; exit }')
sim_run sminfo "$osmlid" 2>/dev/null | grep -q "SMINFO_STANDBY" || fail "OpenSM's port does not report STANDBY"
kill -0 "$SMPID" || fail "ibsm died"
sm_check_fabric ft
echo "PASS"
