#!/bin/sh
# A CA discovered by half (issue 24): node-13 answers NodeInfo and
# NodeDescription but never PortInfo (ibsim `Error "node-13"[1] 100 0x15`
# drops every PortInfo MAD reaching it), so the SM can neither give it a
# LID nor configure its port. Before, every view was held as "discovery
# incomplete" forever. Now, after missing_grace (3 s here) plus a sweep:
# the rest is ACTIVE and routed, node-13 is cut from the routed view (no
# LID, no routes), the switch port facing it is left INIT, never armed
# (sm_check_fabric with SM_SILENT_PORTS), the log names node-13 by GUID
# and description, and `ibsmctl status` lists it. When its PortInfo
# answers again it comes up.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 88
GRACE=3
S="$W/ctl.sock"

sm_silent_ca_fabric
ibsim_cmd 'Error "node-13"[1] 100 0x15'
t0=$(date +%s.%N)
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 --dump "$W/ft.dump" \
	--set missing_grace=$GRACE --set ctl_socket="$S"
took=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
echo "fabric UP without node-13 after $took s (missing_grace $GRACE s)"
grep "unreachable:" "$W/sm.log"
grep -q "unreachable: node $G13 \"node-13\" behind 0x[0-9a-f]*\[2\] \"leaf-3\" (DR path [0-9,]*) has not answered PortInfo" "$W/sm.log" ||
	fail "the log does not name node-13, the port it hangs off and what it does not answer"
SM_SILENT_PORTS="leaf-3[2]" sm_check_fabric a
if [ -x "$IBSM_BUILD/bin/ibsmctl" ]; then
	"$IBSM_BUILD/bin/ibsmctl" -s "$S" status >"$W/status" || fail "ibsmctl status"
	cat "$W/status"
	grep -q "^unreachable: 1 silent node left out of routing" "$W/status" || fail "ibsmctl status does not count node-13"
	grep -q "node $G13 \"node-13\" behind 0x[0-9a-f]*\[2\] \"leaf-3\"" "$W/status" || fail "ibsmctl status does not name node-13"
	"$IBSM_BUILD/bin/ibsmctl" -s "$S" --json status | grep -q '"unreachable_nodes":1' || fail "status --json: no unreachable_nodes 1"
fi

sm_silent_ca_back 'Error "node-13"[1] 0 0x15' "unreachable: node $G13 \"node-13\" .* answers again" \
	"node-13 not picked up"
sm_check_fabric c
grep -q '"node-13"' "$W/c.ibnd" || fail "node-13 not in ibnetdiscover after it answers"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
