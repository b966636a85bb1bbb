#!/bin/sh
# ftree in the compute nodes' rank order (issue 13). Trees whose hosts are
# contiguous per leaf in name order but cabled to the leaf ports in a
# shuffled order (ibsm-topo --shuffle-hosts):
#  1. routed in port order (--cn-order port), shift permutations in
#     host-name order are congested (the old behaviour, and OpenSM's);
#  2. by default (natural sort of host names) every shift is congestion-free
#     and all-to-all stays at the lower bound, for 2 and 3 levels;
#  3. --cn-order FILE with a scheduler-style host list (leaves in another
#     order, hosts shuffled within each) is congestion-free in that order;
#     an unknown name is a warning naming file:line; an unreadable file is
#     an error (exit 2);
#  4. a degraded shuffled tree keeps its balance (a2a within 1.1x);
#  5. the daemon (ibsm --once -R ftree under ibsim) programs tables that
#     dump_fts shows congestion-free in host-name order (judged by
#     ibsm-route --lfts-in --check).
. "$(dirname "$0")/sm_lib.sh"
test_start 22
TOPO=$IBSM_BUILD/bin/ibsm-topo
ROUTE=$IBSM_BUILD/bin/ibsm-route
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }
check() { # name net [args]: congested shifts and a2a ratio of ftree
	_n=$1; _net=$2; shift 2
	"$ROUTE" --topo "$_net" --engine ftree --check --shifts 0 "$@" >"$W/$_n.json" 2>"$W/$_n.err"
	echo "$? $(field "$W/$_n.json" shifts_congested) $(field "$W/$_n.json" shifts_checked) $(field "$W/$_n.json" a2a_ratio)"
}

for lv in 2 3; do
	case $lv in 2) r=16 ;; 3) r=8 ;; esac
	"$TOPO" fattree --levels $lv --radix $r --shuffle-hosts --seed 13 -o "$W/sh$lv.net" || fail "ibsm-topo"
	set -- $(check port$lv "$W/sh$lv.net" --cn-order port)
	echo "$lv levels, port order: $2 of $3 shifts congested in host order"
	[ "$2" -gt 0 ] || fail "$lv levels: port-order routing shows no congested shift (the shuffle did nothing?)"
	set -- $(check nat$lv "$W/sh$lv.net")
	echo "$lv levels, host-name order: $2 of $3 shifts congested, a2a $4x"
	[ "$1" = 0 ] && [ "$2" = 0 ] || fail "$lv levels: shifts congested in host-name order ($2) or check failed (rc $1)"
	awk -v a="$4" 'BEGIN { exit !(a <= 1.0001) }' || fail "$lv levels: all-to-all $4x, not at the bound"
done

# 3. A scheduler's list: leaves in reverse order, hosts shuffled within.
python3 - "$W/sh2.net" "$W/hosts" <<'PY' || fail "host list"
import random, re, sys
text = open(sys.argv[1]).read()
leaf = {}
for m in re.finditer(r'^Ca\s+\d+\s+"([^"]+)".*\n\[1\]\s+"([^"]+)"', text, re.M):
    leaf.setdefault(m.group(2), []).append(m.group(1))
rnd = random.Random(7)
out = ["# scheduler order"]
for l in sorted(leaf, key=lambda s: -int(s.split('-')[1])):
    hs = leaf[l][:]
    rnd.shuffle(hs)
    out += hs
out.insert(5, "no-such-host")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
set -- $(check file "$W/sh2.net" --cn-order "$W/hosts")
echo "host list order: $2 of $3 shifts congested, a2a $4x"
[ "$1" = 0 ] && [ "$2" = 0 ] || fail "--cn-order FILE: shifts congested in the file's order ($2, rc $1)"
grep -q "hosts:6: 'no-such-host' names no compute node" "$W/file.err" || { cat "$W/file.err"; fail "no file:line warning for an unknown name"; }
"$ROUTE" --topo "$W/sh2.net" --engine ftree --cn-order "$W/nonexistent" -q 2>"$W/nofile.err"
[ $? = 2 ] && grep -q "nonexistent" "$W/nofile.err" || fail "an unreadable --cn-order file is not an error naming it"

# 4. Degraded: balance kept.
"$TOPO" fattree --levels 2 --radix 16 --shuffle-hosts --remove 0.05 --seed 13 -o "$W/deg.net" || fail "ibsm-topo degraded"
set -- $(check deg "$W/deg.net")
echo "degraded, host-name order: a2a $4x, $2 of $3 shifts congested"
[ "$1" = 0 ] || fail "degraded tree fails verification"
awk -v a="$4" 'BEGIN { exit !(a <= 1.1) }' || fail "degraded tree: all-to-all $4x > 1.1x"

# 5. The daemon.
if command -v ibsim >/dev/null 2>&1 && command -v dump_fts >/dev/null 2>&1; then
	sm_sim "$W/sh2.net"
	sim_run "$IBSM_BUILD/bin/ibsm" --once -R ftree --cache-dir "$W/cache" >"$W/sm.log" 2>&1 || { tail "$W/sm.log"; fail "ibsm --once"; }
	sim_run ibnetdiscover >"$W/d.ibnd" 2>/dev/null || fail "ibnetdiscover"
	sim_run dump_fts >"$W/d.fts" 2>/dev/null || fail "dump_fts"
	"$ROUTE" --topo "$W/d.ibnd" --lfts-in "$W/d.fts" --check --shifts 0 >"$W/d.json" 2>"$W/d.err" ||
		{ cat "$W/d.err"; fail "the daemon's tables fail verification"; }
	echo "daemon: $(field "$W/d.json" shifts_congested) of $(field "$W/d.json" shifts_checked) shifts congested in host-name order"
	[ "$(field "$W/d.json" shifts_congested)" = 0 ] || fail "the daemon's tables congest shifts in host-name order"
fi
echo "ok: ftree congestion-free in rank order (host names, or a host list), whatever the cabling"
