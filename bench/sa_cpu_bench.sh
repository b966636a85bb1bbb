#!/bin/sh
# CPU an SM spends in its own code answering SA queries (issue 27): ibsm
# against OpenSM on the same ibsim fabric, one after the other in one run.
# The load is `osmtest -f f` (100,000 PortInfoRecord GetTable queries of
# one record each, one MAD per answer) from another CA. The SM's CPU is
# split by object: the SM's own code (ibsm's executable; opensm with
# libopensm, libosmcomp, libosmvendor), libc, libibumad/libibmad, the
# simulator's transport (libumad2sim, which carries to no hardware) and,
# with perf, the kernel. Two ways to count (SA_CPU_TOOL):
#   perf       perf samples the SM at 1 kHz (cpu-clock): seconds, noisy
#              (+-30%) on a loaded machine.
#   callgrind  the SM runs under valgrind --tool=callgrind (libumad2sim
#              still preloaded: valgrind passes LD_PRELOAD on), counting
#              from the first query to the last (callgrind_control -i on,
#              then a dump): instructions, the same whatever the load
#              (within 1-2%: idle loop turns vary). osmtest runs 2-5x
#              slower against it; the 11,664-CA sweep under valgrind takes
#              minutes (OpenSM's longer). No hardware counters are needed.
#   sh bench/sa_cpu_bench.sh [BUILD_DIR]
#   SA_CPU_SIZES="648 11664" (CAs: 2- and 3-level radix-36 fat-trees)
#   SA_CPU_SMS="ibsm opensm"  SA_CPU_TOP=6 (own functions listed)
#   SA_CPU_KEEP=PREFIX (keep the profile: callgrind's as PREFIX.SIZE.SM,
#              perf's as PREFIX.SIZE.SM.perf)
#   SA_CPU_FREQ=1000 (perf: samples a second; more samples, less noise:
#              at 1 kHz the own code of one run is ~150 samples, +-8%)
#   SA_CPU_RUNS=1 (ibsm then OpenSM, this many times: perf's ratio moves
#              with the machine between runs (0.41-0.64x for one build on
#              2026-11-28), so the median of the runs' ratios is printed)
# Prints, per size and SM, CPU seconds or millions of instructions per
# object, the own code per 1,000 queries (ms) or per query (instructions),
# and the ratios ibsm/OpenSM and large/small.
# Measured (callgrind, own-code instructions per query, OpenSM -s 0; the
# table and what is left: docs/demo-and-bench.md):
#   648 CAs    ibsm 3,767 before issue 27's SA work, 1,080 after; OpenSM 2,664
#   11,664 CAs ibsm 1,083 (1.00x of 648);                       OpenSM 2,664
#   whole SM process at 648 after: ibsm 4,894, OpenSM 9,071
#   perf (SA_CPU_FREQ=10000 SA_CPU_RUNS=5): own-code ratio 0.40-0.58x,
#   median 0.56x (cache misses: docs/demo-and-bench.md)
# Benchmarks measure; nothing here is asserted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
SIZES=${SA_CPU_SIZES:-648 11664}
TOOL=${SA_CPU_TOOL:-perf}
FREQ=${SA_CPU_FREQ:-1000}
RUNS=${SA_CPU_RUNS:-1}
case $TOOL in
perf) tools=perf ;;
callgrind) tools="valgrind callgrind_control callgrind_annotate" ;;
*) echo "sa_cpu_bench: SA_CPU_TOOL is perf or callgrind"; exit 2 ;;
esac
. "$top/bench/bench_lib.sh"
# shellcheck disable=SC2086
bench_need sa_cpu_bench ibsim opensm osmtest $tools
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/ibsm-topo" ] || { echo "sa_cpu_bench: build first"; exit 77; }
bench_sim_workdir sacpu

# Seconds of CPU per object class from a perf.data of one process.
split_cpu() { # perf.data sm
	perf report -i "$1" --stdio --sort dso -F overhead,sample,dso 2>/dev/null |
	awk -v sm="$2" -v hz="$FREQ" '/^#/ || NF < 3 { next }
	{ n = $2; d = $3
	  if (sm == "ibsm" && d == "ibsm") o = "own"
	  else if (sm == "opensm" && (d == "opensm" || d ~ /^libopensm|^libosmcomp|^libosmvendor/)) o = "own"
	  else if (d ~ /umad2sim/) o = "sim"
	  else if (d ~ /kernel/) o = "kernel"
	  else if (d ~ /^libc[.-]/) o = "libc"
	  else if (d ~ /libibumad|libibmad/) o = "libib"
	  else o = "other"
	  s[o] += n }
	END { printf "%.3f %.3f %.3f %.3f %.3f %.3f\n", s["own"] / hz, s["libc"] / hz,
		s["libib"] / hz, s["sim"] / hz, s["kernel"] / hz, s["other"] / hz }'
}

