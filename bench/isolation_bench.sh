#!/bin/sh
# Time from the first error to rerouted (issue 12): SymbolErrorCounter is
# raised every second on one spine-facing port of a leaf; the time runs from
# the first raise to the SM's "perfmgr: rerouted" line (the noisy link held
# out, the new tables programmed). OpenSM's PerfMgr only counts and logs
# errors: it never routes around a link, so there is no OpenSM number.
#   sh bench/isolation_bench.sh [BUILD_DIR]
#   ISO_BENCH_FABRIC="--levels 3 --radix 20"  (2,000 CAs)
#   ISO_BENCH_INTERVALS="1 5 10"              (perf_interval values)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
FABRIC=${ISO_BENCH_FABRIC:---levels 3 --radix 20}
INTERVALS=${ISO_BENCH_INTERVALS:-1 5 10}
. "$top/bench/bench_lib.sh"
bench_need isolation_bench ibsim
[ -x "$B/bin/ibsm" ] || { echo "isolation_bench: build first"; exit 77; }
IBSM_BUILD=$B
bench_sim_workdir isobench
# the error raiser too
trap 'kill "${RAISER:-}" 2>/dev/null; sim_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
. "$top/tests/integration/sm_lib.sh"

# shellcheck disable=SC2086
bench_fattree "$W/ft.net" $FABRIC
n_ca=$(grep -c '^Ca' "$W/ft.net")
# A leaf port cabled to a switch: the first "leaf-0" line with a switch peer.
port=$(awk '/^Switch/ { on = index($0, "\"leaf-0\"") > 0; next } on && /^\[/ && /"(spine|agg|core|mid|top)[^"]*"/ { gsub(/[\[\]]/, "", $1); print $1; exit }' "$W/ft.net")
[ -n "$port" ] || { echo "isolation_bench: no switch port on leaf-0"; exit 1; }
echo "fabric: fattree $FABRIC ($n_ca CAs); errors on \"leaf-0\"[$port]"
printf '%-14s | %14s | %s\n' perf_interval "error->rerouted" "OpenSM"
for iv in $INTERVALS; do
	ibsim_start "$W/ft.net" $limits || exit 1
	sim_bg_run "$B/bin/ibsm" -R ftree --cache-dir "$W/c$iv" --sweep 10 \
		--set perf_interval="$iv" >"$W/$iv.log" 2>&1
	pid=$SIM_LAST_PID
	wait_log "$W/$iv.log" "perfmgr: cycle 2:" 120 || { echo "$iv: no PerfMgr cycle"; sim_cleanup; continue; }
	t0=$(now)
	(n=0; while :; do n=$((n + 50)); printf 'PerformanceSet "leaf-0"[%s] PortCounters.SymbolErrorCounter=%d\n' "$port" $n >&7; sleep 1; done) &
	RAISER=$!
	if wait_log "$W/$iv.log" "perfmgr: rerouted" $((iv * 4 + 30)); then
		t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f s", b - a }')
	else
		t="not in $((iv * 4 + 30)) s"
	fi
	kill "$RAISER"; RAISER=
	printf '%-14s | %14s | %s\n' "$iv s" "$t" "does not isolate (counts and logs only)"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	sim_cleanup
done
