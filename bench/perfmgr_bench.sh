#!/bin/sh
# PerfMgr sweep time over every port (issue 12): ibsm's PerfMgr against
# OpenSM's perfmgr, each on a fresh ibsim with the same fat-tree, at 2,000
# and 11,664 CAs.
#   sh bench/perfmgr_bench.sh [BUILD_DIR]
#   PERF_BENCH_SIZES="medium large"   (medium: 3-level radix 20, 2,000 CAs;
#                                      large: 3-level radix 36, 11,664 CAs)
# ibsm: perf_interval 10, its log's "perfmgr: cycle N: P ports read, F
# failed, M MADs in T s" (second cycle: counters already known).
# OpenSM: perfmgr TRUE, perfmgr_sweep_time_s 10, with libibsm-opensm.so
# loaded as event plugin with perfmgr_log=1: OpenSM reports every port
# reading to event plugins, and the plugin logs the time from the first to
# the last reading of a sweep (Debian's OpenSM is built without its own
# PerfMgr profiling, so it logs no sweep time). That span leaves out the
# sending of the first request, so it is a lower bound for OpenSM.
# OpenSM's default perfmgr_max_outstanding_queries (500) stalls under
# ibsim (libumad2sim stops delivering with about 500 MADs in flight; measured
# on the 2,000-CA tree: 257 readings in 45 s, no sweep finished), so it runs
# with 32, and ibsm with perf_window 32 (ports in flight, one MAD each at
# a time), so both keep 32 PerfMgt MADs in flight.
# Neither SM routes anything else meanwhile: the fabric is up and quiet.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
SIZES=${PERF_BENCH_SIZES:-medium large}
. "$top/bench/bench_lib.sh"
bench_need perfmgr_bench ibsim opensm
[ -x "$B/bin/ibsm" ] && [ -f "$B/lib/libibsm-opensm.so" ] || { echo "perfmgr_bench: build first"; exit 77; }
IBSM_BUILD=$B
bench_sim_workdir perfbench
. "$top/tests/integration/sm_lib.sh"

# wait_count FILE PATTERN N SECONDS
wait_count() {
	_i=0
	# grep -c prints nothing while the file does not exist yet
	while _c=$(grep -c "$2" "$1" 2>/dev/null); [ "${_c:-0}" -lt "$3" ]; do
		_i=$((_i + 1)); [ $_i -gt $(($4 * 10)) ] && return 1
		sleep 0.1
	done
}

printf '%-7s %6s | %22s | %22s | %6s\n' size CAs "ibsm: ports, time" "OpenSM: readings, time" ratio
for size in $SIZES; do
	case $size in
	medium) args="--levels 3 --radix 20" ;;
	large)  args="--levels 3 --radix 36" ;;
	*) echo "unknown size $size"; continue ;;
	esac
	# shellcheck disable=SC2086
	bench_fattree "$W/$size.net" $args
	n_ca=$(grep -c '^Ca' "$W/$size.net")

	ibsim_start "$W/$size.net" $limits || exit 1
	sim_bg_run "$B/bin/ibsm" -R ftree --cache-dir "$W/$size.c" --set perf_interval=10 --set perf_window=32 >"$W/$size.ibsm.log" 2>&1
	pid=$SIM_LAST_PID
	ours="-"
	if wait_count "$W/$size.ibsm.log" "perfmgr: cycle [0-9]*:" 2 300; then
		ours=$(grep "perfmgr: cycle [0-9]*:" "$W/$size.ibsm.log" | sed -n 2p |
			sed -n 's/.*: \([0-9]*\) ports read, \([0-9]*\) failed, \([0-9]*\) MADs in \([0-9.]*\) s.*/\1 \4/p')
	fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	sim_cleanup

	ibsim_start "$W/$size.net" $limits || exit 1
	cat >"$W/$size.osm.conf" <<-CONF
	perfmgr TRUE
	perfmgr_sweep_time_s 10
	perfmgr_max_outstanding_queries 32
	event_plugin_name ibsm-opensm
	event_plugin_options perfmgr_log=1
	CONF
	mkdir -p "$W/$size.oc"
	sim_bg env OSM_CACHE_DIR="$W/$size.oc" LD_PRELOAD="$UMAD2SIM" \
		LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		opensm -F "$W/$size.osm.conf" -d2 -f "$W/$size.osm.log" >"$W/$size.osm.out" 2>&1 </dev/null
	pid=$SIM_LAST_PID
	theirs="-"
	if wait_count "$W/$size.osm.log" "OpenSM perfmgr sweep [0-9]*:" 2 600; then
		theirs=$(grep "OpenSM perfmgr sweep [0-9]*:" "$W/$size.osm.log" | sed -n 2p |
			sed -n 's/.*: \([0-9]*\) port readings in \([0-9.]*\) s.*/\1 \2/p')
	fi
	sim_stop_pid "$pid"
	sim_cleanup
	# shellcheck disable=SC2086
	set -- $ours $theirs
	ratio=$(awk -v a="${2:-0}" -v b="${4:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", b / a; else print "-" }')
	printf '%-7s %6s | %22s | %22s | %6s\n' "$size" "$n_ca" "${1:-?} ports, ${2:-?} s" "${3:-?}, ${4:-?} s" "$ratio"
done
