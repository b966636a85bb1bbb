#!/bin/sh
# CPU an SM spends in its own code answering SA queries (issue 27): ibsm
# against OpenSM on the same ibsim fabric, one after the other in one run.
# The load is `osmtest -f f` (100,000 single-MAD PortInfoRecord queries)
# from another CA; perf samples the SM process at 1 kHz and splits its CPU
# by object: the SM's own code (ibsm's executable; opensm with libopensm,
# libosmcomp, libosmvendor), libc, libibumad/libibmad, the simulator's
# transport (libumad2sim, which carries to no hardware) and the kernel.
#   sh bench/sa_cpu_bench.sh [BUILD_DIR]
#   SA_CPU_SIZES="648 11664" (CAs: 2- and 3-level radix-36 fat-trees)
# Prints, per size and SM, seconds of CPU per object, the own-code CPU
# per 1,000 queries, and the ratios ibsm/OpenSM and large/small.
# Benchmarks measure; nothing here is asserted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
SIZES=${SA_CPU_SIZES:-648 11664}
. "$top/bench/bench_lib.sh"
bench_need sa_cpu_bench ibsim opensm osmtest perf
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/ibsm-topo" ] || { echo "sa_cpu_bench: build first"; exit 77; }
bench_sim_workdir sacpu

# Seconds of CPU per object class from a perf.data of one process.
split_cpu() { # perf.data sm
	perf report -i "$1" --stdio --sort dso -F overhead,sample,dso 2>/dev/null |
	awk -v sm="$2" '/^#/ || NF < 3 { next }
	{ n = $2; d = $3
	  if (sm == "ibsm" && d == "ibsm") o = "own"
	  else if (sm == "opensm" && (d == "opensm" || d ~ /^libopensm|^libosmcomp|^libosmvendor/)) o = "own"
	  else if (d ~ /umad2sim/) o = "sim"
	  else if (d ~ /kernel/) o = "kernel"
	  else if (d ~ /^libc[.-]/) o = "libc"
	  else if (d ~ /libibumad|libibmad/) o = "libib"
	  else o = "other"
	  s[o] += n }
	END { printf "%.3f %.3f %.3f %.3f %.3f %.3f\n", s["own"] / 1000, s["libc"] / 1000,
		s["libib"] / 1000, s["sim"] / 1000, s["kernel"] / 1000, s["other"] / 1000 }'
}

run_sm() { # sm size net limits client
	ibsim_start "$3" $4 || return 1
	bench_sm_start "$1" "$2"
	# env(1) execs the SM: the pid is the SM's.
	if ! bench_wait_log "$log" "$up" "$pid"; then
		echo "$1 not up on $2"; sim_cleanup; return 1
	fi
	sleep 1
	perf record -q -F 1000 -e cpu-clock -p "$pid" -o "$W/perf.$2.$1" >/dev/null 2>&1 &
	perfpid=$!
	sleep 0.5
	t0=$(date +%s.%N)
	ok=FAIL
	SIM_HOST=$5 sim_run timeout 600 osmtest -f f >"$W/osmtest.$2.$1" 2>&1 &&
		grep -q PASS "$W/osmtest.$2.$1" && ok=PASS
	t1=$(date +%s.%N)
	kill -INT "$perfpid"; wait "$perfpid" 2>/dev/null
	set -- "$1" "$2" "$ok" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" \
		$(split_cpu "$W/perf.$2.$1" "$1")
	printf '%-6s %-7s %-5s %6s s | own %6s  libc %6s  libib %6s  sim %6s  kernel %6s  other %6s | own ms/1k %s\n' \
		"$2" "$1" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" \
		"$(awk -v o="$5" 'BEGIN { printf "%.2f", o * 1000 / 100 }')"
	echo "$2 $1 $5" >>"$W/own"
	# where the own code's CPU goes: the top functions
	perf report -i "$W/perf.$2.$1" --stdio --sort sym -F overhead,sym \
		--dsos "$([ "$1" = ibsm ] && echo ibsm || echo opensm,libopensm.so.9,libosmcomp.so.5)" 2>/dev/null |
		awk '!/^#/ && NF >= 2' | sort -rn | head -n "${SA_CPU_TOP:-6}" | sed 's/^/         /'
	sim_cleanup
}

echo "size   SM      osmtest wall | CPU seconds by object (perf, 1 kHz)"
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
	run_sm ibsm "$size" "$net" "$limits" "$client"
	run_sm opensm "$size" "$net" "$limits" "$client"
done
[ -f "$W/own" ] && awk '{ o[$1 " " $2] = $3; s[$1] = 1 }
	END { for (z in s) if (o[z " opensm"] > 0)
		printf "%s CAs: own-code CPU ibsm/OpenSM = %.2fx\n", z, o[z " ibsm"] / o[z " opensm"]
	      if (o["648 ibsm"] > 0 && o["11664 ibsm"] != "")
		printf "ibsm own-code CPU 11,664 / 648 CAs = %.2fx (same query count)\n", o["11664 ibsm"] / o["648 ibsm"] }' "$W/own"
echo "own: the SM's own code; sim: libumad2sim (the simulator's transport, not on hardware)."
