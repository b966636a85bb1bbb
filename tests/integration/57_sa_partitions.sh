#!/bin/sh
# Partitions (docs/partitions.md): the same two partitions given to OpenSM
# (partitions.conf) and to ibsm (the YAML `partitions` list) on the same
# fabric, and the same checks against both, so a wrong check shows:
#  - smpquery pkeys on CA ports reads back the expected P_Key tables;
#  - saquery P_KeyTableRecord (trusted) equals smpquery for those ports;
#  - saquery -p between members of a shared partition gives its P_Key,
#    between ports that share none no record;
#  - the partition's IPoIB broadcast group (ff12:401b:8001::ffff:ffff)
#    shows in saquery -g from a member.
# ibsm only: the first sweep reads the tables in the discovery window
# (the log's P_Keys line), a second heavy sweep writes no P_KeyTable
# block (diff-only), stale entries a previous SM left (in block 0 of an
# ACTIVE port, in blocks 0 and 1 of a port whose link trained again)
# are gone after ibsm's first sweep, a port whose link trains again under
# the running SM is read again (only it), and a bad partitions entry is
# refused naming file and line.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 57 opensm saquery smpquery

# 8 CAs node-0..node-7; CA port GUID = node GUID + 1. The SMs sit on
# node-0. blue (0x0001, IPoIB): node-1, node-2 full. red (0x0002):
# node-3 full, node-4 and node-2 limited. The default partition: every
# port limited, the SM's full.
sm_topo ft fattree --levels 2 --radix 4
guid() { # node-N -> its CA port GUID
	_g=$(awk -v n="\"$1\"" '/^caguid=/ { g = $0; sub(/caguid=/, "", g) } $1 == "Ca" && $3 == n { print g }' "$W/ft.net")
	[ -n "$_g" ] && printf '0x%016x\n' $((_g + 1))
}
G1=$(guid node-1); G2=$(guid node-2); G3=$(guid node-3); G4=$(guid node-4)
G5=$(guid node-5)
[ -n "$G1" ] && [ -n "$G4" ] || fail "no CA GUIDs in the net file"
gid() { printf 'fe80::%s\n' "$(printf '%016x' "$1" | sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/; s/^0*//; s/:0*\([0-9a-f]\)/:\1/g')"; }

cat >"$W/partitions.conf" <<EOF
Default=0x7fff : ALL=limited, SELF=full ;
blue=0x0001, ipoib : $G1=full, $G2=full ;
red=0x0002 : $G3=full, $G4=limited, $G2=limited ;
EOF
cat >"$W/ibsm.yaml" <<EOF
partitions:
  - name: Default
    pkey: 0x7fff
    members: [ALL=limited, SELF=full]
  - name: blue
    pkey: 0x0001
    ipoib: true
    members: [$G1=full, $G2=full]
  - name: red
    pkey: 0x0002
    members: [$G3=full, $G4=limited, $G2=limited]
EOF

pkeys() { # host -> the nonzero entries of its port's P_Key table
	SIM_HOST=$1 sim_run timeout 10 smpquery -D pkeys 0 2>/dev/null |
		awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }'
}
pr_pkey() { # host sgid dgid -> the P_Key of the PathRecord, or "none"
	_o=$(SIM_HOST=$1 sim_run timeout 10 saquery -p --sgid-to-dgid "$2-$3" 2>&1)
	_k=$(echo "$_o" | sed -n 's/^[[:space:]]*pkey\.*\(0x[0-9a-fA-F]*\)$/\1/p' | head -1)
	if [ -n "$_k" ]; then printf '0x%04x\n' $((_k)); else echo none; fi
}

