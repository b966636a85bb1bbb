#!/bin/sh
# InformInfo (IBA 13.4.8.3, 15.2.5.12) and Reports, held to OpenSM: the same
# requests (tests/tools/sa_client_main.c) run against ibsm and then OpenSM on
# a fresh ibsim fabric each; the answers must be equal, and saquery IIR must
# list the same subscriptions (as a set: the two SMs list them in different
# orders). Asserted for ibsm:
#  - subscribe answers the request; the same subscription twice is kept once;
#  - Subscribe 2, a security trap (256) without the SM_Key, an unknown GID,
#    a LID range beyond the fabric: ERR_REQ_INVALID (0x0200); trap 256 with
#    the SM_Key is accepted;
#  - saquery IIR shows the QPN only with --smkey;
#  - unsubscribe must name the QPN (0x0200 without, as OpenSM), then works.
# Reports (ibsim hands a request to QP1 only to a client that claims IsSM:
# sa-client --issm): a listener subscribed to everything gets trap 128
# (forwarded, issuer the switch) when a CA's link goes and comes back, and
# from ibsm also traps 65 and 64 with that CA's GID; a listener subscribed to
# trap 64 only gets only 64; a join that creates a group and its leave
# bring traps 66 and 67 with the MGID. OpenSM delivers the 128s and the
# 66/67 too. A subscriber that
# never answers is logged after the retries, and the subscriptions of a port
# that leaves the fabric are dropped.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 53 opensm saquery
[ -x "$IBSM_BUILD/bin/sa-client" ] || fail "no $IBSM_BUILD/bin/sa-client"

sm_topo ft fattree --levels 2 --radix 8
ca() { ibsim_ca_name "$W/ft.net" "$1"; }
c2=$(ca 3); c3=$(ca 4); c4=$(ca 5); c5=$(ca 6)
guid5=$(awk -v n="\"$c5\"" '$1 == "Ca" && $3 == n { getline; print; exit }' "$W/ft.net")

sac() {
	_h=$1; shift
	echo "> $*" >>"$T"
	SIM_HOST=$_h sim_run timeout 10 "$IBSM_BUILD/bin/sa-client" "$@" >>"$T" 2>&1
	echo "rc=$?" >>"$T"
}
# saquery IIR as a sorted set of "subscriber trap lid-begin qpn".
iir_set() {
	SIM_HOST=$c2 sim_run timeout 10 saquery "$@" IIR 2>&1 | awk '
		/SubscriberGID/ { sub(/.*\.\.+/, ""); g = $0 }
		/lid_range_begin/ { sub(/.*\.\.+/, ""); b = $0 }
		/trap_num/ { sub(/.*\.\.+/, ""); t = $0 }
		/qpn/ { sub(/.*\.\.+/, ""); print g, t, b, $0 }' | sort
}

# (Under ibsim a GetTable answer is cut to its first MAD, 3 records of
# InformInfoRecord, for OpenSM as for ibsm: the scenario keeps at most 2.)
scenario() {
	sac "$c2" ii-set --trap 128
	sac "$c2" ii-set --trap 128
	sac "$c3" ii-set --trap 64 --generic 1
	echo "IIR:" >>"$T"; iir_set -K >>"$T"
	echo "IIR --smkey 1:" >>"$T"; iir_set --smkey 1 -K >>"$T"
	sac "$c3" ii-unset --trap 64
	sac "$c3" ii-unset --trap 64 --qpn 1
	sac "$c2" ii-set --trap 128 --subscribe 2
	sac "$c2" ii-set --trap 256
	sac "$c2" -k 1 ii-set --trap 256
	sac "$c2" ii-set --trap 128 --gid fe80::dead:beef
	sac "$c2" ii-set --trap 128 --lid-begin 9000 --lid-end 9001
	echo "IIR 256:" >>"$T"; iir_set --smkey 1 -K >>"$T"
	sac "$c2" -k 1 ii-unset --trap 256 --qpn 1
	sac "$c2" ii-unset --trap 128 --qpn 1
	echo "IIR none:" >>"$T"; iir_set --smkey 1 -K >>"$T"
}

# Reports: two listeners, a CA link down and up again; then a subscriber
# that is gone (node c5, whose link goes down) and one that never answers.
reports() {
	SIM_HOST=$c2 sim_run timeout 40 "$IBSM_BUILD/bin/sa-client" ii-set --issm --listen 20 >"$W/all.$1" 2>&1 &
	la=$!
	SIM_HOST=$c3 sim_run timeout 40 "$IBSM_BUILD/bin/sa-client" ii-set --issm --trap 64 --listen 20 >"$W/t64.$1" 2>&1 &
	lb=$!
	sac "$c4" ii-set --trap 128
	sac "$c5" ii-set --trap 128
	sleep 3
	ibsim_cmd "Unlink \"$c5\"[1]"
	sleep 5
	ibsim_cmd "ReLink \"$c5\"[1]"
	sleep 2
	sac "$c4" mc-join --mgid ff12:601b:ffff::53:1
	sleep 1
	sac "$c4" mc-leave --mgid ff12:601b:ffff::53:1
	wait $la $lb
	echo "IIR --smkey 1 after:" >>"$T"; iir_set --smkey 1 >>"$T"
}

