#!/bin/sh
# Hashes of every table set ibsm-route computes for the campaign's fabrics
# (issue 27: a redesign must leave them byte-identical). For each fabric of
# a list ("FAMILY SEED LMC [SIZE]", default tests/campaign/check.list plus
# the reproducers in ../shared/fabrics and tests/data/*.net) and each engine
# (the default list, ftree, updn, minhop, dfsp), route it, route it again
# after three seeded link faults as a re-route (--prev-topo), and print
# "FABRIC ENGINE CASE sha256" for the tables (dump_fts format) and, for
# dfsp, the path SLs. An engine that refuses a fabric prints "refused".
# Offline only (no ibsim): minutes on 2 cores. Compare two runs with diff.
#
#   table_hashes.sh BUILD OUT [LIST]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: table_hashes.sh BUILD OUT [LIST]" >&2; exit 2; }
IBSM_BUILD=$(cd "$1" && pwd); out=$2; list=${3:-$top/tests/campaign/check.list}
export IBSM_BUILD
. "$top/tests/campaign/campaign_lib.sh"
route=$IBSM_BUILD/bin/ibsm-route
W=$(mktemp -d /tmp/hashes.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM

# Remove the three switch-to-switch links the seed draws from a net file.
#   fault_net IN SEED OUT
fault_net() {
	camp_links "$1" >"$W/links"
	_n=$(wc -l <"$W/links")
	camp_seed $(($2 + 7919))
	: >"$W/cut"
	for _i in 1 2 3; do
		[ "$_n" -gt 0 ] || break
		camp_rand "$_n"
		sed -n "$((R + 1))p" "$W/links" >>"$W/cut"
	done
	awk -F'\t' 'NR == FNR { cut[$1 SUBSEP $2] = 1; cut[$3 SUBSEP $4] = 1; next }
	/^(Switch|Ca|Hca|Rt)/ { split($0, f, "\""); cur = f[2] }
	/^\[/ { p = $0; sub(/^\[/, "", p); sub(/\].*/, "", p)
		if ((cur SUBSEP p) in cut) next }
	{ print }' "$W/cut" "$1" >"$3"
}

# Route FABRIC (net file) with every engine, before and after the faults.
#   hash_one NAME NET LMC
hash_one() {
	_name=$1; _net=$2; _lmc=$3; _seed=$(printf '%s' "$_name" | cksum | cut -d' ' -f1)
	fault_net "$_net" "$((_seed % 100000))" "$W/f.net"
	for _e in ftree,updn,minhop ftree updn minhop dfsp; do
		for _case in base fault; do
			rm -f "$W/t" "$W/sl"
			if [ $_case = base ]; then
				set -- --topo "$_net"
			else
				set -- --topo "$W/f.net" --prev-topo "$_net"
			fi
			[ $_e = dfsp ] && set -- "$@" --sl-out "$W/sl"
			if "$route" "$@" --engine "$_e" --lmc "$_lmc" --threads 1 -q \
				--out "$W/t" >/dev/null 2>&1 && [ -s "$W/t" ]; then
				_h=$(cat "$W/t" "$W/sl" 2>/dev/null | sha256sum | cut -c1-16)
			else
				_h=refused
			fi
			echo "$_name $_e $_case $_h"
		done
	done
}

: >"$out"
grep -v '^#' "$list" | while read -r fam seed lmc size; do
	[ -n "$fam" ] || continue
	CAMP_SIZE=${size:-small} camp_make "$fam" "$seed" "$W/n.net" 2>/dev/null || {
		echo "$fam:$seed:$lmc none none cannot-generate" >>"$out"; continue; }
	hash_one "$fam:$seed:$lmc:${size:-small}" "$W/n.net" "$lmc" >>"$out"
done
# The reproducers sit beside the main checkout (../shared/fabrics); from a
# git worktree elsewhere, find them through the repository it belongs to.
shared=$top/../shared/fabrics
if [ ! -d "$shared" ]; then
	common=$(git -C "$top" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)
	[ -n "$common" ] && shared=$(dirname "$common")/../shared/fabrics
fi
[ -d "$shared" ] || echo "table_hashes: no ../shared/fabrics: the reproducers are left out" >&2
for f in "$shared"/*.net "$top"/tests/data/*.net; do
	[ -f "$f" ] || continue
	hash_one "$(basename "$f")" "$f" 0 >>"$out"
done
echo "table_hashes: $(wc -l <"$out") lines, $(grep -c refused "$out") refused, in $out"
