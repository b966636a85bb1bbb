#!/bin/sh
# OpenSM's ftree re-route after one lost link, under ibsim, for
# ftree_bench.sh's re-route rows (not a benchmark on its own).
#   sh bench/opensm_reroute_time.sh NET SIZE_NAME N_CA N_SW NODE PORT
# OpenSM brings the fabric up, then ibsim takes NODE[PORT]'s link down;
# the switches' trap 128 starts a heavy sweep in which OpenSM's ftree
# recomputes every table (it keeps no previous routes to repair). The time
# is from that sweep's "building routing with" line to its "tables
# configured on all switches" (log verbosity 0x07), which also queues the
# LFT MADs: an upper bound on the computation, as in opensm_route_time.sh.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
net=$1; size=$2; n_ca=$3; n_sw=$4; node=$5; port=$6
command -v opensm >/dev/null 2>&1 && command -v ibsim >/dev/null 2>&1 || {
	echo "opensm_reroute_time: opensm or ibsim missing" >&2
	exit 77
}
case $net in /*) ;; *) net=$(pwd)/$net ;; esac
. "$top/sim/ibsim_harness.sh"
OSM_PID=
stop_osm() {
	[ -n "$OSM_PID" ] || return 0
	kill "$OSM_PID" 2>/dev/null
	# OpenSM may hang on SIGTERM under libumad2sim (IBSIM-NOTES)
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$OSM_PID" 2>/dev/null || break
		sleep 0.5
	done
	kill -9 "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
	OSM_PID=
}
trap 'stop_osm; sim_cleanup' EXIT
trap 'exit 130' INT TERM HUP PIPE

nodes=$((n_ca + n_sw))
ibsim_start "$net" -N $((nodes + 64)) -S $((n_sw + 64)) \
	-P $((nodes * 40)) -L $((nodes * 2 + 64)) || exit 1
cd "$SIM_DIR" || exit 1
log=$SIM_DIR/osm.log
export OSM_CACHE_DIR="$SIM_DIR/osm-cache"
mkdir -p "$OSM_CACHE_DIR"
sim_bg_run opensm -d2 -D 0x07 -R ftree -f "$log" >/dev/null 2>&1
OSM_PID=$SIM_LAST_PID
SIM_PIDS=""     # stopped by stop_osm, with the SIGKILL fallback

# wait until the log holds N lines matching pattern (timeout s)
wait_count() { # pattern n timeout
	_i=0
	while :; do
		_c=$(grep -c "$1" "$log" 2>/dev/null)
		[ "${_c:-0}" -ge "$2" ] && return 0
		_i=$((_i + 1)); [ $_i -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
}
secs_of() { awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }'; }

row() { printf '%-9s %-9s %8s %8s %8s %9s  %s\n' "$@"; }
if ! wait_count "SUBNET UP" 1 600; then
	row "$size" osm-ftree - - - - "OpenSM did not come up"
	exit 0
fi
sleep 2
ibsim_cmd "Unlink \"$node\"[$port]"
if ! wait_count "tables configured on all switches" 2 600; then
	row "$size" osm-ftree - - - - "no second routing after the Unlink"
	exit 0
fi
start=$(grep "building routing with" "$log" | sed -n 2p | secs_of)
end=$(grep "tables configured on all switches" "$log" | sed -n 2p | secs_of)
t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
row "$size" "osm-ftree" - - "$t" all "OpenSM $(opensm --version 2>/dev/null | grep -m1 -o '[0-9][0-9.]*') re-route after Unlink \"$node\"[$port]: every table recomputed"
