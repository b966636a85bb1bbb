#!/bin/sh
# OpenSM's routing phase on one fabric under ibsim, for route_bench.sh's
# comparison rows (not a benchmark on its own: no _bench suffix).
#   sh bench/opensm_route_time.sh NET SIZE_NAME N_CA N_SW
#   OPENSM_ENGINES="minhop updn ftree" (default)
# OpenSM has no offline mode, so it routes a live (simulated) fabric: the
# time is from its "building routing with 'X' routing algorithm" line to
# "X tables configured on all switches" (log verbosity 0x07, timestamps in
# microseconds). That span also queues the LFT MADs, so it is an upper
# bound on the routing computation. OpenSM falls back to minhop silently
# when an engine refuses the fabric; the row then says so.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
net=$1; size=$2; n_ca=$3; n_sw=$4
ENGINES=${OPENSM_ENGINES:-minhop updn ftree}
command -v opensm >/dev/null 2>&1 && command -v ibsim >/dev/null 2>&1 || {
	echo "opensm_route_time: opensm or ibsim missing" >&2
	exit 77
}
case $net in /*) ;; *) net=$(pwd)/$net ;; esac
. "$top/sim/ibsim_harness.sh"
trap sim_cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# ibsim's default limits hold 2048 nodes; raise them for the big trees.
nodes=$((n_ca + n_sw))
ibsim_start "$net" -N $((nodes + 64)) -S $((n_sw + 64)) \
	-P $((nodes * 40)) -L $((nodes * 2 + 64)) || exit 1
cd "$SIM_DIR" || exit 1     # libumad2sim may leave sys-PID/ dirs in cwd

# "Nov 22 18:19:25 866190 ..." -> seconds in the day
secs_of() { awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }'; }

for eng in $ENGINES; do
	log=$SIM_DIR/osm-$eng.log
	export OSM_CACHE_DIR="$SIM_DIR/osm-cache-$eng"
	mkdir -p "$OSM_CACHE_DIR"
	peak=n/a
	if [ -x /usr/bin/time ]; then
		sim_run /usr/bin/time -f 'PEAK_KB %M' -o "$SIM_DIR/time" \
			timeout 600 opensm -o -D 0x07 -R "$eng" -f "$log" >/dev/null 2>&1
		peak=$(awk '/PEAK_KB/ { printf "%.0f", $2 / 1024 }' "$SIM_DIR/time")
	else
		sim_run timeout 600 opensm -o -D 0x07 -R "$eng" -f "$log" >/dev/null 2>&1
	fi
	start=$(grep -m1 "building routing with" "$log" | secs_of)
	endl=$(grep -m1 "tables configured on all switches" "$log")
	end=$(echo "$endl" | secs_of)
	used=$(echo "$endl" | sed -n 's/.*osm_ucast_mgr_process: \([^ ]*\) tables configured.*/\1/p')
	note="OpenSM $(opensm --version 2>/dev/null | grep -m1 -o '[0-9][0-9.]*' || echo)"
	[ -n "$used" ] && [ "$used" != "$eng" ] && note="$note; fell back to $used"
	if [ -n "$start" ] && [ -n "$end" ]; then
		t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
		printf '%-8s %7s %6s  %-10s %8s %8s %8s  %s\n' "$size" "$n_ca" "$n_sw" \
			"osm-$eng" "$t" - "$peak" "$note (peak = whole SM)"
	else
		printf '%-8s %7s %6s  %-10s %8s %8s %8s  %s\n' "$size" "$n_ca" "$n_sw" \
			"osm-$eng" - - "$peak" "no routing lines in the log"
	fi
done
