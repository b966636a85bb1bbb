#!/bin/sh
# Multicast under ibsim, judged by the real tools, OpenSM first (it judges
# the checks), then ibsm on the same fabric:
#  1. the IPoIB broadcast group exists at start (saquery -g): MGID
#     ff12:401b:ffff::ffff:ffff, MLID 0xC000, P_Key 0xFFFF, as OpenSM's;
#  2. osmtest -f m from several CAs joins them to it (and runs the MCMember
#     conformance flow: the first run fails where OpenSM's first run fails,
#     at its own cleanup; the next ones pass, as against OpenSM);
#  3. dump_fts -M: for 0xC000 the switches' masks form a loop-free tree that
#     reaches every member's port (tests/integration/mft_check.py);
#  4. saquery MFTR (MulticastForwardingTableRecord) matches dump_fts -M,
#     bit for bit (tests/integration/mftr_check.py);
#  5. ibsm only: Unlink a member's link: the member is dropped and the tree
#     is rebuilt without it, still a tree reaching the others.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 60 opensm osmtest saquery dump_fts python3
CHECK="python3 $top/tests/integration/mft_check.py"

sm_topo ft fattree --levels 3 --radix 4
set -- $(awk -F'"' '/^Ca/ { print $2 }' "$W/ft.net")
# Members spread over the fabric (not the SM's node, the first CA).
members="$2 $5 $9 ${14} ${16}"
client=$3

join_and_check() { # name
	i=0
	for h in $members; do
		i=$((i + 1))
		SIM_HOST=$h sim_run timeout 30 osmtest -f m >"$W/$1.m.$h" 2>&1
		rc=$?
		[ $rc -eq 124 ] && fail "$1: osmtest -f m on $h hung"
		[ $i -gt 1 ] && [ $rc -ne 0 ] && { grep -E "ERR 0|FAIL" "$W/$1.m.$h" | grep -v "ERR 0003\|ERR 0224\|ERR 5501" | tail -3; fail "$1: osmtest -f m on $h failed (rc $rc) after the first run"; }
	done
	sleep 1.5
	SIM_HOST=$client sim_run saquery -g >"$W/$1.g" 2>&1 || fail "$1: saquery -g"
	grep -q "MGID\.*ff12:401b:ffff::ffff:ffff" "$W/$1.g" || { cat "$W/$1.g"; fail "$1: no IPoIB broadcast group"; }
	awk '/MGID\.*ff12:401b:ffff::ffff:ffff/ { f = 1 } f && /Mlid/ { print $NF; exit }' "$W/$1.g" | grep -qi "0xC000" || fail "$1: broadcast group not on MLID 0xC000"
	awk '/MGID\.*ff12:401b:ffff::ffff:ffff/ { f = 1 } f && /pkey/ { print $NF; exit }' "$W/$1.g" | grep -qi "0xFFFF" || fail "$1: broadcast group P_Key"
	sim_run ibnetdiscover >"$W/$1.ibnd" 2>/dev/null || fail "$1: ibnetdiscover"
	sim_run dump_fts -M >"$W/$1.mfts" 2>/dev/null || fail "$1: dump_fts -M"
	$CHECK "$W/$1.ibnd" "$W/$1.mfts" 0xc000 $members || fail "$1: broadcast group MFTs"
	# The SA's MulticastForwardingTableRecords say what the switches
	# hold. One query per switch LID: under ibsim a multi-segment RMPP
	# answer reaches saquery cut to its first segment (2 of these records),
	# from OpenSM and from ibsm alike (umad2sim does no RMPP).
	: >"$W/$1.mftr"
	for l in $(awk '/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") print $(i + 1) }' "$W/$1.ibnd"); do
		SIM_HOST=$client sim_run saquery MFTR "$l" >>"$W/$1.mftr" 2>&1 || fail "$1: saquery MFTR $l"
	done
	python3 "$top/tests/integration/mftr_check.py" "$W/$1.ibnd" "$W/$1.mfts" "$W/$1.mftr" ||
		fail "$1: saquery MFTR against dump_fts -M"
}

# --- OpenSM ----------------------------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm.log"
join_and_check osm
sim_cleanup

# --- ibsm --------------------------------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1 -v
join_and_check ibsm
grep "multicast:" "$W/sm.log" | tail -2

# A member's link goes: it leaves the tree.
gone=$(echo $members | awk '{ print $NF }')
members=$(echo $members | awk '{ $NF = ""; print }')
ibsim_cmd "Unlink \"$gone\"[1]"
i=0
until grep -q "multicast: [0-9]* members dropped" "$W/sm.log"; do
	i=$((i + 1)); [ $i -gt 200 ] && { tail -20 "$W/sm.log"; fail "member on an unlinked port not dropped"; }
	sleep 0.1
done
sleep 0.5
sim_run ibnetdiscover >"$W/after.ibnd" 2>/dev/null || fail "ibnetdiscover after Unlink"
sim_run dump_fts -M >"$W/after.mfts" 2>/dev/null || fail "dump_fts -M after Unlink"
$CHECK "$W/after.ibnd" "$W/after.mfts" 0xc000 $members || fail "MFTs after Unlink"
# The checker can fail: the dropped member's port is out of the tree now
# (its link is gone, so ibnetdiscover no longer shows it as attached).
$CHECK "$W/ibsm.ibnd" "$W/after.mfts" 0xc000 $members $gone >/dev/null &&
	fail "the unlinked member's port is still in the broadcast group's tree"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
