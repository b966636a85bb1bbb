#!/bin/sh
# The daemon's updn (and minhop) and ibsm-route give the same tables for
# the same fabric and LIDs, and updn's are credit-loop-free, routes to
# switch LIDs included (issue 24). On degraded 3-level fat-trees with
# random GUIDs (the two reproducers in tests/data, and a generated one
# whose GUIDs awk rewrites at random):
#  - `ibsm --once -R updn --dump DIR` brings the fabric up (it refused its
#    own tables on ft3-r12-deg5-rguid-s1: a credit loop through switch
#    LIDs), checked with the real tools (sm_check_fabric);
#  - `ibsm-route --engine updn` on DIR/ibnetdiscover.txt (the daemon's
#    LIDs) makes exactly the tables the switches hold (dump_fts), and so
#    does ibsm-route on the original net file with the daemon's LIDs
#    (--guid2lid from its cache): a different node order, same tables;
#  - ibsm-route --check --cdg-switch-lids accepts both;
#  - the same comparison for minhop on one fabric (cheap).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 44 ibnetdiscover dump_fts
ROUTE=$IBSM_BUILD/bin/ibsm-route
test_need_built ibsm-route

# Every *guid= line of an ibsim net file gets a distinct random GUID
# (low bit clear: a CA port's GUID is the node's + port), seeded.
random_guids() {
	awk -v seed="$2" 'BEGIN { srand(seed) }
	/^(switch|ca|rt)guid=/ {
		do g = sprintf("0x0002c9%02x%08x", int(rand() * 256), int(rand() * 2147483648) * 2)
		while (g in used)
		used[g] = 1
		sub(/=.*/, "=" g)
	}
	{ print }' "$1"
}

# Switch tables as sorted "guid lid port" lines.
entries() { fts_entries "$1" | sort; }

# same NAME WHAT A B: the two entry lists are identical.
same() {
	_d=$(comm -3 "$3" "$4" | wc -l)
	[ "$_d" -eq 0 ] || { comm -3 "$3" "$4" | head -5; fail "$1: $2: $_d entries differ"; }
	echo "ok $1: $2 ($(wc -l <"$3") entries)"
}

# parity NAME NET ENGINE: bring NET up with the daemon routing with
# ENGINE alone, then compare and check as above.
parity() {
	_n=$1 _net=$2 _e=$3
	sm_sim "$_net" "$_n"
	sim_run "$IBSM_BUILD/bin/ibsm" --once -R "$_e" --cache-dir "$W/$_n.cache" \
		--dump "$W/$_n.dump" >"$W/$_n.log" 2>&1
	_rc=$?
	[ $_rc -eq 0 ] || { grep -E "error|warn" "$W/$_n.log" | head; fail "$_n: ibsm --once -R $_e exited $_rc"; }
	grep -q "routed with $_e: " "$W/$_n.log" || fail "$_n: not routed with $_e"
	sm_check_fabric "$_n"
	ibsim_stop
	entries "$W/$_n.fts" >"$W/$_n.held"
	# The top LID is not a multiple of 64 here (dump_fts would drop it).
	"$ROUTE" --topo "$W/$_n.dump/ibnetdiscover.txt" --engine "$_e" \
		--out "$W/$_n.off.fts" -q || fail "$_n: ibsm-route on the dump failed"
	entries "$W/$_n.off.fts" >"$W/$_n.off"
	same "$_n" "ibsm-route --engine $_e on the daemon's dump = what the switches hold" \
		"$W/$_n.held" "$W/$_n.off"
	"$ROUTE" --topo "$_net" --guid2lid "$W/$_n.cache/guid2lid" --engine "$_e" \
		--out "$W/$_n.net.fts" -q || fail "$_n: ibsm-route on the net file failed"
	entries "$W/$_n.net.fts" >"$W/$_n.net"
	same "$_n" "ibsm-route --engine $_e on the net file, daemon's LIDs = what the switches hold" \
		"$W/$_n.held" "$W/$_n.net"
	[ "$_e" = updn ] || return 0
	"$ROUTE" --topo "$W/$_n.ibnd" --lfts-in "$W/$_n.fts" --check --cdg-switch-lids \
		>"$W/$_n.cdg" 2>&1 || { tail -5 "$W/$_n.cdg"; fail "$_n: switches' updn tables fail --check --cdg-switch-lids"; }
	grep -q '"credit_loop": false' "$W/$_n.cdg" || fail "$_n: credit loop in the switches' tables"
	echo "ok $_n: the switches' updn tables complete and credit-loop-free, switch LIDs included"
}

parity deg2 "$top/tests/data/ft3-r12-deg2-rguid-s1.net" updn
parity deg5 "$top/tests/data/ft3-r12-deg5-rguid-s1.net" updn
parity deg5-minhop "$top/tests/data/ft3-r12-deg5-rguid-s1.net" minhop
"$IBSM_BUILD/bin/ibsm-topo" fattree --levels 3 --radix 8 --remove 0.1 --seed 3 \
	-o "$W/gen.net" || fail "ibsm-topo fattree"
random_guids "$W/gen.net" 3 >"$W/gen-rguid.net"
parity gen "$W/gen-rguid.net" updn
echo "PASS"
