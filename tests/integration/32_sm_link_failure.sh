#!/bin/sh
# Link failure with the daemon running: Unlink a redundant leaf-spine link
# in the ibsim console. The switches send trap 128; ibsm must sweep, reroute
# and reprogram within seconds, sending only the LFT blocks that changed,
# and every CA pair must be reachable again (diag checks). ReLink must bring
# the link back ACTIVE (ibsim 0.10 sends trap 128 for it too; the light
# sweep's PortStateChange check is the backstop). SIGUSR1 dumps, SIGTERM
# stops cleanly.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 32
ENGINES=${IBSM_TEST_ENGINES:-updn,minhop}
LOG=$W/daemon.log

count_up() {
	_c=$(grep -c 'fabric UP' "$LOG" 2>/dev/null)
	echo "${_c:-0}"
}

# Wait until the log has N "fabric UP" lines; print seconds waited.
wait_up() { # count, timeout_s
	_t0=$(date +%s.%N)
	_i=0
	while [ "$(count_up)" -lt "$1" ]; do
		_i=$((_i + 1))
		[ $_i -gt $(($2 * 20)) ] && { tail -20 "$LOG"; fail "no fabric UP #$1 within $2 s"; }
		sleep 0.05
	done
	echo "$(date +%s.%N) $_t0" | awk '{ printf "%.2f\n", $1 - $2 }'
}

# 3 levels, radix 8: 208 LIDs, so every switch holds 4 LFT blocks.
sm_topo ft fattree --levels 3 --radix 8
sm_sim "$W/ft.net"
sim_bg_run "$IBSM_BUILD/bin/ibsm" -R "$ENGINES" --cache-dir "$W/cache" --sweep 1 \
	--dump "$W/ft.dump" --log-file "$LOG"
wait_up 1 20 >/dev/null
sm_check_fabric ft
total=$(sed -n 's/.*LFT blocks \([0-9]*\) written.*/\1/p' "$LOG" | head -1)
nsweeps=$(grep -c "heavy sweep" "$LOG")
active0=$(sed -n 's/.*activate.*: \([0-9]*\) ports ACTIVE.*/\1/p' "$LOG" | head -1)

# A quiet fabric: light sweeps (every 1 s) must not start heavy sweeps.
sleep 2.5
[ "$(grep -c "heavy sweep" "$LOG")" -eq "$nsweeps" ] || { tail "$LOG"; fail "heavy sweeps on a quiet fabric"; }

# leaf-1 port 5 goes up to a spine; the other three uplinks stay.
fts_entries "$W/ft.dump/lfts.txt" >"$W/before.e"
ts=$(date +%s.%N)
ibsim_cmd 'Unlink "leaf-1"[5]'
wait_up 2 10 >/dev/null
echo "rerouted within $(echo "$(date +%s.%N) $ts" | awk '{ printf "%.2f", $1 - $2 }') s after Unlink"
grep -q "trap 128" "$LOG" || fail "no trap 128 logged"
sleep 0.5
written=$(grep "LFT blocks" "$LOG" | sed -n "$((nsweeps + 1)),\$p" | sed -n 's/.*LFT blocks \([0-9]*\) written.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
grep "leaf-1" "$W/ft.dump/ibnetdiscover.txt" >/dev/null || fail "no dump after reroute"
# The blocks that really differ between the tables before and after.
fts_entries "$W/ft.dump/lfts.txt" >"$W/after.e"
differ=$(awk 'FNR == NR { old[$1 " " $2] = $3; next }
	{ k = $1 " " $2; if (old[k] != $3) d[$1 " " int($2 / 64)] = 1; delete old[k] }
	END { for (k in old) { split(k, a, " "); d[a[1] " " int(a[2] / 64)] = 1 }
	      for (b in d) n++; print n + 0 }' "$W/before.e" "$W/after.e")
echo "LFT blocks: cold start $total written; after Unlink $written written, $differ differ"
[ "$written" -gt 0 ] || fail "nothing reprogrammed after Unlink"
[ "$written" -eq "$differ" ] || fail "wrote $written blocks but $differ differ: not only the changed blocks"
sm_check_fabric ft
links_down=$(grep -c LinkUp "$W/ft.links")

ts=$(date +%s.%N)
ibsim_cmd 'ReLink "leaf-1"[5]'
# up again: the last sweep activated as many ports as the cold start did
i=0
until [ "$(sed -n 's/.*activate.*: \([0-9]*\) ports ACTIVE.*/\1/p' "$LOG" | tail -1)" = "$active0" ]; do
	i=$((i + 1)); [ $i -gt 200 ] && { tail "$LOG"; fail "ReLink: link not back within 10 s"; }
	sleep 0.05
done
echo "link back within $(echo "$(date +%s.%N) $ts" | awk '{ printf "%.2f", $1 - $2 }') s after ReLink "
sleep 0.5
sm_check_fabric ft
links_up=$(grep -c LinkUp "$W/ft.links")
[ "$links_up" -eq $((links_down + 2)) ] || fail "ReLink: $links_up port ends up, expected $((links_down + 2))"

# SIGUSR1 writes the dumps; SIGTERM stops the daemon cleanly (exit 0).
rm -rf "$W/ft.dump"
kill -USR1 "$SIM_LAST_PID"
i=0
until [ -s "$W/ft.dump/lfts.txt" ] || [ -s "$W/ft.dump/fabric.dot" ]; do
	i=$((i + 1)); [ $i -gt 50 ] && fail "SIGUSR1 wrote no dumps"
	sleep 0.1
done
sleep 0.3
[ -s "$W/ft.dump/ibnetdiscover.txt" ] || fail "SIGUSR1: no ibnetdiscover dump"
kill -TERM "$SIM_LAST_PID"
wait "$SIM_LAST_PID"
rc=$?
[ $rc -eq 0 ] || fail "daemon exited $rc on SIGTERM"
grep -q "stopping" "$LOG" || fail "no clean-stop line in the log"
echo "PASS"
