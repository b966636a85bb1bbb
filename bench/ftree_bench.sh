#!/bin/sh
# ftree benchmark (issue 4): ftree and updn on generated 3-level fat-trees of
# 2,000 (radix 20), 11,664 (radix 36) and 65,536 (radix 64) CAs, plus a 5%
# degraded radix-20 tree and a tree of director switches (2 x 648-port
# chassis of radix-36 ASICs, 1,296 CAs, and 6 of them, 3,888 CAs; issue 13),
# and the radix-64 tree intact and 5% degraded (issue 13's speed targets:
# under 2 s and 5 s with 2 threads). Prints the route phase, the whole run,
# peak memory, how much the route phase grew the peak resident set against
# the size of the tables ("+MB/tbl", MB), and, with the verifier (--check), the
# all-to-all balance (max link load / lower bound).
# The radix-64 trees have LIDs above 0xBFFF: an analysis-only size.
# OpenSM's ftree follows on the sizes ibsim holds (up to 11,664 CAs), timed
# by bench/opensm_route_time.sh from its log in the same run. Then the
# re-route after one lost link (minimal-change repair; see below).
#
#   sh bench/ftree_bench.sh [BUILD_DIR]
#   FTREE_BENCH_SIZES="ft3-r20 ft3-r36"   subset (default: all)
#   FTREE_BENCH_ENGINES="ftree"           subset (default: ftree updn)
#   FTREE_BENCH_CHECK_MAX=70000           verify only up to this many CAs
#   FTREE_BENCH_THREADS=2                 engine threads (default: the
#                                         engine decides: 2 on the 65,536-CA trees)
#   FTREE_BENCH_OPENSM=0                  no OpenSM rows
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-build}}
case $B in /*) ;; *) B=$top/$B ;; esac
ROUTE=$B/bin/ibsm-route
TOPO=$B/bin/ibsm-topo
for p in "$ROUTE" "$TOPO"; do
	[ -x "$p" ] || { echo "ftree_bench: $p is not built"; exit 77; }
done
SIZES=${FTREE_BENCH_SIZES:-ft3-r20 ft3-r20-d5 dir2-r36 dir6-r36 ft3-r36 ft3-r64 ft3-r64-d5}
THREADS=${FTREE_BENCH_THREADS:-}
OSM=${FTREE_BENCH_OPENSM:-1}
ENGINES=${FTREE_BENCH_ENGINES:-ftree updn}
CHECK_MAX=${FTREE_BENCH_CHECK_MAX:-70000}
FABDIR=$B/bench-fabrics
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-ftree-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP PIPE
TIME=/usr/bin/time
[ -x $TIME ] || TIME=""


. "$top/bench/bench_lib.sh"

row() { printf '%-11s %7s %6s  %-6s %8s %8s %8s %7s  %s\n' "$@"; }

echo "ftree bench ($(nproc) CPUs, $(uname -m))"
row fabric CAs sw engine "route s" "total s" "peak MB" "+MB/tbl" "balance"
failures=0
# The fabric of one size: net, n_ca, n_sw, and the ibsm-route flags it
# needs: --check up to CHECK_MAX CAs; 65,536 CAs + 5,120 switches need
# more LIDs than one subnet has (0xBFFF), so they are routed in the wider
# analysis LID space.
fabric_of() { # size
	net=$(bench_fabric "$1") || return 1
	n_ca=$(grep -cE '^(Ca|Hca)[[:space:]]' "$net")
	n_sw=$(grep -cE '^Switch[[:space:]]' "$net")
	check=""
	[ "$n_ca" -le "$CHECK_MAX" ] && check=--check
	wide=""
	[ $((n_ca + n_sw)) -gt 49151 ] && wide=--wide-lids
	return 0
}

for size in $SIZES; do
	fabric_of "$size" || { failures=$((failures + 1)); continue; }
	for eng in $ENGINES; do
		log=$WORK/$size.$eng.log
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086
		${TIME:+$TIME -f 'PEAK_KB %M' -o "$WORK/time"} \
			"$ROUTE" --topo "$net" --engine "$eng" -v $check $wide \
			${THREADS:+--threads "$THREADS"} \
			>"$WORK/out.json" 2>"$log"
		rc=$?
		t1=$(date +%s.%N)
		total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		peak=n/a
		[ -n "$TIME" ] && peak=$(awk '/PEAK_KB/ { printf "%.0f", $2 / 1024 }' "$WORK/time")
		secs=$(grep -E "route $eng: .* s\$" "$log" |
			grep -oE '[0-9]+\.[0-9]+ ?s$' | tail -1 | tr -d ' s')
		mem=$(sed -n 's/.*route: tables \([0-9]*\)[0-9.]* MB;.*(+\(-\{0,1\}[0-9]*\)[0-9.]* MB,.*/\2\/\1/p' "$log" | tail -1)
		if [ $rc -ne 0 ]; then
			row "$size" "$n_ca" "$n_sw" "$eng" - "$total" "$peak" - \
				"exit $rc: $(grep -iE 'error|refus|why' "$log" | tail -1 | cut -c1-50)"
			failures=$((failures + 1))
			continue
		fi
		bal="complete and loop-free: ok=$(json_field ok "$WORK/out.json") (no load check)"
		[ -n "$check" ] && bal="ok=$(json_field ok "$WORK/out.json") a2a=$(json_field a2a_ratio "$WORK/out.json")x sw-links=$(json_field a2a_switch_ratio "$WORK/out.json")x shifts_congested=$(json_field shifts_congested "$WORK/out.json")"
		row "$size" "$n_ca" "$n_sw" "$eng" "${secs:-?}" "$total" "$peak" "${mem:--}" "$bal"
	done
	# OpenSM's ftree on the same fabric, where ibsim holds it
	if [ "$OSM" = 1 ] && [ $((n_ca + n_sw)) -le 13500 ]; then
		OPENSM_ENGINES=ftree sh "$top/bench/opensm_route_time.sh" \
			"$net" "$size" "$n_ca" "$n_sw" ||
			echo "$size: OpenSM run failed or skipped"
	fi
