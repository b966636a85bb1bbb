#!/bin/sh
# Reports must not share the sweep's MAD window (issue 26 finding 3). One
# host makes 4,096 InformInfo subscriptions to every trap (sa-client
# --count, a LID range of its own each), receives every Report and never
# answers one (--issm --listen --ignore-reports). Then a
# leaf up-link is unlinked (ibsim Unlink): its trap 128 is forwarded as
# thousands of Reports, none answered.
#  1. the sweep that re-routes around the link is programmed within 1 s
#     of the trap, measured with the SM's own log clock (from "trap 128
#     from LID" to the next "sweep N: program" line of --log-file), not
#     the test machine's wall clock: Reports wait in their own queue
#     behind the SMPs;
#  2. the silent subscriber is dropped (report_max_misses Reports in a row
#     unanswered): logged with its count, within 10 s, and a second link
#     loss brings no Report to it;
#  3. the fabric is whole after it (diag checks).
# On main before the fix, Reports and the sweep's SMPs share one FIFO:
# the re-route waits behind 4,096 timed-out Reports (27-80 s in the
# issue).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 98
test_need_built sa-client

LOG=$W/sm.log
sm_topo ft fattree --levels 3 --radix 8
silent=$(ibsim_ca_name "$W/ft.net" 5)
sm_sim "$W/ft.net"
sim_bg_run "$IBSM_BUILD/bin/ibsm" -R updn --cache-dir "$W/cache" --sweep 2 \
	--dump "$W/ft.dump" --log-file "$LOG" 2>"$W/sm.err"
SMPID=$SIM_LAST_PID
wait_log "$LOG" "fabric UP" 30 || { tail -20 "$LOG"; fail "ibsm not up in 30 s"; }

# The silent subscriber: it claims IsSM (ibsim hands requests on QP1 only
# to such a client), receives every Report and answers none.
SIM_HOST=$silent sim_bg_run "$IBSM_BUILD/bin/sa-client" ii-set --trap 128 --lid-begin 1 \
	--lid-end 49151 --count 4096 --issm --listen 25 --ignore-reports >"$W/sub.out" 2>&1
SUBPID=$SIM_LAST_PID
wait_log "$W/sub.out" "^sent" 30 || { cat "$W/sub.out"; fail "no subscriptions in 30 s"; }
cat "$W/sub.out"
grep -q "^sent 4096 ok 4096" "$W/sub.out" || fail "4,096 subscriptions not taken"

ts() { sed -n 's/^[0-9-]* \([0-9]*\):\([0-9]*\):\([0-9.]*\) .*/\1 \2 \3/p' | awk '{ printf "%.3f\n", $1 * 3600 + $2 * 60 + $3 }'; }
# Unlink, and how long from the first trap after it to the next sweep's
# programming, by the SM's log: in DT.
rerouted() { # console command
	_nt=$(grep -c "trap 128 from LID" "$LOG")
	_np=$(grep -c "sweep [0-9]*: program" "$LOG")
	ibsim_cmd "$1"
	_i=0
	until [ "$(grep -c "sweep [0-9]*: program" "$LOG")" -gt "$_np" ]; do
		_i=$((_i + 1)); [ $_i -gt 100 ] && { grep -v "report trap" "$LOG" | tail -20; fail "$1: no re-route within 10 s"; }
		sleep 0.1
	done
	_tt=$(grep "trap 128 from LID" "$LOG" | sed -n "$((_nt + 1))p" | ts)
	_tp=$(grep "sweep [0-9]*: program" "$LOG" | sed -n "$((_np + 1))p" | ts)
	[ -n "$_tt" ] || fail "$1: no trap 128 logged"
	DT=$(awk -v a="$_tt" -v b="$_tp" 'BEGIN { printf "%.3f\n", b - a }')
}
rerouted 'Unlink "leaf-1"[5]'
dt=$DT
echo "re-routed (switches programmed) $dt s after the trap, by the SM's log"
awk -v d="$dt" 'BEGIN { exit !(d >= 0 && d <= 1.0) }' || fail "re-route took $dt s after the trap (bound 1 s)"

# 2. The silent subscriber goes.
wait_log "$LOG" "Reports in a row unanswered: its 4096 subscriptions dropped" 10 ||
	{ grep -v "report trap" "$LOG" | tail -20; fail "the silent subscriber was not dropped within 10 s"; }
grep "Reports in a row unanswered" "$LOG"
nrep=$(grep -c "SA: report trap" "$LOG")
rerouted 'Unlink "leaf-2"[6]'
dt=$DT
echo "second link loss: re-routed $dt s after the trap"
sleep 0.5
[ "$(grep -c "SA: report trap" "$LOG")" -eq "$nrep" ] || fail "Reports still sent to the dropped subscriber"

# 3. The fabric is whole.
sm_check_fabric ft
sim_stop_pid "$SUBPID"
# A sanitized daemon reports on stderr.
sm_stop_clean "$W/sm.err"
echo "PASS"
