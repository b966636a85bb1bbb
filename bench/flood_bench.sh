#!/bin/sh
# Re-route time under SA floods (issue 26): ibsm against OpenSM on the
# same ibsim fabric, one SM after the other, each run on a fresh ibsim.
#   sh bench/flood_bench.sh [BUILD_DIR]
#   FLOOD_BENCH_FLOODS="none prtable subs srflood mcflood"   (default all)
#   FLOOD_BENCH_CAP=30    seconds to wait for the re-route at most
# Fabric: the 612-node 3-level radix-12 fat-tree of tests 97/98 (ibsm-topo
# fattree --levels 3 --radix 12: 432 CAs, 180 switches), both SMs with
# up/down routing. Floods, from one host (the project's test clients, as in
# tests 96-98), started 3 s before the link loss and lasting until the
# measurement is over (40 s at most):
#   none      no flood
#   prtable   PathRecord GetTable, empty mask, never ACKed: sa-load --table
#             --window 16 (OpenSM's answers are cut to one MAD under ibsim,
#             see IBSIM-NOTES: it builds the whole table but sends 256 bytes)
#   subs      4,096 InformInfo subscriptions to trap 128 from a client that
#             claims IsSM (Reports reach only such a client) and answers no
#             Report: sa-client ii-set --count 4096 --issm --listen
#             --ignore-reports; the link loss makes them thousands of Reports
#   srflood   ServiceRecord Sets back to back: sa-client sr-set --count 4096
#             in a loop, a new ID range each time
#   mcflood   MCMember creates back to back: sa-client mc-join --count 4096
#             in a loop, a new MGID range each time
# Measured per flood and SM:
#   re-route  from the ibsim Unlink of leaf-1[7] <-> spine-0[2] (wall clock
#             of this machine, taken just before the console write) to the
#             end of the first poll that finds no LFT entry of either end
#             through the dead link: leaf-1 routing nothing to port 7 and
#             spine-0 nothing to port 2 (ibroute -n over directed routes
#             that avoid the link, from hosts on leaf-1 and leaf-2). Every
#             unicast route through the link uses one of these two entries,
#             so this is "no table routes through it". Resolution: one poll
#             (printed as "poll" in seconds, ibroute under libumad2sim and
#             the flood's share of ibsim included). The same method for
#             both SMs; neither SM's log is used.
#   RSS       the SM's peak VmRSS (MB), sampled from /proc each poll
#   SA        whether another host's saquery NR was answered during the
#             flood, after the re-route (15 s at most), and whether a third
#             host could register one ServiceRecord (sa-client sr-set)
# Benchmarks measure; nothing here is asserted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
FLOODS=${FLOOD_BENCH_FLOODS:-none prtable subs srflood mcflood}
CAP=${FLOOD_BENCH_CAP:-30}
for c in ibsim opensm ibroute saquery; do
	command -v $c >/dev/null 2>&1 || { echo "flood_bench: $c missing"; exit 77; }
