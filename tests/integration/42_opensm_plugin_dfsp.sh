#!/bin/sh
# ibsm-dfsp inside OpenSM (issue 11, item 4): OpenSM's own SA hands out our
# path SLs (path_sl callback) and, with QoS on, programs SL n -> VL n
# (update_sl2vl callback). On a 4x4 torus (two HCAs per switch) under ibsim:
#  1. OpenSM -Q with routing_engine ibsm-dfsp: SUBNET UP with ibsm-dfsp (no
#     fallback), the plugin logs more than one SL layer;
#  2. smpquery sl2vl on a switch: SL n -> VL n for the layers used, the
#     other SLs as the QoS configuration says (here all on VL 0);
#  3. saquery -p SLs (OpenSM's SA) equal the plugin's path SLs, and those
#     equal `ibsm-route --engine dfsp --sl-out` on ibnetdiscover's view of
#     the fabric (same LIDs, nodes sorted by GUID as the plugin orders them);
#  4. the switches' tables (dump_fts) with those SLs pass --check per SL
#     (credit-loop-free on every layer);
#  5. without QoS (OpenSM would put every SL on VL 0) ibsm-dfsp asks dfsp
#     for one layer, says so, and routes on the dependency graph: the
#     switches' tables pass the one-VL credit-loop check with CA-to-switch-
#     LID routes, and OpenSM does not fall back.
. "$(dirname "$0")/sm_lib.sh"
PLUGIN=$IBSM_BUILD/lib/libibsm-opensm.so
ROUTE=$IBSM_BUILD/bin/ibsm-route
[ -f "$UMAD2SIM" ] || { echo "skip: libumad2sim not installed"; exit 77; }
[ -f "$PLUGIN" ] || { echo "skip: $PLUGIN not built"; exit 77; }
test_start 42 opensm ibsim dump_fts ibnetdiscover saquery smpquery

osm_plugin_env "$PLUGIN"
# osm_start NAME QOS ROUTING_ENGINE: OpenSM daemon with the plugin.
osm_start() {
	mkdir -p "$W/$1.dump" "$W/$1.cache"
	cat >"$W/$1.conf" <<-EOF
	event_plugin_name ibsm-opensm
	event_plugin_options dump=$W/$1.dump/plugin
	routing_engine $3
	qos $2
	${OSM_EXTRA:-}
	EOF
	sim_bg env OSM_CACHE_DIR="$W/$1.cache" LD_PRELOAD="$OSM_PRELOAD" ASAN_OPTIONS="$OSM_ASAN" \
		LD_LIBRARY_PATH="$IBSM_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		opensm -F "$W/$1.conf" -d2 -D 0x07 -f "$W/$1.osm.log" >"$W/$1.osm.out" 2>&1
	OSM=$SIM_LAST_PID
	wait_log "$W/$1.osm.log" "SUBNET UP" 60 || { grep -i "ibsm\|ERR" "$W/$1.osm.log" | tail; fail "$1: no SUBNET UP"; }
}
osm_stop() { sim_stop_pid "$OSM"; }
osm_used() {
	sed -n 's/.*osm_ucast_mgr_process: \([^ ]*\) tables configured on all switches.*/\1/p' "$W/$1.osm.log" | tail -1
}

sm_topo torus torus --dims 4x4 --hcas-per-switch 2
client=$(ibsim_ca_name "$W/torus.net" 3)

# --- 1-4: QoS on --------------------------------------------------------------------
sm_sim "$W/torus.net"
# QoS maps every SL to VL 0 here, so SL n -> VL n can only come from
# our update_sl2vl (OpenSM's default map is already 0..7,0..7).
OSM_EXTRA="qos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0" osm_start q TRUE ibsm-dfsp
[ "$(osm_used q)" = ibsm-dfsp ] || { grep "ibsm" "$W/q.osm.log" | tail; fail "OpenSM used '$(osm_used q)', not ibsm-dfsp"; }
grep "ibsm: ibsm-dfsp routed" "$W/q.osm.log" | tail -1 | sed 's/.*ibsm: /  /'
layers=$(sed -n 's/.*ibsm: ibsm-dfsp routed .*; \([0-9]*\) SL layers.*/\1/p' "$W/q.osm.log" | tail -1)
[ -n "$layers" ] && [ "$layers" -gt 1 ] || fail "ibsm-dfsp did not route on several layers (${layers:-none})"
[ -s "$W/q.dump/plugin.sl" ] || fail "no path-SL dump"
echo "ok 1: OpenSM -Q routed with ibsm-dfsp on $layers layers"

