#!/bin/sh
# QoS tables (issue 28, docs/qos.md): OpenSM's qos_* options given to
# OpenSM (-F opensm.conf with qos TRUE) and the same keys to ibsm (YAML),
# with the test 62 policy file on both. One leaf is an enhanced port 0
# switch (ibsim's "enhanced port 0"), so all four kinds of port get their
# own tables: CA, switch external port, enhanced switch port 0, base
# switch port 0 (left alone). The tables clip VLs 8..14 to the ports' 8
# VLs and keep VL 15. Read with smpquery by directed route from the same
# host (so LIDs do not matter), every table must be the same under both
# SMs; PathRecord SLs too. Then ibsm's second sweep writes nothing, and
# `osmtest -f q` passes against ibsm with qos on. Then the issue's second
# policy (classes by partition and by port group) as a YAML qos: section
# for ibsm, with the tables in it too, against OpenSM with the file.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 101 opensm smpquery saquery osmtest

sm_topo ft0 fattree --levels 2 --radix 4
# leaf-1 (the client's switch) with an enhanced port 0.
# ibsim reads it after the description, as ibnetdiscover prints it.
sed 's/^\(Switch[[:space:]].*"leaf-1".*\)$/\1 enhanced port 0/' "$W/ft0.net" >"$W/ft.net"
grep -q '"leaf-1" enhanced port 0$' "$W/ft.net" || fail "no enhanced port 0 switch in the net file"
client=$(ibsim_ca_name "$W/ft.net" 3)          # node-2, on leaf-1 port 1
q() { SIM_HOST=$client sim_run timeout 20 "$@" 2>&1; }
guids=$(for g in $(sed -n 's/^caguid=//p' "$W/ft.net"); do printf '0x%016x\n' $((g + 1)); done)
target=$(echo "$guids" | sed -n 6p)

qos_policy_target "$target" "$W/qos-policy.conf"

# One set of tables per port type, each unlike the others and the defaults.
cat >"$W/tables" <<'EOT'
qos_ca_sl2vl 0,1,1,2,2,3,3,4,4,5,5,6,6,7,8,15
qos_ca_vlarb_high 0:8,1:8
qos_ca_vlarb_low 2:16,3:32,9:5
qos_swe_sl2vl 0,2,4,6,8,10,12,14,1,3,5,7,9,11,13,15
qos_swe_vlarb_high 0:1
qos_swe_vlarb_low 0:10,1:20,2:30,3:40,4:50,5:60,6:70,7:80,8:90
qos_sw0_sl2vl 1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4
qos_sw0_vlarb_high 0:255
qos_sw0_vlarb_low 1:100,2:100
qos_ca_high_limit 3
qos_swe_high_limit 5
qos_sw0_high_limit 7
EOT
{ echo "qos TRUE"; echo "qos_policy_file $W/qos-policy.conf"; cat "$W/tables"; } >"$W/opensm.conf"
{ echo "qos: true"; echo "qos_policy_file: $W/qos-policy.conf"
  awk '{ printf "%s: \"%s\"\n", $1, $2 }' "$W/tables"; } >"$W/ibsm.yaml"

