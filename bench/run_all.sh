#!/bin/sh
# make bench: run every bench/*_bench.sh in turn against BUILD_DIR.
# Benchmarks measure, they do not assert: a benchmark that fails is
# reported and the others still run; the exit status is nonzero if any
# failed. A benchmark may exit 77 to say it cannot run here (skipped).
#   sh bench/run_all.sh [BUILD_DIR]
#   BENCH_ONLY="route sweep" sh bench/run_all.sh build   # a subset by name
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
export IBSM_BUILD="$B"
cd "$top" || exit 1

ran=0; failed=""; skipped=""
found=0
for b in bench/*_bench.sh; do
	[ -f "$b" ] || continue
	found=1
	name=$(basename "$b" _bench.sh)
	if [ -n "${BENCH_ONLY:-}" ]; then
		case " $BENCH_ONLY " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "=== bench: $name ($(date '+%H:%M:%S'))"
	t0=$(date +%s)
	sh "$b" "$B"
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	ran=$((ran + 1))
	case $rc in
	0) echo "=== bench: $name done in ${dt}s" ;;
	77) skipped="$skipped $name"; echo "=== bench: $name skipped" ;;
	*) failed="$failed $name"; echo "=== bench: $name FAILED (exit $rc) after ${dt}s" ;;
	esac
	echo
done
[ $found -eq 1 ] || echo "bench: no bench/*_bench.sh yet"
echo "bench: $ran run${skipped:+, skipped:$skipped}${failed:+, failed:$failed}"
[ -z "$failed" ]
