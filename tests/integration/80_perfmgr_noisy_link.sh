#!/bin/sh
# PerfMgr and the noisy-link policy under ibsim (docs/telemetry.md):
#  1. counters: values we read equal perfquery's; a 16-bit counter past
#     half its range is counted and cleared (perfquery then shows 0); a
#     counter set lower by someone else is seen as a reset;
#  2. noisy link: SymbolErrorCounter raised every second on one
#     switch-switch port -> within 2 PerfMgr cycles an `avoid` event, then
#     no switch forwards over that link in either direction (dump_fts),
#     ibtracert avoids it, every pair is reachable and the tables are
#     credit-loop-free (our verifier on what the switches hold);
#  3. restore: after the quiet period the link carries routes again;
#  4. bad thresholds in the configuration: a FILE:LINE error, exit 1.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 80
TEST_AT_EXIT='kill "${RAISER:-}" 2>/dev/null'

# 4. Bad input first (no fabric needed).
cat >"$W/bad.yaml" <<'EOF'
perf_interval: 2
perf_symbol_error_rate: -1
perf_action: nuke
EOF
"$IBSM_BUILD/bin/ibsm" -c "$W/bad.yaml" --dump-config >"$W/bad.out" 2>&1 && fail "bad thresholds accepted"
grep -q "bad.yaml:2: bad value for 'perf_symbol_error_rate'" "$W/bad.out" || { cat "$W/bad.out"; fail "no FILE:LINE error for a negative threshold"; }
grep -q "bad.yaml:3: bad value for 'perf_action': 'nuke' (report, avoid or disable)" "$W/bad.out" || { cat "$W/bad.out"; fail "no FILE:LINE error for a bad action"; }
echo "ok bad thresholds: $(head -1 "$W/bad.out")"

INTERVAL=2
QUIET=8
sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --dump "$W/ft.dump" --sweep 5 \
	--set perf_interval=$INTERVAL --set perf_quiet_period=$QUIET \
	--set perf_event_log="$W/events.jsonl"