# smpquery by directed route from node-2: itself, its (enhanced) leaf,
# a spine and a base leaf behind it, a CA there.
tables() { # out
	: >"$1"
	for what in "sl2vl 0" "vlarb 0" \
		"sl2vl 0,1 0" "vlarb 0,1 0" "sl2vl 0,1 1" "vlarb 0,1 1" "sl2vl 0,1 3" "vlarb 0,1 3" \
		"sl2vl 0,1,3 0" "vlarb 0,1,3 0" "sl2vl 0,1,3 2" "vlarb 0,1,3 2" \
		"sl2vl 0,1,3,1 4" "vlarb 0,1,3,1 4" "sl2vl 0,1,3,1,1" "vlarb 0,1,3,1,1"; do
		i=0
		# ibsim drops a MAD now and then under load: ask again.
		while out=$(q smpquery -D $what) && [ $i -lt 5 ]; do
			echo "$out" | grep -q "iberror" || break
			i=$((i + 1)); sleep 0.2
		done
		echo "== $what" >>"$1"
		echo "$out" >>"$1"
	done
	# VLHighLimit (PortInfo) of the same ports; the rest of PortInfo
	# holds LIDs, which differ between the SMs.
	for what in "0" "0,1 0" "0,1 1" "0,1 3" "0,1,3 0" "0,1,3 2"; do
		echo "== portinfo $what: $(q smpquery -D portinfo $what | grep VLHighLimit)" >>"$1"
	done
}
gid() { echo "$1" | sed 's/^0x//; s/\(....\)\(....\)\(....\)\(....\)/fe80::\1:\2:\3:\4/'; }
paths() { # out
	: >"$1"
	for d in $(echo "$guids" | sed -n '1p;4p;6p'); do
		for a in "" "--service_id 0x1234" "--service_id 0x9999"; do
			sl=$(q saquery -p --sgid "$(gid "$(echo "$guids" | sed -n 3p)")" --dgid "$(gid "$d")" $a |
				awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }')
			[ -n "$sl" ] && sl=$((sl))      # saquery prints 0x4
			echo "$d ${a:-plain} ${sl:--}" >>"$1"
		done
	done
}

# --- OpenSM --------------------------------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm.log" -F "$W/opensm.conf"
tables "$W/osm.tables"
paths "$W/osm.paths"
sim_cleanup
grep -q "iberror" "$W/osm.tables" && { grep -B3 iberror "$W/osm.tables" | head; fail "smpquery failed under OpenSM"; }

# --- ibsm ----------------------------------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" -c "$W/ibsm.yaml" --cache-dir "$W/cache" --set sl2vl_read_all=true
grep "QoS tables" "$W/sm.log" | head -1
tables "$W/ibsm.tables"
paths "$W/ibsm.paths"

# What the tables must show (beyond being OpenSM's): a CA's SL 14 on VL 0
# (8 & 7), SL 15 on VL 15; a leaf's port 1 with the swe table from every
# input; the enhanced port 0 with sw0's (0,0) table and its VLArb.
grep -A3 "^== sl2vl 0\$" "$W/ibsm.tables" | grep -q "out  0: | 0| 1| 1| 2| 2| 3| 3| 4| 4| 5| 5| 6| 6| 7| 0|15|" ||
	{ cat "$W/ibsm.tables"; fail "CA SL2VL not the qos_ca_sl2vl table clipped to 8 VLs"; }
[ "$(grep -A8 "^== sl2vl 0,1 1\$" "$W/ibsm.tables" | grep -c "out  1: | 0| 2| 4| 6| 0| 2| 4| 6| 1| 3| 5| 7| 1| 3| 5|15|")" = 5 ] ||
	fail "leaf port 1: not the qos_swe_sl2vl table from all 5 inputs"
grep -A8 "^== sl2vl 0,1 0\$" "$W/ibsm.tables" | grep -q "in  0, out  0: | 1| 1| 1| 1| 2| 2| 2| 2| 3| 3| 3| 3| 4| 4| 4| 4|" ||
	fail "enhanced port 0: not the qos_sw0_sl2vl table"
# ibsim does not keep VLHighLimit (both SMs read 0 back): ibsm says so
# once and stops comparing it (else every sweep would write every port).
grep -q "do not keep it (ibsim does not)" "$W/sm.log" || fail "VLHighLimit Sets: no 'not kept' line"
if ! diff "$W/osm.tables" "$W/ibsm.tables"; then
	fail "ibsm's SL2VL/VLArb tables differ from OpenSM's with the same qos_* options"
fi
echo "ok $(grep -c '^==' "$W/ibsm.tables") smpquery tables (CA, switch external, enhanced and base port 0) as OpenSM's"
awk '{ e = ($1 == t) ? 4 : ($2 == "--service_id" && $3 == "0x1234") ? 2 : 0
       if ($NF != e) { print "policy says " e ": " $0; bad++ } } END { exit bad > 0 }' t="$target" \
	"$W/ibsm.paths" || fail "PathRecord SLs not the policy's"