done

# Re-route after one lost link (issue 13: a minimal-change re-route at
# 65,536 CAs under 200 ms). ibsm-route --prev-topo routes the intact tree
# first (not timed), then the tree without one leaf-middle link, and
# separately one middle-top link, against those tables: the engine's
# repair (copy of the previous tables + the repair itself), the whole route
# phase (which also allocates and fills the tables: 345 MB at 65,536 CAs),
# the CPU time of the repair (both threads), the entries that changed, and
# the all-to-all balance next to a full route
# of the same degraded tree. OpenSM has no offline re-route; on a topology
# change its ftree recomputes every table: bench/opensm_reroute_time.sh
# times that under ibsim after the same leaf-middle loss, where ibsim
# holds the tree (route s column).
#   FTREE_BENCH_REROUTE="ft3-r20 ft3-r64"   sizes (default: ft3-r20 ft3-r36 ft3-r64)
REROUTE=${FTREE_BENCH_REROUTE-ft3-r20 ft3-r36 ft3-r64}
rrow() { printf '%-9s %-9s %8s %8s %8s %9s  %s\n' "$@"; }
# Drop the link at the first port of node N that leads to a node named P*.
unlink_first() { # net node peer-prefix > out
	awk -v N="\"$2\"" -v PP="\"$3" '
	FNR == NR {
		if ($1 == "Switch" || $1 == "Ca") cur = $3
		if (cur == N && $1 ~ /^\[/ && index($2, PP) == 1 && !port) {
			port = $1
			match($2, /\[[0-9]+\]$/)
			pn = substr($2, 1, RSTART - 1); pp = substr($2, RSTART + 1, RLENGTH - 2)
		}
		next
	}
	{
		if ($1 == "Switch" || $1 == "Ca") cur = $3
		if ((cur == N && $1 == port) || (cur == pn && $1 == "[" pp "]")) next
		print
	}' "$1" "$1"
}
if [ -n "$REROUTE" ]; then
	echo
	echo "ftree re-route after one lost link (repair = copy + repair, wall, and its CPU; route = whole route phase)"
	rrow fabric link "repair s" "cpu s" "route s" changed "balance: repair / full route (full route s)"
fi
for size in $REROUTE; do
	fabric_of "$size" || { failures=$((failures + 1)); continue; }
	for link in leaf-mid mid-top; do
		case $link in
		leaf-mid) unlink_first "$net" leaf-0 spine >"$WORK/rr.net" ;;
		mid-top) unlink_first "$net" spine-0 core >"$WORK/rr.net" ;;
		esac
		# shellcheck disable=SC2086
		"$ROUTE" --topo "$WORK/rr.net" --prev-topo "$net" --engine ftree -v \
			$check $wide ${THREADS:+--threads "$THREADS"} >"$WORK/rr.json" 2>"$WORK/rr.log"
		rc=$?
		cpu=$(sed -n 's/.*ftree: repair: .*; CPU \([0-9.]*\) s$/\1/p' "$WORK/rr.log")
		rep=$(sed -n 's/.*ftree: repair: .*copy \([0-9.]*\) s .*repair \([0-9.]*\) s.*/\1 \2/p' "$WORK/rr.log" |
			awk '{ printf "%.3f", $1 + $2 }')
		changed=$(sed -n 's/.*ftree: repair: .* \([0-9]*\) entries changed.*/\1/p' "$WORK/rr.log")
		secs=$(sed -n 's/.*engine ftree, route \([0-9.]*\) s$/\1/p' "$WORK/rr.log")
		if [ $rc -ne 0 ] || [ -z "$rep" ]; then
			rrow "$size" "$link" - - "${secs:--}" - \
				"exit $rc: $(grep -iE 'error|not repairable|abandoned' "$WORK/rr.log" | tail -1 | cut -c1-60)"
			failures=$((failures + 1))
			continue
		fi
		bal="ok=$(json_field ok "$WORK/rr.json") (no load check)"
		if [ -n "$check" ]; then
			# shellcheck disable=SC2086
			"$ROUTE" --topo "$WORK/rr.net" --engine ftree -v $check $wide \
				${THREADS:+--threads "$THREADS"} >"$WORK/full.json" 2>"$WORK/full.log"
			fs=$(sed -n 's/.*engine ftree, route \([0-9.]*\) s$/\1/p' "$WORK/full.log")
			bal="ok=$(json_field ok "$WORK/rr.json") a2a $(json_field a2a_ratio "$WORK/rr.json")x / $(json_field a2a_ratio "$WORK/full.json")x (${fs:-?} s)"
		fi
		rrow "$size" "$link" "$rep" "${cpu:-?}" "${secs:-?}" "$changed" "$bal"
	done
	# OpenSM's ftree after the same leaf-middle loss, where ibsim holds it
	if [ "$OSM" = 1 ] && [ $((n_ca + n_sw)) -le 13500 ]; then
		lp=$(awk '/^Switch/ { n = $3 } n == "\"leaf-0\"" && /^\[/ && $2 ~ /^"spine/ {
			print substr($1, 2, length($1) - 2); exit }' "$net")
		sh "$top/bench/opensm_reroute_time.sh" "$net" "$size" "$n_ca" "$n_sw" \
			leaf-0 "$lp" || echo "$size: OpenSM re-route run failed or skipped"
	fi
done
[ $failures -eq 0 ]
