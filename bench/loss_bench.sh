#!/bin/sh
# Convergence under MAD loss (issue 10): cold start to a fully up fabric
# with ibsim dropping a share of the packets on the SM's link, ibsm (the
# daemon) against OpenSM, each on a fresh ibsim with the same fabric.
#   sh bench/loss_bench.sh [BUILD_DIR]
#   LOSS_BENCH_FABRIC="--levels 3 --radix 8"   (208 nodes; ibsm-topo args)
#   LOSS_BENCH_RATES="30 50"                   (ibsim Error percentages)
#   LOSS_BENCH_LIMIT=120                       (seconds each SM gets)
# Where: "port" = Error on the SM's HCA port only (drops what arrives
# there: answers, so a try is lost with the rate); "link" = on both ends
# of the SM's link (requests too: a try is lost with 1 - (1 - rate)^2).
# Time: from start to ibsm's "fabric UP" / OpenSM's "SUBNET UP" (-d2),
# confirmed by a judge on a far CA: every link Active, every switch with a
# route to every LID (dump_fts).
# Sweeps: heavy sweeps ibsm logged (OpenSM: "SUBNET UP" is once). MADs:
# SMPs that left the SM's port as ibsim counted them (PortXmitPkts, read
# after the loss is removed), for both SMs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
FABRIC=${LOSS_BENCH_FABRIC:---levels 3 --radix 8}
RATES=${LOSS_BENCH_RATES:-30 50}
LIMIT=${LOSS_BENCH_LIMIT:-120}
. "$top/bench/bench_lib.sh"
bench_need loss_bench ibsim opensm perfquery
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/ibsm-topo" ] || { echo "loss_bench: build first"; exit 77; }
bench_sim_workdir lossbench

# shellcheck disable=SC2086
bench_fattree "$W/ft.net" $FABRIC
nodes=$(grep -c '^Ca\|^Switch' "$W/ft.net")
smnode=$(awk -F'"' '/^Ca/ { print $2; exit }' "$W/ft.net")
far=$(awk -F'"' '/^Ca/ { n = $2 } END { print n }' "$W/ft.net")
nsw=$(grep -c '^Switch' "$W/ft.net")
want_entries=$((nsw * nodes))
peer=$(bench_ca_peer "$smnode")
loss() {  # loss WHERE RATE
	ibsim_cmd "Error \"$smnode\"[1] $2"
	[ "$1" = link ] && ibsim_cmd "Error $peer $2"
	return 0
}
xmit_pkts() {
	lid=$(sim_run ibstat 2>/dev/null | awk '/Base lid/ { print $3; exit }')
	sim_run perfquery -x "$lid" 1 2>/dev/null | awk -F. '/PortXmitPkts/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }'
}
# The judge, from a CA far from the loss: every link Active (iblinkinfo
# shows no port Initialize or Armed) and every switch holding a route to
# every LID (dump_fts). OpenSM logs "SUBNET UP" even when a lost answer
# made it drop most of the fabric (measured: after one lost PortInfo of
# the SM's leaf it came "up" with only itself), so its log is not enough.
judge() {
	_l=$(SIM_HOST=$far sim_run timeout 20 iblinkinfo 2>/dev/null)
	echo "$_l" | grep -q "Active" || return 1
	echo "$_l" | grep -q "Initialize\|Armed" && return 1
	_e=$(SIM_HOST=$far sim_run timeout 20 dump_fts 2>/dev/null | grep -c "^0x[0-9a-f]* [0-9]")
	[ "$_e" -ge "$want_entries" ]
}
# wait_up T0 LOG PATTERN: seconds from T0 until the SM logged PATTERN and
# the judge agreed (each new PATTERN line is judged; every 5 s the judge
# runs anyway), or "> LIMIT".
wait_up() {
	_t0=$1; _seen=0; _next=$(awk -v t="$(now)" 'BEGIN { print t + 5 }')
	while :; do
		_t=$(now)
		[ "$(dt "$_t0" "$_t" | cut -d. -f1)" -ge "$LIMIT" ] && { echo "> $LIMIT"; return 1; }
		_n=$(grep -c "$3" "$2" 2>/dev/null)
		if [ "$_n" -gt "$_seen" ] || awk -v a="$_t" -v b="$_next" 'BEGIN { exit !(a >= b) }'; then
			_seen=$_n
			_next=$(awk -v t="$_t" 'BEGIN { print t + 5 }')
			[ "$_n" -gt 0 ] && judge && { dt "$_t0" "$_t"; return 0; }
		fi
		sleep 0.1
	done
}

echo "fabric: fattree $FABRIC ($nodes nodes); loss on the SM's link ($smnode, $peer)"
printf '%-5s %-5s | %8s %7s %8s | %8s %8s | %7s\n' loss where "ibsm s" sweeps "MADs" "osm s" "MADs" ratio
for rate in $RATES; do
	for where in port link; do
		ibsim_start "$W/ft.net" $limits || exit 1
		loss $where "$rate"
		t0=$(now)
		sim_bg_run "$B/bin/ibsm" -R ftree,updn --cache-dir "$W/c.$rate.$where" >"$W/ibsm.$rate.$where.log" 2>&1
		pid=$SIM_LAST_PID
		it=$(wait_up "$t0" "$W/ibsm.$rate.$where.log" "fabric UP")
		loss $where 0
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		isw=$(grep -c "heavy sweep [0-9.]* s" "$W/ibsm.$rate.$where.log")
		im=$(xmit_pkts); im=${im:-n/a}
		sim_cleanup

		ibsim_start "$W/ft.net" $limits || exit 1
		loss $where "$rate"
		OSM_CACHE_DIR=$(mktemp -d "$W/osmc.XXXXXX"); export OSM_CACHE_DIR
		t0=$(now)
		sim_bg_run opensm -d2 -f "$W/osm.$rate.$where.log" >/dev/null 2>&1
		pid=$SIM_LAST_PID
		ot=$(wait_up "$t0" "$W/osm.$rate.$where.log" "SUBNET UP")
		loss $where 0
		om=$(xmit_pkts); om=${om:-n/a}
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		sim_cleanup
		ratio=$(awk -v i="$it" -v o="$ot" 'BEGIN { if (i + 0 > 0 && o !~ />/) printf "%.0fx", o / i; else if (o ~ />/) printf "> %.0fx", substr(o, 3) / i; else print "-" }')
		printf '%-5s %-5s | %8s %7s %8s | %8s %8s | %7s\n' "$rate%" "$where" "$it" "$isw" "$im" "$ot" "$om" "$ratio"
	done
done
