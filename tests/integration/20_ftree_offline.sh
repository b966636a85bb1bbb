#!/bin/sh
# ftree offline: generated trees through ibsm-topo and ibsm-route --check.
#  - intact 3-level radix 8: verifier ok, all-to-all at the bound (1.0x);
#  - 5% and 10% degraded radix 12: ok (complete, loop-free, no credit loop
#    with CA -> switch-LID routes in the CDG: --cdg-switch-lids), <= 1.4x;
#  - a torus with "ftree,updn": ftree refuses with a reason, updn routes.
# Skips (77) until ibsm-topo / ibsm-route exist and ftree is registered.
set -u
B=${IBSM_BUILD:-build}
ROUTE=$B/bin/ibsm-route
TOPO=$B/bin/ibsm-topo
for p in "$ROUTE" "$TOPO"; do
	[ -x "$p" ] || { echo "skip: $p not built"; exit 77; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-ftree.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; for f in "$W"/*.log; do echo "--- $f"; tail -5 "$f"; done; exit 1; }
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\{0,1\}\([^,}\"]*\).*/\1/p" "$2" | head -1; }

"$TOPO" fattree --levels 3 --radix 8 -o "$W/ft.net" >"$W/topo.log" 2>&1 || fail "ibsm-topo"
"$ROUTE" --topo "$W/ft.net" --engine ftree --check >"$W/ft.json" 2>"$W/ft.log"
rc=$?
if [ $rc -ne 0 ] && grep -qiE 'unknown engine|no such engine|not registered' "$W/ft.log"; then
	echo "skip: ftree engine not registered"; exit 77
fi
[ $rc -eq 0 ] || fail "ibsm-route ftree exit $rc"
[ "$(field ok "$W/ft.json")" = true ] || fail "intact: verifier not ok"
r=$(field a2a_ratio "$W/ft.json")
awk -v r="$r" 'BEGIN { exit !(r + 0 <= 1.0001) }' || fail "intact a2a ratio $r"
echo "intact radix 8: a2a ratio $r"

for pct in 5 10; do
	"$TOPO" fattree --levels 3 --radix 12 --remove 0.$(printf %02d $pct) --seed 3 \
		-o "$W/deg.net" >"$W/topo2.log" 2>&1 || fail "ibsm-topo degraded $pct%"
	"$ROUTE" --topo "$W/deg.net" --engine ftree --check --cdg-switch-lids \
		>"$W/deg.json" 2>"$W/deg.log" || fail "ibsm-route ftree degraded $pct%"
	[ "$(field ok "$W/deg.json")" = true ] || fail "degraded $pct%: verifier not ok"
	[ "$(field credit_loop "$W/deg.json")" = false ] ||
		fail "degraded $pct%: credit loop with switch LIDs"
	r=$(field a2a_ratio "$W/deg.json")
	awk -v r="$r" 'BEGIN { exit !(r + 0 <= 1.4) }' || fail "degraded $pct% a2a ratio $r"
	echo "degraded radix 12 ($pct%): a2a ratio $r, no credit loop with switch LIDs"
done

"$TOPO" torus --dims 4x4 --hcas-per-switch 2 -o "$W/torus.net" >"$W/topo3.log" 2>&1 ||
	{ echo "skip: torus generator arguments differ"; exit 77; }
"$ROUTE" --topo "$W/torus.net" --engine ftree,updn -v >"$W/t.json" 2>"$W/t.log" ||
	fail "ftree,updn on a torus"
grep -q "not a fat-tree" "$W/t.log" || fail "ftree refusal not logged"
echo "torus: ftree refused, fallback routed"
exit 0
