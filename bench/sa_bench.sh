#!/bin/sh
# Subnet Administration: ibsm against OpenSM on the same ibsim fabric, one
# SM after the other, each on a fresh ibsim.
#   sh bench/sa_bench.sh [BUILD_DIR]
#   SA_BENCH_SIZES="small large" (default both: 648 and 11,664 CAs)
# Per SM and size:
#   osmtest -f f      100,000 single-MAD PortInfoRecord queries (small only)
#   PathRecord        mean and worst time of one `saquery -p --slid --dlid`
#                     process, over Q queries between spread CA pairs
#   floor             the same for `saquery -c` (ClassPortInfo, one fixed
#                     record): process start + ibsim round trip, no SA work
#   during sweep      PathRecord queries issued while a heavy sweep runs
#                     (SIGHUP to either SM): mean and worst
#   RSS               the SM process's resident memory after the queries
#   throughput        sa-load (tests/tools/sa_load_main.c): SA_BENCH_LOAD
#                     PathRecord Gets between random CA pairs from one
#                     client with 1 and 32 in flight, and ClassPortInfo
#                     with 32 in flight (the floor): queries/s, p99 latency,
#                     and the ibsm/OpenSM ratio
# Benchmarks measure; nothing here is asserted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
SIZES=${SA_BENCH_SIZES:-small large}
Q=${SA_BENCH_QUERIES:-200}
LOADN=${SA_BENCH_LOAD:-20000}
. "$top/bench/bench_lib.sh"
bench_need sa_bench ibsim opensm saquery osmtest
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/ibsm-topo" ] || { echo "sa_bench: build first"; exit 77; }
bench_sim_workdir sabench

rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }

# Time each query of a list (one "slid dlid" per line; "cpi" for the
# floor) and print "mean_ms worst_ms".
time_queries() { # file
	while read -r s d; do
		t0=$(now)
		if [ "$s" = cpi ]; then
			SIM_HOST=$client sim_run saquery -c >/dev/null 2>&1
		else
			SIM_HOST=$client sim_run saquery -p --slid "$s" --dlid "$d" >/dev/null 2>&1
		fi
		t1=$(now)
		echo "$t0 $t1"
	done <"$1" | awk '{ d = ($2 - $1) * 1000; s += d; if (d > m) m = d; n++ }
		END { if (n) printf "%.1f %.1f\n", s / n, m; else print "- -" }'
}

run_sm() { # which size net limits
	ibsim_start "$3" $4 || return 1
	bench_sm_start "$1" "$2"
	bench_wait_log "$log" "$up" "$pid" || { echo "$1 not up"; sim_cleanup; return 1; }
	ibt=-
	if [ "$2" = small ]; then
		t0=$(now)
		SIM_HOST=$client sim_run timeout 300 osmtest -f f >"$W/osmtest.$1" 2>&1 &&
			grep -q PASS "$W/osmtest.$1" &&
			ibt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	fi
	sim_run ibnetdiscover >"$W/$2.$1.ibnd" 2>/dev/null
	awk '/^Ca/ { ca = 1; next } /^$/ { ca = 0 }
	     ca && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); break } }' \
		"$W/$2.$1.ibnd" >"$W/calids"
	awk -v q="$Q" '{ l[n++] = $1 } END { srand(1); for (i = 0; i < q; i++) {
		a = int(rand() * n); b = int(rand() * n); if (a == b) b = (b + 1) % n; print l[a], l[b] } }' \
		"$W/calids" >"$W/pairs"
	awk -v q="$Q" 'BEGIN { for (i = 0; i < q; i++) print "cpi" }' >"$W/cpis"
	pr=$(time_queries "$W/pairs")
	floor=$(time_queries "$W/cpis")
	# Throughput with 32 queries in flight from one client (sa-load):
	# PathRecords between random CA pairs, and the ClassPortInfo floor.
	for w in 1 32; do
		SIM_HOST=$client sim_run timeout 600 "$B/bin/sa-load" --count "$LOADN" \
			--window $w $(cat "$W/calids") >"$W/load.$2.$1.w$w" 2>&1
	done
	SIM_HOST=$client sim_run timeout 600 "$B/bin/sa-load" --count "$LOADN" \
		--window 32 --cpi >"$W/load.$2.$1.cpi" 2>&1
	# Queries from SIGHUP until the sweep's end is logged (both SMs log
	# their "up" line again after a heavy sweep).
	n0=$(grep -c "$up" "$log")
	kill -HUP "$pid"
	sw=$(while [ "$(grep -c "$up" "$log")" -le "$n0" ]; do
		cat "$W/pairs"
	done | head -"${SA_BENCH_SWEEP_MAX:-3000}" | while read -r s d; do
		[ "$(grep -c "$up" "$log")" -gt "$n0" ] && break
		t0=$(now)
		SIM_HOST=$client sim_run saquery -p --slid "$s" --dlid "$d" >/dev/null 2>&1
		echo "$t0 $(now)"
	done | awk '{ d = ($2 - $1) * 1000; s += d; if (d > m) m = d; n++ }
		END { if (n) printf "%.1f %.1f %d\n", s / n, m, n; else print "- - 0" }')
	rss=$(rss_mb "$pid")
	printf '%-6s %-7s | %8s | %14s | %14s | %20s | %7s\n' "$2" "$1" "$ibt" \
		"$(echo $pr | awk '{ print $1 " / " $2 }')" \
		"$(echo $floor | awk '{ print $1 " / " $2 }')" \
		"$(echo $sw | awk '{ print $1 " / " $2 " (" $3 ")" }')" "$rss"
	sim_cleanup
}