# --- ibsm ----------------------------------------------------------------------
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1
T=$W/ibsm.txt; : >"$T"
scenario
T=$W/ibsm.rep; : >"$T"
reports ibsm
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
sim_cleanup

# --- OpenSM, same requests -----------------------------------------------------
sm_sim "$W/ft.net" "OpenSM run"
osm_daemon "$W/osm.log"
T=$W/osm.txt; : >"$T"
scenario
T=$W/osm.rep; : >"$T"
reports osm
sim_cleanup

cat "$W/ibsm.txt"
o=$(awk '/^> /{ printf "\n%s |", $0; next } { printf " %s", $0 } END { print "" }' "$W/ibsm.txt")
want() { printf '%s\n' "$o" | grep -F -- "> $1 |" | sed -n "${3:-1}p" | grep -qF -- "$2" || fail "ibsm: $1: expected \"$2\""; }
want "ii-set --trap 128" "TrapNumber 128 ProducerType 0xffffff rc=0"
want "ii-set --trap 128" "TrapNumber 128 ProducerType 0xffffff rc=0" 2
want "ii-unset --trap 64" "status 0x0200 rc=3"
want "ii-unset --trap 64 --qpn 1" "Subscribe 0 Type 0xffff TrapNumber 64 ProducerType 0xffffff rc=0"
want "ii-set --trap 128 --subscribe 2" "status 0x0200 rc=3"
want "ii-set --trap 256" "status 0x0200 rc=3"
want "-k 1 ii-set --trap 256" "TrapNumber 256 ProducerType 0xffffff rc=0"
want "ii-set --trap 128 --gid fe80::dead:beef" "status 0x0200 rc=3"
want "ii-set --trap 128 --lid-begin 9000 --lid-end 9001" "status 0x0200 rc=3"
want "-k 1 ii-unset --trap 256 --qpn 1" "rc=0"
# Kept once; QPN 0 without the SM_Key, 1 with it; the list follows the
# unsubscribes.
sect() { sed -n "/^$1:\$/,/^IIR/p" "$W/ibsm.txt" | sed '1d;/^IIR/d;/^>/,$d'; }
[ "$(sect IIR | grep -c ' 128 ')" = 1 ] || fail "the same subscription twice is not kept once"
sect IIR | grep ' 128 ' | grep -q ' 0x000000$' || fail "saquery IIR shows the QPN without the SM_Key"
sect "IIR --smkey 1" | grep ' 128 ' | grep -q ' 0x000001$' || fail "saquery --smkey 1 IIR does not show QPN 1"
[ "$(sect "IIR 256" | awk '{ print $2 }' | sort | tr '\n' ' ')" = "128 256 " ] ||
	fail "after the unsubscribe of 64 and the trusted 256: not exactly 128 and 256 listed"
[ -z "$(sect "IIR none")" ] || fail "subscriptions left after every unsubscribe"
diff -u "$W/osm.txt" "$W/ibsm.txt" || fail "ibsm answered InformInfo differently from OpenSM"

# Reports.
cat "$W/all.ibsm" "$W/t64.ibsm"
gid5=$(printf '%s' "$guid5" | sed 's/.*portguid 0x\([0-9a-f]*\).*/\1/')
[ -n "$gid5" ] || gid5=x
grep -q "^report trap 128 issuer" "$W/all.ibsm" || fail "ibsm forwarded no trap 128"
grep -q "^report trap 65 .* gid fe80::" "$W/all.ibsm" || fail "ibsm reported no trap 65 (GID out of service)"
grep -q "^report trap 64 .* gid fe80::" "$W/all.ibsm" || fail "ibsm reported no trap 64 (GID in service)"
grep -q "^report trap 66 .* gid ff12:601b:ffff::53:1" "$W/all.ibsm" || fail "ibsm reported no trap 66 (group created)"
grep -q "^report trap 67 .* gid ff12:601b:ffff::53:1" "$W/all.ibsm" || fail "ibsm reported no trap 67 (group deleted)"
grep -q "mc-join.*" "$W/ibsm.rep" && grep -A3 "> mc-join" "$W/ibsm.rep" | grep -q "^MLID 0xc0" ||
	fail "the join that creates a group got no MLID"
grep -q "^report trap 64 " "$W/t64.ibsm" || fail "the trap-64 subscriber got no trap 64"
grep "^report trap" "$W/t64.ibsm" | grep -qv "^report trap 64 " && fail "the trap-64 subscriber got other traps"
grep -q "^report trap 128 issuer" "$W/all.osm" || fail "OpenSM forwarded no trap 128 (the harness, not ibsm, is broken)"
grep -q "^report trap 66 .* gid ff12:601b:ffff::53:1" "$W/all.osm" || fail "OpenSM reported no trap 66 (the check is wrong)"
grep -q "subscriptions* of ports gone from the fabric dropped" "$W/sm.log" ||
	fail "the subscription of the port that left was not dropped"
grep -q "no ReportResponse for trap 128 from LID" "$W/sm.log" ||
	fail "a subscriber that never answers is not logged"
echo "ok: InformInfo as OpenSM ($(grep -c '^> ' "$W/ibsm.txt") requests), Reports 128/64/65/66/67 delivered ($(grep -c '^report trap' "$W/all.ibsm") to the listener), OpenSM $(grep -c '^report trap' "$W/all.osm")"
