#!/bin/sh
# Congestion-aware multipath under ibsim (issue 12, docs/telemetry.md):
# ibsim carries no data, so the test plays a hotspot with the console's
# PerformanceSet: every second leaf-1's up port 5 (to spine-0) gains
# PortXmitWait and much PortXmitData, its other up ports a little data.
#  1. After congestion_persist (2) PerfMgr samples the port is logged hot,
#     and the sweep it asks for moves at most congestion_max_moves (6) LFT
#     entries of leaf-1 off port 5 onto its other up ports: dump_fts shows
#     exactly that many fewer entries on port 5, the tables are complete,
#     loop-free and credit-loop-free (our verifier on what the switches
#     hold), every port ACTIVE; the log's estimated highest port load after
#     the moves is below the measured one before.
#  2. The hotspot stops: the port is logged cooled down.
#  3. Off (the default): the same hotspot moves nothing.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 85
TEST_AT_EXIT='kill "${RAISER:-}" 2>/dev/null'

sm_topo ft fattree --levels 2 --radix 8
uses() {  # LFT entries of switch DESC out of PORT
	sim_run dump_fts >"$W/fts" 2>/dev/null || fail "dump_fts"
	fts_entries "$W/fts" | awk -v a="$(ibnd_sw_guid "$W/ibnd" "$1")" -v p="$2" '$1 == a && $3 == p { n++ } END { print n + 0 }'
}
hotspot() {  # the raiser: a hot leaf-1[5], warm 6..8
	(n=0; while :; do n=$((n + 1))
		printf 'PerformanceSet "leaf-1"[5] PortCounters.PortXmitWait=%d\n' $((n * 200000)) >&7
		printf 'PerformanceSet "leaf-1"[5] PortCounters.PortXmitData=%d\n' $((n * 20000000)) >&7
		printf 'PerformanceSet "leaf-1"[5] PortCountersExtended.PortXmitData=%d\n' $((n * 20000000)) >&7
		for p in 6 7 8; do
			printf 'PerformanceSet "leaf-1"[%d] PortCounters.PortXmitData=%d\n' $p $((n * 2000000)) >&7
			printf 'PerformanceSet "leaf-1"[%d] PortCountersExtended.PortXmitData=%d\n' $p $((n * 2000000)) >&7
		done
		sleep 1; done) &
	RAISER=$!
}

# --- 1. on ------------------------------------------------------------------------
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/c1" --dump "$W/ft.dump" --sweep 5 \
	--set perf_interval=1 --set congestion_aware=1 --set congestion_persist=2 \
	--set congestion_max_moves=6 --set congestion_xmit_wait_rate=1000
wait_log "$W/sm.log" "perfmgr: cycle 1:" 20 || fail "no PerfMgr cycle"
sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
before=$(uses leaf-1 5)
[ "$before" -gt 6 ] || fail "leaf-1[5] carries only $before entries to begin with"
hotspot
wait_log "$W/sm.log" "congestion: .*\"leaf-1\" port 5 .* is hot" 30 || { tail -20 "$W/sm.log"; fail "leaf-1[5] never found hot"; }
wait_log "$W/sm.log" "congestion: moved [0-9]* LFT entries" 30 || { grep congestion "$W/sm.log"; fail "no entries moved"; }
line=$(grep "congestion: moved [0-9]* LFT entries" "$W/sm.log" | head -1)
echo "  ${line#*info: }"
moved=$(echo "$line" | sed -n 's/.*moved \([0-9]*\) LFT entries.*/\1/p')
[ "$moved" -ge 1 ] && [ "$moved" -le 6 ] || fail "moved $moved entries, want 1..6 (congestion_max_moves)"
est=$(echo "$line" | sed -n 's/.*load \([0-9.]*\) MB\/s, estimated \([0-9.]*\) MB\/s after.*/\1 \2/p')
# shellcheck disable=SC2086
set -- $est
awk -v a="$1" -v b="$2" 'BEGIN { exit !(b < a) }' || fail "estimated load after ($2 MB/s) is not below the measured ($1 MB/s)"
sleep 0.5
after=$(uses leaf-1 5)
[ "$after" -eq $((before - moved)) ] || fail "leaf-1[5] carries $after entries, want $before - $moved"
kill "$RAISER"; RAISER=
kill -USR1 "$SMPID"; sleep 0.5
# The switches hold what ibsm programmed, complete and credit-loop-free.
sm_check_fabric ft
grep -q '"credit_loop": false' "$W/ft.verify" || fail "credit loop after the moves"
echo "ok 1: leaf-1[5] hot: $moved of $before entries moved (bound 6), estimated max load $1 -> $2 MB/s, tables verified"
wait_log "$W/sm.log" "congestion: .*\"leaf-1\" port 5 cooled down" 20 || fail "the port never cooled down"
echo "ok 2: the hotspot stopped: leaf-1[5] cooled down"
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sim_cleanup

# --- 3. off --------------------------------------------------------------------------
sm_sim "$W/ft.net" 3
sm_daemon "$W/off.log" --cache-dir "$W/c2" --sweep 5 --set perf_interval=1
wait_log "$W/off.log" "perfmgr: cycle 1:" 20 || fail "no PerfMgr cycle (3)"
hotspot
sleep 5
kill "$RAISER"; RAISER=
grep -q "congestion:" "$W/off.log" && fail "congestion_aware off, yet the log speaks of congestion"
[ "$(uses leaf-1 5)" -eq "$before" ] || fail "entries moved with congestion_aware off"
echo "ok 3: off by default: the same hotspot moves nothing"
echo "PASS"