done
for p in ibsm ibsm-topo sa-load sa-client; do
	[ -x "$B/bin/$p" ] || { echo "flood_bench: $B/bin/$p missing (make first)"; exit 77; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flood-bench.XXXXXX")
. "$top/sim/ibsim_harness.sh"
SMPID=; FLPID=
stop_all() {
	[ -n "$FLPID" ] && { kill "$FLPID" 2>/dev/null; wait "$FLPID" 2>/dev/null; FLPID=; }
	[ -n "$SMPID" ] && { sim_stop_pid "$SMPID"; SMPID=; }
	sim_cleanup
}
trap 'stop_all; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP PIPE

net=$WORK/ft3-r12.net
"$B/bin/ibsm-topo" fattree --levels 3 --radix 12 -o "$net" >/dev/null || { echo "flood_bench: ibsm-topo failed"; exit 1; }
# The link and the pollers: leaf-1[7] is spine-0[2] in this layout (checked
# below, the bench stops if not). node-6 hangs off leaf-1[1], node-12 off
# leaf-2[1]; leaf-2[7] is spine-0[3].
grep -q '^\[7\][[:space:]]*"spine-0"\[2\]' "$net" || { echo "flood_bench: leaf-1[7] is not spine-0[2] in $net"; exit 1; }
flooder=$(ibsim_ca_name "$net" 5)
client=$(ibsim_ca_name "$net" 9)
other=$(ibsim_ca_name "$net" 10)

now() { date +%s.%N; }
rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$1/status" 2>/dev/null; }
# entries of a switch's LFT (reached by DR path from a host) to a port
lft_to() { # host drpath port
	SIM_HOST=$1 sim_run timeout 10 ibroute -n -D "$2" 2>/dev/null |
		awk -v p="$3" '/^0x[0-9a-f]+ +[0-9]+/ { if ($2 + 0 == p) n++ } END { print n + 0 }'
}
dead_entries() {
	_a=$(lft_to node-6 0,1 7)
	_b=$(lft_to node-12 0,1,7 2)
	echo $((_a + _b))
}

flood_start() { # kind
	FLPID=
	_end=$(( $(date +%s) + 40 ))
	case $1 in
	none) ;;
	prtable)
		SIM_HOST=$flooder sim_bg_run "$B/bin/sa-load" --table --window 16 \
			--timeout 2000 --count 1000000 --seconds 40 >"$WORK/flood.out" 2>&1
		FLPID=$SIM_LAST_PID ;;
	subs)
		SIM_HOST=$flooder sim_bg_run "$B/bin/sa-client" ii-set --trap 128 --lid-begin 1 \
			--lid-end 49151 --count 4096 --issm --listen 40 --ignore-reports >"$WORK/flood.out" 2>&1
		FLPID=$SIM_LAST_PID
		_i=0
		until grep -q "^sent" "$WORK/flood.out" 2>/dev/null || [ $_i -ge 300 ]; do
			sleep 0.1; _i=$((_i + 1))
		done ;;
	srflood|mcflood)
		(
			i=1
			while [ "$(date +%s)" -lt "$_end" ] && [ $i -le 200 ]; do
				if [ "$1" = srflood ]; then
					SIM_HOST=$flooder sim_run timeout 20 "$B/bin/sa-client" sr-set --count 4096 \
						--id $((i * 4096)) --gid own --name flood
				else
					SIM_HOST=$flooder sim_run timeout 20 "$B/bin/sa-client" mc-join --count 4096 \
						--mgid "ff12:601b:ffff::$(printf %x $i):0"
				fi
				i=$((i + 1))
			done
		) >"$WORK/flood.out" 2>&1 &
		FLPID=$! ;;
	esac
}

row() { printf '%-8s %-7s %9s %6s %8s %8s %4s %6s  %s\n' "$@"; }

