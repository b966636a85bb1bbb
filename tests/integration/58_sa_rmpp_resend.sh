#!/bin/sh
# RMPP answers when the reader's ACKs are lost (issue 9: the SA's RMPP
# sender has window, ACK, timeout and abort). Under ibsim there is no
# kernel RMPP, so ibsm's SA is the sender and sa-table the receiver.
#  1. A NodeRecord table read whole (many segments, window 16) is the
#     reference.
#  2. The same read with its second ACK lost (--drop-ack 2): the SA hears
#     nothing for sa_rmpp_timeout_ms (here 700), sends the window after the
#     last ACK again, the reader re-ACKs and the table comes whole and
#     equal; sa-stats counts the resend.
#  3. A reader that stops ACKing after its first ACK (--ack-limit 1): the
#     SA resends sa_rmpp_retries (here 2) times, then ABORTs with status
#     126 (too many retries); sa-stats counts it, the log says so.
#  4. saquery (no RMPP under ibsim: it never ACKs) still gets its first
#     segment and no resend follows (resends are only for readers that
#     ACKed), and the SA keeps answering.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 58 saquery ibnetdiscover
[ -x "$IBSM_BUILD/bin/sa-table" ] || fail "no $IBSM_BUILD/bin/sa-table"

sm_topo ft fattree --levels 2 --radix 12
client=$(ibsim_ca_name "$W/ft.net" 3)
stat_of() { # name: its value in a fresh sa-stats dump
	sm_sa_stats "$W/dump"
	awk -v k="$1" '$1 == k { print $2 }' "$W/dump/sa-stats.txt"
}

sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --dump "$W/dump" \
	--set sa_rmpp_timeout_ms=700 --set sa_rmpp_retries=2

# --- 1. the reference read ------------------------------------------------
sa_tab NR >"$W/nr.ref" || { cat "$W/nr.ref"; fail "NodeRecord table not read whole"; }
segs=$(sed -n 's/.* segments \([0-9]*\).*/\1/p' "$W/nr.ref")
[ "${segs:-0}" -gt 17 ] || { cat "$W/nr.ref"; fail "the table should take more than one window (17 segments), took ${segs:-?}"; }
echo "ok NodeRecord table: $segs segments"
r0=$(stat_of rmpp_resends)

# --- 2. the second ACK lost -------------------------------------------------
t0=$(date +%s.%N)
sa_tab --drop-ack 2 NR >"$W/nr.drop" || { cat "$W/nr.drop"; fail "a lost ACK left the table incomplete"; }
dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
diff "$W/nr.ref" "$W/nr.drop" || fail "the table read with a lost ACK differs"
r1=$(stat_of rmpp_resends)
[ "$r1" -gt "$r0" ] || fail "no window resend counted ($r0 -> $r1)"
echo "ok second ACK lost: window sent again ($r0 -> $r1 resends), table whole and equal after ${dt} s"

# --- 3. a reader that stops ACKing ------------------------------------------
a0=$(stat_of rmpp_aborted)
sa_tab --ack-limit 1 --timeout 8000 NR >"$W/nr.stop"; rc=$?
[ $rc -eq 6 ] && grep -q "^rmpp abort status 126" "$W/nr.stop" ||
	{ cat "$W/nr.stop"; fail "a silent reader: expected ABORT 126 (exit 6), got exit $rc"; }
a1=$(stat_of rmpp_aborted)
[ "$a1" -gt "$a0" ] || fail "the abort was not counted ($a0 -> $a1)"
grep -q "no ACK after 2 resends" "$W/sm.log" || fail "the SA did not log the abort"
echo "ok silent reader: 2 resends (sa_rmpp_retries), then ABORT 126 ($(grep -m1 'no ACK after' "$W/sm.log" | sed 's/.*SA: //'))"

# --- 4. saquery (never ACKs) gets no resend ----------------------------------
r2=$(stat_of rmpp_resends)
SIM_HOST=$client sim_run timeout 10 saquery NR >/dev/null 2>&1
sleep 2.5
r3=$(stat_of rmpp_resends)
[ "$r3" -eq "$r2" ] || fail "a reader that never ACKed got resends ($r2 -> $r3)"
lid=$(awk '/^lid / { print $2; exit }' "$W/nr.ref")
SIM_HOST=$client sim_run timeout 10 saquery NR "$lid" | grep -q "lid\.*$lid" || fail "saquery after the aborted transfer"
echo "ok non-RMPP reader: no resend; the SA still answers"
sm_reroute "$W/ft.net" "$W/sm.log"
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
echo "PASS"
