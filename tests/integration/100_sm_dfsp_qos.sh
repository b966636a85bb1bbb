#!/bin/sh
# dfsp layers and QoS classes share the SL space (issue 28, docs/qos.md
# "QoS with dfsp layers"):
#  1. a 4x4 torus routed by dfsp under a policy of 3 classes (default SL 0,
#     service IDs 0x1000-0x1fff on SL 2, everything to one port on SL 4):
#     ibsm gives each class 2 layers (8 data VLs / 3 classes), SL = class
#     base + layer, one VL per (class, layer) SL, and says so once;
#  2. the SL2VL tables read back with smpquery (every linked port pair of
#     every switch, every CA port) hold that one map; with the switches'
#     tables (dump_fts) and the daemon's layers (its path-sl.txt dump) they
#     pass ibsm-route --check per VL (the two layers of a class put on one
#     VL have a cycle with these tables);
#  3. saquery PathRecords (plain, --service_id in the range, to the port of
#     the SL 4 class) carry class base + the pair's layer;
#  4. ibsm-route --qos offline prints the same map (from the policy file
#     or an ibsm YAML naming it), and without dfsp the policy's SLs;
#  5. a policy of 4 classes with max_vls=3 cannot fit: one error at start,
#     exit status 1.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 100 smpquery saquery dump_fts ibnetdiscover
ROUTE=$IBSM_BUILD/bin/ibsm-route

sm_topo torus torus --dims 4x4 --hcas-per-switch 2
client=$(ibsim_ca_name "$W/torus.net" 3)
# The SL 4 class: everything to the port of the sixth CA (port GUID = node
# GUID + 1 in ibsm-topo's net files).
target=$(sed -n 's/^caguid=//p' "$W/torus.net" | sed -n 6p)
target=$(printf '0x%016x' $((target + 1)))
qos_policy_target "$target" "$W/qos.conf"

# --- 1. the daemon: 3 classes x 2 layers ---------------------------------------------
sm_sim "$W/torus.net"
sm_daemon "$W/sm.log" -R dfsp --cache-dir "$W/cache" --dump "$W/dump" \
	--set qos=1 --set qos_policy_file="$W/qos.conf"
grep "QoS\|routed with\|VLs:" "$W/sm.log"
want_map="0,1,2,3,4,5,0,0,0,0,0,0,0,0,0,0"
grep -q "QoS with dfsp layers: 3 QoS classes (SLs 0,2,4) in 8 data VLs: at most 2 layers per class" "$W/sm.log" ||
	fail "ibsm did not say how many layers each class gets"
[ "$(grep -c "QoS with dfsp layers: 3 QoS classes" "$W/sm.log")" -eq 1 ] || fail "the shrink was said more than once"
grep -q "QoS with dfsp layers: 3 classes x 2 layers on 6 VLs, each VL credit-loop-free: class SL 0: SLs 0-1 -> VLs 0-1; class SL 2: SLs 2-3 -> VLs 2-3; class SL 4: SLs 4-5 -> VLs 4-5" "$W/sm.log" ||
	fail "no per-VL plan and check in the log"
grep -q "routed with dfsp: .* 2 SL layers each credit-loop-free" "$W/sm.log" || fail "dfsp did not route on 2 layers"
grep -q "sweep 1: VLs: 2 layers; SL2VL/VLArb tables [1-9][0-9]* written, .* 0 failed" "$W/sm.log" ||
	fail "SL2VL/VLArb tables not written"
echo "ok 3 QoS classes x 2 dfsp layers on 6 VLs, said once"

