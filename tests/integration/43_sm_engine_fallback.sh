#!/bin/sh
# Engine fallback on verification (issue 24, routing/route_select.h): an
# engine whose tables fail verification is passed over like one that
# refuses, and the next engine's verified tables are programmed.
#  1. --once with a test engine (tests/engines/loopy.c) that returns a
#     forwarding loop, then updn: the fabric comes up on updn's tables,
#     checked with the real tools; the log says why loopy was passed over.
#  2. The daemon with loopy returning a credit loop (complete, loop-free,
#     and it declares itself deadlock-free), then updn: updn's tables are
#     programmed (dump_fts + ibsm-route --lfts-in --check: no credit loop),
#     /metrics and ibsmctl say which engine and why. Then a link dies: the
#     re-route passes loopy over again, and no switch entry routes into the
#     dead port (dump_fts), and the fallback counter moved.
#  3. An engine good at start that fails at the re-route after a link loss:
#     the next engine's tables are programmed, none into the dead link
#     (before issue 24 the old tables were kept); then a whole switch goes.
#  4. The shared reproducers (3-level radix-12 trees, 2% and 5% of the
#     links removed, random GUIDs) with the default engine list come up
#     with --once: complete and loop-free; with a credit loop only if no
#     engine of the list gave tables without one, and then loudly.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 43 curl
LOOPY=$IBSM_BUILD/tests/libibsm-engine-loopy.so
[ -f "$LOOPY" ] || { echo "skip: $LOOPY not built (make tests)"; exit 77; }
PY=/usr/bin/python3

sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"

# 1. A forwarding loop at cold start.
IBSM_TEST_LOOPY_MODE=loop sim_run "$IBSM_BUILD/bin/ibsm" --once -R loopy,updn \
	--set engine_paths="$LOOPY" --cache-dir "$W/cache" --dump "$W/loop.dump" \
	>"$W/loop.log" 2>&1 || { tail -20 "$W/loop.log"; fail "loop: ibsm --once did not bring the fabric up"; }
grep -q "tables from loopy fail verification (.*forwarding loops" "$W/loop.log" ||
	{ grep -E "loopy|routed" "$W/loop.log"; fail "loop: loopy's forwarding loop not logged"; }
grep -q "routing: using updn, not loopy (first in \"loopy,updn\"): loop" "$W/loop.log" ||
	fail "loop: no line naming the engine used and why"
grep -q "routed with updn: .*verified, credit-loop-free" "$W/loop.log" || fail "loop: updn's tables not verified"
sm_check_fabric loop
echo "ok loop: loopy's forwarding loop passed over, updn's tables programmed"

# 2. A credit loop, in the daemon, then a link loss.
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
S=$W/ctl.sock
IBSM_TEST_LOOPY_MODE=credit sm_daemon "$W/sm.log" -R loopy,updn --set engine_paths="$LOOPY" \
	--cache-dir "$W/cache" --sweep 1 --dump "$W/ft.dump" \
	--set metrics_listen=127.0.0.1:$PORT --set ctl_socket="$S"
grep -q "routing engine 'loopy' loaded .*(declares: deadlock-free)" "$W/sm.log" || fail "credit: loopy's flags not read"
grep -q "tables from loopy have a credit loop (.*this engine promises none, this is a bug; passing it over" "$W/sm.log" ||
	{ grep -E "loopy|routed" "$W/sm.log"; fail "credit: loopy's credit loop not logged"; }
grep -q "routing: using updn, not loopy .*: credit_loop" "$W/sm.log" || fail "credit: no line naming the engine used and why"
sm_check_fabric ft
sleep 6                         # one metrics refresh at most
curl -sf "http://127.0.0.1:$PORT/metrics" >"$W/metrics1.txt" || fail "GET /metrics failed"
grep -q '^ibsm_routing_engine_info{engine="updn",preferred="loopy",reason="credit_loop",tables="verified"} 1$' "$W/metrics1.txt" ||
	{ grep ibsm_routing "$W/metrics1.txt"; fail "credit: ibsm_routing_engine_info does not say updn, passed over loopy for a credit loop"; }
