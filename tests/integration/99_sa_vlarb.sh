#!/bin/sh
# VLArbitrationTableRecord (IBA 15.2.5.9) and `osmtest -f q` (issue 25).
#  1. OpenSM: `osmtest -f c` then `osmtest -f q` pass (the baseline; it
#     answers zeros, never having read a VLArb table without -Q).
#  2. ibsm by default (on demand): `saquery VLAR lid/port/block` is Busy
#     until the node is read, then equals `smpquery vlarb` (low priority
#     table = block 1, high = block 3) for switch ports 1 and the last,
#     and for 2 CA ports (asked with port 0, as osmtest asks); a switch's
#     port 0 is answered too.
#  3. ibsm with sl2vl_read_all, once both background reads logged done:
#     `osmtest -f q` passes (it never retries a Busy, docs/sa.md).
#  4. dfsp on a 4x4 torus with the reads off: block 1 of a switch port is
#     what ibsm wrote (VL n, weight 64), as smpquery reads it.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 99 opensm osmtest saquery smpquery ibnetdiscover

sm_topo ft fattree --levels 2 --radix 8
client=$(ibsim_ca_name "$W/ft.net" 3)
q() { SIM_HOST=$client sim_run timeout 20 "$@" 2>&1; }

# saquery VLAR LID/PORT/BLOCK -> "vl:weight" x 32, "busy" or "none".
sa_vla() {
	q saquery VLAR "$1" | awk -F'|' '/BUSY/ { busy = 1 }
		/VL +:|Weight:/ { k = $1 ~ /VL/ ? "v" : "w"; sub(/.*: */, "", $1)
			for (i = 1; i <= 16; i++) { gsub(/ /, "", $i); t[k, n[k]++] = $i } }
		END { if (busy || !n["v"]) { print busy ? "busy" : "none"; exit }
			for (i = 0; i < 32; i++) printf "%d:%d ", t["v", i], t["w", i]; print "" }'
}
# smpquery vlarb LID [PORT] -> the low or high table ($3), padded to 32.
smp_vla() {
	q smpquery vlarb $1 $2 | awk -F'|' -v want="$3" '
		function hex(s,  i, v) { s = tolower(s); sub(/^ *0x/, "", s); gsub(/ /, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		/^# Low/ { s = "low" } /^# High/ { s = "high" }
		s == want && /^(VL|WEIGHT)/ { k = $1 ~ /VL/ ? "v" : "w"
			for (i = 2; i < NF; i++) t[k, n[k]++] = hex($i) }
		END { for (i = 0; i < 32; i++) printf "%d:%d ", t["v", i], t["w", i]; print "" }'
}
# check LID PORT SAPORT: blocks 1 and 3 against smpquery's tables.
check() {
	for b in 1 3; do
		i=0
		while a=$(sa_vla "$1/$3/$b"); [ "$a" = busy ]; do
			i=$((i + 1)); [ $i -gt 30 ] && fail "LID $1 port $3 block $b: still Busy"
			sleep 0.2
		done
		[ $b = 1 ] && p=low || p=high
		e=$(smp_vla "$1" "$2" $p)
		[ "$a" = "$e" ] || fail "LID $1 port $2 block $b: SA '$a', smpquery '$e'"
		n=$((n + 1))
	done
}
osmtest_q() {
	q osmtest -f c >"$W/$1.c" || { tail -5 "$W/$1.c"; fail "$1: osmtest -f c"; }
	q osmtest -f q >"$W/$1.q" || { grep ERR "$W/$1.q" | head; fail "$1: osmtest -f q failed"; }
	grep -q 'TEST "QoS: VLArb and SLtoVL" PASS' "$W/$1.q" || fail "$1: osmtest -f q did not pass"
	echo "ok $1: osmtest -f q passes ($(grep -c VL_ARBITRATION_TABLE qos.txt) VLArb, $(grep -c SLtoVL_MAP_TABLE qos.txt) SL2VL records)"
}

# --- 1. OpenSM ---------------------------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm.log"
osmtest_q opensm
sim_cleanup

# --- 2. ibsm, on demand --------------------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache"
q ibnetdiscover -p >"$W/ibnd" || fail "ibnetdiscover"
sw=$(awk '$1 == "SW" { print $2; exit }' "$W/ibnd")
last=$(awk -v l=$sw '$1 == "SW" && $2 == l { print $3 }' "$W/ibnd" | sort -n | tail -1)
a=$(sa_vla "$sw/1/1"); [ "$a" = busy ] || fail "on demand: switch $sw answered before any read: $a"
n=0
check "$sw" 1 1; check "$sw" "$last" "$last"
# Port 0: smpquery refuses a base port 0 (no VLArb table, IBA 14.2.5.9)
# but osmtest asks for it, and ibsim answers the Get: answered as read.
case "$(sa_vla "$sw/0/1")" in busy|none) fail "switch $sw port 0 block 1 not answered";; esac
for ca in $(awk '$1 == "CA" { print $2 }' "$W/ibnd" | sort -un | head -2); do
	check "$ca" "" 0
done
grep "VLArb tables for the SA" "$W/sm.log" | tail -1
echo "ok on demand: $n VLArbitrationTableRecords equal smpquery vlarb"
sm_stop_clean "$W/sm.log"
sim_cleanup

# --- 3. ibsm, every table read after the sweep: osmtest -f q ---------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/all.log" -R updn --cache-dir "$W/cache" --set sl2vl_read_all=true
for t in VLArb SL2VL; do
	wait_log "$W/all.log" "$t tables for the SA: [0-9]* read, 0 failed" 30 || fail "background $t read did not finish"
done
osmtest_q ibsm
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
sm_stop_clean "$W/all.log"
sim_cleanup

# --- 4. what ibsm programs (dfsp layers), reads off ----------------------------------
sm_dfsp_torus
port=$(awk -v l=$sw '$1 == "SW" && $2 == l { print $3; exit }' "$W/torus.ibnd")
a=$(sa_vla "$sw/$port/1")
[ "$a" = "$(smp_vla "$sw" "$port" low)" ] || fail "torus: switch $sw port $port: SA '$a', smpquery differs"
case "$a" in "0:64 1:64 "*) ;; *) fail "torus: block 1 of $sw/$port is not the one ibsm wrote ($a)";; esac
echo "ok programmed VLArb block answered as written"
sm_stop_clean "$W/dfsp.log"
echo "PASS"
