#!/bin/sh
# Offline routing benchmark (issue 2): for generated fat-trees of about 650,
# 2,000 and 11,664 CAs, the time `ibsm-route` takes to route and its peak
# memory, per engine (minhop, updn, and ftree when it is registered).
# Optionally (BENCH_OPENSM=1) OpenSM's routing phase on the same fabric under
# ibsim, from its -d2 log timestamps, for comparison.
#
#   sh bench/route_bench.sh [BUILD_DIR]
#   BENCH_SIZES="ft2-r36 ft3-r20"   a subset (default: all three)
#   BENCH_ENGINES="minhop updn"     a subset (default: minhop updn ftree)
#   BENCH_CHECK=1                   also run the verifier (slow at 11k CAs)
#   BENCH_OPENSM=1                  add OpenSM rows (needs ibsim; slow)
#
# "route s" is the routing phase as ibsm-route reports it (-v log line
# "route ... N s"); "total s" is the whole run (read the topology, assign
# LIDs, route); "peak MB" is the maximum resident set of the process.
# Generated fabrics are kept in BUILD_DIR/bench-fabrics for later runs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-build}}
case $B in /*) ;; *) B=$top/$B ;; esac
ROUTE=$B/bin/ibsm-route
TOPO=$B/bin/ibsm-topo
SIZES=${BENCH_SIZES:-ft2-r36 ft3-r20 ft3-r36}
ENGINES=${BENCH_ENGINES:-minhop updn ftree}
FABDIR=$B/bench-fabrics
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-route-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP PIPE

for p in "$ROUTE" "$TOPO"; do
	[ -x "$p" ] || { echo "route_bench: $p is not built"; exit 1; }
done
TIME=/usr/bin/time
[ -x $TIME ] || TIME=""   # GNU time gives the peak RSS; without it: n/a


. "$top/bench/bench_lib.sh"

# Seconds in a "... route ... 1.234 s" / "1.234s" log line, else empty.
route_secs() {
	grep -iE 'rout' "$1" | grep -oE '[0-9]+(\.[0-9]+)? ?s\b' | tail -1 | tr -d ' s'
}


row() {
	printf '%-8s %7s %6s  %-10s %8s %8s %8s  %s\n' "$@"
}

echo "ibsm-route on generated fat-trees ($(nproc) CPUs, $(uname -m))"
row fabric CAs sw engine "route s" "total s" "peak MB" note
failures=0
for size in $SIZES; do
	net=$(bench_fabric "$size") || { failures=$((failures + 1)); continue; }
	n_ca=$(grep -cE '^(Ca|Hca)[[:space:]]' "$net")
	n_sw=$(grep -cE '^Switch[[:space:]]' "$net")
	for eng in $ENGINES; do
		log=$WORK/$size.$eng.log
		check=""
		[ -n "${BENCH_CHECK:-}" ] && check=--check
		t0=$(date +%s.%N)
		if [ -n "$TIME" ]; then
			$TIME -f 'PEAK_KB %M' -o "$WORK/time" \
				"$ROUTE" --topo "$net" --engine "$eng" -v $check \
				>"$WORK/out.json" 2>"$log"
		else
			"$ROUTE" --topo "$net" --engine "$eng" -v $check \
				>"$WORK/out.json" 2>"$log"
		fi
		rc=$?
		t1=$(date +%s.%N)
		total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		peak=n/a
		[ -n "$TIME" ] && peak=$(awk '/PEAK_KB/ { printf "%.0f", $2 / 1024 }' "$WORK/time")
		secs=$(route_secs "$log")
		note=""
		if [ $rc -ne 0 ]; then
			if grep -qiE 'unknown engine|no such engine|not registered' "$log"; then
				[ "$eng" = ftree ] && continue   # not built yet: no row
				note="engine not registered"
			else
				note="exit $rc: $(grep -iE 'error|refus' "$log" | tail -1 | cut -c1-60)"
				failures=$((failures + 1))
			fi
			row "$size" "$n_ca" "$n_sw" "$eng" - "$total" "$peak" "$note"
			continue
		fi
		if [ -n "$check" ]; then
			note="ok=$(json_field ok "$WORK/out.json") a2a=$(json_field a2a_ratio "$WORK/out.json")x"
		fi
		row "$size" "$n_ca" "$n_sw" "$eng" "${secs:-?}" "$total" "$peak" "$note"
	done
	if [ -n "${BENCH_OPENSM:-}" ]; then
		sh "$top/bench/opensm_route_time.sh" "$net" "$size" "$n_ca" "$n_sw" ||
			row "$size" "$n_ca" "$n_sw" opensm - - - "OpenSM run failed"
	fi
done
[ $failures -eq 0 ]