n1=$(sed -n 's/^ibsm_routing_fallbacks_total{reason="credit_loop"} \([0-9]*\)$/\1/p' "$W/metrics1.txt")
[ "${n1:-0}" -ge 1 ] || fail "credit: fallback counter not counted"
"$IBSM_BUILD/bin/ibsmctl" -s "$S" status >"$W/status.txt" 2>&1 || fail "ibsmctl status failed"
grep -q "^routing:   updn (loopy passed over: credit_loop)" "$W/status.txt" || { cat "$W/status.txt"; fail "ibsmctl status does not say why"; }
echo "ok credit: updn programmed, loopy passed over (credit_loop) in the log, /metrics and ibsmctl status"

# The dead link: leaf-1 port 5 up to a spine. Its far end, from ibnetdiscover.
leaf=$(awk '/^Switch/ && /"leaf-1"/ { for (i = 1; i <= NF; i++) { g = $i; gsub(/"/, "", g); if (g ~ /^S-/) { sub(/^S-/, "0x", g); print tolower(g); exit } } }' "$W/ft.ibnd")
peer=$(awk '/^Switch/ { inleaf = /"leaf-1"/; next } inleaf && /^\[5\]/ { split($0, a, "\""); print a[2]; exit }' "$W/ft.ibnd")
pport=$(awk '/^Switch/ { inleaf = /"leaf-1"/; next } inleaf && /^\[5\]/ { n = split($0, a, "["); split(a[3], b, "]"); print b[1]; exit }' "$W/ft.ibnd")
pguid=$(echo "$peer" | sed 's/^S-/0x/' | tr 'A-F' 'a-f')
[ -n "$leaf" ] && [ -n "$pguid" ] && [ -n "$pport" ] || fail "cannot find leaf-1 port 5's link in ibnetdiscover ($leaf $pguid $pport)"
fts_entries "$W/ft.fts" | awk -v g="$leaf" '$1 == g && $3 == 5' | grep -q . ||
	fail "before: no entry of leaf-1 uses port 5 (the test would prove nothing)"
ups=$(grep -c "fabric UP" "$W/sm.log")
ibsim_cmd 'Unlink "leaf-1"[5]'
sm_wait_more "$W/sm.log" "fabric UP" "$ups" 20 ||
	{ tail -20 "$W/sm.log"; fail "unlink: no re-route within 20 s"; }
sleep 0.5
[ "$(grep -c "routing: using updn, not loopy .*: credit_loop" "$W/sm.log")" -ge 2 ] ||
	fail "unlink: the re-route did not pass loopy over again"
sm_check_fabric ft
dead=$(awk -v g="$leaf" -v pg="$pguid" -v pp="$pport" \
	'($1 == g && $3 == 5) || ($1 == pg && $3 == pp)' "$W/ft.fts.e" | wc -l)
[ "$dead" -eq 0 ] || fail "unlink: $dead switch entries still route into the dead link leaf-1[5] - $pguid[$pport]"
sleep 6
curl -sf "http://127.0.0.1:$PORT/metrics" >"$W/metrics2.txt" || fail "GET /metrics failed"
n2=$(sed -n 's/^ibsm_routing_fallbacks_total{reason="credit_loop"} \([0-9]*\)$/\1/p' "$W/metrics2.txt")
[ "${n2:-0}" -gt "$n1" ] || fail "unlink: fallback counter did not move ($n1 -> ${n2:-none})"
grep -q '^ibsm_routing_engine_info{engine="updn",preferred="loopy",reason="credit_loop",tables="verified"} 1$' "$W/metrics2.txt" ||
	fail "unlink: ibsm_routing_engine_info changed"
echo "ok unlink: re-routed on updn, no entry into leaf-1[5] - $pguid[$pport], fallbacks $n1 -> $n2"
sim_cleanup

# 3. A running daemon whose engine fails only at the re-route: loopy's
# good tables are programmed at start; then a link dies and loopy's next
# tables loop. The re-route must not keep tables that lead into the dead
# link: updn's are programmed.
echo good >"$W/mode"
sm_sim "$W/ft.net"
IBSM_TEST_LOOPY_MODE_FILE=$W/mode sm_daemon "$W/rt.log" -R loopy,updn \
	--set engine_paths="$LOOPY" --cache-dir "$W/cache" --sweep 1 --dump "$W/rt.dump"