sim_run ibnetdiscover >"$W/torus.ibnd" 2>/dev/null || fail "ibnetdiscover"
sw=$(awk '/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$W/torus.ibnd")
sim_run smpquery sl2vl "$sw" 1 >"$W/sl2vl" 2>/dev/null || fail "smpquery sl2vl"
row=$(grep "in  2, out  1" "$W/sl2vl" | tr -d ' ' | sed 's/.*out1:|//')
want=$(awk -v n="$layers" 'BEGIN { for (s = 0; s < 16; s++) printf "%d|", s < n ? s : 0 }')
[ "$row" = "$want" ] || { cat "$W/sl2vl"; fail "switch LID $sw: SL2VL in 2 out 1 is '$row', want '$want' (SL n -> VL n for n < $layers, QoS's VL 0 for the rest)"; }
echo "ok 2: smpquery sl2vl: SL n -> VL n for n < $layers, the rest as QoS says ($row)"

ibnd_sorted "$W/torus.ibnd" >"$W/torus.sorted.ibnd"
"$ROUTE" --topo "$W/torus.sorted.ibnd" --engine dfsp --sl-out "$W/offline.sl" --out "$W/offline.lfts" >/dev/null 2>"$W/offline.err" ||
	{ cat "$W/offline.err"; fail "ibsm-route --engine dfsp on ibnetdiscover's view failed"; }
# The plugin's dump also holds CA-to-switch-LID paths; --sl-out only
# CA-to-CA ones: each of those must be in the dump with the same SL.
grep -v '^#' "$W/offline.sl" | sort >"$W/a.sl"; grep -v '^#' "$W/q.dump/plugin.sl" | sort >"$W/b.sl"
[ -s "$W/a.sl" ] || fail "ibsm-route --sl-out wrote no paths"
missing=$(comm -23 "$W/a.sl" "$W/b.sl" | wc -l)
[ "$missing" -eq 0 ] || { comm -23 "$W/a.sl" "$W/b.sl" | head; fail "$missing paths of ibsm-route --sl-out differ in the plugin's path SLs"; }
n=0
for pair in $(grep -v '^#' "$W/q.dump/plugin.sl" | awk 'NR % 53 == 1 { print $1 ":" $2 ":" $3 }'); do
	s=${pair%%:*}; r=${pair#*:}; d=${r%%:*}; want_sl=${r#*:}
	got=$(SIM_HOST=$client sim_run saquery -p --slid "$s" --dlid "$d" 2>/dev/null | sed -n 's/.*sl\.*0x\([0-9a-f]*\)$/\1/p')
	[ -n "$got" ] && [ "$((0x$got))" = "$want_sl" ] || fail "OpenSM saquery -p $s -> $d: SL ${got:-none}, the layers need $want_sl"
	n=$((n + 1))
done
[ $n -ge 10 ] || fail "only $n pairs compared"
echo "ok 3: OpenSM's SA answers our SLs ($n pairs), equal to ibsm-route --sl-out"

sim_run dump_fts >"$W/torus.fts" 2>/dev/null || fail "dump_fts"
"$ROUTE" --topo "$W/torus.sorted.ibnd" --lfts-in "$W/torus.fts" --sl-in "$W/q.dump/plugin.sl" --check \
	>"$W/layers.json" 2>"$W/layers.err" || { cat "$W/layers.err"; tail -3 "$W/layers.json"; fail "the switches' tables with the plugin's SLs fail --check"; }
grep -q '"sl_layers":{"vls_used":'"$layers"',"credit_loop":0' "$W/layers.json" || { tail -2 "$W/layers.json"; fail "per-SL check not clean"; }
echo "ok 4: dump_fts with the plugin's SLs: complete, credit-loop-free on each of $layers layers"
osm_stop
sim_cleanup

# --- 5: QoS off ---------------------------------------------------------------------
sm_sim "$W/torus.net" 5
osm_start n FALSE ibsm-dfsp,ibsm-updn
grep -q "ibsm: dfsp: OpenSM runs without QoS: routing on one layer" "$W/n.osm.log" ||
	{ grep "ibsm" "$W/n.osm.log" | tail; fail "ibsm-dfsp without QoS did not say it routes on one layer"; }
[ "$(osm_used n)" = ibsm-dfsp ] || fail "without QoS OpenSM used '$(osm_used n)', not ibsm-dfsp on one layer"
sim_run ibnetdiscover -s >"$W/n.ibnd" 2>/dev/null || fail "ibnetdiscover (5)"
sim_run dump_fts >"$W/n.fts" 2>/dev/null || fail "dump_fts (5)"
"$ROUTE" --topo "$W/n.ibnd" --lfts-in "$W/n.fts" --check --cdg-switch-lids >"$W/n.json" 2>"$W/n.err" ||
	{ cat "$W/n.err"; fail "without QoS: the switches' tables are not credit-loop-free on one VL"; }
echo "ok 5: without QoS ibsm-dfsp routes on one layer (dependency graph), credit-loop-free on VL 0"
osm_stop
echo "PASS"
