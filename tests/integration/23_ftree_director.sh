#!/bin/sh
# ftree on fat-trees of director switches (issue 13, item 4): ibsm-topo
# director fabrics of three sizes (2 x 16-port-class chassis of radix-8
# ASICs, 3 chassis of radix 12, 2 x 648-port CS7500-class chassis of
# radix 36 with 1,296 hosts), routed offline:
#  1. complete, loop-free, credit-loop free (CA routes and CA -> switch
#     LIDs), all-to-all on switch-to-switch links within 1.1x of the lower
#     bound (measured: at it; before the director changes 1.067x, 1.029x,
#     1.056x) and every shift permutation congestion-free; the engine logs
#     one chassis per director;
#  2. the same with the switch records of the net file shuffled (discovery
#     numbers nodes in any order; before the chassis order 544 of 1,295
#     shifts were congested on the largest);
#  3. the daemon (ibsm --once -R ftree under ibsim) on the smallest: the
#     tables dump_fts shows pass ibsm-route --lfts-in --check with the same
#     balance.
. "$(dirname "$0")/sm_lib.sh"
test_start 23
TOPO=$IBSM_BUILD/bin/ibsm-topo
ROUTE=$IBSM_BUILD/bin/ibsm-route
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }

judge() { # name json: the assertions of step 1
	_n=$1; _j=$2
	for k in pairs_unreachable pairs_looping missing_entries; do
		[ "$(field "$_j" $k)" = 0 ] || fail "$_n: $k = $(field "$_j" $k)"
	done
	[ "$(field "$_j" credit_loop)" = False ] || fail "$_n: credit loop: $(field "$_j" cdg_cycle)"
	_r=$(field "$_j" a2a_switch_ratio)
	awk -v a="$_r" 'BEGIN { exit !(a <= 1.1) }' || fail "$_n: switch-link all-to-all ${_r}x > 1.1x"
	_c=$(field "$_j" shifts_congested)
	[ "$_c" = 0 ] || fail "$_n: $_c of $(field "$_j" shifts_checked) shifts congested"
	echo "$_n: a2a ${_r}x of the bound on switch links ($(field "$_j" a2a_ratio)x on all), 0 of $(field "$_j" shifts_checked) shifts congested"
}

route() { # name net
	"$ROUTE" --topo "$2" --engine ftree --check --cdg-switch-lids --shifts 0 -v \
		>"$W/$1.json" 2>"$W/$1.err" || { tail -5 "$W/$1.err"; fail "$1: ibsm-route --check failed"; }
}

for size in "2 8" "3 12" "2 36"; do
	set -- $size
	n=d$1r$2
	"$TOPO" director --directors $1 --radix $2 -o "$W/$n.net" || fail "ibsm-topo director $size"
	route $n "$W/$n.net"
	grep -q "ftree: $1 complete 2-level blocks" "$W/$n.err" ||
		fail "$n: the engine did not find $1 chassis: $(grep chassis "$W/$n.err")"
	judge $n "$W/$n.json"
	# 2. switches numbered in another order
	python3 - "$W/$n.net" "$W/$n-shuf.net" <<'PY' || fail "shuffle"
import random, re, sys
recs = [r for r in open(sys.argv[1]).read().split('\n\n') if r.strip()]
sw = [r for r in recs if re.search(r'^Switch', r, re.M)]
other = [r for r in recs if not re.search(r'^Switch', r, re.M)]
random.Random(5).shuffle(sw)
# devid= stays in force in ibsim net files: give every record its own
sw = [r if 'devid=' in r else 'devid=0xd2f0\n' + r for r in sw]
other = [r if 'devid=' in r or not re.search(r'^Ca', r, re.M) else 'devid=0x101b\n' + r for r in other]
open(sys.argv[2], 'w').write('\n\n'.join(other[:2] + sw + other[2:]) + '\n')
PY
	route $n-shuf "$W/$n-shuf.net"
	judge "$n, switches renumbered" "$W/$n-shuf.json"
done

# 3. The daemon.
if command -v ibsim >/dev/null 2>&1 && command -v dump_fts >/dev/null 2>&1; then
	ibsim_start "$W/d2r8.net" || fail "ibsim did not load the director fabric"
	sim_run "$IBSM_BUILD/bin/ibsm" --once -R ftree --cache-dir "$W/cache" >"$W/sm.log" 2>&1 ||
		{ tail "$W/sm.log"; fail "ibsm --once -R ftree"; }
	sim_run ibnetdiscover >"$W/d.ibnd" 2>/dev/null || fail "ibnetdiscover"
	sim_run dump_fts >"$W/d.fts" 2>/dev/null || fail "dump_fts"
	grep -q '"MF0;director-2:DIR32/S02/U2"' "$W/d.ibnd" || fail "ibnetdiscover does not show the chassis descriptions"
	[ "$(grep -c '^sysimgguid=0x2c902f0000001$' "$W/d.ibnd")" = 12 ] || fail "chassis 2's 12 ASICs do not share one SystemImageGUID under ibsim"
	"$ROUTE" --topo "$W/d.ibnd" --lfts-in "$W/d.fts" --check --shifts 0 >"$W/d.json" 2>"$W/d.err" ||
		{ tail -5 "$W/d.err"; fail "the daemon's tables fail verification"; }
	judge "daemon under ibsim, d2r8" "$W/d.json"
fi
echo "ok: ftree balances director fabrics on their switch-to-switch links"
