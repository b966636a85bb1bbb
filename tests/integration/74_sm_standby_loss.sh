#!/bin/sh
# No false takeover under MAD loss (issue 10): two ibsm with the default
# polling (200 ms, 3 polls in a row unanswered, each poll a MAD with the
# transport's 3 retries), 20% of the packets dropped in each direction of
# the standby's link (ibsim Error on the leaf port facing it and on its own
# port): a poll try is lost with p = 0.36, a poll (4 tries) with 0.017,
# three in a row with 5e-6. Over 40 s (about 200 polls) the standby must
# see lost polls (the loss is real) and never take over; the master's
# light sweeps go on. Then the loss is lifted and the master killed: the
# takeover still happens. Longer runs: bench/takeover_bench.sh.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 74
SECS=${IBSM_T74_SECONDS:-40}

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c5=$(ca 6)
# The leaf port the standby's CA hangs off: [1] "leaf-x"[p] under its Ca line.
peer=$(awk -v c="\"$c5\"" '$1 == "Ca" && $3 == c { getline; sub(/^\[1\][ \t]*/, ""); sub(/[ \t].*/, ""); print; exit }' "$W/ft.net")
[ -n "$peer" ] || fail "cannot find the leaf port of $c5"

sm_sim "$W/ft.net"
sm_daemon "$W/a.log" -R ftree,updn --cache-dir "$W/ca" --sweep 2 --set sm_priority=5
A=$SMPID
SIM_HOST=$c5 sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree,updn --cache-dir "$W/cb" \
	--sweep 2 --set sm_priority=1 >"$W/b.log" 2>&1
B=$SIM_LAST_PID
wait_log "$W/b.log" "STANDBY: MASTER SM" 30 || { tail "$W/b.log"; fail "B did not enter STANDBY"; }
ibsim_cmd "Error $peer 20" >/dev/null
ibsim_cmd "Error \"$c5\"[1] 20" >/dev/null
echo "20% loss both ways on $c5 <-> $peer for $SECS s"
sleep "$SECS"
ibsim_cmd "Error $peer 0" >/dev/null
ibsim_cmd "Error \"$c5\"[1] 0" >/dev/null
missed=$(grep -c "did not answer SMInfo" "$W/b.log")
worst=$(sed -n 's/.*did not answer SMInfo (\([0-9]*\) in a row).*/\1/p' "$W/b.log" | sort -n | tail -1)
echo "standby: $missed polls unanswered, at most ${worst:-0} in a row"
grep -q "taking over\|takeover" "$W/b.log" && { grep "taking over\|takeover" "$W/b.log"; fail "false takeover under 20% loss"; }
[ "$missed" -gt 0 ] || fail "no poll was lost: the loss did not apply"
kill -0 "$A" || fail "the master died"
kill -9 "$A"
wait_log "$W/b.log" "takeover: MASTER, fabric UP" 30 || { tail -20 "$W/b.log"; fail "B did not take over once the master died"; }
kill -USR1 "$B"; sleep 0.5
sm_check_fabric b
echo "ok: no false takeover in $SECS s of 20% loss on the standby's link ($missed polls lost, worst run ${worst:-0}); takeover after kill -9"
