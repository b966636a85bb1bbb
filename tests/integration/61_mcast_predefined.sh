#!/bin/sh
# Multicast groups predefined in the configuration (mcast_groups, issue 9):
# a YAML sequence of "MGID[, pkey=, qkey=, mtu=, rate=]" entries. ibsm
# creates them at start with MLIDs after the IPoIB broadcast group's;
# saquery -g lists them before anyone joins; a join with the group's Q_Key
# gets its MLID, a join with another Q_Key is refused (ERR_REQ_INVALID);
# after the last member leaves the group stays. A bad entry stops the
# daemon with the file's name and the entry's reason.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 61 saquery
[ -x "$IBSM_BUILD/bin/sa-client" ] || fail "no $IBSM_BUILD/bin/sa-client"

# A bad entry: refused before any MAD, naming the key and the entry.
cat >"$W/bad.yaml" <<'Y'
mcast_groups:
  - "ff12:601b:ffff::61:1"
  - "ff12:601b:ffff::61:2, mtu=9"
Y
"$IBSM_BUILD/bin/ibsm" -c "$W/bad.yaml" --dump-config >"$W/bad.out" 2>&1 && fail "a bad mcast_groups entry was accepted"
grep -q "mcast_groups entry 2: mtu '9'" "$W/bad.out" || { cat "$W/bad.out"; fail "no clear message for a bad entry"; }

sm_topo ft fattree --levels 2 --radix 8
client=$(ibsim_ca_name "$W/ft.net" 3)
cat >"$W/ibsm.yaml" <<'Y'
mcast_groups:
  - "ff12:601b:ffff::61:1"
  - "ff12:601b:ffff::61:2, qkey=0x1234, mtu=2, rate=3"
Y
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -c "$W/ibsm.yaml" -R updn --cache-dir "$W/cache" --sweep 1
grep "predefined group" "$W/sm.log"
[ "$(grep -c "predefined group" "$W/sm.log")" = 2 ] || fail "not 2 predefined groups in the log"
groups() { SIM_HOST=$client sim_run timeout 10 saquery -g 2>&1 | awk '/MGID/ { sub(/.*\.\.+/, ""); g = $0 } /Mlid/ { sub(/.*\.\.+/, ""); print g, $0 }'; }
groups >"$W/g0"
cat "$W/g0"
grep -qx "ff12:601b:ffff::61:1 0xC001" "$W/g0" || fail "group 1 not listed with MLID 0xC001 before any join"
grep -qx "ff12:601b:ffff::61:2 0xC002" "$W/g0" || fail "group 2 not listed with MLID 0xC002 before any join"
sac() { SIM_HOST=$client sim_run timeout 10 "$IBSM_BUILD/bin/sa-client" "$@" 2>&1 | tr '\n' ' '; }
out=$(sac mc-join --mgid ff12:601b:ffff::61:1)
echo "join 1: $out"
case $out in *"MLID 0xc001 JoinState 1"*) ;; *) fail "join of predefined group 1 did not get its MLID" ;; esac
out=$(sac mc-join --mgid ff12:601b:ffff::61:2)
echo "join 2 (Q_Key 0x0B1B, group has 0x1234): $out"
case $out in *"status 0x0200"*) ;; *) fail "a join with another Q_Key was not refused" ;; esac
sac mc-leave --mgid ff12:601b:ffff::61:1 >/dev/null
groups >"$W/g1"
grep -qx "ff12:601b:ffff::61:1 0xC001" "$W/g1" || fail "predefined group 1 gone after its last member left"
sm_reroute "$W/ft.net" "$W/sm.log"
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
echo "ok: predefined multicast groups created, listed, joined by their Q_Key, kept without members"
