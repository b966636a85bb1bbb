#!/bin/sh
# Flap hold-out (issue 14): a switch-switch link that goes down and up more
# than flap_hold_count times in flap_hold_window s is held out of routing
# while it is up, and given back once it stayed up for flap_hold_quiet s.
# leaf-0[5] <-> spine-0[1] is unlinked and relinked 6 times (12 state
# changes per end; the hold needs more than 6). Then, with the link up:
# no LFT entry forwards over it (dump_fts, both directions), every pair is
# reachable and credit-loop-free (our verifier on dump_fts), ibsmctl holds
# lists it, and all ports are ACTIVE (iblinkinfo). After the quiet period
# the link carries routes again. A link flapped 2 times (4 changes) is
# not held. Bad values give FILE:LINE.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 83

# Bad configuration values: named with file and line, nonzero exit.
printf 'flap_hold_count: 6\nflap_hold_quiet: 0\n' >"$W/bad.yaml"
"$IBSM_BUILD/bin/ibsm" --config "$W/bad.yaml" --once >"$W/bad.out" 2>&1 && fail "flap_hold_quiet 0 accepted"
grep -q "bad.yaml:2" "$W/bad.out" || { cat "$W/bad.out"; fail "no FILE:LINE for flap_hold_quiet 0"; }
printf 'flap_hold_count: 64\n' >"$W/bad2.yaml"
"$IBSM_BUILD/bin/ibsm" --config "$W/bad2.yaml" --once >"$W/bad2.out" 2>&1 && fail "flap_hold_count 64 accepted"
grep -q "bad2.yaml:1" "$W/bad2.out" || { cat "$W/bad2.out"; fail "no FILE:LINE for flap_hold_count 64"; }

QUIET=6
sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1 --dump "$W/ft.dump" \
	--set flap_hold_count=6 --set flap_hold_window=60 --set flap_hold_quiet=$QUIET \
	--set ctl_socket="$W/ctl"
sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
LEAF=$(ibnd_sw_guid "$W/ibnd" leaf-0); SPINE=$(ibnd_sw_guid "$W/ibnd" spine-0)
[ -n "$LEAF" ] && [ -n "$SPINE" ] || fail "no leaf-0 / spine-0 in ibnetdiscover"
grep -q '"leaf-0"\[5\].*"spine-0"\[1\]\|"spine-0"\[1\].*"leaf-0"\[5\]' "$W/ft.net" ||
	grep -A12 'Switch.*"leaf-0"' "$W/ft.net" | grep -q '^\[5\].*"spine-0"\[1\]' || fail "leaf-0[5] is not cabled to spine-0[1]"
link_uses() {  # LFT entries forwarding leaf-0 -> port 5, spine-0 -> port 1
	sim_run dump_fts >"$W/fts" 2>/dev/null || fail "dump_fts"
	fts_entries "$W/fts" | awk -v a="$LEAF" -v b="$SPINE" '
		($1 == a && $3 == 5) || ($1 == b && $3 == 1) { n++ } END { print n + 0 }'
}
ups() { grep -c "fabric UP" "$W/sm.log"; }
wait_up_after() {  # a "fabric UP" sweep after count $1
	_i=0
	until [ "$(ups)" -gt "$1" ]; do
		_i=$((_i + 1)); [ $_i -gt 300 ] && { tail -20 "$W/sm.log"; fail "$2"; }
		sleep 0.1
	done
}
flap() {  # flap PORT-SPEC N: N times down and up, 0.3 s apart
	_k=0
	while [ $_k -lt "$2" ]; do
		printf 'Unlink %s\n' "$1" >&7; sleep 0.3
		printf 'ReLink %s\n' "$1" >&7; sleep 0.3
		_k=$((_k + 1))
	done
}
before=$(link_uses)
[ "$before" -gt 0 ] || fail "the link carries no routes to begin with"
echo "ok before: $before LFT entries use leaf-0[5] <-> spine-0[1]"

# 1. Two flaps of another link: counted, not held.
flap '"leaf-1"[6]' 2
sleep 2
grep -q "port flapping:" "$W/sm.log" && { grep "port flapping" "$W/sm.log"; fail "2 flaps (4 changes) held a link"; }
echo "ok: 2 flaps of leaf-1[6] not held"

# 2. Six flaps: held out while up.
flap '"leaf-0"[5]' 6
u=$(ups)
wait_log "$W/sm.log" "port flapping: switch" 10 || { tail -20 "$W/sm.log"; fail "no flap hold after 6 flaps"; }
grep "port flapping: switch" "$W/sm.log" | head -2
grep "port flapping: switch" "$W/sm.log" | grep -q "\"leaf-0\" port 5\|\"spine-0\" port 1" || fail "the hold names another port"
grep "port flapping: switch" "$W/sm.log" | grep -q "\"leaf-1\"" && fail "leaf-1 held"
# A sweep after the last flap (damped: up to flap_max_delay later) sees
# the link up again and activates it, routing around it.
wait_up_after "$u" "not up after the flaps"
sleep 0.5
held=$(link_uses)
sim_run iblinkinfo >"$W/links" 2>/dev/null || fail "iblinkinfo"
grep -E '^ +[0-9]+ +5\[.*Active/ +LinkUp.*"spine-0"' "$W/links" >/dev/null ||
	{ grep '"spine-0"' "$W/links"; fail "leaf-0[5] not up and ACTIVE while held"; }
[ "$held" -eq 0 ] || { grep "flapping\|link hold" "$W/sm.log"; fail "$held LFT entries still use the held link"; }
echo "ok held: the link is ACTIVE and 0 LFT entries use it"
"$IBSM_BUILD/bin/ibsmctl" --socket "$W/ctl" holds >"$W/holds" 2>&1 || { cat "$W/holds"; fail "ibsmctl holds"; }
grep -q "flapping" "$W/holds" || { cat "$W/holds"; fail "ibsmctl holds does not list the flapping link"; }
# A damped sweep may still come after the flaps (flap_max_delay): compare
# the switches with ibsm's tables only once no heavy sweep ran for 2 s.
_n=-1; _i=0
while [ "$(grep -c "heavy sweep [0-9.]* s" "$W/sm.log")" -ne "$_n" ]; do
	_n=$(grep -c "heavy sweep [0-9.]* s" "$W/sm.log")
	_i=$((_i + 1)); [ $_i -gt 10 ] && fail "heavy sweeps do not stop after the flaps"
	sleep 2
done
kill -USR1 "$SMPID"; sleep 0.5
sm_check_fabric ft
grep -q '"credit_loop": false' "$W/ft.verify" || fail "credit loop with the link held"
grep -q '"pairs_unreachable": 0' "$W/ft.verify" || fail "unreachable pairs with the link held"
echo "ok: every pair reachable, credit-loop-free with the link held"

# 3. Quiet: the link is given back.
wait_log "$W/sm.log" "port flapping over" $((QUIET + 10)) || { tail -20 "$W/sm.log"; fail "the link was not given back after $QUIET s quiet"; }
L=$(grep -n "port flapping over" "$W/sm.log" | tail -1 | cut -d: -f1)
i=0
until tail -n +"$L" "$W/sm.log" | grep -q "fabric UP"; do
	i=$((i + 1)); [ $i -gt 300 ] && { tail -20 "$W/sm.log"; fail "no sweep after the release"; }
	sleep 0.1
done
sleep 0.5
again=$(link_uses)
[ "$again" -gt 0 ] || fail "the link carries no routes after the release"
echo "ok released: $again LFT entries use the link again (before: $before)"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
