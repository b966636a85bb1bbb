#!/bin/sh
# The guid2lid cache is a hint (issue: one garbage line used to stop the SM,
# rc 1 after two failed sweeps, LID 0 everywhere). On a routed fabric:
#  1. a cache with a garbage line, a GUID listed twice, two GUIDs on one LID
#     and a multicast LID: each warned about with FILE:LINE, the fabric comes
#     up with every LID unchanged (they are read back from the ports);
#  2. a cache that is a device (/dev/zero) or a directory: warned, ignored,
#     the fabric comes up; it cannot be saved there, so --once exits 4
#     (persistence lost, issue 25).
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 35

sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
once() { # name, extra args... (exit status ONCE_RC, default 0)
	_n=$1; shift
	sim_run timeout 60 "$IBSM_BUILD/bin/ibsm" --once -R updn --cache-dir "$W/cache" "$@" \
		>"$W/$_n.log" 2>&1
	_rc=$?
	[ $_rc = "${ONCE_RC:-0}" ] || { tail -20 "$W/$_n.log"; fail "$_n: ibsm --once exit $_rc, want ${ONCE_RC:-0}"; }
}
once first
sim_run ibnetdiscover >"$W/before.ibnd" 2>/dev/null || fail "ibnetdiscover"
ibnd_lids "$W/before.ibnd" >"$W/before.lids"

g2l=$W/cache/guid2lid
first=$(head -1 "$g2l"); second=$(sed -n 2p "$g2l")
{
	echo "this is not a guid2lid line"
	cat "$g2l"
	echo "$first" | awk '{ print $1, $2 + 1000, $3 + 1000 }'         # GUID twice
	echo "$second" | awk -v l="$(echo "$first" | awk '{ print $2 }')" '{ printf "0x00000000deadbeef %s %s\n", l, l }' # LID taken
	echo "0x00000000cafef00d 49152 49152"                              # multicast
} >"$W/corrupt"
cp "$W/corrupt" "$g2l"
once corrupt
for what in "guid2lid:1: expected" "listed twice" "are already GUID" "outside the unicast range"; do
	grep -q "$what" "$W/corrupt.log" || { cat "$W/corrupt.log"; fail "corrupt cache: no warning '$what'"; }
done
grep -q "LIDs: 0 changed" "$W/corrupt.log" || fail "corrupt cache: LIDs changed"
sim_run ibnetdiscover >"$W/after.ibnd" 2>/dev/null || fail "ibnetdiscover"
ibnd_lids "$W/after.ibnd" >"$W/after.lids"
cmp -s "$W/before.lids" "$W/after.lids" || fail "corrupt cache: LIDs differ"
echo "ok corrupt cache: warned line by line, fabric up, LIDs unchanged"

# The fabric comes up; the map cannot be saved there: exit 4 (issue 25).
ONCE_RC=4 once devzero --set guid2lid_file=/dev/zero
grep -q "fabric UP" "$W/devzero.log" || fail "/dev/zero as cache: fabric not up"
grep -q "persistence lost: guid2lid" "$W/devzero.log" || fail "/dev/zero as cache: no 'persistence lost'"
[ -c /dev/zero ] || fail "/dev/zero is no longer a device: the cache was saved over it"
grep -q "/dev/zero: not a regular file" "$W/devzero.log" || fail "/dev/zero not reported"
ONCE_RC=4 once dir --set guid2lid_file="$W"
[ -d "$W" ] || fail "the directory named as cache was replaced"
grep -q "Is a directory" "$W/dir.log" || fail "directory not reported"
sm_check_fabric ft
echo "PASS"
