#!/bin/sh
# dfsp against OpenSM's dfsssp, nue and updn (and our updn), one table per
# topology family, all in one run on the same fabrics:
#   sh bench/dfsp_bench.sh [small|medium|large]   (or DFSP_BENCH_SIZE=...;
#   make bench passes the build dir as $1 and gets small)
# large is about 2,000 CAs per fabric (OpenSM then takes minutes per family).
# Rows per fabric: ours with the default budget (8 VLs, what ibsim's ports
# offer), --vls 4, --vls 1, our updn; OpenSM dfsssp, nue (its default
# nue_max_num_vls 1), updn, and nue/4 (nue_max_num_vls 4 with QoS on: a
# reference for our --vls 4 row).
# Columns: a2a ratio (max all-to-all link load / lower bound, from our
# verifier), VLs (layers) used, route time. Ours: ibsm-route --check with
# the SLs (note: ok = complete and loop-free, sl_loop = a cycle in some
# SL's CDG). OpenSM: `opensm -o -R ENGINE` on the fabric under ibsim, tables
# read back with dump_fts and judged by the same verifier (--lfts-in, with
# OpenSM's guid2lid; one_vl_loop = credit loop if every path were on one
# VL, CA-to-CA routes / with CA-to-switch-LID routes too, as our rows are
# judged; a loop is expected for dfsssp, whose SLs we do not read); its VLs from its
# "Virtual Lanes needed" line; its time from "building routing" to "tables
# configured" (an upper bound, see opensm_route_time.sh). OpenSM falls back
# to minhop when an engine fails: the row then says so (dfsssp's VLs then
# read ">8": it needed more than the 8 ibsim's ports offer; the a2a is
# minhop's, which is not deadlock-free).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${IBSM_BUILD:-$top/build}
R=$B/bin/ibsm-route
T=$B/bin/ibsm-topo
size=${DFSP_BENCH_SIZE:-small}
case ${1:-} in small|medium|large) size=$1 ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-dfspb.XXXXXX")
have_osm=1
for tool in ibsim opensm dump_fts; do
	command -v $tool >/dev/null 2>&1 || have_osm=0
done
[ $have_osm = 1 ] && . "$top/sim/ibsim_harness.sh"
cleanup() { [ $have_osm = 1 ] && sim_cleanup; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# family:generator args (_ for spaces); several seeds where the generator
# takes one.
case $size in
large) FABRICS="dragonfly:dragonfly_--groups_21_--switches_12_--hosts_8_--global_2
random:random_--switches_256_--degree_8_--hosts_8_--seed_1
random:random_--switches_256_--degree_8_--hosts_8_--seed_2
torus2d:torus_--dims_16x16_--hcas-per-switch_8
torus3d:torus_--dims_8x8x8_--hcas-per-switch_4
mesh2d:torus_--dims_16x16_--mesh_--hcas-per-switch_8
fattree:fattree_--levels_3_--radix_20_--remove_0.05_--seed_1
fattree:fattree_--levels_3_--radix_20_--remove_0.05_--seed_2" ;;
medium) FABRICS="dragonfly:dragonfly_--groups_9_--switches_8_--hosts_4_--global_2
dragonfly:dragonfly_--groups_17_--switches_8_--hosts_4_--global_2
random:random_--switches_128_--degree_6_--hosts_8_--seed_1
random:random_--switches_128_--degree_6_--hosts_8_--seed_2
torus2d:torus_--dims_8x8_--hcas-per-switch_4
torus3d:torus_--dims_6x6x6_--hcas-per-switch_2
mesh2d:torus_--dims_8x8_--mesh_--hcas-per-switch_4
fattree:fattree_--levels_3_--radix_12_--remove_0.05_--seed_1
fattree:fattree_--levels_3_--radix_12_--remove_0.05_--seed_2" ;;
*) FABRICS="dragonfly:dragonfly_--groups_5_--switches_4_--hosts_2_--global_1
random:random_--switches_32_--degree_4_--hosts_4_--seed_3
random:random_--switches_32_--degree_4_--hosts_4_--seed_4
torus2d:torus_--dims_4x4_--hcas-per-switch_2
torus3d:torus_--dims_4x4x4_--hcas-per-switch_2
mesh2d:torus_--dims_4x4_--mesh_--hcas-per-switch_2
fattree:fattree_--levels_2_--radix_8_--remove_0.1_--seed_1" ;;
esac
# DFSP_BENCH_FABRICS (same form as above, one per line) replaces the list:
# to repeat a few rows, e.g. for timings.
[ -n "${DFSP_BENCH_FABRICS:-}" ] && FABRICS=$DFSP_BENCH_FABRICS

field() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" "$2" | head -1; }
secs_of() { awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }'; }
row() { printf '%-34s %5s %4s  %-14s %8s %4s %8s  %s\n' "$@"; }