wait_log "$W/sm.log" "perfmgr: cycle 1:" 20 || fail "no PerfMgr cycle"
sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
cycles() { grep -c "perfmgr: cycle [0-9]*:" "$W/sm.log"; }
wait_cycles() {  # N more PerfMgr cycles
	_want=$(($(cycles) + $1)); _i=0
	until [ "$(cycles)" -ge "$_want" ]; do
		_i=$((_i + 1)); [ $_i -gt 300 ] && fail "PerfMgr cycles stopped"
		sleep 0.1
	done
}
dump_now() { kill -USR1 "$SMPID"; sleep 0.5; }
# "COUNTER value" for port (desc, num) in our dump.
our() {
	awk -v d="desc \"$1\"" -v p="$2" -v c="$3" -v f="$4" '
		/^port / { on = index($0, d) && $3 == p; next }
		on && $1 == c { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$W/ft.dump/perf-counters.txt"
}
pq() { sim_run perfquery "$1" "$2" 2>/dev/null | awk -F'[.:]+' -v c="$3" '$1 == c { print $2 }'; }

# 1. Counters against perfquery.
ibsim_cmd 'PerformanceSet "node-5"[1] PortCounters.VL15Dropped=9'
ibsim_cmd 'PerformanceSet "node-5"[1] PortCounters.PortRcvSwitchRelayErrors=4'
ibsim_cmd 'PerformanceSet "node-6"[1] PortCounters.VL15Dropped=40000'
ibsim_cmd 'PerformanceSet "node-7"[1] PortCounters.PortRcvRemotePhysicalErrors=100'
wait_cycles 2
ibsim_cmd 'PerformanceSet "node-7"[1] PortCounters.PortRcvRemotePhysicalErrors=10'
wait_cycles 2
dump_now
l5=$(ibnd_lid_of "$W/ibnd" node-5); l6=$(ibnd_lid_of "$W/ibnd" node-6)
for c in VL15Dropped PortRcvSwitchRelayErrors SymbolErrorCounter; do
	a=$(our node-5 1 $c value); b=$(pq "$l5" 1 $c)
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "node-5 $c: ibsm read '$a', perfquery '$b'"
done
echo "ok node-5: VL15Dropped $(our node-5 1 VL15Dropped value), PortRcvSwitchRelayErrors $(our node-5 1 PortRcvSwitchRelayErrors value), as perfquery"
[ "$(pq "$l6" 1 VL15Dropped)" = 0 ] || fail "node-6 VL15Dropped 40000 was not cleared (perfquery: $(pq "$l6" 1 VL15Dropped))"
[ "$(our node-6 1 VL15Dropped total)" -ge 40000 ] || fail "node-6: the cleared 40000 drops are not in ibsm's total"
grep 'desc "node-6"' "$W/ft.dump/perf-counters.txt" | grep -q "clears [1-9]" || fail "node-6: no clear counted"
echo "ok node-6: VL15Dropped 40000 counted (total $(our node-6 1 VL15Dropped total)) and cleared"
grep 'desc "node-7"' "$W/ft.dump/perf-counters.txt" | grep -q "resets 1 " || fail "node-7: reset by someone else not seen"
grep -q 'counters of .* "node-7" port 1 went down' "$W/sm.log" || fail "node-7: reset not logged"
[ "$(our node-7 1 PortRcvRemotePhysicalErrors total)" = 110 ] || fail "node-7: total $(our node-7 1 PortRcvRemotePhysicalErrors total), want 100 + 10"
echo "ok node-7: reset to 10 detected, total 110"

# 2. A noisy switch-switch link: leaf-0 port 5 <-> spine-0 port 1.
LEAF=$(ibnd_sw_guid "$W/ibnd" leaf-0); SPINE=$(ibnd_sw_guid "$W/ibnd" spine-0)
[ -n "$LEAF" ] && [ -n "$SPINE" ] || fail "no leaf-0 / spine-0 in ibnetdiscover"
grep -q "\"leaf-0\"\[5\]" "$W/ft.net" || true
link_uses() {  # entries forwarding leaf-0 -> port 5, spine-0 -> port 1
	sim_run dump_fts >"$W/fts" 2>/dev/null || fail "dump_fts"
	fts_entries "$W/fts" | awk -v a="$LEAF" -v b="$SPINE" '
		($1 == a && $3 == 5) || ($1 == b && $3 == 1) { n++ } END { print n + 0 }'
}
before=$(link_uses)
[ "$before" -gt 0 ] || fail "the link carries no routes to begin with"
echo "ok before: $before LFT entries use leaf-0[5] <-> spine-0[1]"
mark=$(wc -l <"$W/sm.log")
t0=$(date +%s.%N)
perf_raise_symbol_errors '"leaf-0"[5]'
wait_log "$W/events.jsonl" '"event":"avoid"' 30 || { tail -20 "$W/sm.log"; fail "no avoid event in 30 s"; }
ncyc=$(tail -n +"$mark" "$W/sm.log" | awk '/noisy link/ { print n + 0; exit } /perfmgr: cycle [0-9]*:/ { n++ }')
[ "$ncyc" -le 2 ] || fail "avoided only after $ncyc PerfMgr cycles"
grep '"event":"avoid"' "$W/events.jsonl" | grep -q '"node_desc":"leaf-0","port":5' || { cat "$W/events.jsonl"; fail "avoid event names another port"; }
grep '"event":"avoid"' "$W/events.jsonl" | grep -q '"SymbolErrorCounter":{"value":[1-9]' || fail "avoid event lacks the counters"
# The reroute: a heavy sweep after the hold.
i=0
until tail -n +"$mark" "$W/sm.log" | grep -q "link hold: routing around .*leaf-0"; do
	i=$((i + 1)); [ $i -gt 300 ] && fail "no reroute around the link"
	sleep 0.1
done
wait_log "$W/sm.log" "perfmgr: rerouted" 30 || fail "reroute did not finish"
sleep 0.5
after=$(link_uses)
echo "rerouted $(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }') s after the first error, after $ncyc PerfMgr cycle(s) (perf_interval $INTERVAL s)"
[ "$after" -eq 0 ] || fail "$after LFT entries still use the noisy link"
echo "ok avoided: 0 LFT entries use leaf-0[5] <-> spine-0[1]"
# ibtracert from every CA under leaf-0 to one CA per other leaf.
for s in node-0 node-1 node-2 node-3; do
	for d in node-4 node-9 node-14 node-19 node-31; do
		ls=$(ibnd_lid_of "$W/ibnd" $s); ld=$(ibnd_lid_of "$W/ibnd" $d)
		for pair in "$ls $ld" "$ld $ls"; do
			# shellcheck disable=SC2086
			sim_run ibtracert $pair >"$W/tr" 2>&1 || { cat "$W/tr"; fail "ibtracert $pair failed"; }
			grep -qi "^\[5\] -> switch port {$SPINE}\[1\]" "$W/tr" && { cat "$W/tr"; fail "ibtracert $pair crosses leaf-0[5] -> spine-0"; }
			grep -qi "^\[1\] -> switch port {$LEAF}\[5\]" "$W/tr" && { cat "$W/tr"; fail "ibtracert $pair crosses spine-0[1] -> leaf-0"; }
		done
	done
done
echo "ok ibtracert: 40 routes avoid the link"
sm_check_fabric ft
grep -q '"credit_loop": false' "$W/ft.verify" || fail "credit loop in the rerouted tables"
grep -q '"pairs_unreachable": 0' "$W/ft.verify" || fail "unreachable pairs in the rerouted tables"
echo "ok rerouted tables: every pair reachable, credit-loop-free (ibsm-route --lfts-in --check)"

# 3. Errors stop: the link comes back after the quiet period.
kill "$RAISER"; RAISER=
ups=$(grep -c "fabric UP" "$W/sm.log")
i=0
until grep -q '"event":"restore"' "$W/events.jsonl"; do
	i=$((i + 1)); [ $i -gt $(((QUIET + 4 * INTERVAL + 10) * 10)) ] && { tail -20 "$W/sm.log"; fail "link not restored"; }
	sleep 0.1
done
sm_wait_more "$W/sm.log" "fabric UP" "$ups" 30 ||
	fail "no sweep after the restore"
sleep 0.5
again=$(link_uses)
[ "$again" -gt 0 ] || fail "restored link carries no routes"
echo "ok restored: $again LFT entries use the link again"
sm_check_fabric ft
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
