#!/bin/sh
# A link flap storm (issue: 458 heavy sweeps in one storm, one per trap).
# With the daemon up, one leaf-spine link is unlinked and relinked 60 times
# in a few seconds (120 port state changes, each a trap 128 from both
# switches). The heavy sweeps during the storm must stay bounded (flap
# damping: a switch reporting again within a second spaces the sweeps, 0.2 s
# doubling to flap_max_delay), and after the storm the fabric is whole and
# consistent (diag tools, our verifier), LIDs unchanged. Then a lost
# switch (traps from all its neighbours at once) is re-routed at once, not
# damped as a storm (damping is per issuer, sm/health/trap_damp.h).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 38

sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1 --dump "$W/ft.dump"
sim_run ibnetdiscover >"$W/before.ibnd" 2>/dev/null || fail "ibnetdiscover"
ibnd_lids "$W/before.ibnd" | sort -n >"$W/before.lids"
n0=$(grep -c "heavy sweep .* fabric" "$W/sm.log")

# 60 flaps straight into ibsim's console, 50 ms apart.
i=0
while [ $i -lt 60 ]; do
	printf 'Unlink "leaf-1"[5]\n' >&7; sleep 0.05
	printf 'ReLink "leaf-1"[5]\n' >&7; sleep 0.05
	i=$((i + 1))
done
n1=$(grep -c "heavy sweep .* fabric" "$W/sm.log")
storm=$((n1 - n0))
traps=$(grep -c "trap 128" "$W/sm.log")
echo "storm: $traps traps, $storm heavy sweeps during it"
[ "$traps" -gt 20 ] || fail "the storm sent only $traps traps"
[ "$storm" -le 15 ] || { grep "trap storm\|heavy sweep" "$W/sm.log" | tail; fail "$storm heavy sweeps in the storm (bounded: at most 15)"; }
grep -q "trap storm: next heavy sweep in" "$W/sm.log" || fail "damping not logged"
# After the storm: one more sweep sees the link back, the fabric is whole.
n2=$(grep -c "fabric UP" "$W/sm.log")
kill -HUP "$SMPID"
wait_log "$W/sm.log" "heavy sweep" 1 >/dev/null
sm_wait_more "$W/sm.log" "fabric UP" "$n2" 30 ||
	{ tail -20 "$W/sm.log"; fail "not up after the storm"; }
kill -0 "$SMPID" || fail "ibsm died"
sim_run ibnetdiscover >"$W/after.ibnd" 2>/dev/null || fail "ibnetdiscover after"
ibnd_lids "$W/after.ibnd" | sort -n >"$W/after.lids"
cmp -s "$W/before.lids" "$W/after.lids" || fail "LIDs changed in the storm"
kill -USR1 "$SMPID"; sleep 0.5
sm_check_fabric ft

# A lost switch is one event, not a storm: each of its neighbours reports
# once (one trap per lost port, the same millisecond), and the re-route
# runs at once. With damping per trap it waited flap_max_delay (5 s) after
# the last heavy sweep; so lose it 0.3 s after one.
sweeps() { grep -c "heavy sweep .* fabric" "$W/sm.log"; }
n=$(sweeps); t=$(grep -c "trap 128" "$W/sm.log")
kill -HUP "$SMPID"
i=0
until [ "$(sweeps)" -gt "$n" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no heavy sweep after SIGHUP"
	sleep 0.1
done
sleep 0.3
n=$(sweeps)
ibsim_cmd 'Unlink "spine-0"'
t0=$(date +%s.%N)
i=0
until [ "$(sweeps)" -gt "$n" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && { tail -20 "$W/sm.log"; fail "no heavy sweep 10 s after the switch loss"; }
	sleep 0.05
done
rr=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }')
traps=$(($(grep -c "trap 128" "$W/sm.log") - t))
echo "switch loss: $traps traps, re-routed $rr s after it"
[ "$traps" -ge 4 ] || fail "the switch loss sent only $traps traps"
awk -v r="$rr" 'BEGIN { exit !(r < 2.0) }' ||
	{ grep "trap storm" "$W/sm.log" | tail -3; fail "switch loss re-routed after $rr s (damped as a storm; want < 2 s)"; }
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