# one run: SM (ibsm|opensm), flood kind; prints a row, sets RR and PEAK
run_one() { # sm flood
	RR=-; PEAK=-
	if ! ibsim_start "$net" >/dev/null 2>&1; then row "$2" "$1" - - - - - - "ibsim did not start"; return; fi
	log=$SIM_DIR/sm.log
	if [ "$1" = ibsm ]; then
		sim_bg_run "$B/bin/ibsm" -R updn --cache-dir "$SIM_DIR/cache" --sweep 2 \
			--log-file "$log" 2>"$SIM_DIR/sm.err"
		SMPID=$SIM_LAST_PID; up="fabric UP"
	else
		OSM_CACHE_DIR=$SIM_DIR/osm-cache; export OSM_CACHE_DIR
		mkdir -p "$OSM_CACHE_DIR"
		sim_bg_run opensm -d2 -R updn -f "$log" >"$SIM_DIR/osm.out" 2>&1
		SMPID=$SIM_LAST_PID; up="SUBNET UP"
	fi
	_i=0
	until grep -q "$up" "$log" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 1200 ] || ! kill -0 "$SMPID" 2>/dev/null; then
			row "$2" "$1" - - - - - - "SM not up in 120 s"; stop_all; return
		fi
		sleep 0.1
	done
	sleep 2
	d0=$(dead_entries)
	PEAK=$(rss "$SMPID")
	flood_start "$2"
	_i=0
	while [ $_i -lt 15 ]; do      # 3 s of flood before the link loss
		r=$(rss "$SMPID"); [ "${r:-0}" -gt "$PEAK" ] && PEAK=$r
		sleep 0.2; _i=$((_i + 1))
	done
	if [ "$1" = ibsm ]; then swp="sweep [0-9]*: program"; else swp="tables configured on all switches"; fi
	s0=$(grep -c "$swp" "$log")
	t0=$(now)
	ibsim_cmd "Unlink \"leaf-1\"[7]"
	polls=0; rr=
	while :; do
		n=$(dead_entries)
		t=$(now); polls=$((polls + 1))
		r=$(rss "$SMPID"); [ "${r:-0}" -gt "$PEAK" ] && PEAK=$r
		[ "$n" -eq 0 ] && { rr=$(awk -v a="$t0" -v b="$t" 'BEGIN { printf "%.2f", b - a }'); break; }
		awk -v a="$t0" -v b="$t" -v c="$CAP" 'BEGIN { exit !(b - a > c) }' && break
	done
	poll=$(awk -v a="$t0" -v b="$t" -v n="$polls" 'BEGIN { printf "%.2f", (b - a) / n }')
	RR=${rr:->$CAP}
	# ibsm's tables cannot be seen to change faster than one poll
	[ "$polls" -eq 1 ] && RR="<=$RR"
	left=; [ -n "$rr" ] || left="$n entries left through the dead link; "
	sw=$(( $(grep -c "$swp" "$log") - s0 ))
	# another host's SA query and registration, flood still running
	if SIM_HOST=$client sim_run timeout 15 saquery NR 2>/dev/null | grep -q "NodeRecord"; then nr=yes; else nr=no; fi
	# registered: the SA echoed the record (not a status, "no answer" or nothing)
	if SIM_HOST=$other sim_run timeout 15 "$B/bin/sa-client" sr-set --id 0x94 --gid own \
		--name other 2>&1 | grep -q "^ServiceID"; then sr=yes; else sr=no; fi
	live=up; kill -0 "$SMPID" 2>/dev/null || live=DEAD
	fl=
	[ -s "$WORK/flood.out" ] && fl=$(grep -m1 "^sent" "$WORK/flood.out" | cut -c1-60)
	row "$2" "$1" "$RR" "$poll" "$PEAK" "$d0" "$nr" "$sr" "${left}sm $live, $sw routings logged by then${fl:+; flood: $fl}"
	stop_all
	rm -f "$WORK/flood.out"
}

echo "flood_bench: $(basename "$net" .net) (432 CAs, 180 switches), Unlink leaf-1[7] (spine-0[2]) during each flood; $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
row flood sm "reroute_s" poll "rss_mb" dead0 NR SR-set note
res=$WORK/res
: >"$res"
for f in $FLOODS; do
	for s in ibsm opensm; do
		run_one "$s" "$f"
		echo "$f $s $RR $PEAK" >>"$res"
	done
done
echo
echo "summary (reroute s: Unlink -> no LFT entry through the dead link, polled; ratio ibsm/OpenSM)"
printf '%-8s %10s %10s %7s %9s %9s\n' flood ibsm_s opensm_s ratio ibsm_mb osm_mb
for f in $FLOODS; do
	awk -v f="$f" '$1 == f && $2 == "ibsm" { a = $3; ra = $4 } $1 == f && $2 == "opensm" { b = $3; rb = $4 }
		END { x = a; y = b; sub(/^<=/, "", x); sub(/^<=/, "", y)
		      r = (x ~ /^[0-9.]+$/ && y ~ /^[0-9.]+$/ && y > 0) ? sprintf("%.2f", x / y) : "-"
		      if (r != "-" && (a ~ /^<=/ || b ~ /^<=/)) r = "~" r
		      # OpenSM past the cap: the ratio is at most ours over the cap
		      if (x ~ /^[0-9.]+$/ && b ~ /^>/) r = sprintf("<%.3f", x / substr(b, 2))
		      printf "%-8s %10s %10s %7s %9s %9s\n", f, a, b, r, ra, rb }' "$res"
done