# --- 2. the SL2VL maps read back, the per-VL check --------------------------------------
kill -USR1 "$SMPID"
wait_log "$W/dump/path-sl.txt" "SLID DLID SL" 5 || fail "no path-sl.txt dump"
sim_run ibnetdiscover >"$W/torus.ibnd" 2>/dev/null || fail "ibnetdiscover"
sim_run dump_fts >"$W/torus.fts" 2>/dev/null || fail "dump_fts"
# "LID port port ..." per switch: its linked ports.
awk '/^Switch/ { if (l) print l; l = ""; for (i = 1; i <= NF; i++) if ($i == "lid") l = $(i + 1); next }
     /^\[[0-9]+\]/ && l { p = $1; gsub(/[^0-9]/, "", p); l = l " " p }
     /^$/ && l { print l; l = "" } END { if (l) print l }' "$W/torus.ibnd" >"$W/sw.ports"
[ "$(wc -l <"$W/sw.ports")" -eq 16 ] || { cat "$W/sw.ports"; fail "not 16 switches in ibnetdiscover"; }
: >"$W/sl2vl.all"
while read -r lid ports; do
	for out in $ports; do
		sim_run smpquery sl2vl "$lid" "$out" >"$W/q" 2>/dev/null || fail "smpquery sl2vl $lid $out"
		# Only the pairs the SM programs: in != out, both linked.
		for in in $ports; do
			[ "$in" = "$out" ] && continue
			grep "in *$in, out *$out:" "$W/q" >>"$W/sl2vl.all"
		done
	done
done <"$W/sw.ports"
for lid in $(awk '/^Ca/ { ca = 1; next } /^Switch/ { ca = 0 } /^\[/ && ca { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); break } }' "$W/torus.ibnd"); do
	sim_run smpquery sl2vl "$lid" >"$W/q" 2>/dev/null || fail "smpquery sl2vl CA $lid"
	grep "^ports:" "$W/q" >>"$W/sl2vl.all"
done
n=$(wc -l <"$W/sl2vl.all")
[ "$n" -eq $((16 * 6 * 5 + 32)) ] || fail "read $n SL2VL tables, want 512 (16 switches x 6 x 5 port pairs, 32 CAs)"
maps=$(sed 's/.*: *|//; s/ //g; s/|$//; s/|/,/g' "$W/sl2vl.all" | sort | uniq -c)
[ "$(echo "$maps" | wc -l)" -eq 1 ] && echo "$maps" | grep -q " $want_map\$" ||
	{ echo "$maps"; fail "the SL2VL tables are not all SL class base + layer -> its VL ($want_map)"; }
"$ROUTE" --topo "$W/torus.ibnd" --lfts-in "$W/torus.fts" --sl-in "$W/dump/path-sl.txt" \
	--qos "$W/qos.conf" --vls 8 --sl2vl "$W/sl2vl.all" --check >"$W/check.out" 2>"$W/check.err" ||
	{ cat "$W/check.err"; grep -v '^  "' "$W/check.out"; fail "the switches' tables and SL2VL maps fail the per-VL check"; }
grep -q '"vl_check":{"layers":2,"credit_loop":0' "$W/check.out" || { cat "$W/check.out"; fail "per-VL check not clean"; }
# Each class's two layers on one VL (SLs 0,1 -> VL 0, 2,3 -> 2, 4,5 -> 4):
# with these tables the two layers' graphs together have a cycle, named by
# VL and SLs. (dfsp on the dependency graph need not make it so: then a
# note; test_qos_sl_space holds a case that must.)
echo "0 0 2 2 4 4 0 0 0 0 0 0 0 0 0 0" >"$W/merged.map"
if "$ROUTE" --topo "$W/torus.ibnd" --lfts-in "$W/torus.fts" --sl-in "$W/dump/path-sl.txt" \
	--qos "$W/qos.conf" --vls 8 --sl2vl "$W/merged.map" --check >"$W/merged.out" 2>&1; then
	echo "  (note: these tables happen to be credit-loop-free with both layers on one VL)"
else
	grep -q '"first_error":"VL [024] (SLs [0-9], [0-9]): channel dependency graph has a cycle' "$W/merged.out" ||
		{ grep vl_check "$W/merged.out"; fail "the merged map's cycle is not named by VL and SLs"; }
