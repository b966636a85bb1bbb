#!/bin/sh
# One silent CA at a cold start (issue 24): node-13's link is up but its
# SMA never answers (ibsim `Error "leaf-3"[2] 100` drops every MAD coming
# back from it). Before, sweep_guard held every view as "discovery
# incomplete" with no time limit: nothing was ever programmed. Now:
#  a. within missing_grace (3 s here) plus a sweep, every other port is
#     ACTIVE and routed (sm_check_fabric, leaf-3[2] left INIT), the log
#     and /metrics name the port it hangs off and the DR path, and the
#     LID the cache gives node-13 (5, in the range fresh LIDs come from)
#     is held for it: no other port gets it;
#  b. a switch-link loss (Unlink) is re-routed while node-13 stays silent;
#  c. once node-13 answers again, a later sweep brings it up with LID 5.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 86
GRACE=3

sm_silent_ca_fabric
mkdir -p "$W/cache"
echo "$P13 5 5" >"$W/cache/guid2lid"
ibsim_cmd "Error $PEER 100"
grep -q "not found\|bad port" "$SIM_DIR/ibsim.log" && fail "ibsim refused the Error command"
PORT=
if command -v curl >/dev/null 2>&1; then
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null)
fi
t0=$(date +%s.%N)
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 --dump "$W/ft.dump" \
	--set missing_grace=$GRACE ${PORT:+--set metrics_listen=127.0.0.1:$PORT}
t1=$(date +%s.%N)
took=$(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }')
echo "fabric UP without node-13 after $took s (missing_grace $GRACE s)"
awk -v t="$took" -v g=$GRACE 'BEGIN { exit !(t <= g + 4) }' || fail "up after $took s, more than the grace + 4 s"

# --- a. everything else ACTIVE and routed; node-13 named and its LID held
grep "unreachable:" "$W/sm.log"
grep -q "unreachable: .* behind 0x[0-9a-f]*\[2\] \"leaf-3\" (DR path [0-9,]*) has not answered NodeInfo" "$W/sm.log" ||
	fail "the log does not name the port node-13 hangs off"
SM_SILENT_PORTS="leaf-3[2]" sm_check_fabric a
grep -q "\"node-13\"" "$W/a.ibnd" && fail "node-13 answered ibnetdiscover: was it silent?"
ibnd_lids "$W/a.ibnd" | grep -qx 5 && fail "LID 5, node-13's in the cache, was given to another port"
grep -q "^$P13 5 5$" "$W/cache/guid2lid" || { cat "$W/cache/guid2lid"; fail "guid2lid no longer holds node-13's LID"; }
echo "ok a: node-13's LID 5 held for it"
if [ -n "$PORT" ]; then
	sleep 1
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$W/metrics.txt" || fail "GET /metrics failed"
	grep "unreachable" "$W/metrics.txt" | grep -v "^#"
	grep -q "^ibsm_unreachable_nodes 1$" "$W/metrics.txt" || fail "ibsm_unreachable_nodes is not 1"
	grep -q '^ibsm_unreachable_node_seconds{.*at_desc="leaf-3",at_port="2",dr_path="[0-9,]*"}' "$W/metrics.txt" ||
		fail "no ibsm_unreachable_node_seconds series naming leaf-3 port 2"
fi

# --- b. a switch link lost while node-13 stays silent: re-routed
ups=$(grep -c "fabric UP" "$W/sm.log")
ibsim_cmd 'Unlink "leaf-1"[5]'
i=0
until [ "$(grep -c "fabric UP" "$W/sm.log")" -gt "$ups" ] && grep -q "trap 128" "$W/sm.log"; do
	i=$((i + 1)); [ $i -gt 50 ] && { tail -20 "$W/sm.log"; fail "link loss not re-routed in 5 s while node-13 is silent"; }
	sleep 0.1
done
sleep 0.5
kill -USR1 "$SMPID"; sleep 0.5
SM_SILENT_PORTS="leaf-3[2]" sm_check_fabric b
grep -q '"leaf-1"' "$W/b.links" || fail "no leaf-1 in iblinkinfo"
echo "ok b: re-routed around leaf-1[5] while node-13 is silent"

# --- c. node-13 answers again: up with its reserved LID
sm_silent_ca_back "Error $PEER 0" "unreachable: node .* answers again" \
	"node-13 not picked up after it answers again"
grep "answers again" "$W/sm.log"
grep -q "unreachable: node $G13 \"node-13\" behind .*\"leaf-3\" answers again" "$W/sm.log" || fail "the log does not name node-13 when it answers again"
sm_check_fabric c
lid=$(ibnd_ca_lid "$W/c.ibnd" node-13)
[ "$lid" = 5 ] || fail "node-13 came back with LID $lid, not its reserved 5"
echo "ok c: node-13 up again with LID $lid"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