diff "$W/osm.paths" "$W/ibsm.paths" || fail "PathRecord SLs differ from OpenSM's"
echo "ok $(wc -l <"$W/ibsm.paths") PathRecords: SLs as the policy and OpenSM"

# Diff-only: the next heavy sweep writes nothing, and reads only the
# tables the SA's cache does not keep (a switch's unlinked inputs).
sm_reroute "$W/ft.net" "$W/sm.log"
last=$(grep "QoS tables" "$W/sm.log" | tail -1)
echo "$last" | grep -q " 0 written, [0-9]* unchanged, [0-9] read, 0 failed" ||
	fail "a later sweep rewrote or re-read tables: $last"
echo "ok later sweep: $last"

# osmtest -f q with qos on (the SA answers from the tables read and written).
for t in VLArb SL2VL; do
	wait_log "$W/sm.log" "$t tables for the SA: [0-9]* read, 0 failed" 30 || fail "background $t read did not finish"
done
q osmtest -f c >"$W/osmtest.c" || { tail -5 "$W/osmtest.c"; fail "osmtest -f c"; }
q osmtest -f q >"$W/osmtest.q" || { grep ERR "$W/osmtest.q" | head; fail "osmtest -f q failed"; }
grep -q 'TEST "QoS: VLArb and SLtoVL" PASS' "$W/osmtest.q" || fail "osmtest -f q did not pass"
echo "ok osmtest -f q passes against ibsm with qos on"
sm_stop_clean "$W/sm.log"
sim_cleanup

# --- the second policy, in the YAML qos: section ------------------------------
# Classes by partition and by port group (test 62's second policy): OpenSM
# reads the file, ibsm the same policy and tables as a qos: section.
g1=$(echo "$guids" | sed -n 1p); g2=$(echo "$guids" | sed -n 2p); g3=$(echo "$guids" | sed -n 3p)
server=$(ibsim_ca_name "$W/ft.net" 5)
qos_policy_red_servers "$g1" "$g2" "$g3" "$server" "    any, service-id 0x1000-0x1fff : 2"
{ echo "qos TRUE"; echo "qos_policy_file $W/qos2.conf"; echo "partition_config_file $W/partitions.conf"; cat "$W/tables"; } >"$W/opensm2.conf"
cat >"$W/ibsm2.yaml" <<EOY
partitions:
  - name: Default
    pkey: 0x7fff
    ipoib: true
    members: [ALL=full]
  - name: red
    pkey: 0x0002
    members: [$g1=full, $g2=full, $g3=full]
qos:
  port-groups:
    - {name: Red, partition: red}
    - {name: Servers, port-name: "$server/P1"}
  qos-levels:
    - {name: DEFAULT, sl: 0}
    - {name: RedTraffic, sl: 3}
    - {name: ToServers, sl: 6}
  qos-match-rules:
    - {destination: Servers, qos-level-name: ToServers}
    - {source: Red, destination: Red, pkey: 0x0002, qos-level-name: RedTraffic}
  qos-ulps:
    - {ulp: default, sl: 0}
    - {ulp: ipoib, sl: 1}
    - {ulp: any, service-id: 0x1000-0x1fff, sl: 2}
EOY
# The tables as the section's per-type mappings.
awk '{ split($1, k, "_"); t = k[2]; sub("^qos_" t "_", "", $1)
       v[t] = v[t] sprintf("    %s: \"%s\"\n", $1, $2) }
     END { for (t in v) printf "  %s:\n%s", t, v[t] }' "$W/tables" >>"$W/ibsm2.yaml"