# Instructions (self cost) per object class from a callgrind out file: a
# cost line counts toward the current ob=; the line after calls= is the
# callee's inclusive cost and is skipped. (N) names are compressed names.
split_ir() { # callgrind.out sm
	awk -v sm="$2" 'function nm(s,   id) {
		if (match(s, /^\([0-9]+\)/)) {
			id = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); sub(/^ /, "", s)
			if (s != "") names[id] = s; else s = names[id]
		}
		return s
	}
	/^ob=/ { ob = nm(substr($0, 4)); next }
	/^cob=/ { nm(substr($0, 5)); next }
	/^calls=/ { skip = 1; next }
	/^[0-9+*-]/ { if (skip) { skip = 0; next } cost[ob] += $2; next }
	END { for (d in cost) {
		b = d; sub(/.*\//, "", b)
		if (sm == "ibsm" && b == "ibsm") o = "own"
		else if (sm == "opensm" && (b == "opensm" || b ~ /^libopensm|^libosmcomp|^libosmvendor/)) o = "own"
		else if (b ~ /umad2sim/) o = "sim"
		else if (b ~ /^libc[.-]/) o = "libc"
		else if (b ~ /libibumad|libibmad/) o = "libib"
		else o = "other"
		s[o] += cost[d] }
	  printf "%.1f %.1f %.1f %.1f - %.1f\n", s["own"] / 1e6, s["libc"] / 1e6,
		s["libib"] / 1e6, s["sim"] / 1e6, s["other"] / 1e6 }' "$1"
}

# callgrind: dump the counts since -i on, split them, list the top own
# functions. Deterministic: the same binary and query count give the same
# instructions whatever the machine's load (up to retries and timers).
callgrind_report() { # sm size ok t0 t1 pid
	callgrind_control -d "$6" >/dev/null 2>&1
	f=$W/cg.$2.$1.1
	i=0
	while [ ! -s "$f" ] && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
	set -- "$1" "$2" "$3" "$(awk -v a="$4" -v b="$5" 'BEGIN { printf "%.1f", b - a }')" \
		$(split_ir "$f" "$1")
	printf '%-6s %-7s %-5s %6s s | own %7s  libc %7s  libib %7s  sim %7s  other %7s | own Ir/query %s\n' \
		"$2" "$1" "$3" "$4" "$5" "$6" "$7" "$8" "${10}" \
		"$(awk -v o="$5" 'BEGIN { printf "%.0f", o * 1e6 / 100000 }')"
	echo "$2 $1 $5 $run" >>"$W/own"
	if [ "$1" = ibsm ]; then own="\\[$B/bin/ibsm\\]|^ *[0-9,]+ +\\(.*\\) +$top/"
	else own='\[[^]]*/(opensm|libopensm[^]/]*|libosmcomp[^]/]*|libosmvendor[^]/]*)\]'; fi
	callgrind_annotate --inclusive=no "$f" 2>/dev/null | grep -E "$own" |
		head -n "${SA_CPU_TOP:-6}" | sed 's/ \[.*//; s/^ */         /'
	[ -n "${SA_CPU_KEEP:-}" ] && cp "$f" "$SA_CPU_KEEP.$2.$1"
}

