#!/bin/sh
# The randomized fabric campaign at scale (issue 24; docs/campaign.md):
# CAMPAIGN_N fabrics (default 504: 56 seeds x 9 families, size "large":
# trees up to radix 12/16, random graphs up to 45 switches), random GUIDs
# and shuffled ports, LMC = seed % 2, 3 seeded faults each, run by ibsm and
# then by OpenSM 3.3.23 (-R ftree,updn,minhop, -s 1, cache dir per run)
# on the same fabrics and faults. Prints each SM's table (family, fabrics,
# up, verified, faults passed, engine used, worst a2a ratio, time to
# re-route, unreachable pairs, missing entries, credit loops) and the
# per-fabric cost; failing fabrics with their reproducers. Measures:
# exits 0 even when fabrics fail.
#   sh bench/campaign_bench.sh [BUILD_DIR]
#   CAMPAIGN_N=108 CAMPAIGN_FIRST=1 CAMPAIGN_LANES=2 CAMPAIGN_SIZE=large
#   CAMPAIGN_SMS="ibsm opensm" CAMPAIGN_OUT=results.tsv
set -u
command -v ibsim >/dev/null 2>&1 || { echo "campaign_bench: no ibsim"; exit 77; }
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-${IBSM_BUILD:-$top/build}}
case $B in /*) ;; *) B=$top/$B ;; esac
export IBSM_BUILD=$B
N=${CAMPAIGN_N:-504}
seeds=$(( (N + 8) / 9 ))
out=${CAMPAIGN_OUT:-}
for sm in ${CAMPAIGN_SMS:-ibsm opensm}; do
	echo "--- campaign_bench: $sm, $((seeds * 9)) fabrics ($(date '+%H:%M:%S'))"
	sh "$top/tests/campaign/campaign.sh" --sm "$sm" --seeds "$seeds" \
		--first "${CAMPAIGN_FIRST:-1}" --faults 3 -j "${CAMPAIGN_LANES:-2}" \
		--size "${CAMPAIGN_SIZE:-large}" ${out:+--out "$out"} |
		grep -v "^$sm	.*	ok	"      # failures, reproducers, the table
done
exit 0
