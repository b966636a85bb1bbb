#!/bin/sh
# Takeover after kill -9 of the master, ibsm against OpenSM in one run, each
# pair on a fresh ibsim with the same fabric (issue 10):
#   ibsm   -> ibsm      defaults (poll 200 ms, 3 misses)
#   OpenSM -> OpenSM    defaults (poll 10 s, 4 retries)
#   OpenSM -> OpenSM    tuned (sminfo_polling_timeout 1000, polling_retry_number 2)
#   OpenSM -> ibsm      ibsm standby under an OpenSM master
# Time: from kill -9 to the standby's "takeover: MASTER, fabric UP" (ibsm)
# or "SUBNET UP" (OpenSM, -d2). Also: did dump_fts change, and how many LFT
# blocks the new master wrote (ibsm logs it; OpenSM does not).
# Then false takeovers under loss: 20% of the packets dropped each way on
# the standby's link for TAKEOVER_LOSS_SECONDS (180), ibsm pair and tuned
# OpenSM pair, counting takeovers that happened while the master lived.
#   sh bench/takeover_bench.sh [BUILD_DIR]
#   TAKEOVER_FABRIC="--levels 2 --radix 36" (648 CAs; ibsm-topo fattree args)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
FABRIC=${TAKEOVER_FABRIC:---levels 2 --radix 36}
LOSS_S=${TAKEOVER_LOSS_SECONDS:-180}
. "$top/bench/bench_lib.sh"
bench_need takeover_bench ibsim opensm dump_fts
[ -x "$B/bin/ibsm" ] && [ -x "$B/bin/ibsm-topo" ] || { echo "takeover_bench: build first"; exit 77; }
IBSM_BUILD=$B
bench_sim_workdir tobench
. "$top/tests/integration/sm_lib.sh"

# shellcheck disable=SC2086
bench_fattree "$W/ft.net" $FABRIC
n_ca=$(grep -c '^Ca' "$W/ft.net")
c5=$(ibsim_ca_name "$W/ft.net" 6)
peer=$(bench_ca_peer "$c5")
opensm -c "$W/tuned.conf" >/dev/null 2>&1
sed -i 's/^sminfo_polling_timeout .*/sminfo_polling_timeout 1000/; s/^polling_retry_number .*/polling_retry_number 2/' "$W/tuned.conf"

# Start a master (first CA) and a standby (CA $c5) of the given kinds.
#   pair ibsm|osm|osmtuned ibsm|osm|osmtuned TAG
pair() {
	ibsim_start "$W/ft.net" $limits || return 1
	case $1 in
	ibsm) sim_bg_run "$B/bin/ibsm" -R ftree,updn --cache-dir "$W/$3.mc" \
		--set sm_priority=5 >"$W/$3.m.log" 2>&1
	      MPID=$SIM_LAST_PID
	      wait_log "$W/$3.m.log" "fabric UP" 300 || return 1 ;;
	*)    _cf=""; [ "$1" = osmtuned ] && _cf="-F $W/tuned.conf"
	      OSM_CACHE_DIR=$(mktemp -d "$W/osmc.XXXXXX"); export OSM_CACHE_DIR
	      # shellcheck disable=SC2086
	      sim_bg_run opensm $_cf -d2 -p 10 -f "$W/$3.m.log" >/dev/null 2>&1
	      MPID=$SIM_LAST_PID
	      wait_log "$W/$3.m.log" "SUBNET UP" 300 || return 1 ;;
	esac
	case $2 in
	ibsm) SIM_HOST=$c5 sim_bg_run "$B/bin/ibsm" -R ftree,updn --cache-dir "$W/$3.sc" \
		--set sm_priority=1 >"$W/$3.s.log" 2>&1
	      SPID=$SIM_LAST_PID
	      wait_log "$W/$3.s.log" "STANDBY: MASTER SM" 120 || return 1 ;;
	*)    _cf=""; [ "$2" = osmtuned ] && _cf="-F $W/tuned.conf"
	      OSM_CACHE_DIR=$(mktemp -d "$W/osmc.XXXXXX"); export OSM_CACHE_DIR
	      # shellcheck disable=SC2086
	      SIM_HOST=$c5 sim_bg_run opensm $_cf -d2 -p 1 -f "$W/$3.s.log" >/dev/null 2>&1
	      SPID=$SIM_LAST_PID
	      wait_log "$W/$3.s.log" "Entering STANDBY state" 120 || return 1 ;;
	esac
}
up_pattern() { [ "$1" = ibsm ] && echo "takeover: MASTER, fabric UP" || echo "SUBNET UP"; }