fi
echo "ok $n SL2VL tables read back hold $want_map; per-VL credit-loop-free with the switches' tables"

# --- 3. PathRecords: class base + layer ---------------------------------------------------
tlid=$(awk -v g="$(printf '%x' $((target)))" '/^Ca/ { ca = 1; next } /^Switch/ { ca = 0 }
	ca && index($0, "[1](" g ")") { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$W/torus.ibnd")
[ -n "$tlid" ] || fail "no LID for the target port $target"
pr_sl() { # slid dlid [saquery args]: the SL answered, or "-"
	_s=$1; _d=$2; shift 2
	_v=$(SIM_HOST=$client sim_run timeout 10 saquery -p --slid "$_s" --dlid "$_d" "$@" 2>/dev/null |
		sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-f]*\)$/\1/p' | head -1)
	[ -n "$_v" ] && echo $((0x$_v)) || echo -
}
n=0; seen=""
for pair in $(grep -v '^#' "$W/dump/path-sl.txt" | awk -v t="$tlid" '$1 != $2 && (NR % 41 == 1 || $2 == t) { print $1 ":" $2 ":" $3 }' | head -24); do
	s=${pair%%:*}; r=${pair#*:}; d=${r%%:*}; layer=${r#*:}
	if [ "$d" = "$tlid" ]; then base_plain=4; base_sid=4; else base_plain=0; base_sid=2; fi
	got=$(pr_sl "$s" "$d")
	[ "$got" = $((base_plain + layer)) ] || fail "saquery -p $s -> $d: SL $got, want class base $base_plain + layer $layer"
	got=$(pr_sl "$s" "$d" --service_id 0x1234)
	[ "$got" = $((base_sid + layer)) ] || fail "saquery -p $s -> $d --service_id 0x1234: SL $got, want class base $base_sid + layer $layer"
	# Asking the policy's own SL of another layer gets no record.
	other=$((base_sid + 1 - layer))
	got=$(pr_sl "$s" "$d" --service_id 0x1234 --sl "$other")
	[ "$got" = - ] || fail "saquery -p $s -> $d --sl $other: SL $got answered, the path is on layer $layer"
	seen="$seen $layer"
	n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n pairs sampled"
echo "$seen" | grep -q 0 && echo "$seen" | grep -q 1 || echo "  (note: the sampled pairs are all on one layer:$seen)"
echo "ok $n pairs: saquery -p SLs are class base + the pair's layer (plain, --service_id, to the SL 4 port)"

# --- 4. offline: ibsm-route --qos ----------------------------------------------------------
"$ROUTE" --qos "$W/qos.conf" --engine dfsp --vls 8 >"$W/offline.txt" 2>"$W/offline.err" || fail "ibsm-route --qos"
grep -q "^SL2VL: $want_map\$" "$W/offline.txt" || { cat "$W/offline.txt"; fail "ibsm-route --qos gives another map"; }
grep -q "^1      2          2-3    2-3\$" "$W/offline.txt" || { cat "$W/offline.txt"; fail "ibsm-route --qos: class SL 2 is not SLs 2-3 on VLs 2-3"; }
# The same from an ibsm YAML that names the policy.
printf 'qos: true\nqos_policy_file: %s\nrouting_engine: dfsp\n' "$W/qos.conf" >"$W/ibsm.yaml"
"$ROUTE" --qos "$W/ibsm.yaml" --engine dfsp --vls 8 2>/dev/null | grep -q "^SL2VL: $want_map\$" ||
	fail "ibsm-route --qos ibsm.yaml gives another map"
# The same policy written in the YAML's qos: section (no second file).
cat >"$W/ibsm-sec.yaml" <<EOY
routing_engine: dfsp
qos:
  port-groups:
    - name: Target
      port-guid: $target
  qos-levels:
    - {name: DEFAULT, sl: 0}
    - {name: ToTarget, sl: 4}
  qos-match-rules:
    - use: everything to the target port
      destination: Target
      qos-level-name: ToTarget
  qos-ulps:
    - {ulp: default, sl: 0}
    - {ulp: any, service-id: 0x1000-0x1fff, sl: 2}
EOY
"$ROUTE" --qos "$W/ibsm-sec.yaml" --engine dfsp --vls 8 >"$W/offline-sec.txt" 2>"$W/offline-sec.err" ||
	{ cat "$W/offline-sec.err"; fail "ibsm-route --qos with a qos: section"; }
# (the header names the file the policy came from)
sed "s|$W/qos.conf|POLICY|" "$W/offline.txt" >"$W/offline.cmp"
sed "s|$W/ibsm-sec.yaml|POLICY|" "$W/offline-sec.txt" | diff "$W/offline.cmp" - ||
	fail "ibsm-route --qos: the qos: section plans otherwise than the same policy's file"
# Both a section and a file: one error naming both, exit nonzero.
printf 'qos_policy_file: %s\n' "$W/qos.conf" >>"$W/ibsm-sec.yaml"
"$ROUTE" --qos "$W/ibsm-sec.yaml" --engine dfsp --vls 8 >"$W/both.out" 2>&1 &&
	fail "ibsm-route --qos took a YAML with both a qos: section and qos_policy_file"
grep -q "qos: section and qos_policy_file" "$W/both.out" || { cat "$W/both.out"; fail "no error naming both policies"; }
# Without dfsp: the policy's own SLs on OpenSM's default qos_sl2vl.
"$ROUTE" --qos "$W/qos.conf" --vls 8 | grep -q "^SL2VL: 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\$" ||
	fail "ibsm-route --qos without dfsp: not OpenSM's default map"
sm_reroute "$W/torus.net" "$W/sm.log"
sm_stop_clean "$W/sm.log"
sim_cleanup
echo "ok ibsm-route --qos prints the daemon's map"

# --- 5. a policy that cannot fit ------------------------------------------------------------
cat >"$W/four.conf" <<EOP
qos-ulps
    default                          : 0
    any, service-id 0x1000-0x1fff    : 2
    any, service-id 0x2000-0x2fff    : 4
    any, service-id 0x3000-0x3fff    : 6
end-qos-ulps
EOP
sm_sim "$W/torus.net" restart
rc=0
sim_run "$IBSM_BUILD/bin/ibsm" --once -R dfsp --cache-dir "$W/cache4" --set max_vls=3 \
	--set qos=1 --set qos_policy_file="$W/four.conf" >"$W/four.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$W/four.log"; fail "a policy of 4 classes in 3 VLs: exit $rc, not 1"; }
grep -c "error" "$W/four.log" | grep -qx 1 || { cat "$W/four.log"; fail "not one error line"; }
grep -q "error: QoS policy $W/four.conf with routing_engine dfsp and max_vls: the QoS policy has 4 classes (SLs 0,2,4,6) but there are only 3 data VLs: with layered routing each class needs a VL of its own; give the policy at most 3 distinct SLs, raise max_vls, or route without dfsp" "$W/four.log" ||
	{ cat "$W/four.log"; fail "the error does not say which policy, why and what to change"; }
grep -q "routed with\|sweep 1" "$W/four.log" && fail "ibsm swept with a policy that cannot fit"
"$ROUTE" --qos "$W/four.conf" --engine dfsp --vls 3 >/dev/null 2>"$W/four.offline" && fail "ibsm-route --qos accepted 4 classes in 3 VLs"
grep -q "4 classes (SLs 0,2,4,6) but there are only 3 data VLs" "$W/four.offline" || fail "ibsm-route --qos: no reason"
echo "ok a policy of 4 classes with max_vls=3: one error at start, exit 1 (ibsm-route --qos says the same)"
