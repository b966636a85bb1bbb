#!/bin/sh
# QoS policy (issue 28, docs/qos.md): one OpenSM qos-policy.conf given to
# OpenSM (-Q -Y) and to ibsm (--set qos=1 --set qos_policy_file=...) on
# the same fabric: a service-ID range on SL 2 (qos-ulps), one target port
# on SL 4 (a qos-match-rule, so it wins over the ULP), default SL 0.
# saquery PathRecords by GID between CA pairs, plain, with a service ID
# in and out of the range, asking the policy's SL and asking another one:
# ibsm must give what OpenSM gives, and both what the policy says. A
# second policy has classes by partition (port group "partition:", rule
# and ULP by P_Key) and by port name. Then a bad policy: an error exit at start naming file:line, and at SIGHUP the
# old policy stays.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 62 opensm saquery

sm_topo ft fattree --levels 2 --radix 4
client=$(ibsim_ca_name "$W/ft.net" 3)
# CA port GUIDs: the node GUID + 1 (ibsm-topo's net files).
guids=$(for g in $(sed -n 's/^caguid=//p' "$W/ft.net"); do printf '0x%016x\n' $((g + 1)); done)
[ "$(echo "$guids" | wc -l)" -ge 6 ] || fail "no CA GUIDs in the net file"
target=$(echo "$guids" | sed -n 6p)

qos_policy_target "$target" "$W/qos-policy.conf"

gid() { # 0x0002c90300000001 -> fe80::0002:c903:0000:0001
	echo "$1" | sed 's/^0x//; s/\(....\)\(....\)\(....\)\(....\)/fe80::\1:\2:\3:\4/'
}

# One line per query: "src dst what sl" (sl "-" when no record).
ask() { # out
	: >"$1"
	for s in $(echo "$guids" | sed -n '1p;3p;5p'); do
		for d in $(echo "$guids" | sed -n '2p;4p;6p;7p'); do
			for what in plain sid-in sid-out sl-policy sl-other; do
				case $what in
				plain) a= ;;
				sid-in) a="--service_id 0x1234" ;;
				sid-out) a="--service_id 0x9999" ;;
				sl-policy) if [ "$d" = "$target" ]; then a="--sl 4 --service_id 0x1234"; else a="--sl 2 --service_id 0x1234"; fi ;;
				sl-other) a="--sl 1 --service_id 0x1234" ;;
				esac
				sl=$(SIM_HOST=$client sim_run timeout 10 saquery -p --sgid "$(gid "$s")" --dgid "$(gid "$d")" $a 2>/dev/null |
					awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }')
				[ -n "$sl" ] && sl=$((sl))      # saquery prints 0x4
				echo "$s $d $what ${sl:--}" >>"$1"
			done
		done
	done
}

# --- OpenSM with the policy ---------------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm.log" -Q -Y "$W/qos-policy.conf"
ask "$W/osm.sl"
sim_cleanup

# --- ibsm with the same policy ---------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --set qos=1 --set qos_policy_file="$W/qos-policy.conf"
grep -q "QoS policy $W/qos-policy.conf" "$W/sm.log" || fail "no QoS policy line in the log"
ask "$W/ibsm.sl"

# The policy's answers, then OpenSM's.
awk -v t="$target" '
	{ want = ($2 == t) ? 4 : 2; e = want
	  if ($3 == "plain" || $3 == "sid-out") e = ($2 == t) ? 4 : 0
	  if ($3 == "sl-other") e = "-"
	  if ($4 != e) { print "policy says " e ": " $0; bad++ } }
	END { exit (bad > 0) }' "$W/ibsm.sl" || fail "ibsm's SLs differ from the policy"
if ! diff "$W/osm.sl" "$W/ibsm.sl"; then
	fail "ibsm's PathRecord SLs differ from OpenSM's with the same policy"
fi
echo "ok $(wc -l <"$W/ibsm.sl") PathRecord queries: SLs as the policy and as OpenSM -Q"