echo "fabric: fattree $FABRIC ($n_ca CAs); standby on $c5"
printf '%-16s %-10s %10s %12s %14s\n' master standby "takeover s" "LFTs changed" "blocks written"
for spec in "ibsm ibsm" "osm osm" "osmtuned osmtuned" "osm ibsm"; do
	# shellcheck disable=SC2086
	set -- $spec
	tag="$1-$2"
	pair "$1" "$2" "$tag" || { echo "$tag: did not start"; sim_cleanup; continue; }
	sim_run dump_fts >"$W/$tag.fts1" 2>/dev/null
	[ "$2" = ibsm ] || n0=$(grep -c "SUBNET UP" "$W/$tag.s.log")
	kill -9 "$MPID"
	t0=$(now)
	pat=$(up_pattern "$2")
	if [ "$2" = ibsm ]; then
		wait_log "$W/$tag.s.log" "$pat" 180; ok=$?
	else
		_i=0; ok=1
		while [ $_i -lt 1800 ]; do
			[ "$(grep -c "SUBNET UP" "$W/$tag.s.log")" -gt "$n0" ] && { ok=0; break; }
			sleep 0.1; _i=$((_i + 1))
		done
	fi
	t1=$(now)
	sim_run dump_fts >"$W/$tag.fts2" 2>/dev/null
	cmp -s "$W/$tag.fts1" "$W/$tag.fts2" && ch=no || ch=yes
	blocks=n/a
	[ "$2" = ibsm ] && blocks=$(grep "sweep [0-9]*: program" "$W/$tag.s.log" | tail -1 | sed -n 's/.*LFT blocks \([0-9]*\) written.*/\1/p')
	[ $ok -eq 0 ] && t=$(dt "$t0" "$t1") || t="> 180"
	printf '%-16s %-10s %10s %12s %14s\n' "$1" "$2" "$t" "$ch" "$blocks"
	eval "t_$1_$2=\$t"
	kill "$SPID" 2>/dev/null
	sim_cleanup
done
awk -v i="${t_ibsm_ibsm:-0}" -v o="${t_osm_osm:-0}" -v u="${t_osmtuned_osmtuned:-0}" 'BEGIN {
	if (i > 0) printf "takeover time ratio: OpenSM defaults / ibsm = %.0fx, OpenSM tuned / ibsm = %.1fx\n", o / i, u / i }'

echo "false takeovers, 20% loss each way on the standby's link for $LOSS_S s:"
for spec in "ibsm ibsm" "osmtuned osmtuned"; do
	# shellcheck disable=SC2086
	set -- $spec
	tag="loss-$1"
	pair "$1" "$2" "$tag" || { echo "$tag: did not start"; sim_cleanup; continue; }
	ibsim_cmd "Error $peer 20" >/dev/null
	ibsim_cmd "Error \"$c5\"[1] 20" >/dev/null
	sleep "$LOSS_S"
	if [ "$2" = ibsm ]; then
		f=$(grep -c "taking over" "$W/$tag.s.log")
		lost=$(grep -c "did not answer SMInfo" "$W/$tag.s.log")
		polls="$lost polls lost"
	else
		f=$(grep -c "Entering MASTER state" "$W/$tag.s.log")
		polls="OpenSM does not log lost polls at -d2"
	fi
	printf '  %-8s standby: %s false takeover(s); %s\n' "$2" "$f" "$polls"
	kill "$SPID" "$MPID" 2>/dev/null
	sim_cleanup
done
