#!/bin/sh
# The randomized fabric campaign (issue 24; docs/campaign.md): for every
# fabric (family, seed, LMC) generate it with random GUIDs and shuffled
# ports, bring it up with the SM under ibsim, judge it with the real tools,
# apply a seeded fault script and judge after every fault. One result line
# per fabric; a failure prints its seed and a one-line reproducer; a table
# per family at the end. Exit 0 if every fabric passed, 1 if not, 2 usage.
#
#   campaign.sh [--sm ibsm|opensm] [--faults N] [-j LANES] [--size small|large]
#               [--out FILE] (--fabric FAMILY:SEED:LMC ... | --list FILE |
#                --seeds N [--first S] [--families "ft2 ft3 ..."])
#
# --list FILE: lines "FAMILY SEED LMC [SIZE]" (# comments); --fabric
# FAMILY:SEED:LMC[:SIZE]. SIZE small (default: under ~250 nodes) or large
# (trees up to radix 12/16, random graphs up to 45 switches). --seeds N: every
# family with seeds S..S+N-1, LMC = seed % 2. Families: ft2 ft2-deg ft3
# ft3-deg director dragonfly torus random dump.
# Environment: IBSM_BUILD (default build/), CAMP_KEEP=1 keeps every work
# dir, CAMP_SETTLE (s to wait for a re-route, default 12), CAMP_UP_LIMIT
# (s to wait for the SM's first "up", default 20), CAMP_TOPO (the ibsm-topo
# that draws the fabrics, default IBSM_BUILD's: to run another build's SM
# on the same fabrics).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
IBSM_BUILD=${IBSM_BUILD:-$top/build}
case $IBSM_BUILD in /*) ;; *) IBSM_BUILD=$top/$IBSM_BUILD ;; esac
export IBSM_BUILD
W=${TMPDIR:-/tmp}          # sm_lib's helpers name files under $W
. "$top/sim/ibsim_harness.sh"
. "$top/tests/integration/sm_lib.sh"
. "$top/tests/campaign/campaign_lib.sh"

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

CAMP_SM=ibsm; nf=3; lanes=1; out=""; list=""; seeds=0; first=1
fams=$CAMP_FAMILIES; fabrics=""
while [ $# -gt 0 ]; do
	case $1 in
	--sm) CAMP_SM=$2; shift ;;
	--faults) nf=$2; shift ;;
	-j) lanes=$2; shift ;;
	--size) CAMP_SIZE=$2; export CAMP_SIZE; shift ;;
	--out) out=$2; shift ;;
	--fabric) fabrics="$fabrics $(echo "$2" | tr ':' ' ')
"; shift ;;
	--list) list=$2; shift ;;
	--seeds) seeds=$2; shift ;;
	--first) first=$2; shift ;;
	--families) fams=$2; shift ;;
	-h|--help) usage ;;
	*) echo "campaign: unknown option '$1'" >&2; usage ;;
	esac
	shift
done
case $CAMP_SM in ibsm|opensm) ;; *) echo "campaign: --sm ibsm or opensm" >&2; exit 2 ;; esac
command -v ibsim >/dev/null 2>&1 || { echo "campaign: ibsim not installed"; exit 77; }
[ "$CAMP_SM" = opensm ] && ! command -v opensm >/dev/null 2>&1 &&
	{ echo "campaign: opensm not installed"; exit 77; }
for b in ibsm ibsm-topo ibsm-route topo-convert; do
	[ -x "$IBSM_BUILD/bin/$b" ] || { echo "campaign: $IBSM_BUILD/bin/$b not built"; exit 77; }
done

CAMP_WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-campaign.XXXXXX")
CAMP_FAILDIR=$CAMP_WORK/failed; mkdir -p "$CAMP_FAILDIR"
export CAMP_WORK CAMP_FAILDIR
items=$CAMP_WORK/items
{
	printf '%s' "$fabrics" | sed '/^ *$/d'
	[ -n "$list" ] && sed 's/#.*//; /^ *$/d' "$list"
	s=$first
	while [ "$seeds" -gt 0 ] && [ $s -lt $((first + seeds)) ]; do
		for f in $fams; do echo "$f $s $((s % 2)) ${CAMP_SIZE:-small}"; done
		s=$((s + 1))
	done
} >"$items"
total=$(wc -l <"$items")
[ "$total" -gt 0 ] || usage
echo "campaign: $CAMP_SM, $total fabrics x $nf faults, $lanes lanes, size ${CAMP_SIZE:-small} ($(date '+%H:%M:%S'))"
echo "# sm family seed lmc nodes up_s up verified faults_ok engine a2a reroute_s unreach missing cloops status why"