# --- a second policy: classes by partition and by port name -----------------
g1=$(echo "$guids" | sed -n 1p); g2=$(echo "$guids" | sed -n 2p)
g3=$(echo "$guids" | sed -n 3p)
server=$(ibsim_ca_name "$W/ft.net" 5)          # port-name "node-4/P1"
qos_policy_red_servers "$g1" "$g2" "$g3" "$server"
cat >"$W/ibsm2.yaml" <<EOY
qos: true
qos_policy_file: $W/qos2.conf
partitions:
  - name: Default
    pkey: 0x7fff
    ipoib: true
    members: [ALL=full]
  - name: red
    pkey: 0x0002
    members: [$g1=full, $g2=full, $g3=full]
EOY
ask2() { # out
	: >"$1"
	for s in $(echo "$guids" | sed -n '1p;3p;7p'); do
		for d in $(echo "$guids" | sed -n '2p;5p;8p'); do
			for pk in none 0x8002 0xffff; do
				a=; [ $pk = none ] || a="--pkey $pk"
				sl=$(SIM_HOST=$client sim_run timeout 10 saquery -p --sgid "$(gid "$s")" --dgid "$(gid "$d")" $a 2>/dev/null |
					awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }')
				[ -n "$sl" ] && sl=$((sl))
				echo "$s $d $pk ${sl:--}" >>"$1"
			done
		done
	done
}
sim_cleanup
sm_sim "$W/ft.net" restart
osm_daemon "$W/osm2.log" -P "$W/partitions.conf" -Q -Y "$W/qos2.conf"
ask2 "$W/osm2.sl"
sim_cleanup
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm2.log" -c "$W/ibsm2.yaml" --cache-dir "$W/cache3"
ask2 "$W/ibsm2.sl"
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sim_cleanup
srv=$(echo "$guids" | sed -n 5p)
grep -q "^$g1 $g2 0x8002 3\$" "$W/ibsm2.sl" && grep -q "^$g1 $srv none 6\$" "$W/ibsm2.sl" &&
	grep -q "^$g1 $g2 0xffff 1\$" "$W/ibsm2.sl" && grep -q "^$g1 $g2 none 0\$" "$W/ibsm2.sl" ||
	{ cat "$W/ibsm2.sl"; fail "second policy: SLs by partition / port name not as the policy says"; }
if ! diff "$W/osm2.sl" "$W/ibsm2.sl"; then
	fail "second policy: ibsm's SLs differ from OpenSM's"
fi
echo "ok second policy: $(wc -l <"$W/ibsm2.sl") queries by partition, P_Key and port name as OpenSM"
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --set qos=1 --set qos_policy_file="$W/qos-policy.conf"

# --- a bad policy at SIGHUP: the old one stays -----------------------------
printf 'qos-levels\n qos-level\n name: DEFAULT\n sl: 17\n end-qos-level\nend-qos-levels\n' >"$W/qos-policy.conf"
kill -HUP "$SMPID"
wait_log "$W/sm.log" "qos-policy.conf:4: sl 17 out of range 0-15 (the QoS policy in force stays)" 10 ||
	{ tail -5 "$W/sm.log"; fail "SIGHUP with a bad policy: no file:line error"; }
s=$(echo "$guids" | sed -n 1p)
sl=$(SIM_HOST=$client sim_run timeout 10 saquery -p --sgid "$(gid "$s")" --dgid "$(gid "$target")" 2>/dev/null |
	awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }')
[ "$sl" = 0x4 ] || fail "after a bad SIGHUP the target's SL is '$sl', not 4"
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
echo "ok SIGHUP with a bad policy: error with file:line, the old policy stays"
kill "$SMPID"; wait "$SMPID" 2>/dev/null

# --- a bad policy at start: an error exit ------------------------------------
# (a timeout: ibsm once hung in libumad2sim's exit handler on this path)
rc=0
sim_run timeout 30 "$IBSM_BUILD/bin/ibsm" --once --cache-dir "$W/cache2" --set qos=1 \
	--set qos_policy_file="$W/qos-policy.conf" >"$W/bad.log" 2>&1 || rc=$?
[ $rc -ne 124 ] || fail "ibsm did not exit within 30 s after a bad policy"
[ $rc -ne 0 ] || fail "ibsm started with a bad policy"
grep -q "qos-policy.conf:4: sl 17 out of range 0-15" "$W/bad.log" || { cat "$W/bad.log"; fail "no file:line error at start"; }
echo "ok a bad policy at start: exit $rc with file:line"
echo "PASS"