paths2() { # out
	: >"$1"
	for s in $g1 $g3 $(echo "$guids" | sed -n 7p); do
		for d in $g2 $(echo "$guids" | sed -n '5p;8p'); do
			for a in "" "--pkey 0x8002" "--pkey 0xffff" "--service_id 0x1234"; do
				sl=$(q saquery -p --sgid "$(gid "$s")" --dgid "$(gid "$d")" $a |
					awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }')
				[ -n "$sl" ] && sl=$((sl))
				echo "$s $d ${a:-plain} ${sl:--}" >>"$1"
			done
		done
	done
}
sm_sim "$W/ft.net" restart
osm_daemon "$W/osm2.log" -F "$W/opensm2.conf"
tables "$W/osm2.tables"
paths2 "$W/osm2.paths"
sim_cleanup
sm_sim "$W/ft.net" restart
# A policy both in the section and in qos_policy_file: one error at start.
sim_run timeout 30 "$IBSM_BUILD/bin/ibsm" -c "$W/ibsm2.yaml" --cache-dir "$W/cache-both" \
	--set qos_policy_file="$W/qos2.conf" >"$W/both.log" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "qos: a policy in the qos: section of $W/ibsm2.yaml and qos_policy_file $W/qos2.conf: give one" "$W/both.log" ||
	{ cat "$W/both.log"; fail "section and qos_policy_file both: rc $rc, not one clear error"; }
sm_daemon "$W/sm2.log" -c "$W/ibsm2.yaml" --cache-dir "$W/cache2"
grep -q "QoS policy $W/ibsm2.yaml (qos: section)" "$W/sm2.log" || fail "no qos: section policy line"
tables "$W/ibsm2.tables"
paths2 "$W/ibsm2.paths"
# Live: a new CA table and a new level at SIGHUP, written at the next sweep.
sed 's/^\(    sl2vl: \)"0,1,1,2,2,3,3,4,4,5,5,6,6,7,8,15"/\1"7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"/; s/{name: ToServers, sl: 6}/{name: ToServers, sl: 5}/' \
	"$W/ibsm2.yaml" >"$W/ibsm2.new" && mv "$W/ibsm2.new" "$W/ibsm2.yaml"
grep -q '"7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"' "$W/ibsm2.yaml" || fail "SIGHUP step: the YAML edit did not apply"
kill -HUP "$SMPID"
wait_log "$W/sm2.log" "SIGHUP: heavy sweep" 10 || fail "no SIGHUP sweep"
i=0
until q smpquery -D sl2vl 0 | grep -q "out  0: | 7| 6| 5| 4| 3| 2| 1| 0| 7| 6| 5| 4| 3| 2| 1|15|"; do
	i=$((i + 1)); [ $i -gt 50 ] && { q smpquery -D sl2vl 0; fail "SIGHUP: the new qos: ca sl2vl not written"; }
	sleep 0.2
done
sl=$(q saquery -p --sgid "$(gid "$g1")" --dgid "$(gid "$(echo "$guids" | sed -n 5p)")" | awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }')
[ "$((sl))" = 5 ] || fail "SIGHUP: the qos: section's new level not answered (SL $sl)"
grep "QoS policy $W/ibsm2.yaml" "$W/sm2.log" | tail -1
echo "ok SIGHUP: the qos: section's policy and tables applied live"
sm_stop_clean "$W/sm2.log"
srv=$(echo "$guids" | sed -n 5p)
grep -q "^$g1 $g2 --pkey 0x8002 3\$" "$W/ibsm2.paths" && grep -q "^$g1 $srv plain 6\$" "$W/ibsm2.paths" &&
	grep -q "^$g1 $g2 --pkey 0xffff 1\$" "$W/ibsm2.paths" && grep -q "^$g1 $g2 plain 0\$" "$W/ibsm2.paths" &&
	grep -q "^$g1 $g2 --service_id 0x1234 2\$" "$W/ibsm2.paths" ||
	{ cat "$W/ibsm2.paths"; fail "qos: section: SLs by partition / port group not as the policy says"; }
diff "$W/osm2.paths" "$W/ibsm2.paths" || fail "qos: section: PathRecord SLs differ from OpenSM's with the file"
diff "$W/osm2.tables" "$W/ibsm2.tables" || fail "qos: section: tables differ from OpenSM's"
echo "ok qos: section: $(wc -l <"$W/ibsm2.paths") PathRecords and $(grep -c '^==' "$W/ibsm2.tables") tables as OpenSM's with qos-policy.conf"
echo "PASS"
