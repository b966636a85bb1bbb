#!/bin/sh
# ServiceRecord (IBA 15.2.5.14) Set, Get and Delete with leases, held to
# OpenSM's behaviour: the same requests (tests/tools/sa_client_main.c,
# libibmad MADs) run against ibsm and then against OpenSM on a fresh ibsim
# fabric each, and both transcripts must be equal, besides the outcomes
# asserted here for ibsm:
#  - a Set registers and answers the record; saquery SR (GetTable, RMPP)
#    lists it; the ServiceKey is shown only to a requester with the SM_Key
#    (sm_key, 1 by default in both SMs);
#  - a Set with the same ServiceID+GID+P_Key replaces the record;
#  - Set without ServiceID: ERR_REQ_INVALID (0x0200); P_Key outside the
#    requester's partitions: ERR_REQ_INVALID;
#  - Delete answers the record; Delete again: ERR_NO_RECORDS (0x0300);
#  - a 1 s lease is gone after 3 s, an infinite one stays.
# (osmtest -f s cannot judge: it fails against OpenSM too, "Data mismatch in
# service_data8", see docs/sa.md.)
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 52 opensm saquery
[ -x "$IBSM_BUILD/bin/sa-client" ] || fail "no $IBSM_BUILD/bin/sa-client"

sm_topo ft fattree --levels 2 --radix 8
client=$(ibsim_ca_name "$W/ft.net" 3)

# One request: its output and exit code appended to the transcript $T.
sac() {
	echo "> $*" >>"$T"
	SIM_HOST=$client sim_run timeout 10 "$IBSM_BUILD/bin/sa-client" "$@" >>"$T" 2>&1
	echo "rc=$?" >>"$T"
}
sr_names() {
	SIM_HOST=$client sim_run timeout 10 saquery SR 2>&1 |
		sed -n 's/.*ServiceName\.*\(.*\)/\1/p' | sort | tr '\n' ' '
}

scenario() {
	sac sr-set --id 0x1234 --gid own --name svc-a --lease 600 --key 0xabcd --data8 7
	sac sr-get --id 0x1234
	sac -k 1 sr-get --id 0x1234
	echo "saquery SR: $(sr_names)" >>"$T"
	SIM_HOST=$client sim_run timeout 10 saquery SR >"$W/sr.$1" 2>&1
	sac sr-set --id 0x1234 --gid own --name svc-a2 --lease 600 --data8 9
	echo "saquery SR: $(sr_names)" >>"$T"
	sac sr-set --name no-id --gid own
	sac sr-set --id 0x77 --gid own --pkey 0x8001 --name bad-pkey
	sac sr-delete --id 0x1234 --gid own
	sac sr-delete --id 0x1234 --gid own
	sac sr-set --id 0x99 --gid own --lease 1 --name short
	sac sr-set --id 0x98 --gid own --name forever
	sleep 3
	sac sr-get --id 0x99
	sac sr-get --id 0x98
	echo "saquery SR: $(sr_names)" >>"$T"
}

# --- ibsm ----------------------------------------------------------------------
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1
T=$W/ibsm.txt; : >"$T"
scenario ibsm
sm_reroute "$W/ft.net" "$W/sm.log"
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
sim_cleanup

# --- OpenSM, same requests -----------------------------------------------------
sm_sim "$W/ft.net" "OpenSM run"
osm_daemon "$W/osm.log"
T=$W/osm.txt; : >"$T"
scenario osm
sim_cleanup

cat "$W/ibsm.txt"
# Each request's answer, in order: "rc=N" and the status or the fields.
outcome() { awk '/^> /{ printf "\n%s |", $0; next } { printf " %s", $0 } END { print "" }' "$1"; }
o=$(outcome "$W/ibsm.txt")
want() { printf '%s\n' "$o" | grep -F -- "$1" | grep -qF -- "$2" || fail "ibsm: $1: expected \"$2\""; }
want "sr-set --id 0x1234 --gid own --name svc-a " "ServiceName svc-a ServiceData8.0 7 rc=0"
want "sr-set --id 0x1234 --gid own --name svc-a " "ServiceKey 0x00000000000000000000000000000000"
want "> sr-get --id 0x1234" "ServiceLease 600"
want "> sr-get --id 0x1234" "ServiceKey 0x00000000000000000000000000000000"
want "-k 1 sr-get --id 0x1234" "ServiceKey 0x0000000000000000000000000000abcd"
grep -qx "saquery SR: svc-a " "$W/ibsm.txt" || fail "saquery SR does not list exactly svc-a"
grep -q "ServiceKey.*not displayed\|ServiceKey\.*0x0*$" "$W/sr.ibsm" || fail "saquery SR shows a ServiceKey"
grep -qx "saquery SR: svc-a2 " "$W/ibsm.txt" || fail "a Set with the same RID did not replace the record"
want "sr-set --name no-id" "status 0x0200 rc=3"
want "--pkey 0x8001" "status 0x0200 rc=3"
[ "$(printf '%s\n' "$o" | grep -F -- "sr-delete --id 0x1234" | sed -n '1p')" != "" ] || fail "no delete"
printf '%s\n' "$o" | grep -F -- "sr-delete --id 0x1234" | sed -n 1p | grep -q "ServiceName svc-a2 .*rc=0" ||
	fail "Delete did not answer the record"
printf '%s\n' "$o" | grep -F -- "sr-delete --id 0x1234" | sed -n 2p | grep -q "status 0x0300 rc=3" ||
	fail "a second Delete did not answer ERR_NO_RECORDS"
want "sr-get --id 0x99" "status 0x0300 rc=3"
want "sr-get --id 0x98" "ServiceName forever"
grep -qx "saquery SR: forever " "$W/ibsm.txt" || fail "after the lease: not exactly 'forever' left"
grep -q "lease expired" "$W/sm.log" || fail "the expired lease is not in the log"

# One known difference (docs/sa.md): a Set without ServiceP_Key is answered
# with 0xFFFF by both, but OpenSM stores and later returns P_Key 0; ibsm
# stores what it answered.
sed 's/^ServiceP_Key 0x0000$/ServiceP_Key 0xffff/' "$W/osm.txt" >"$W/osm.norm"
diff -u "$W/osm.norm" "$W/ibsm.txt" || fail "ibsm answered differently from OpenSM"
echo "ok: ServiceRecord Set/Get/Delete/leases as OpenSM ($(grep -c '^> ' "$W/ibsm.txt") requests)"