ours() { # ours NET LABEL [ibsm-route args]
	_net=$1; _label=$2; shift 2
	$R --topo "$_net" --check "$@" >"$W/o.json" 2>"$W/o.err"
	_vls=$(sed -n 's/.*"vls_used":\([0-9]*\).*/\1/p' "$W/o.json")
	_sl=$(sed -n 's/.*"credit_loop":\([0-9]\),"first_error".*/\1/p' "$W/o.json")
	_t=$(sed -n 's/.* route \([0-9.]*\) s$/\1/p' "$W/o.err")
	_note="ok=$(field ok "$W/o.json")"
	[ -n "$_sl" ] && _note="$_note sl_loop=$_sl"
	row "$fab" "$(field terminals "$W/o.json")" "$(field switches "$W/o.json")" \
		"$_label" "$(field a2a_ratio "$W/o.json")" "${_vls:-1}" "$_t" "$_note"
}

theirs() { # theirs NET ENGINE [NUE_VLS]
	_net=$1; _eng=$2; _nv=${3:-}
	_nodes=$(grep -c '^\(Switch\|Ca\)' "$_net")
	_sw=$(grep -c '^Switch' "$_net")
	ibsim_start "$_net" -N $((_nodes + 64)) -S $((_sw + 64)) \
		-P $((_nodes * 40)) -L $((_nodes * 2 + 64)) >/dev/null 2>&1 ||
		{ echo "ibsim failed on $fab"; return; }
	_log=$W/osm-$_eng.log
	rm -f "$_log"
	export OSM_CACHE_DIR="$W/cache-$_eng"
	rm -rf "$OSM_CACHE_DIR"; mkdir -p "$OSM_CACHE_DIR"
	printf 'routing_engine %s\n' "$_eng" >"$W/osm.conf"
	# nue on several layers needs QoS (it maps its layers through SL2VL).
	[ -n "$_nv" ] && printf 'qos TRUE\nnue_max_num_vls %s\n' "$_nv" >>"$W/osm.conf"
	(cd "$SIM_DIR" && sim_run timeout 900 opensm -o -F "$W/osm.conf" -D 0x07 -f "$_log" >/dev/null 2>&1)
	(cd "$SIM_DIR" && sim_run dump_fts >"$W/osm.fts" 2>/dev/null)
	ibsim_stop >/dev/null 2>&1
	$R --topo "$_net" --guid2lid "$OSM_CACHE_DIR/guid2lid" --lfts-in "$W/osm.fts" \
		--check --cdg-switch-lids >"$W/o2.json" 2>/dev/null
	$R --topo "$_net" --guid2lid "$OSM_CACHE_DIR/guid2lid" --lfts-in "$W/osm.fts" \
		--check >"$W/o.json" 2>/dev/null
	_start=$(grep -m1 "building routing with" "$_log" | secs_of)
	_endl=$(grep -m1 "tables configured on all switches" "$_log")
	_end=$(echo "$_endl" | secs_of)
	_used=$(echo "$_endl" | sed -n 's/.*osm_ucast_mgr_process: \([^ ]*\) tables configured.*/\1/p')
	_t=-; [ -n "$_start" ] && [ -n "$_end" ] &&
		_t=$(awk -v a="$_start" -v b="$_end" 'BEGIN { printf "%.3f", b - a }')
	case $_eng$_nv in
	dfsssp) _vls=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p; s/.*Not enough VLs available (avail=\([0-9]*\),.*/>\1/p' "$_log" | head -1) ;;
	nue?*) _vls=$_nv ;;
	*) _vls=1 ;;
	esac
	_note="one_vl_loop=$(field credit_loop "$W/o.json")/$(field credit_loop "$W/o2.json")"
	[ -n "$_used" ] && [ "$_used" != "$_eng" ] && _note="$_note; fell back to $_used"
	row "$fab" "$(field terminals "$W/o.json")" "$(field switches "$W/o.json")" \
		"osm-$_eng${_nv:+/$_nv}" "$(field a2a_ratio "$W/o.json")" "${_vls:-?}" "$_t" "$_note"
}

last=""
for f in $FABRICS; do
	family=${f%%:*}
	args=$(echo "${f#*:}" | tr _ ' ')
	fab=$(echo "$args" | sed 's/--\(groups\|switches\|hosts\|global\|degree\|seed\|dims\|hcas-per-switch\|levels\|radix\|remove\) //g; s/ --mesh/m/; s/ /,/g')
	net=$W/fabric.net
	$T $args -o "$net" || continue
	if [ "$family" != "$last" ]; then
		[ -n "$last" ] && echo
		echo "## $family"
		row fabric CAs sw engine a2a VLs route_s note
		last=$family
	fi
	ours "$net" ibsm-dfsp --engine dfsp
	ours "$net" "ibsm-dfsp/4" --engine dfsp --vls 4
	ours "$net" "ibsm-dfsp/1" --engine dfsp --vls 1
	ours "$net" ibsm-updn --engine updn
	if [ $have_osm = 1 ]; then
		for eng in dfsssp nue updn; do
			theirs "$net" $eng
		done
		theirs "$net" nue 4
	else
		echo "(OpenSM or ibsim missing: no OpenSM rows)"
	fi
done
