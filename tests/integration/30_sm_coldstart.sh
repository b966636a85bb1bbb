#!/bin/sh
# Cold start under ibsim: `ibsm --once` brings generated fabrics (2- and
# 3-level fat-trees, a degraded fat-tree, a torus, a dragonfly) from cold to
# routed; then the real diag tools judge the result (sm_lib.sh): every
# linked port ACTIVE, unique LIDs, complete LFTs equal to ibsm's, ibtracert
# between sampled CA pairs, our verifier on dump_fts's tables. A running
# daemon must show up in `sminfo` as MASTER with our port GUID.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 30
ENGINES=${IBSM_TEST_ENGINES:-updn,minhop}

coldstart() { # name, ibsm-topo args... (or: name -net FILE)
	_name=$1; shift
	if [ "$1" = -net ]; then
		cp "$2" "$W/$_name.net"
	else
		"$IBSM_BUILD/bin/ibsm-topo" "$@" -o "$W/$_name.net" || fail "$_name: ibsm-topo $*"
	fi
	ibsim_start "$W/$_name.net" || fail "$_name: ibsim did not start"
	sim_run "$IBSM_BUILD/bin/ibsm" --once -R "$ENGINES" --cache-dir "$W/$_name.cache" \
		--dump "$W/$_name.dump" >"$W/$_name.log" 2>&1
	_rc=$?
	[ $_rc -eq 0 ] || { cat "$W/$_name.log"; fail "$_name: ibsm --once exited $_rc"; }
	grep -q "fabric UP" "$W/$_name.log" || fail "$_name: no 'fabric UP' in the log"
	for phase in discovered "LIDs:" "route" "program" "activate" "MADs sent"; do
		grep -q "$phase" "$W/$_name.log" || fail "$_name: log has no '$phase' line"
	done
	[ -s "$W/$_name.dump/ibnetdiscover.txt" ] || fail "$_name: no ibnetdiscover dump"
	[ -s "$W/$_name.dump/fabric.dot" ] || fail "$_name: no DOT dump"
	sm_check_fabric "$_name"
	grep "heavy sweep" "$W/$_name.log" | tail -1
}

coldstart ft2 fattree --levels 2 --radix 8

# sminfo needs a live SM: start the daemon on the routed fabric.
sim_bg_run "$IBSM_BUILD/bin/ibsm" -R "$ENGINES" --cache-dir "$W/ft2.cache" --sweep 0 \
	--log-file "$W/ft2.daemon.log"
_i=0
until grep -q "fabric UP" "$W/ft2.daemon.log" 2>/dev/null; do
	_i=$((_i + 1)); [ $_i -gt 100 ] && fail "daemon did not bring the fabric up"
	sleep 0.1
done
guid=$(sed -n 's/.*port GUID \(0x[0-9a-f]*\).*/\1/p' "$W/ft2.daemon.log" | head -1)
sim_run sminfo >"$W/sminfo" 2>&1 || { cat "$W/sminfo"; fail "sminfo failed"; }
cat "$W/sminfo"
grep -q "SMINFO_MASTER" "$W/sminfo" || fail "sminfo does not report MASTER"
g1=$(printf '%d' "$guid"); g2=$(printf '%d' "$(sed -n 's/.*sm guid \(0x[0-9a-f]*\).*/\1/p' "$W/sminfo")")
[ "$g1" = "$g2" ] || fail "sminfo reports GUID other than ours ($guid)"
# Also from a host elsewhere in the fabric (LID-routed through switches).
SIM_HOST=node-9 sim_run sminfo 2>&1 | grep -q "SMINFO_MASTER" || fail "sminfo from node-9 failed"
sim_cleanup

coldstart ft3 fattree --levels 3 --radix 8
ibsim_stop
coldstart ft3-degraded fattree --levels 3 --radix 8 --remove 0.1 --seed 7
ibsim_stop
# ftree alone (no fallback) on a degraded 3-level tree: it must route it
# itself, and the switches' tables (dump_fts) must be deadlock-free on one
# VL and balanced: the verifier's all-to-all ratio on what they hold.
_saved=$ENGINES; ENGINES=ftree
coldstart ft3-deg-ftree fattree --levels 3 --radix 8 --remove 0.05 --seed 3
ENGINES=$_saved
grep -q "routed with ftree: .*verified, credit-loop-free" "$W/ft3-deg-ftree.log" ||
	fail "ft3-deg-ftree: not routed by ftree, or not credit-loop-free by our verifier"