printf '%-6s %-7s | %8s | %14s | %14s | %20s | %7s\n' size SM "osmtest" \
	"PR ms mean/max" "floor ms" "in sweep ms" "RSS MB"
for size in $SIZES; do
	case $size in
	small) args="--levels 2 --radix 36" ;;
	large) args="--levels 3 --radix 36" ;;
	*) echo "unknown size $size"; continue ;;
	esac
	net=$W/$size.net
	# shellcheck disable=SC2086
	bench_fattree "$net" $args
	client=$(ibsim_ca_name "$net" 3)
	run_sm ibsm "$size" "$net" "$limits"
	run_sm opensm "$size" "$net" "$limits"
done
echo
printf '%-6s %-7s | %22s | %22s | %22s\n' size SM "PR w1 qps (p99 ms)" "PR w32 qps (p99 ms)" "floor w32 qps"
qps() { awk '{ for (i = 1; i <= NF; i++) { if ($i == "qps") q = $(i + 1); if ($i == "p99") p = $(i + 1) } }
	END { if (q == "") print "-"; else printf "%s (%s)\n", q, p }' "$1" 2>/dev/null; }
for size in $SIZES; do
	for sm in ibsm opensm; do
		[ -f "$W/load.$size.$sm.w1" ] || continue
		printf '%-6s %-7s | %22s | %22s | %22s\n' "$size" "$sm" "$(qps "$W/load.$size.$sm.w1")" \
			"$(qps "$W/load.$size.$sm.w32")" "$(qps "$W/load.$size.$sm.cpi")"
	done
	a=$(qps "$W/load.$size.ibsm.w32" | cut -d' ' -f1); b=$(qps "$W/load.$size.opensm.w32" | cut -d' ' -f1)
	f=$(qps "$W/load.$size.opensm.cpi" | cut -d' ' -f1)
	awk -v a="$a" -v b="$b" -v f="$f" -v s="$size" 'BEGIN { if (a + 0 > 0 && b + 0 > 0)
		printf "%s: PathRecord throughput ibsm/OpenSM = %.2fx (32 in flight); ibsim floor (ClassPortInfo) %s qps\n", s, a / b, f }'
done
echo "osmtest: seconds for osmtest -f f (100,000 queries; ibsim and osmtest bound)."
echo "PR, floor, in sweep: one saquery process per query (start-up included), from another CA."
echo "in sweep: queries from SIGHUP until the heavy sweep's end is logged (count in parentheses)."
