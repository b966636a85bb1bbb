#!/bin/sh
# Coming from OpenSM (issue 25): a real opensm.conf (`opensm -c`, then an
# operator's edits) and a partitions.conf go through `ibsm-config import`;
# ibsm loads the YAML with the right values (--dump-config), and every
# option it cannot honour is named FILE:LINE. Then OpenSM brings an ibsim
# fabric up with -D 0x43 and writes opensm-subnet.lst; ibsm-route reads it
# (sniffed), with the nodes and links the net file has, and routes it.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 95 opensm
[ -x "$IBSM_BUILD/bin/ibsm-config" ] || fail "ibsm-config not built (tools/ibsm_config_main.c)"

# --- opensm.conf -> YAML -------------------------------------------------
opensm -c "$W/opensm.conf.default" >/dev/null 2>&1
[ -s "$W/opensm.conf.default" ] || fail "opensm -c wrote nothing"
cat >"$W/partitions.conf" <<'EOP'
# site partitions
Default=0x7fff, ipoib, rate=3 : ALL=limited, SELF=full ;
storage=0x8001, ipoib, mtu=4, defmember=full :
	0x0002c90000002001,
	0x0002c90000002004=limited ;
compute=0x0002,sl=1 : ALL_CAS=full, ALL_SWITCHES=limited;
EOP
sed -e "s|^sm_priority 0|sm_priority 7|" -e "s|^lmc 0|lmc 1|" \
    -e "s|^routing_engine (null)|routing_engine ftree,lash,updn|" \
    -e "s|^sweep_interval 10|sweep_interval 25|" \
    -e "s|^partition_config_file .*|partition_config_file $W/partitions.conf|" \
    -e "s|^qos FALSE|qos TRUE|" -e "s|^console off|console local|" \
    -e "s|^log_flags 0x03|log_flags 0x0f|" -e "s|^max_wire_smps 4|max_wire_smps 16|" \
    -e "s|^no_clients_rereg FALSE|no_clients_rereg TRUE|" -e "s|^perfmgr FALSE|perfmgr TRUE|" \
    "$W/opensm.conf.default" >"$W/opensm.conf"
cmp -s "$W/opensm.conf" "$W/opensm.conf.default" && fail "the edits did not apply"
"$IBSM_BUILD/bin/ibsm-config" import "$W/opensm.conf" -o "$W/ibsm.yaml" 2>"$W/import.err" ||
	{ cat "$W/import.err"; fail "ibsm-config import exit $?"; }
"$IBSM_BUILD/bin/ibsm" -c "$W/ibsm.yaml" --dump-config >"$W/eff.yaml" || fail "ibsm does not load the import"
for kv in "sm_priority: 7" "lmc: 1" 'routing_engine: "ftree,updn"' "sweep_interval: 25" \
	  "log_level: debug" "mad_window: 16" "client_reregister: false" "perf_interval: 180" \
	  "packet_life_time: 18" "head_of_queue_lifetime: 18" "leaf_head_of_queue_lifetime: 16"; do
	grep -qx "$kv" "$W/eff.yaml" || { grep "^${kv%%:*}:" "$W/eff.yaml"; fail "effective config lacks '$kv'"; }
done
# The partitions, in file order, P_Key 0x8001 taken as 0x0001.
sed -n '/^partitions:/,/^[a-z]/p' "$W/eff.yaml" >"$W/parts.yaml"
[ "$(grep -c '^  - name:' "$W/parts.yaml")" = 3 ] || { cat "$W/parts.yaml"; fail "want 3 partitions"; }
grep -q 'members: \[0x0002c90000002001=full, 0x0002c90000002004=limited\]' "$W/parts.yaml" ||
	{ cat "$W/parts.yaml"; fail "storage members"; }
grep -q 'pkey: 0x0001' "$W/parts.yaml" || fail "storage P_Key"
# What cannot be honoured is named with its line.
ln_of() { grep -n "^$1 " "$W/opensm.conf" | cut -d: -f1; }
for k in console qos; do
	grep -q "^$W/opensm.conf:$(ln_of $k): $k " "$W/import.err" || { cat "$W/import.err"; fail "no FILE:LINE for $k"; }