grep -q '"credit_loop": false' "$W/ft3-deg-ftree.verify" || fail "ft3-deg-ftree: credit loop in the switches' tables"
ratio=$(sed -n 's/.*"a2a_ratio": \([0-9.]*\).*/\1/p' "$W/ft3-deg-ftree.verify")
awk -v r="$ratio" 'BEGIN { exit !(r != "" && r <= 1.25) }' ||
	fail "ft3-deg-ftree: all-to-all load $ratio x the lower bound (want <= 1.25)"
echo "ok ft3-deg-ftree: ftree on the degraded tree, a2a $ratio x bound, no credit loop"
ibsim_stop
# An engine that refuses the topology (ftree on a torus) must leave the
# switches alone: exit 2, nothing programmed, no port ACTIVE.
sm_topo refuse torus --dims 3x3x3 --hcas-per-switch 2
sm_sim "$W/refuse.net" refuse
sim_run "$IBSM_BUILD/bin/ibsm" --once -R ftree --cache-dir "$W/refuse.cache" >"$W/refuse.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$W/refuse.log"; fail "refused routing: exit $rc, want 2"; }
grep -q "keeping the old tables" "$W/refuse.log" || fail "refused routing: not logged"
sim_run dump_fts 2>/dev/null | grep -q "^0x" && fail "refused routing: LFTs were programmed"
sim_run iblinkinfo 2>/dev/null | grep -q "Active" && fail "refused routing: ports were activated"
echo "ok refuse: ftree on a torus -> exit 2, switches untouched"
# minhop on a torus: the daemon's own verifier finds the credit loop and
# says so, and programs the tables the operator chose.
sim_run "$IBSM_BUILD/bin/ibsm" --once -R minhop --cache-dir "$W/refuse.cache" >"$W/minhop.log" 2>&1 ||
	{ cat "$W/minhop.log"; fail "minhop on a torus: ibsm --once failed"; }
grep -q "tables from minhop have a credit loop" "$W/minhop.log" ||
	{ grep routed "$W/minhop.log"; fail "minhop on a torus: no credit-loop warning"; }
echo "ok minhop on a torus: programmed, credit loop reported"
ibsim_stop

coldstart torus torus --dims 3x3x3 --hcas-per-switch 2
grep -q "routed with updn: .*credit-loop-free" "$W/torus.log" || fail "torus: updn not credit-loop-free"
ibsim_stop
coldstart dragonfly dragonfly --groups 5 --switches 4 --hosts 2 --global 1
ibsim_stop

# Hand-made corner cases: dual-port HCAs cabled to two switches (one node,
# two LIDs), a cable looping back into the same switch, a down port.
cat >"$W/corners.in" <<'NET'
Ca	2 "h0"
[1]	"s1"[1]
[2]	"s2"[1]

Ca	2 "h1"
[1]	"s1"[2]
[2]	"s2"[2]

Ca	1 "h2"
[1]	"s1"[3]

Switch	8 "s1"
[1]	"h0"[1]
[2]	"h1"[1]
[3]	"h2"[1]
[5]	"s2"[5]
[6]	"s2"[6]
[7]	"s1"[8]
[8]	"s1"[7]

Switch	8 "s2"
[1]	"h0"[2]
[2]	"h1"[2]
[5]	"s1"[5]
[6]	"s1"[6]
NET
coldstart corners -net "$W/corners.in"
grep -q "discovered 5 nodes (2 switches, 3 CAs, 0 routers), 8 links" "$W/corners.log" ||
	{ grep discovered "$W/corners.log"; fail "corners: wrong node/link count"; }
[ "$(wc -l <"$W/corners.lids")" -eq 7 ] || fail "corners: want 7 LIDs (2 switches, 5 CA ports)"
echo "PASS"