check() { # name: every check against the SM running now
	_n=$1
	# Tables as configured (order: default first, then by P_Key).
	for want in "node-0:0xffff" "node-1:0x7fff 0x8001" "node-2:0x7fff 0x8001 0x0002" \
		    "node-3:0x7fff 0x8002" "node-4:0x7fff 0x0002" "node-5:0x7fff"; do
		h=${want%%:*}; t=${want#*:}
		got=$(pkeys "$h")
		[ "$got" = "$t " ] || fail "$_n: $h P_Key table '$got', want '$t'"
	done
	echo "ok $_n: smpquery pkeys shows the configured tables on 6 CA ports"
	# P_KeyTableRecord (trusted) agrees with smpquery, port by port.
	for h in node-1 node-2 node-4; do
		lid=$(SIM_HOST=$h sim_run timeout 10 smpquery -D portinfo 0 1 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)/\1/p')
		sa=$(sim_run timeout 10 saquery --smkey 1 PKTR "$lid//0" 2>/dev/null |
			awk '/PKey Table:/ { t = 1; next } t && /0x/ { for (i = 1; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i } /^$/ { t = 0 }')
		[ "$sa" = "$(pkeys "$h")" ] || fail "$_n: PKTR of $h (LID $lid) '$sa', smpquery '$(pkeys "$h")'"
	done
	echo "ok $_n: P_KeyTableRecords equal smpquery on 3 ports"
	# PathRecords: the shared partition's P_Key, or no record.
	for c in "node-1 $G1 $G2 0x8001" "node-2 $G2 $G1 0x8001" "node-3 $G3 $G4 0x8002" \
		 "node-4 $G4 $G3 0x0002" "node-1 $G1 $G3 none" "node-2 $G2 $G4 none" \
		 "node-4 $G4 $G1 none"; do
		set -- $c
		got=$(pr_pkey "$1" "$(gid "$2")" "$(gid "$3")")
		[ "$got" = "$4" ] || fail "$_n: PathRecord $2 -> $3 asked by $1: P_Key $got, want $4"
	done
	echo "ok $_n: PathRecords carry the shared partition's P_Key, none without one (7 pairs)"
	SIM_HOST=node-1 sim_run timeout 10 saquery -g >"$W/$_n.g" 2>&1 || fail "$_n: saquery -g"
	awk '/MGID\.*ff12:401b:8001::ffff:ffff/ { f = 1 } f && /pkey/ { sub(/.*\./, ""); print; exit }' "$W/$_n.g" |
		grep -qi "^0x8001$" || { cat "$W/$_n.g"; fail "$_n: no broadcast group of blue in saquery -g"; }
	echo "ok $_n: broadcast group ff12:401b:8001::ffff:ffff with P_Key 0x8001"
}

# --- OpenSM: judges the checks ------------------------------------------------
sm_sim "$W/ft.net"
osm_daemon "$W/osm.log" -P "$W/partitions.conf"
check opensm
sim_cleanup

# --- ibsm ---------------------------------------------------------------------
sm_sim "$W/ft.net" restart
sm_daemon "$W/sm.log" -c "$W/ibsm.yaml" -R updn --cache-dir "$W/cache"
check ibsm
grep -q "sweep 1: P_Keys: .* blocks [1-9][0-9]* written" "$W/sm.log" || fail "sweep 1 wrote no P_Key block"
# Every table read in the discovery window: 2 blocks per CA port (64
# entries), 1 per switch port 0 (8); ibsim's switches cannot enforce, so
# the switch ports facing CAs have no table and are not read.
n_sw=$(grep -c '^Switch' "$W/ft.net"); n_ca=$(grep -c '^Ca' "$W/ft.net")
want_rd=$((2 * n_ca + n_sw))
grep "sweep 1: P_Keys" "$W/sm.log"
grep -q "sweep 1: P_Keys: $((n_ca + n_sw)) ports, $n_ca switch ports facing end ports without a table.* $want_rd read ($want_rd in the discovery window)" "$W/sm.log" ||
	fail "sweep 1 did not read the $want_rd P_KeyTable blocks in the discovery window"
echo "ok ibsm: sweep 1 read $want_rd P_KeyTable blocks, all in the discovery window"
kill -HUP "$SMPID"
wait_log "$W/sm.log" "sweep 2: P_Keys" 20 || fail "no second heavy sweep"
grep "sweep 2: P_Keys" "$W/sm.log"
grep -q "sweep 2: P_Keys: .* blocks 0 written, [1-9][0-9]* unchanged, 0 read" "$W/sm.log" ||
	fail "the second sweep wrote or read P_Key blocks (not diff-only)"
check ibsm-sweep2
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sim_cleanup

# --- stale entries: OpenSM leaves tables this configuration does not want --
# node-1 keeps 0x8003 (ACTIVE port: a restart or takeover); node-5 holds
# 41 entries, so block 1 too, and its link trains again (INIT: ibsim
# keeps the table) before ibsm starts.
{
	echo "Default=0x7fff : ALL=full ;"
	echo "x=0x0003 : $G1=full ;"
	i=16
	while [ $i -lt 56 ]; do printf 'p%d=0x%04x : %s=full ;\n' $i $i "$G5"; i=$((i + 1)); done
} >"$W/stale.conf"
sm_sim "$W/ft.net" restart
osm_daemon "$W/osm-stale.log" -P "$W/stale.conf"
kill -9 "$SIM_LAST_PID"
n5=$(pkeys node-5 | wc -w)
[ "$n5" -eq 41 ] && [ "$(pkeys node-1)" = "0xffff 0x8003 " ] ||
	fail "OpenSM did not leave the stale tables (node-5: $n5 entries, node-1: '$(pkeys node-1)')"
ibsim_cmd 'Unlink "node-5"[1]'
ibsim_cmd 'ReLink "node-5"[1]'
SIM_HOST=node-5 sim_run timeout 10 smpquery -D portinfo 0 1 2>/dev/null | grep -q 'LinkState:\.*Initialize' ||
	fail "node-5's port is not INIT after ReLink"
[ "$(pkeys node-5 | wc -w)" -eq 41 ] || fail "ibsim dropped node-5's table on ReLink"
echo "ok stale: node-5 (INIT) holds 41 entries in blocks 0 and 1, node-1 (ACTIVE) holds 0x8003"
sm_daemon "$W/sm-stale.log" -c "$W/ibsm.yaml" -R updn --cache-dir "$W/cache-stale"
grep "sweep 1: P_Keys" "$W/sm-stale.log"
grep -q "sweep 1: P_Keys: .* blocks [1-9][0-9]* written, .* $want_rd read ($want_rd in the discovery window)" "$W/sm-stale.log" ||
	fail "sweep 1 over stale tables: not every block read in the discovery window"
check ibsm-stale
# node-5's link trains again under the running SM: the next heavy sweep
# reads its 2 blocks again (in the discovery window), finds what it wrote
# and writes nothing; no other port is read.
ibsim_cmd 'Unlink "node-5"[1]'
ibsim_cmd 'ReLink "node-5"[1]'
wait_log "$W/sm-stale.log" "P_Keys: .* 0 written, .* 2 read (2 in the discovery window)" 30 || {
	grep "P_Keys" "$W/sm-stale.log"; fail "node-5 was not read again in the discovery window after its link trained again"; }
grep "P_Keys: .* 2 read (2 in the discovery window)" "$W/sm-stale.log" | head -1
[ "$(pkeys node-5)" = "0x7fff " ] || fail "node-5 after ReLink: '$(pkeys node-5)'"
echo "ok stale: node-5 read again (2 blocks, in the discovery window) after its link trained again, nothing written"
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sim_cleanup

# --- a bad entry: file and line, nonzero exit, before touching the fabric ----
printf 'partitions:\n  - name: x\n    pkey: 0x8001\n    members: [ALL=full]\n  - name: y\n    pkey: 2\n    members: [0x12=half]\n' >"$W/bad.yaml"
out=$("$IBSM_BUILD/bin/ibsm" -c "$W/bad.yaml" --dump-config 2>&1) && fail "a bad partitions entry was accepted"
echo "$out" | grep -q "bad.yaml:3: partitions: pkey '0x8001'" || { echo "$out"; fail "no file:line for the 16-bit P_Key"; }
echo "$out" | grep -q "bad.yaml:7: partitions: member '0x12=half'" || { echo "$out"; fail "no file:line for the bad membership"; }
echo "ok bad config: $(echo "$out" | wc -l) errors named with file and line"
echo "PASS"
