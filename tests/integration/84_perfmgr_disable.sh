#!/bin/sh
# The noisy-link policy's `disable` action and `ibsmctl disable` under ibsim
# (docs/telemetry.md):
#  1. SymbolErrorCounter raised every second on leaf-0 port 5 (to spine-0
#     port 1) with perf_action disable: a `disable` event; smpquery shows
#     the port and its far end PortPhysicalState Disabled; no LFT
#     entry uses the link (dump_fts), our verifier on what the switches
#     hold finds every pair reachable and no credit loop; the SM still
#     says "fabric UP" (the ends are down on purpose) and sweeps no more;
#  2. a port held down has nothing to measure: perf_quiet_period seconds
#     after it went down a `restore` event, and both ends set to Polling
#     (smpquery). ibsim does not train links: a port it
#     holds in Polling never comes up by itself, so the test plays the
#     physical layer with Unlink/ReLink of that cable, as a real link
#     would retrain; then both ends are ACTIVE again and carry routes;
#  3. ibsmctl disable on another switch-switch link: down; ibsmctl restore:
#     ACTIVE again; ibsmctl disable of a host's only link is refused.
. "$(dirname "$0")/sm_lib.sh"
test_need_built ibsmctl
sm_test_start 84 smpquery dump_fts ibnetdiscover
TEST_AT_EXIT='kill "${RAISER:-}" 2>/dev/null'
S=$W/ctl.sock
ctl() { "$IBSM_BUILD/bin/ibsmctl" -s "$S" "$@"; }

INTERVAL=2
QUIET=10
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null)
metric() { command -v curl >/dev/null 2>&1 && curl -s "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --dump "$W/ft.dump" --sweep 5 \
	--set perf_interval=$INTERVAL --set perf_quiet_period=$QUIET \
	--set perf_action=disable --set perf_event_log="$W/events.jsonl" \
	--set ctl_socket="$S" ${PORT:+--set metrics_listen=127.0.0.1:$PORT}
wait_log "$W/sm.log" "perfmgr: cycle 1:" 20 || fail "no PerfMgr cycle"
sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
# port_state DESC PORT: "LinkState PhysLinkState" as smpquery reads them
port_state() {
	sim_run smpquery portinfo "$(ibnd_lid_of "$W/ibnd" "$1")" "$2" 2>/dev/null |
		awk -F'[.:]+' '$1 == "LinkState" { l = $2 } $1 == "PhysLinkState" { p = $2 } END { print l, p }'
}
uses() {  # LFT entries forwarding DESC_A -> port PA or DESC_B -> port PB
	sim_run dump_fts >"$W/fts" 2>/dev/null || fail "dump_fts"
	fts_entries "$W/fts" | awk -v a="$(ibnd_sw_guid "$W/ibnd" "$1")" -v pa="$2" -v b="$(ibnd_sw_guid "$W/ibnd" "$3")" -v pb="$4" '
		($1 == a && $3 == pa) || ($1 == b && $3 == pb) { n++ } END { print n + 0 }'
}
verify_tables() {
	"$IBSM_BUILD/bin/ibsm-route" --topo "$W/ibnd" --lfts-in "$W/fts" --check >"$W/v.json" 2>"$W/v.err" ||
		{ cat "$W/v.err"; fail "$1: the switches' tables fail --check"; }
	grep -q '"pairs_unreachable": 0' "$W/v.json" && grep -q '"credit_loop": false' "$W/v.json" ||
		{ cat "$W/v.json"; fail "$1: unreachable pairs or a credit loop"; }
}
[ "$(uses leaf-0 5 spine-0 1)" -gt 0 ] || fail "leaf-0[5] <-> spine-0[1] carries no routes to begin with"

# --- 1. the disable action -----------------------------------------------------------
perf_raise_symbol_errors '"leaf-0"[5]'
wait_log "$W/events.jsonl" '"event":"disable"' 30 || { tail -20 "$W/sm.log"; fail "no disable event in 30 s"; }
grep '"event":"disable"' "$W/events.jsonl" | grep -q '"node_desc":"leaf-0","port":5' || { cat "$W/events.jsonl"; fail "disable event names another port"; }
wait_log "$W/sm.log" "disable: taking .*leaf-0.* down" 20 || { tail -20 "$W/sm.log"; fail "the port was not taken down"; }
wait_log "$W/sm.log" "2 link ends taken down by the disable action" 20 || { grep disable "$W/sm.log"; fail "the sweep did not take both ends down"; }
sleep 1
st=$(port_state leaf-0 5)
case "$st" in *Disabled*) ;; *) fail "leaf-0 port 5 is '$st', want PhysLinkState Disabled";; esac
case "$(port_state spine-0 1)" in *Disabled*) ;; *) fail "spine-0 port 1 is '$(port_state spine-0 1)', want Disabled";; esac
n=$(uses leaf-0 5 spine-0 1)
[ "$n" -eq 0 ] || fail "$n LFT entries still use the disabled link"
verify_tables disabled
if [ -n "$PORT" ] && command -v curl >/dev/null 2>&1; then
	sleep 1
	[ "$(metric ibsm_disabled_link_ends)" = 2 ] || { curl -s "http://127.0.0.1:$PORT/metrics" | grep disabled; fail "/metrics does not show 2 disabled link ends"; }
