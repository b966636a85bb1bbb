#!/bin/sh
# Cold start to fully routed under ibsim: ibsm --once against OpenSM, one
# after the other, each on a freshly started ibsim (so both meet a cold
# fabric), for fat-trees of ~650, 2,000 and 11,664 CAs.
#   sh bench/sm_coldstart_bench.sh [BUILD_DIR]
#   SM_BENCH_SIZES="small medium large" (default all three)
#   SM_BENCH_ENGINE=minhop   engine for both SMs (default: minhop)
# Times: ibsm from process start to exit (--once returns when the fabric
# is up); OpenSM from process start to "SUBNET UP" in its log (it needs -d2,
# or that line is not flushed). MADs: ibsm counts its own (log); for both,
# the SM port's PortXmitPkts (perfquery -x) as counted by ibsim, which sees
# every SMP that leaves the SM's port. ibsim itself is single-threaded and
# answers every MAD of both SMs: see the notes printed at the end.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
SIZES=${SM_BENCH_SIZES:-small medium large}
ENGINE=${SM_BENCH_ENGINE:-minhop}
. "$top/bench/bench_lib.sh"
bench_need sm_coldstart_bench ibsim opensm perfquery
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/ibsm-topo" ] || { echo "sm_coldstart_bench: build first"; exit 77; }
bench_sim_workdir smbench

# SM port's transmitted packets, as ibsim counted them (the SM is on the
# first CA, LID from ibsim's view of that port).
xmit_pkts() {
	lid=$(sim_run ibstat 2>/dev/null | awk '/Base lid/ { print $3; exit }')
	sim_run perfquery -x "$lid" 1 2>/dev/null | awk -F. '/PortXmitPkts/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }'
}

printf '%-7s %6s %5s | %9s %9s | %9s %9s | %6s\n' size CAs sw "ibsm s" "ibsm MADs" "osm s" "osm MADs" "ratio"
for size in $SIZES; do
	case $size in
	small)  args="--levels 2 --radix 36" ;;
	medium) args="--levels 3 --radix 20" ;;
	large)  args="--levels 3 --radix 36" ;;
	*) echo "unknown size $size"; continue ;;
	esac
	net=$W/$size.net
	# shellcheck disable=SC2086
	bench_fattree "$net" $args
	n_ca=$(sed -n 's/.* \([0-9]*\) CAs.*/\1/p' "$W/$size.sum" | head -1)
	n_sw=$(sed -n 's/.* \([0-9]*\) switches.*/\1/p' "$W/$size.sum" | head -1)

	# ibsm
	ibsim_start "$net" $limits || exit 1
	t0=$(now)
	sim_run "$B/bin/ibsm" --once -R "$ENGINE" --cache-dir "$W/$size.ibsm" \
		--log-file "$W/$size.ibsm.log"
	rc=$?
	t1=$(now)
	ours_t=$(dt "$t0" "$t1")
	[ $rc -eq 0 ] || ours_t="($ours_t: rc $rc)"
	ours_m=$(grep -i "MADs sent" "$W/$size.ibsm.log" | sed -n 's/.*MADs sent \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	ours_x=$(xmit_pkts)
	cp "$W/$size.ibsm.log" "$W/last-ibsm.log"
	ibsim_stop

	# OpenSM
	ibsim_start "$net" $limits || exit 1
	export OSM_CACHE_DIR="$W/$size.osm"
	mkdir -p "$OSM_CACHE_DIR"
	log=$W/$size.osm.log
	t0=$(now)
	sim_bg_run opensm -d2 -R "$ENGINE" -f "$log" >/dev/null 2>&1
	osm_pid=$SIM_LAST_PID
	osm_t=-
	i=0
	while [ $i -lt 6000 ]; do
		if grep -q "SUBNET UP" "$log" 2>/dev/null; then
			osm_t=$(dt "$t0" "$(now)")
			break
		fi
		kill -0 "$osm_pid" 2>/dev/null || break
		i=$((i + 1))
		sleep 0.05
	done
	osm_x=$(xmit_pkts)
	sim_cleanup
	ratio=$(awk -v a="$ours_t" -v b="$osm_t" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", b / a; else print "-" }')
	printf '%-7s %6s %5s | %9s %9s | %9s %9s | %6s\n' "$size" "$n_ca" "$n_sw" \
		"$ours_t" "$ours_m" "$osm_t" "$osm_x" "$ratio"
	echo "        ibsm: port xmit pkts $ours_x; phases:" $(awk '
		/sweep 1: discovered/ { for (i = 1; i <= NF; i++) if ($i == "in") printf "discover %ss ", $(i + 1) }
		/sweep 1: (route|program|activate) / { for (i = 1; i <= NF; i++) if ($i ~ /^(route|program|activate)$/) { printf "%s %ss ", $i, $(i + 1); break } }
		/sweep 1: P_Keys:/ { for (i = 1; i <= NF; i++) if ($i == "read") printf "P_Key blocks read %s %s in discovery) ", $(i - 1), $(i + 1) }
		' "$W/$size.ibsm.log")
done
echo "ratio = OpenSM time / ibsm time (higher is better for ibsm)."
echo "ibsm log of the last size:"
sed 's/^/    /' "$W/last-ibsm.log" | tail -12