done
grep -q "^$W/opensm.conf:$(ln_of routing_engine): routing_engine lash: not honoured" "$W/import.err" ||
	fail "lash not named"
grep -q "^$W/partitions.conf:6: compute flag 'sl=1': not honoured" "$W/import.err" || fail "sl=1 not named"
[ "$(grep -c 'not honoured: ' "$W/import.err")" = 4 ] || { cat "$W/import.err"; fail "want exactly 4 not honoured"; }
echo "ok import: $(tail -1 "$W/import.err")"
# OpenSM's defaults alone: nothing lost, strict passes.
"$IBSM_BUILD/bin/ibsm-config" import --strict "$W/opensm.conf.default" -o "$W/def.yaml" 2>"$W/def.err" ||
	{ cat "$W/def.err"; fail "defaults not clean under --strict"; }
"$IBSM_BUILD/bin/ibsm-config" import --strict "$W/opensm.conf" -o /dev/null 2>/dev/null
[ $? = 3 ] || fail "--strict with options not honoured must exit 3"
# Bad input: a partition without ':' is FILE:LINE and exit 1.
printf 'broken=0x10, ipoib ALL=full ;\n' >"$W/bad.parts"
"$IBSM_BUILD/bin/ibsm-config" import -p "$W/bad.parts" "$W/opensm.conf.default" -o /dev/null 2>"$W/bad.err"
[ $? = 1 ] && grep -q "^$W/bad.parts:1: " "$W/bad.err" || { cat "$W/bad.err"; fail "bad partitions.conf"; }
# A value out of ibsm's range: named by its OpenSM line.
printf '# site\nsm_priority 99\n' >"$W/range.conf"
"$IBSM_BUILD/bin/ibsm-config" import "$W/range.conf" -o /dev/null 2>"$W/range.err"
[ $? = 1 ] && grep -q "range.conf:2: sm_priority: bad value" "$W/range.err" || { cat "$W/range.err"; fail "out-of-range value"; }
echo "ok defaults clean, --strict, bad input"
# qos TRUE with a policy file: carried over (issue 28); a bad policy is
# named with its file:line; qos FALSE keeps it a comment.
printf 'qos-ulps\n    default : 0\n    any, service-id 0x1000-0x1fff : 2\nend-qos-ulps\n' >"$W/qos-policy.conf"
"$IBSM_BUILD/bin/ibsm-config" import -Q "$W/qos-policy.conf" "$W/opensm.conf" -o "$W/qos.yaml" 2>"$W/qos.err" ||
	{ cat "$W/qos.err"; fail "import with a QoS policy"; }
"$IBSM_BUILD/bin/ibsm" -c "$W/qos.yaml" --dump-config >"$W/qos.eff" || fail "ibsm does not load the QoS import"
grep -qx "qos: true" "$W/qos.eff" && grep -qx "qos_policy_file: \"$W/qos-policy.conf\"" "$W/qos.eff" ||
	{ grep "^qos" "$W/qos.eff"; fail "qos keys not carried over"; }
grep -q "^$W/opensm.conf:$(ln_of qos): qos " "$W/qos.err" && fail "qos TRUE with a policy still named not honoured"
printf 'qos-ulps\n    default : 0\n    nfs : 2\nend-qos-ulps\n' >"$W/bad-qos.conf"
"$IBSM_BUILD/bin/ibsm-config" import -Q "$W/bad-qos.conf" "$W/opensm.conf" -o /dev/null 2>"$W/bad-qos.err"
[ $? = 1 ] && grep -q "^$W/bad-qos.conf:3: qos-ulps: unknown ULP 'nfs'" "$W/bad-qos.err" ||
	{ cat "$W/bad-qos.err"; fail "bad qos-policy.conf not named with file:line"; }
"$IBSM_BUILD/bin/ibsm-config" import -Q "$W/qos-policy.conf" "$W/opensm.conf.default" -o "$W/qos-off.yaml" 2>/dev/null
grep -q "^# qos_policy_file: $W/qos-policy.conf" "$W/qos-off.yaml" && ! grep -q "^qos:" "$W/qos-off.yaml" ||
	fail "qos FALSE: the policy must stay a comment"