t0=$(date +%s)
lane=0; pids=""
while [ $lane -lt "$lanes" ]; do
	(
	awk -v k=$lane -v j="$lanes" '(NR - 1) % j == k' "$items" |
	while read -r fam seed lmc size; do
		camp_one "$fam" "$seed" "$lmc" "$nf" "$size" >"$CAMP_WORK/one.$lane" 2>&1 </dev/null
		cat "$CAMP_WORK/one.$lane" >>"$CAMP_WORK/lane.$lane"
		cat "$CAMP_WORK/one.$lane"      # one write: lanes share stdout
	done
	) &
	pids="$pids $!"
	lane=$((lane + 1))
done
for p in $pids; do wait "$p"; done
secs=$(( $(date +%s) - t0 ))
grep -h "^$CAMP_SM	" "$CAMP_WORK"/lane.* >"$CAMP_WORK/results"
[ -n "$out" ] && cat "$CAMP_WORK/results" >>"$out"

awk -F'\t' -v secs="$secs" -v lanes="$lanes" '
function add(f) {
	n[f]++; up[f] += ($7 == "yes"); ver[f] += ($8 == "yes")
	split($9, fo, "/"); fok[f] += fo[1]; ftot[f] += fo[2]
	ok[f] += ($16 == "ok")
	e = $10; if (e != "-" && index(" " eng[f] " ", " " e " ") == 0) eng[f] = eng[f] (eng[f] ? " " : "") e
	if ($11 != "-" && $11 + 0 > a2a[f]) a2a[f] = $11 + 0
	if ($12 != "-" && $12 + 0 > rr[f]) rr[f] = $12 + 0
	if ($12 != "-") { rrs[f] += $12; rrn[f]++ }
	if ($13 + 0 > un[f]) un[f] = $13 + 0
	if ($14 + 0 > mi[f]) mi[f] = $14 + 0
	cl[f] += ($15 > 0); if ($6 + 0 > ups[f]) ups[f] = $6 + 0
}
{ add($2); add("ALL") }
END {
	printf "\n%-10s %7s %5s %8s %11s %5s %-14s %6s %8s %8s %7s %7s %6s %6s\n", "family", "fabrics", "up",
		"verified", "faults ok", "pass", "engine", "a2a", "reroute", "(mean)", "unreach",
		"missing", "cloops", "up_s"
	m = split("ft2 ft2-deg ft3 ft3-deg director dragonfly torus random dump ALL", order, " ")
	for (i = 1; i <= m; i++) {
		f = order[i]; if (!(f in n)) continue
		printf "%-10s %7d %5d %8d %5d/%-5d %5d %-14s %6.3f %7.2fs %7.2fs %7d %7d %6d %5.2fs\n", f, n[f], up[f],
			ver[f], fok[f], ftot[f], ok[f], substr(eng[f] ? eng[f] : "-", 1, 14), a2a[f], rr[f],
			rrn[f] ? rrs[f] / rrn[f] : 0, un[f], mi[f], cl[f], ups[f]
	}
	printf "campaign: %d fabrics in %d s (%.1f s per fabric per lane, %d lanes)\n",
		n["ALL"], secs, n["ALL"] ? secs * lanes / n["ALL"] : 0, lanes
}' "$CAMP_WORK/results"
# per fault type: how often, how often judged good after, re-route times
if [ -s "$CAMP_WORK/faults.tsv" ]; then
	sort -t "$(printf '\t')" -k4,4 -k6,6n "$CAMP_WORK/faults.tsv" | awk -F'\t' '
	{ n[$4]++; ok[$4] += $5; if ($6 != "-") { t[$4, ++m[$4]] = $6 } }
	END {
		printf "\n%-12s %6s %6s %9s %9s %9s\n", "fault", "count", "ok", "reroute50", "reroute90", "max"
		for (f in n) {
			k = m[f]
			p50 = k ? t[f, int((k + 1) / 2)] : 0; p90 = k ? t[f, int(k * 0.9 + 0.99)] : 0
			mx = k ? t[f, k] : 0
			printf "%-12s %6d %6d %8.2fs %8.2fs %8.2fs\n", f, n[f], ok[f], p50, p90, mx
		}
	}'
fi
nfail=$(( total - $(awk -F'\t' '$16 == "ok"' "$CAMP_WORK/results" | wc -l) ))
npass=$((total - nfail))
if [ "$nfail" -gt 0 ]; then
	echo "campaign: failures (work dirs in $CAMP_FAILDIR):"
	cat "$CAMP_WORK"/lane.* | grep -v "^$CAMP_SM	.*	ok	" | sed 's/^/  /'
else
	rm -rf "$CAMP_WORK"
fi
echo "campaign: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
