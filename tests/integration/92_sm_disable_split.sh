#!/bin/sh
# ibsmctl disable / avoid judge the fabric as it will be (issue 26,
# finding 5): with every link already avoided or disabled out, not only
# the new one. The SM's own leaf, leaf-a below, had its four up-links
# disabled one by one, each accepted: the SM cut itself off.
#  1. disable leaf-a (the SM's leaf) ports 5, 6, 7: accepted; port 8:
#     refused ("would split"), the leaf keeps its last up-link.
#  2. avoid another leaf's ports 5, 6, 7: accepted; port 8: refused.
#  3. mixed on a third leaf: avoid 5, disable 6 and 7: disable 8 and
#     avoid 8 refused.
#  4. the SM still reaches every node (ibnetdiscover from a host on
#     another leaf sees all 44) and every CA has a route to every CA
#     (dump_fts + our verifier, disabled links left out).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 92 ibnetdiscover dump_fts
test_need_built ibsmctl
S=$W/ibsm.sock
ctl() { "$IBSM_BUILD/bin/ibsmctl" -s "$S" "$@"; }

sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 --set ctl_socket="$S"
sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
# The SM's leaf: the switch the first CA (the SM's node) hangs off.
sml=$(awk -F'"' '/^Ca/ { getline; print $2; exit }' "$W/ft.net")
case "$sml" in leaf-*) ;; *) fail "cannot find the SM's leaf ('$sml')";; esac
others=$(awk -F'"' '/^Switch/ && $2 ~ /^leaf-/ { print $2 }' "$W/ft.net" | grep -vx "$sml" | head -2)
lb=$(echo "$others" | sed -n 1p); lc=$(echo "$others" | sed -n 2p)
A=$(ibnd_sw_guid "$W/ibnd" "$sml"); B=$(ibnd_sw_guid "$W/ibnd" "$lb"); C=$(ibnd_sw_guid "$W/ibnd" "$lc")
[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] || fail "leaf GUIDs not found"
# ok CMD GUID PORT / refused CMD GUID PORT
ok() { ctl "$1" "$2" "$3" test >"$W/out" 2>&1 || { cat "$W/out"; fail "$1 $2 port $3 refused"; }; }
refused() {
	ctl "$1" "$2" "$3" test >"$W/out" 2>&1 && { cat "$W/out"; fail "$1 $2 port $3 accepted: it cuts the leaf off"; }
	grep -q "split\|cut part of the fabric off" "$W/out" || { cat "$W/out"; fail "$1 $2 port $3: not refused for the split"; }
}

# --- 1. disable the SM's leaf's up-links -------------------------------------
ok disable "$A" 5; ok disable "$A" 6; ok disable "$A" 7
refused disable "$A" 8
echo "ok 1: $sml (the SM's leaf): ports 5-7 disabled, port 8 refused: $(cat "$W/out")"

# --- 2. avoid another leaf's up-links -------------------------------------------
ok avoid "$B" 5; ok avoid "$B" 6; ok avoid "$B" 7
refused avoid "$B" 8
echo "ok 2: $lb: ports 5-7 avoided, port 8 refused"

# --- 3. mixed --------------------------------------------------------------------
ok avoid "$C" 5; ok disable "$C" 6; ok disable "$C" 7
refused disable "$C" 8
refused avoid "$C" 8
echo "ok 3: $lc: 5 avoided, 6-7 disabled; disable and avoid of 8 refused"

# --- 4. everything reachable -------------------------------------------------------
n=$(grep -c "fabric UP" "$W/sm.log")
ctl resweep >/dev/null || fail "resweep"
i=0; until [ "$(grep -c "fabric UP" "$W/sm.log")" -gt "$n" ]; do i=$((i + 1)); [ $i -gt 100 ] && { tail "$W/sm.log"; fail "no sweep"; }; sleep 0.1; done
far=$(awk -F'"' -v l="$lb" '/^Ca/ { c = $2; getline; if ($2 == l) { print c; exit } }' "$W/ft.net")
SIM_HOST=$far sim_run ibnetdiscover >"$W/ibnd2" 2>/dev/null || fail "ibnetdiscover from $far"
[ "$(grep -cE '^(Switch|Ca)' "$W/ibnd2")" = 44 ] || fail "$far sees $(grep -cE '^(Switch|Ca)' "$W/ibnd2") of 44 nodes"
sim_run dump_fts >"$W/fts" 2>/dev/null || fail "dump_fts"
"$IBSM_BUILD/bin/ibsm-route" --topo "$W/ibnd2" --lfts-in "$W/fts" --check >"$W/verify" 2>&1 ||
	{ cat "$W/verify"; fail "the switches' tables do not route every pair"; }
kill -0 "$SMPID" || fail "ibsm died"
echo "ok 4: all 44 nodes reachable from $far; the switches' tables route every pair"
sm_stop_clean "$W/sm.log"
echo "PASS"