# The qos_* table options are carried as they are (OpenSM's "not set"
# values are defaults both ways); a table ibsm cannot read is named.
printf 'qos TRUE\nqos_policy_file %s\nqos_ca_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\nqos_swe_vlarb_low 0:8,1:16\nqos_high_limit 4\nqos_sw0_max_vls 0\n' \
	"$W/qos-policy.conf" >"$W/qos-tbl.conf"
"$IBSM_BUILD/bin/ibsm-config" import --strict "$W/qos-tbl.conf" -o "$W/qos-tbl.yaml" 2>"$W/qos-tbl.err" ||
	{ cat "$W/qos-tbl.err"; fail "qos_* options not carried"; }
"$IBSM_BUILD/bin/ibsm" -c "$W/qos-tbl.yaml" --dump-config >"$W/qos-tbl.eff" || fail "ibsm does not load the qos_* import"
grep -qx 'qos_ca_sl2vl: "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"' "$W/qos-tbl.eff" && grep -qx 'qos_swe_vlarb_low: "0:8,1:16"' "$W/qos-tbl.eff" &&
	grep -qx 'qos_high_limit: 4' "$W/qos-tbl.eff" && grep -qx 'qos_sw0_max_vls: 0' "$W/qos-tbl.eff" ||
	{ grep "^qos" "$W/qos-tbl.eff"; fail "qos_* values not as in the OpenSM file"; }
printf 'qos_swe_vlarb_low 0:1,15:3\n' >"$W/qos-bad.conf"
"$IBSM_BUILD/bin/ibsm-config" import "$W/qos-bad.conf" -o /dev/null 2>"$W/qos-bad.err"
[ $? = 1 ] && grep -q "qos-bad.conf:1: qos_swe_vlarb_low: bad value" "$W/qos-bad.err" || { cat "$W/qos-bad.err"; fail "bad qos_ table not named"; }
echo "ok QoS policy carried over with qos TRUE, a comment with qos FALSE, errors with file:line; qos_* tables carried"

# --- OpenSM's subnet.lst -------------------------------------------------
NET=$top/tests/data/small_2sw.net
sm_sim "$NET"
mkdir -p "$W/osm.dump"
OSM_CACHE_DIR="$W/osm.cache" sim_run timeout 120 opensm -o -D 0x43 --dump_files_dir "$W/osm.dump" \
	-f "$W/osm.log" >"$W/osm.out" 2>&1 || fail "opensm -o exited $?"
L=$W/osm.dump/opensm-subnet.lst
[ -s "$L" ] || fail "OpenSM wrote no opensm-subnet.lst"
"$IBSM_BUILD/bin/ibsm-route" --topo "$L" --engine updn --check >"$W/route.json" 2>"$W/route.err" ||
	{ cat "$W/route.err"; fail "ibsm-route on subnet.lst exit $?"; }
grep -q '"ok": true' "$W/route.json" || fail "routing subnet.lst did not verify"
"$IBSM_BUILD/bin/topo-diff" "$NET" "$L" >"$W/diff.out" 2>&1 || { cat "$W/diff.out"; fail "subnet.lst differs from the net file"; }
grep -q "2 switches, 4 CAs" "$W/route.err" || { cat "$W/route.err"; fail "counts"; }
echo "ok subnet.lst: $(wc -l <"$L") lines read, $(head -1 "$W/route.err" | cut -d';' -f1), same fabric as the net file"
# Bad subnet.lst lines: FILE:LINE and exit 2, never a crash.
head -c 300 "$L" >"$W/trunc.lst"; echo >>"$W/trunc.lst"
"$IBSM_BUILD/bin/ibsm-route" --topo "$W/trunc.lst" >/dev/null 2>"$W/trunc.err"
[ $? = 2 ] && grep -q "trunc.lst:1: bad {description}" "$W/trunc.err" || { cat "$W/trunc.err"; fail "truncated subnet.lst"; }
sed '3s/PN:0[1-8] }/PN:63 }/' "$L" >"$W/badpn.lst"
"$IBSM_BUILD/bin/ibsm-route" --topo "$W/badpn.lst" >/dev/null 2>"$W/badpn.err"
[ $? = 2 ] && grep -q "badpn.lst:3: bad PN:" "$W/badpn.err" || { cat "$W/badpn.err"; fail "subnet.lst with a bad port"; }
echo "ok bad subnet.lst lines named"
echo "PASS"
