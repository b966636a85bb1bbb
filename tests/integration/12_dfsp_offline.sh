#!/bin/sh
# dfsp offline, one fabric per family (2D torus, mesh, 3D torus, dragonfly,
# random regular, degraded fat-tree): tables complete and loop-free, one
# acyclic CDG per SL (ibsm-route --check with the SLs), VLs within --vls,
# --sl-out one "SLID DLID SL" line per CA pair, and all-to-all balance at
# least as good as updn's and within the factor measured when this was
# written (+10%). Bad input: --vls 0 / 16 are usage errors; a budget the
# fabric cannot meet is refused with a reason and no tables are written.
# The per-SL check can fail: dfsp's tables judged as one VL have a loop.
set -u
B=${IBSM_BUILD:-$(pwd)/build}
R=$B/bin/ibsm-route
T=$B/bin/ibsm-topo
[ -x "$R" ] && [ -x "$T" ] || { echo "tools not built in $B"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-12.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail=0

# field NAME FILE: first JSON value of "NAME"
field() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" "$2" | head -1; }

# name, generator args, max a2a ratio measured (x1.1 applied below)
while read -r name ratio args; do
	$T $args -o "$W/$name.net" || { echo "FAIL: ibsm-topo $args"; fail=1; continue; }
	if ! $R --topo "$W/$name.net" --engine dfsp --vls 8 --check \
	     --sl-out "$W/$name.sl" >"$W/$name.json" 2>"$W/$name.err"; then
		echo "FAIL: $name: dfsp --check"; cat "$W/$name.err"; fail=1; continue
	fi
	ok=$(field ok "$W/$name.json")
	sloop=$(sed -n 's/.*"sl_layers":{"vls_used":\([0-9]*\),"credit_loop":\([0-9]\).*/\2/p' "$W/$name.json")
	vls=$(sed -n 's/.*"sl_layers":{"vls_used":\([0-9]*\).*/\1/p' "$W/$name.json")
	a2a=$(field a2a_ratio "$W/$name.json")
	[ "$ok" = true ] && [ "$sloop" = 0 ] && [ -n "$vls" ] && [ "$vls" -le 8 ] ||
		{ echo "FAIL: $name: ok=$ok sl_loop=$sloop vls=$vls"; fail=1; }
	$R --topo "$W/$name.net" --engine updn --check >"$W/$name.updn" 2>/dev/null
	ua2a=$(field a2a_ratio "$W/$name.updn")
	awk -v a="$a2a" -v u="$ua2a" -v m="$ratio" 'BEGIN{exit !(a <= u + 1e-9 && a <= m * 1.1)}' ||
		{ echo "FAIL: $name: dfsp a2a $a2a vs updn $ua2a, measured $ratio"; fail=1; }
	lines=$(grep -vc '^#' "$W/$name.sl")
	n=$(sed -n 's/.*"terminals": *\([0-9]*\).*/\1/p' "$W/$name.json")
	[ "$lines" -eq $((n * (n - 1))) ] ||
		{ echo "FAIL: $name: --sl-out has $lines lines for $n CAs"; fail=1; }
	bad=$(awk -v v="$vls" '!/^#/ && ($3 >= v || NF != 3)' "$W/$name.sl" | wc -l)
	[ "$bad" -eq 0 ] || { echo "FAIL: $name: $bad SLs past $vls"; fail=1; }
	echo "ok $name: vls $vls a2a $a2a (updn $ua2a)"
done <<LIST
torus2d 1.57 torus --dims 4x4 --hcas-per-switch 2
mesh2d 1.41 torus --dims 4x4 --mesh --hcas-per-switch 2
torus3d 1.72 torus --dims 4x4x4 --hcas-per-switch 2
dragonfly 1.77 dragonfly --groups 5 --switches 4 --hosts 2 --global 1
random 1.70 random --switches 32 --degree 4 --hosts 4 --seed 3
fattree 1.48 fattree --levels 2 --radix 8 --remove 0.1 --seed 1
LIST

# Bad input.
for v in 0 16; do
	$R --topo "$W/torus3d.net" --engine dfsp --vls $v -q 2>"$W/usage.err"
	[ $? -eq 2 ] && grep -q -- '--vls' "$W/usage.err" ||
		{ echo "FAIL: --vls $v not a usage error"; fail=1; }
done
if $R --topo "$W/torus3d.net" --engine dfsp --vls 1 --out "$W/none.fts" \
     2>"$W/refuse.err"; then
	echo "FAIL: 3D torus routed deadlock-free on one minimal-path layer?"; fail=1
fi
grep -q 'more than 1 virtual layers' "$W/refuse.err" ||
	{ echo "FAIL: refusal gives no reason"; cat "$W/refuse.err"; fail=1; }
[ ! -e "$W/none.fts" ] || { echo "FAIL: tables written after refusal"; fail=1; }

# The check can fail: the same tables on one VL have a credit loop.
$R --topo "$W/torus3d.net" --engine dfsp --out "$W/t3.fts" -q 2>/dev/null
if $R --topo "$W/torus3d.net" --lfts-in "$W/t3.fts" --check >"$W/one.json" 2>/dev/null; then
	echo "FAIL: dfsp torus tables pass as one VL"; fail=1
fi
exit $fail
