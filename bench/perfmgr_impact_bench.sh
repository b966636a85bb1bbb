#!/bin/sh
# Does the PerfMgr slow sweeps or SA answers? (issue 12: "Polling must not
# slow sweeps or SA answers. Measure it at 11,664 CAs.") The same daemon on
# the same fabric, PerfMgr off and then polling without pause
# (perf_interval 1: a cycle over every port takes longer than that, so
# cycles run back to back, 32 ports in flight):
#   heavy sweeps: 3 forced (SIGHUP), mean of the "heavy sweep T s" lines;
#   SA: sa-load, PathRecords between random CA pairs, 32 in flight.
#   sh bench/perfmgr_impact_bench.sh [BUILD_DIR]
#   PERF_IMPACT_FABRIC="--levels 3 --radix 36"   (11,664 CAs)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
FABRIC=${PERF_IMPACT_FABRIC:---levels 3 --radix 36}
. "$top/bench/bench_lib.sh"
bench_need perfmgr_impact_bench ibsim
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/sa-load" ] || { echo "perfmgr_impact_bench: build first"; exit 77; }
IBSM_BUILD=$B
bench_sim_workdir pmimpact
. "$top/tests/integration/sm_lib.sh"

# shellcheck disable=SC2086
bench_fattree "$W/ft.net" $FABRIC
n_ca=$(grep -c '^Ca' "$W/ft.net")
client=$(ibsim_ca_name "$W/ft.net" 7)
heavies() { grep -c "sweep [0-9]*: heavy sweep [0-9.]* s" "$1"; }

echo "fabric: fattree $FABRIC ($n_ca CAs)"
printf '%-22s | %16s | %10s | %10s\n' PerfMgr "heavy sweep mean" "SA q/s" "SA p99 ms"
for mode in off on; do
	iv=0; [ "$mode" = on ] && iv=1
	ibsim_start "$W/ft.net" $limits || exit 1
	sim_bg_run "$B/bin/ibsm" -R ftree --cache-dir "$W/c.$mode" --sweep 0 \
		--set perf_interval=$iv --set perf_window=32 >"$W/$mode.log" 2>&1
	pid=$SIM_LAST_PID
	wait_log "$W/$mode.log" "fabric UP" 300 || { echo "$mode: not up"; sim_cleanup; continue; }
	[ "$mode" = on ] && { wait_log "$W/$mode.log" "perfmgr: cycle 1:" 120 || echo "$mode: no PerfMgr cycle"; }
	for k in 1 2 3; do
		n=$(heavies "$W/$mode.log")
		kill -HUP "$pid"
		i=0; while [ "$(heavies "$W/$mode.log")" -le "$n" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	done
	mean=$(grep "sweep [0-9]*: heavy sweep [0-9.]* s" "$W/$mode.log" | tail -3 |
		sed -n 's/.*heavy sweep \([0-9.]*\) s.*/\1/p' | awk '{ s += $1; n++ } END { if (n) printf "%.3f s", s / n }')
	sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null
	awk '/^Ca/ { ca = 1; next } /^$/ { ca = 0 }
	     ca && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); break } }' "$W/ibnd" >"$W/calids"
	# shellcheck disable=SC2046
	SIM_HOST=$client sim_run timeout 300 "$B/bin/sa-load" --count 20000 --window 32 \
		$(cat "$W/calids") >"$W/$mode.load" 2>&1
	qps=$(sed -n 's/.* qps \([0-9.]*\).*/\1/p' "$W/$mode.load")
	p99=$(sed -n 's/.* p99 \([0-9.]*\).*/\1/p' "$W/$mode.load")
	cycles=$(grep -c "perfmgr: cycle [0-9]*:" "$W/$mode.log")
	label=$mode; [ "$mode" = on ] && label="on ($cycles cycles)"
	printf '%-22s | %16s | %10s | %10s\n' "$label" "${mean:-?}" "${qps:-?}" "${p99:-?}"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	sim_cleanup
done
