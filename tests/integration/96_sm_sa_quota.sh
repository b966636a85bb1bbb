#!/bin/sh
# Per-port SA quotas and owners (issue 26 finding 4; docs/security.md):
#  1. host A floods ServiceRecord Sets (4,096, the global cap) and
#     MCMemberRecord creates (300): it gets sa_max_services_per_port (64)
#     and mcast_max_groups_per_port (256) of them, the rest ERR_NO_RESOURCES
#     (0x0100), logged once, counted in /metrics;
#     the owners survive a restart (sa-state), A stays at its quota;
#  2. host B still registers a service and creates a group;
#  3. A's link goes away (ibsim Unlink): the next heavy sweep drops A's
#     ServiceRecords (their owner left) and A's groups (their only member
#     left); B's stay. On main the flood takes every slot and B is refused.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 96 saquery curl python3
[ -x "$IBSM_BUILD/bin/sa-client" ] || fail "no $IBSM_BUILD/bin/sa-client"
t0=$(date +%s)

sm_topo ft fattree --levels 2 --radix 4
a=$(ibsim_ca_name "$W/ft.net" 3); b=$(ibsim_ca_name "$W/ft.net" 4)
sac() { _h=$1; shift; SIM_HOST=$_h sim_run timeout 20 "$IBSM_BUILD/bin/sa-client" "$@" 2>&1 | tr '\n' ' '; }
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
metric() { curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# ServiceRecords B sees (a whole GetTable: saquery shows one segment here)
services() { SIM_HOST=$b sim_run timeout 10 "$IBSM_BUILD/bin/sa-table" SR 2>/dev/null | awk '/^records/ { print $2 }'; }

sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 --set metrics_listen=127.0.0.1:$PORT

# --- 1. the flood ------------------------------------------------------------------
out=$(sac "$a" sr-set --count 4096 --id 0x1000 --gid own --name flood)
echo "A: 4096 ServiceRecord Sets: $out"
echo "$out" | grep -q "sent 4096 ok 64 status 0x0100 4032" || fail "A's ServiceRecords not held to 64"
out=$(sac "$a" sr-set --id 0x1000 --gid own --name renewed)
echo "$out" | grep -q "status" && fail "A could not renew a service it holds: $out"
out=$(sac "$a" mc-join --count 300)
echo "A: 300 group creates: $out"
echo "$out" | grep -q "sent 300 ok 256 status 0x0100 44" || fail "A's groups not held to 256"
n=$(grep -c "holds 64 services, its quota (sa_max_services_per_port 64): refused" "$W/sm.log")
[ "$n" = 1 ] || fail "quota refusals logged $n times, not once (rate limit)"
grep "its quota" "$W/sm.log"
sleep 6                         # one metrics refresh at most
r=$(metric 'ibsm_sa_quota_refused_total{kind="services"}')
g=$(metric 'ibsm_sa_quota_refused_total{kind="mcast_groups"}')
echo "metrics: refused services $r, groups $g"
[ "$r" = 4032 ] && [ "$g" = 44 ] || fail "metrics: refused services '$r' groups '$g', want 4032 and 44"

# --- restart: owners are kept in <cache_dir>/sa-state -------------------------------
sm_stop_clean "$W/sm.log"
aguid=$(sed -n 's/.*SA: port \(0x[0-9a-f]*\) holds 64 services.*/\1/p' "$W/sm.log" | head -1)
n=$(grep -c "^service .* $aguid\$" "$W/cache/sa-state")
echo "sa-state: $n services owned by $aguid"
[ "$n" = 64 ] || fail "sa-state: $n services owned by A ($aguid), want 64"
sm_daemon "$W/sm2.log" --cache-dir "$W/cache" --sweep 1 --set metrics_listen=127.0.0.1:$PORT
out=$(sac "$a" sr-set --id 0x2000 --gid own --name after-restart)
echo "A after a restart: $out"
echo "$out" | grep -q "status 0x0100" || fail "A's quota forgotten over a restart: $out"

# --- 2. another host -----------------------------------------------------------------
out=$(sac "$b" sr-set --id 0x94 --gid own --name other)
echo "B: ServiceRecord Set: $out"
echo "$out" | grep -q "status" && fail "B refused a ServiceRecord: $out"
out=$(sac "$b" mc-join --mgid ff12:601b:ffff::94:1)
echo "B: group create: $out"
echo "$out" | grep -q "status" && fail "B refused a group: $out"
n=$(services)
echo "ServiceRecords listed: $n"
[ "$n" = 65 ] || fail "$n ServiceRecords listed, want 65 (A's 64, B's 1)"

# --- 3. A leaves ---------------------------------------------------------------------
ibsim_cmd "Unlink \"$a\"[1]"
wait_log "$W/sm2.log" "64 ServiceRecords dropped: the ports that registered them left" 15 ||
	{ tail -20 "$W/sm2.log"; fail "A's ServiceRecords not dropped after it left"; }
grep "ServiceRecords dropped\|members dropped" "$W/sm2.log"
n=$(services)
echo "ServiceRecords listed after A left: $n"
[ "$n" = 1 ] || fail "$n ServiceRecords listed after A left, want B's 1"
ng=$(SIM_HOST=$b sim_run timeout 10 saquery -g 2>/dev/null | grep -c "MGID")
echo "groups listed after A left: $ng"
[ "$ng" -le 2 ] || fail "$ng groups listed after A left (A's 256 not dropped)"
sleep 6
o=$(metric ibsm_sa_services_owner_gone_total)
[ "$o" = 64 ] || fail "ibsm_sa_services_owner_gone_total '$o', want 64"
sm_stop_clean "$W/sm2.log"
echo "ok 96: per-port quotas held, other hosts served, owners' records gone with them ($(($(date +%s) - t0)) s)"
