#!/bin/sh
# Restart on a routed fabric: a second `ibsm --once` (same cache dir) must
# change no LID and write no LFT block, and no PortInfo but the
# ClientReregister Sets to the end ports that a new master sends (IBA
# 14.4.11; counted in its log), and the fabric must still pass every diag
# check. A third run with the
# guid2lid file deleted must still keep every LID (they are read back from
# the ports).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 31
ENGINES=${IBSM_TEST_ENGINES:-updn,minhop}

sm_topo ft3 fattree --levels 3 --radix 8
sm_sim "$W/ft3.net"
run() { # log name
	sim_run "$IBSM_BUILD/bin/ibsm" --once -R "$ENGINES" --cache-dir "$W/cache" \
		--dump "$W/ft3.dump" >"$W/$1.log" 2>&1 || { cat "$W/$1.log"; fail "$1: ibsm --once failed"; }
	grep -E "LIDs:|program|heavy sweep" "$W/$1.log"
}
run first
grep -q "LFT blocks [1-9][0-9]* written" "$W/first.log" || fail "cold start wrote no LFT blocks?"
sim_run ibnetdiscover 2>/dev/null >"$W/before.ibnd"
ibnd_lids "$W/before.ibnd" >"$W/before.lids"

run second
grep -q "LIDs: 0 changed" "$W/second.log" || fail "restart changed LIDs"
grep -q "LFT blocks 0 written" "$W/second.log" || fail "restart rewrote LFT blocks"
rereg=$(sed -n 's/.*ClientReregister set on \([0-9]*\) end ports.*/\1/p' "$W/second.log")
grep -q "PortInfo ${rereg:-0} set" "$W/second.log" || fail "restart sent PortInfo Sets other than the ClientReregister ones (${rereg:-0})"
grep -q "SwitchInfo 0 set" "$W/second.log" || fail "restart sent SwitchInfo Sets"
sim_run ibnetdiscover 2>/dev/null >"$W/after.ibnd"
ibnd_lids "$W/after.ibnd" >"$W/after.lids"
cmp -s "$W/before.lids" "$W/after.lids" || fail "LIDs differ after restart"

rm -f "$W/cache/guid2lid"
run third
grep -q "LIDs: 0 changed" "$W/third.log" || fail "LIDs changed without guid2lid (should be read from the ports)"
grep -q "LFT blocks 0 written" "$W/third.log" || fail "third run rewrote LFT blocks"
[ -s "$W/cache/guid2lid" ] || fail "guid2lid not saved"
sm_check_fabric ft3
echo "PASS"
