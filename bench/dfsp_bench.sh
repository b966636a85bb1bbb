#!/bin/sh
# dfsp against OpenSM's dfsssp, nue and updn (and our updn), one table per
# topology family, all in one run on the same fabrics:
#   sh bench/dfsp_bench.sh [small|medium]     (default small)
# Columns: a2a ratio (max all-to-all link load / lower bound, from our
# verifier), VLs (layers) used, route time. Ours: ibsm-route --check with
# the SLs. OpenSM: `opensm -o -R ENGINE` on the fabric under ibsim, tables
# read back with dump_fts and judged by the same verifier (--lfts-in, with
# OpenSM's guid2lid), its layer count from its log ("Virtual Lanes needed"),
# its time from
# "building routing" to "tables configured" (an upper bound, see
# opensm_route_time.sh). OpenSM falls back to minhop when an engine fails:
# the row then says so.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${IBSM_BUILD:-$top/build}
R=$B/bin/ibsm-route
T=$B/bin/ibsm-topo
size=${1:-small}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-dfspb.XXXXXX")
have_osm=1
for tool in ibsim opensm dump_fts; do
	command -v $tool >/dev/null 2>&1 || have_osm=0
done
[ $have_osm = 1 ] && . "$top/sim/ibsim_harness.sh"
cleanup() { [ $have_osm = 1 ] && sim_cleanup; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

if [ "$size" = medium ]; then
	FAMILIES="dragonfly:--groups_9_--switches_8_--hosts_4_--global_2
random:--switches_128_--degree_6_--hosts_8_--seed_1
torus2d:torus_--dims_8x8_--hcas-per-switch_4
torus3d:torus_--dims_6x6x6_--hcas-per-switch_2
mesh2d:torus_--dims_8x8_--mesh_--hcas-per-switch_4
fattree:fattree_--levels_3_--radix_16_--remove_0.05_--seed_1"
else
	FAMILIES="dragonfly:--groups_5_--switches_4_--hosts_2_--global_1
random:--switches_32_--degree_4_--hosts_4_--seed_3
torus2d:torus_--dims_4x4_--hcas-per-switch_2
torus3d:torus_--dims_4x4x4_--hcas-per-switch_2
mesh2d:torus_--dims_4x4_--mesh_--hcas-per-switch_2
fattree:fattree_--levels_2_--radix_8_--remove_0.1_--seed_1"
fi

field() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" "$2" | head -1; }
secs_of() { awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }'; }
row() { printf '%-10s %6s %5s  %-12s %7s %4s %8s  %s\n' "$@"; }

for fam in $FAMILIES; do
	name=${fam%%:*}
	args=$(echo "${fam#*:}" | tr _ ' ')
	case $name in dragonfly|random) args="$name $args" ;; esac
	net=$W/$name.net
	$T $args -o "$net" || continue
	echo "## $name ($args)"
	row family CAs sw engine a2a VLs route_s note
	for eng in dfsp updn; do
		$R --topo "$net" --engine "$eng" --check >"$W/o.json" 2>"$W/o.err"
		vls=$(sed -n 's/.*"vls_used":\([0-9]*\).*/\1/p' "$W/o.json")
		t=$(sed -n 's/.* route \([0-9.]*\) s$/\1/p' "$W/o.err")
		row "$name" "$(field terminals "$W/o.json")" "$(field switches "$W/o.json")" \
			"ibsm-$eng" "$(field a2a_ratio "$W/o.json")" "${vls:-1}" "$t" \
			"ok=$(field ok "$W/o.json")"
	done
	[ $have_osm = 1 ] || { echo "(OpenSM or ibsim missing: no OpenSM rows)"; continue; }
	for eng in dfsssp nue updn; do
		ibsim_start "$net" >/dev/null 2>&1 || { echo "ibsim failed on $name"; continue; }
		log=$W/osm-$eng.log
		export OSM_CACHE_DIR="$W/cache-$eng"; mkdir -p "$OSM_CACHE_DIR"
		(cd "$SIM_DIR" && sim_run timeout 300 opensm -o -D 0x07 -R "$eng" -f "$log" >/dev/null 2>&1)
		(cd "$SIM_DIR" && sim_run dump_fts >"$W/osm.fts" 2>/dev/null)
		ibsim_stop >/dev/null 2>&1
		$R --topo "$net" --guid2lid "$OSM_CACHE_DIR/guid2lid" --lfts-in "$W/osm.fts" --check --cdg-switch-lids >"$W/o.json" 2>/dev/null
		start=$(grep -m1 "building routing with" "$log" | secs_of)
		endl=$(grep -m1 "tables configured on all switches" "$log")
		end=$(echo "$endl" | secs_of)
		used=$(echo "$endl" | sed -n 's/.*osm_ucast_mgr_process: \([^ ]*\) tables configured.*/\1/p')
		t=-; [ -n "$start" ] && [ -n "$end" ] && t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
		vls=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p; s/.*[Nn]ue.* \([0-9]*\) virtual layers.*/\1/p' "$log" | head -1)
		note="one-VL loop=$(field credit_loop "$W/o.json")"
		[ -n "$used" ] && [ "$used" != "$eng" ] && note="$note; fell back to $used"
		row "$name" "$(field terminals "$W/o.json")" "$(field switches "$W/o.json")" \
			"osm-$eng" "$(field a2a_ratio "$W/o.json")" "${vls:-?}" "$t" "$note"
	done
	echo
done