fi
sleep 1
grep "heavy sweep [0-9.]* s" "$W/sm.log" | tail -1 | grep -q "fabric UP" || { grep "heavy sweep [0-9.]* s" "$W/sm.log" | tail -3; fail "the last heavy sweep is not UP with the link disabled"; }
nh=$(grep -c "heavy sweep [0-9.]* s" "$W/sm.log")
sleep 3
[ "$(grep -c "heavy sweep [0-9.]* s" "$W/sm.log")" -le $((nh + 1)) ] || fail "the SM keeps sweeping while the link is disabled on purpose"
echo "ok 1: leaf-0[5] disabled ($st), spine-0[1] $(port_state spine-0 1), no route over it, every pair reachable, fabric UP"

# --- 2. restore ------------------------------------------------------------------------------
kill "$RAISER"; RAISER=
i=0
until grep -q '"event":"restore"' "$W/events.jsonl"; do
	i=$((i + 1)); [ $i -gt $(((QUIET + 4 * INTERVAL + 10) * 10)) ] && { tail -20 "$W/sm.log"; fail "link not restored"; }
	sleep 0.1
done
wait_log "$W/sm.log" "disable: bringing .*leaf-0.* back" 20 || fail "the port was not brought back"
wait_log "$W/sm.log" "disable: bringing .*spine-0.* back" 20 || fail "the far end was not brought back"
sleep 1
case "$(port_state leaf-0 5)" in *Polling*) ;; *) fail "leaf-0 port 5 is '$(port_state leaf-0 5)' after the restore, want Polling";; esac
ibsim_cmd 'Unlink "leaf-0"[5]'
ibsim_cmd 'ReLink "leaf-0"[5]'
i=0
until [ "$(port_state leaf-0 5 | cut -d' ' -f1)" = Active ] && [ "$(port_state spine-0 1 | cut -d' ' -f1)" = Active ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "the link is not Active again: leaf-0[5] $(port_state leaf-0 5), spine-0[1] $(port_state spine-0 1)"
	sleep 0.2
done
sleep 1
n=$(uses leaf-0 5 spine-0 1)
[ "$n" -gt 0 ] || fail "the restored link carries no routes"
echo "ok 2: restored after $QUIET s quiet: both ends Active, $n LFT entries use it again"

# --- 3. ibsmctl ------------------------------------------------------------------------------
G=$(ibnd_sw_guid "$W/ibnd" spine-1)
ctl disable "$G" 2 "bad cable" >"$W/c1" || { cat "$W/c1"; fail "ibsmctl disable refused"; }
i=0
until port_state spine-1 2 | grep -q Disabled; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "ibsmctl disable: spine-1 port 2 is $(port_state spine-1 2)"
	sleep 0.2
done
ctl holds >"$W/holds"; grep -q "bad cable" "$W/holds" || { cat "$W/holds"; fail "ibsmctl holds does not list the disabled link"; }
ctl restore "$G" 2 >/dev/null || fail "ibsmctl restore refused"
wait_log "$W/sm.log" "disable: bringing .*spine-1.* back" 20 || fail "ibsmctl restore: spine-1 port 2 not brought back"
sleep 1
ibsim_cmd 'Unlink "spine-1"[2]'
ibsim_cmd 'ReLink "spine-1"[2]'
i=0
until [ "$(port_state spine-1 2 | cut -d' ' -f1)" = Active ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "ibsmctl restore: spine-1 port 2 is $(port_state spine-1 2)"
	sleep 0.2
done
L=$(ibnd_sw_guid "$W/ibnd" leaf-1)
ctl disable "$L" 1 >"$W/c2" 2>&1 && { cat "$W/c2"; fail "ibsmctl disabled a host's only link"; }
grep -q "split the fabric" "$W/c2" || { cat "$W/c2"; fail "no reason for refusing the host link"; }
sleep 2
sm_check_fabric ft
echo "ok 3: ibsmctl disable / restore of spine-1[2]; a host link refused ($(cat "$W/c2"))"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