run_sm() { # sm size net limits client
	rm -f "$W/cg.$2.$1"*    # an earlier run's profile (SA_CPU_RUNS)
	ibsim_start "$3" $4 || return 1
	vg=
	# Counting starts when the queries do (callgrind_control -i on).
	[ "$TOOL" = callgrind ] && vg="valgrind -q --tool=callgrind --instr-atstart=no
		--callgrind-out-file=$W/cg.$2.$1"
	if [ "$1" = ibsm ]; then
		sim_bg_run $vg "$B/bin/ibsm" -R ftree,updn --cache-dir "$W/$2.c" \
			--sweep 0 --log-file "$W/$2.ibsm.log"
		pid=$SIM_LAST_PID; log=$W/$2.ibsm.log; up="fabric UP"
	else
		# -s 0: no periodic light sweep, as ibsm's --sweep 0 (at 11,664
		# CAs OpenSM's 10 s sweeps were a fifth of its CPU meanwhile)
		export OSM_CACHE_DIR="$W/$2.osm"; mkdir -p "$OSM_CACHE_DIR"
		sim_bg_run $vg opensm -d2 -s 0 -f "$W/$2.osm.log" >/dev/null 2>&1
		pid=$SIM_LAST_PID; log=$W/$2.osm.log; up="SUBNET UP"
	fi
	# env(1) execs the SM: the pid is the SM's.
	if ! bench_wait_log "$log" "$up" "$pid" 1800; then
		echo "$1 not up on $2"; sim_cleanup; return 1
	fi
	sleep 1
	if [ "$TOOL" = callgrind ]; then
		callgrind_control -i on "$pid" >/dev/null 2>&1
	else
		perf record -q -F "$FREQ" -e cpu-clock -p "$pid" -o "$W/perf.$2.$1" >/dev/null 2>&1 &
		perfpid=$!
		sleep 0.5
	fi
	t0=$(date +%s.%N)
	ok=FAIL
	SIM_HOST=$5 sim_run timeout 1800 osmtest -f f >"$W/osmtest.$2.$1" 2>&1 &&
		grep -q PASS "$W/osmtest.$2.$1" && ok=PASS
	t1=$(date +%s.%N)
	if [ "$TOOL" = callgrind ]; then
		callgrind_report "$1" "$2" "$ok" "$t0" "$t1" "$pid"
		sim_cleanup
		return
	fi
	kill -INT "$perfpid"; wait "$perfpid" 2>/dev/null
	set -- "$1" "$2" "$ok" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" \
		$(split_cpu "$W/perf.$2.$1" "$1")
	printf '%-6s %-7s %-5s %6s s | own %6s  libc %6s  libib %6s  sim %6s  kernel %6s  other %6s | own ms/1k %s\n' \
		"$2" "$1" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" \
		"$(awk -v o="$5" 'BEGIN { printf "%.2f", o * 1000 / 100 }')"
	echo "$2 $1 $5 $run" >>"$W/own"
	# where the own code's CPU goes: the top functions
	perf report -i "$W/perf.$2.$1" --stdio --sort sym -F overhead,sym \
		--dsos "$([ "$1" = ibsm ] && echo ibsm || echo opensm,libopensm.so.9,libosmcomp.so.5)" 2>/dev/null |
		awk '!/^#/ && NF >= 2' | sort -rn | head -n "${SA_CPU_TOP:-6}" | sed 's/^/         /'
	[ -n "${SA_CPU_KEEP:-}" ] && cp "$W/perf.$2.$1" "$SA_CPU_KEEP.$2.$1.perf"
	sim_cleanup
}

if [ "$TOOL" = callgrind ]; then
	echo "size   SM      osmtest wall | instructions (millions) by object (callgrind)"
else
	echo "size   SM      osmtest wall | CPU seconds by object (perf, $FREQ Hz)"
fi
for size in $SIZES; do
	case $size in
	648) args="--levels 2 --radix 36" ;;
	11664) args="--levels 3 --radix 36" ;;
	*) echo "unknown size $size (648 or 11664)"; continue ;;
	esac
	net=$W/$size.net
	# shellcheck disable=SC2086
	bench_fattree "$net" $args
	client=$(ibsim_ca_name "$net" 3)
	run=1
	while [ "$run" -le "$RUNS" ]; do
		for sm in ${SA_CPU_SMS:-ibsm opensm}; do
			run_sm "$sm" "$size" "$net" "$limits" "$client"
		done
		run=$((run + 1))
	done
done
# Ratios of the SMs measured in one run (size and run number), then, with
# more than one run, their median. The 11,664 / 648 ratio: first runs.
[ -f "$W/own" ] && awk '{ o[$1 " " $2 " " $4] = $3; s[$1] = 1; if ($4 > nr) nr = $4 }
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END { for (z in s) {
		n = 0; line = ""
		for (r = 1; r <= nr; r++)
			if (o[z " opensm " r] > 0 && o[z " ibsm " r] != "") {
				v[++n] = o[z " ibsm " r] / o[z " opensm " r]
				line = line sprintf(" %.2f", v[n])
			}
		if (n == 1)
			printf "%s CAs: own-code CPU ibsm/OpenSM = %.2fx\n", z, v[1]
		else if (n > 1)
			printf "%s CAs: own-code CPU ibsm/OpenSM = %.2fx (median of %d runs:%s)\n", z, median(v, n), n, line
	      }
	      if (o["648 ibsm 1"] > 0 && o["11664 ibsm 1"] != "")
		printf "ibsm own-code CPU 11,664 / 648 CAs = %.2fx (same query count)\n", o["11664 ibsm 1"] / o["648 ibsm 1"] }' "$W/own"
echo "own: the SM's own code; sim: libumad2sim (the simulator's transport, not on hardware)."
