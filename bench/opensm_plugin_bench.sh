#!/bin/sh
# OpenSM plugin benchmark (issue 5): OpenSM's built-in `ftree` against
# `ibsm-ftree` (libibsm-opensm.so) inside the same OpenSM 3.3.23, on the
# same ibsim fabric: 3-level fat-trees of 2,000 (radix 20) and 11,664
# (radix 36) CAs.
#
#   sh bench/opensm_plugin_bench.sh [BUILD_DIR]
#   OSM_PLUGIN_BENCH_SIZES="ft3-r20"          subset (default: ft3-r20 ft3-r36)
#   OSM_PLUGIN_BENCH_ENGINES="ftree ibsm-ftree"  (default; any OpenSM names)
#
# Per engine, one OpenSM sweep (-o, log flags 0x07) on one ibsim instance:
#  - "route s": OpenSM's routing phase, from its log line "building routing
#    with 'X' routing algorithm" to "X tables configured on all switches"
#    (timestamps in microseconds). For ibsm-ftree it includes converting
#    OpenSM's subnet into our graph and filling new_lft and hop tables; for
#    both it includes queueing the LFT MADs. The plugin's own breakdown is
#    printed below the table.
#  - "SM peak MB": maximum resident set of the whole OpenSM process.
#  - balance: our verifier (`ibsm-route --lfts-in --check`) on what the
#    switches hold afterwards (dump_fts), with the topology and LIDs from
#    ibnetdiscover: all-to-all max link load / lower bound (1.00 = optimal),
#    and the worst max link load over shift permutations.
# Then the ratios ibsm-ftree / ftree. Nothing is asserted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-build}}
case $B in /*) ;; *) B=$top/$B ;; esac
PLUGIN=$B/lib/libibsm-opensm.so
TOPO=$B/bin/ibsm-topo
ROUTE=$B/bin/ibsm-route
SIZES=${OSM_PLUGIN_BENCH_SIZES:-ft3-r20 ft3-r36}
ENGINES=${OSM_PLUGIN_BENCH_ENGINES:-ftree ibsm-ftree}
FABDIR=$B/bench-fabrics
for t in opensm ibsim dump_fts ibnetdiscover; do
	command -v $t >/dev/null 2>&1 || { echo "opensm_plugin_bench: $t missing"; exit 77; }
done
for p in "$PLUGIN" "$TOPO"; do
	[ -e "$p" ] || { echo "opensm_plugin_bench: $p is not built"; exit 77; }
done
. "$top/sim/ibsim_harness.sh"
[ -f "$UMAD2SIM" ] || { echo "opensm_plugin_bench: libumad2sim missing"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-osm-plugin-bench.XXXXXX")
trap 'sim_cleanup; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP PIPE
TIME=/usr/bin/time
[ -x $TIME ] || TIME=""


. "$top/bench/bench_lib.sh"

row() { printf '%-8s %6s %5s  %-11s %8s %8s %8s %8s  %s\n' "$@"; }

# run_engine SIZE ENGINE -> one row; sets R_TIME, R_A2A, R_SHIFT
run_engine() {
	size=$1 eng=$2 tag=$1.$2
	log=$WORK/$tag.osm.log
	mkdir -p "$WORK/$tag.cache"
	printf 'event_plugin_name ibsm-opensm\nrouting_engine %s\n' "$eng" >"$WORK/$tag.conf"
	# shellcheck disable=SC2086
	OSM_CACHE_DIR="$WORK/$tag.cache" LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		sim_run ${TIME:+$TIME -f 'PEAK_KB %M' -o "$WORK/time"} \
		timeout 900 opensm -F "$WORK/$tag.conf" -o -D 0x07 -f "$log" >/dev/null 2>&1
	peak=n/a
	[ -n "$TIME" ] && peak=$(awk '/PEAK_KB/ { printf "%.0f", $2 / 1024 }' "$WORK/time")
	# The last "building routing" .. "tables configured" pair; OpenSM may
	# route more than once in a sweep (count them).
	span=$(awk '/building routing with/ { split($3, t, ":"); a = t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }
		/tables configured on all switches/ { split($3, t, ":"); b = t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6
			n++; d = b - a; u = $0; sub(/.*osm_ucast_mgr_process: /, "", u); sub(/ .*/, "", u) }
		END { if (n) printf "%.3f %d %s\n", d, n, u }' "$log")
	used=$(echo "$span" | awk '{ print $3 }')
	R_TIME=-; R_A2A=-; R_SHIFT=-
	note=""
	if [ "$used" != "$eng" ]; then
		note="fell back to ${used:-nothing}"
	else
		R_TIME=$(echo "$span" | awk '{ print $1 }')
		n_routings=$(echo "$span" | awk '{ print $2 }')
		[ "$n_routings" -gt 1 ] && note="routed $n_routings times, last shown"
	fi
	grep -q "SUBNET UP" "$log" || note="$note no SUBNET UP"
	# What the switches hold, judged by our verifier, on ibnetdiscover's view
	# of the fabric (LIDs as this sweep left them).
	sim_run ibnetdiscover >"$WORK/$tag.ibnd" 2>/dev/null || note="$note ibnetdiscover failed"
	sim_run dump_fts >"$WORK/$tag.fts" 2>/dev/null || note="$note dump_fts failed"
	if [ -x "$ROUTE" ]; then
		"$ROUTE" --topo "$WORK/$tag.ibnd" --lfts-in "$WORK/$tag.fts" --check \
			>"$WORK/$tag.json" 2>"$WORK/$tag.verify.log"
		R_A2A=$(json_field a2a_ratio "$WORK/$tag.json")
		R_SHIFT=$(json_field shift_worst_load "$WORK/$tag.json")
		ok=$(json_field ok "$WORK/$tag.json")
		cl=$(json_field credit_loop "$WORK/$tag.json")
		[ "$ok" = true ] || note="$note verifier: not ok (credit_loop=$cl): $(sed -n 's/.*"first_error"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$WORK/$tag.json" | cut -c1-90)"
		[ -n "$R_A2A" ] || R_A2A=-
		[ -n "$R_SHIFT" ] || R_SHIFT=-
	else
		note="$note (ibsm-route not built: no balance)"
	fi
	row "$size" "$n_ca" "$n_sw" "$eng" "$R_TIME" "$peak" "$R_A2A" "$R_SHIFT" "$note"
	grep "ibsm: .* routed" "$log" | sed 's/.*ibsm: /    plugin: /' >>"$WORK/notes"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b != "-" && a != "-") printf "%.2fx", b / a; else printf "n/a" }'; }