grep -q "routed with loopy: .*verified, credit-loop-free" "$W/rt.log" || fail "runtime: loopy's good tables not taken at start"
sm_check_fabric rt
fts_entries "$W/rt.fts" | awk -v g="$leaf" '$1 == g && $3 == 5' | grep -q . ||
	fail "runtime: no entry of leaf-1 uses port 5 before (the test would prove nothing)"
echo loop >"$W/mode"
ups=$(grep -c "fabric UP" "$W/rt.log")
ibsim_cmd 'Unlink "leaf-1"[5]'
sm_wait_more "$W/rt.log" "fabric UP" "$ups" 20 ||
	{ grep -E "routing|tables from|sweep [0-9]*: (route|activate)" "$W/rt.log" | tail -8; fail "runtime: no re-route brought the fabric up within 20 s"; }
sleep 0.5
grep -q "routing: using updn, not loopy .*: loop" "$W/rt.log" || fail "runtime: loopy not passed over at the re-route"
sm_check_fabric rt
dead=$(awk -v g="$leaf" -v pg="$pguid" -v pp="$pport" \
	'($1 == g && $3 == 5) || ($1 == pg && $3 == pp)' "$W/rt.fts.e" | wc -l)
[ "$dead" -eq 0 ] || fail "runtime: $dead switch entries still route into the dead link"
echo "ok runtime: loopy's re-route looped, updn's tables programmed, no entry into the dead link"
# A switch gone: every link of spine-3 dies; loopy still loops. No leaf
# may keep an entry towards spine-3 (each leaf's port 8).
ups=$(grep -c "fabric UP" "$W/rt.log")
ibsim_cmd 'Unlink "spine-3"'
sm_wait_more "$W/rt.log" "fabric UP" "$ups" 20 ||
	{ grep -E "routing|tables from|sweep [0-9]*: (route|activate)" "$W/rt.log" | tail -8; fail "switch gone: no re-route brought the fabric up within 20 s"; }
sleep 0.5
sm_check_fabric rt
grep -q '"spine-3"' "$W/rt.ibnd" && fail "switch gone: spine-3 still discovered"
dead=$(awk '/^Unicast lids/ { leaf = /leaf-/; next } leaf && /^0x/ && $2 + 0 == 8' "$W/rt.fts" | wc -l)
[ "$dead" -eq 0 ] || fail "switch gone: $dead leaf entries still route towards spine-3"
echo "ok switch gone: spine-3 unlinked, re-routed on updn, no entry towards it"
sim_cleanup

# 4. The shared reproducers, default engine list.
for net in ft3-r12-deg2-rguid-s1 ft3-r12-deg5-rguid-s1; do
	f=$top/../shared/fabrics/$net.net
	[ -f "$f" ] || f=/work/shared/fabrics/$net.net
	[ -f "$f" ] || { echo "skip $net: not found"; continue; }
	sm_sim "$f" "$net"
	sim_run "$IBSM_BUILD/bin/ibsm" --once --cache-dir "$W/c-$net" --dump "$W/$net.dump" \
		>"$W/$net.log" 2>&1 || { grep -E "routing|tables from|fabric" "$W/$net.log" | cut -c1-300; fail "$net: ibsm --once did not bring it up"; }
	used=$(sed -n 's/.*routed with \([a-z]*\):.*/\1/p' "$W/$net.log" | tail -1)
	SM_CREDIT_LOOP_OK=1 sm_check_fabric "$net"
	# The switch-LID routes too (CA to switch: SMPs by LID, PerfMgr).
	"$IBSM_BUILD/bin/ibsm-route" --topo "$W/$net.ibnd" --lfts-in "$W/$net.fts" --check \
		--cdg-switch-lids >"$W/$net.verify" 2>&1
	grep -q '"missing_entries": 0,' "$W/$net.verify" || fail "$net: missing entries"
	grep -q '"pairs_unreachable": 0,' "$W/$net.verify" || fail "$net: unreachable pairs"
	grep -q '"pairs_looping": 0,' "$W/$net.verify" || fail "$net: looping pairs"
	if grep -q '"credit_loop": true' "$W/$net.verify"; then
		grep -q "NOT DEADLOCK-FREE; programming them anyway" "$W/$net.log" ||
			fail "$net: a credit loop programmed without the loud warning"
		echo "note $net: no engine of the list gave credit-loop-free tables; $used's programmed with the warning"
	fi
	echo "ok $net: up with the default list, tables from $used"
	ibsim_stop
done
echo PASS