echo "OpenSM ftree vs ibsm-ftree in OpenSM $(opensm --version 2>/dev/null | grep -m1 -o '[0-9][0-9.]*') on ibsim ($(nproc) CPUs, $(uname -m))"
row fabric CAs sw engine "route s" "SM MB" "a2a x" "shift" "notes"
: >"$WORK/notes"
for size in $SIZES; do
	net=$(bench_fabric "$size") || { echo "$size: ibsm-topo failed"; continue; }
	n_ca=$(grep -cE '^(Ca|Hca)[[:space:]]' "$net")
	n_sw=$(grep -cE '^Switch[[:space:]]' "$net")
	nodes=$((n_ca + n_sw))
	# ibsim's default limits hold 2,048 nodes and 256 switches.
	ibsim_start "$net" -N $((nodes + 64)) -S $((n_sw + 64)) \
		-P $((nodes * 40)) -L $((nodes * 2 + 64)) || { echo "$size: ibsim failed"; continue; }
	cd "$SIM_DIR" || exit 1     # libumad2sim may leave sys-PID/ dirs in cwd
	first=""; t_first=""; a_first=""; s_first=""
	for eng in $ENGINES; do
		run_engine "$size" "$eng"
		if [ -z "$first" ]; then
			first=$eng; t_first=$R_TIME; a_first=$R_A2A; s_first=$R_SHIFT
		else
			echo "    ratio $eng / $first: route time $(ratio "$t_first" "$R_TIME"), a2a $(ratio "$a_first" "$R_A2A"), shift load $(ratio "$s_first" "$R_SHIFT")" >>"$WORK/notes"
		fi
	done
	cd "$WORK" || exit 1
	sim_cleanup
done
cat "$WORK/notes"
exit 0
