#!/bin/sh
# The OpenSM plugin (libibsm-opensm.so) inside a stock OpenSM under ibsim.
#  - ibsm-updn and ibsm-ftree route a generated 3-level fat-tree and a
#    degraded one (5% of links removed), ibsm-ftree also with LMC 1: OpenSM's log names our engine in
#    its "<engine> tables configured on all switches" line (no fallback),
#    the subnet comes UP, and the real diag tools judge the result
#    (sm_lib.sh: ports ACTIVE, unique LIDs, complete dump_fts tables that
#    equal what the plugin computed, ibtracert between sampled CA pairs,
#    `ibsm-route --lfts-in --check` on the dumped tables, with the routes
#    to switch LIDs in the credit-loop check);
#  - ibsm-ftree on issue 24's reproducer (random GUIDs, 5% of the links
#    removed, tests/data): the same, no credit loop with switch LIDs;
#  - offline: ibsm-route on ibnetdiscover's view of the same fabric (same
#    LIDs, nodes sorted by GUID as the plugin orders them) gives the very
#    tables the switches hold;
#  - failures: ibsm-ftree on a torus refuses with a reason and OpenSM moves
#    on to the next engine of its list (ibsm-updn), or to its own minhop
#    when the list is just "ibsm-ftree"; bad event_plugin_options make our
#    engines refuse, never crash OpenSM; the subnet comes UP every time.
# ibsm-ftree parts are skipped (with a note) while `ftree` is not
# registered; the offline comparison while ibsm-route is not built.
. "$(dirname "$0")/sm_lib.sh"

PLUGIN=$IBSM_BUILD/lib/libibsm-opensm.so
TOPO=$IBSM_BUILD/bin/ibsm-topo
ROUTE=$IBSM_BUILD/bin/ibsm-route
[ -f "$UMAD2SIM" ] || { echo "skip: libumad2sim not installed"; exit 77; }
[ -f "$PLUGIN" ] || { echo "skip: $PLUGIN not built"; exit 77; }
test_need_built ibsm-topo
test_start 40 opensm ibsim dump_fts ibnetdiscover ibtracert iblinkinfo

osm_plugin_env "$PLUGIN"

# osm_run NAME ROUTING_ENGINE [EXTRA_PLUGIN_OPTIONS]
# One OpenSM sweep (-o) with the plugin on the running ibsim fabric. The
# plugin dumps the graph it routed and its tables to $W/NAME.dump/.
osm_conf() { # NAME ROUTING_ENGINE [EXTRA_PLUGIN_OPTIONS]
	mkdir -p "$W/$1.dump" "$W/$1.cache"
	cat >"$W/$1.conf" <<-EOF
	# OpenSM with ibsm's engines (docs/opensm-plugin.md)
	event_plugin_name ibsm-opensm
	event_plugin_options dump=$W/$1.dump/plugin ${3:-}
	routing_engine $2
	${OSM_CONF_EXTRA:-}
	EOF
}

osm_run() {
	_n=$1
	osm_conf "$@"
	OSM_CACHE_DIR="$W/$_n.cache" LD_PRELOAD="$OSM_PRELOAD" ASAN_OPTIONS="$OSM_ASAN" \
		LD_LIBRARY_PATH="$IBSM_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		timeout 120 opensm -F "$W/$_n.conf" -o -D 0x07 -f "$W/$_n.osm.log" \
		>"$W/$_n.osm.out" 2>&1
	_rc=$?
	[ $_rc -eq 0 ] || { tail -20 "$W/$_n.osm.out"; grep -i "ibsm\|ERR" "$W/$_n.osm.log" | tail; \
		fail "$_n: opensm exited $_rc"; }
	grep -q "SUBNET UP" "$W/$_n.osm.log" || { grep -i "ibsm\|ERR" "$W/$_n.osm.log" | tail; \
		fail "$_n: OpenSM did not reach SUBNET UP"; }
	grep -q "registered routing engine ibsm-updn" "$W/$_n.osm.log" ||
		fail "$_n: the plugin did not register ibsm-updn"
}

# wait_log FILE PATTERN COUNT SECONDS: until PATTERN appears COUNT times.
wait_log() {
	_i=0
	# grep -c prints nothing while the file does not exist yet.
	while _c=$(grep -c "$2" "$1" 2>/dev/null); [ "${_c:-0}" -lt "$3" ]; do
		_i=$((_i + 1))
		[ $_i -gt $(($4 * 10)) ] && return 1
		sleep 0.1
	done
}

# The engine OpenSM says configured the switches (its own log line).
osm_used() {
	sed -n 's/.*osm_ucast_mgr_process: \([^ ]*\) tables configured on all switches.*/\1/p' \
		"$W/$1.osm.log" | tail -1
}

# osm_expect_ours NAME ENGINE: ENGINE routed, no fallback.
osm_expect_ours() {
	_u=$(osm_used "$1")
	[ "$_u" = "$2" ] || { grep "ibsm:" "$W/$1.osm.log"; \
		fail "$1: OpenSM used '$_u', not $2"; }
	grep -q "ibsm: $2 refused" "$W/$1.osm.log" && fail "$1: $2 refused"
	grep "ibsm: $2 routed" "$W/$1.osm.log" | tail -1 | sed 's/.*ibsm: /  /'
	# The plugin's tables, in sm_check_fabric's place for "ours".
	cp "$W/$1.dump/plugin.lfts" "$W/$1.dump/lfts.txt" || fail "$1: no plugin dump"
}

# offline_compare NAME ENGINE: ibsm-route on ibnetdiscover's view gives
# what dump_fts shows (needs sm_check_fabric's $W/NAME.ibnd, .fts.e).
offline_compare() {
	if [ ! -x "$ROUTE" ]; then
		echo "  note: ibsm-route not built; offline comparison skipped"
		return 0
	fi
	ibnd_sorted "$W/$1.ibnd" >"$W/$1.sorted.ibnd"
	_lmc=$(sed -n 's/^lmc \([0-9]\).*/\1/p' "$W/$1.conf")
	"$ROUTE" --topo "$W/$1.sorted.ibnd" --engine "$2" --lmc "${_lmc:-0}" \
		--out "$W/$1.offline.fts" -q >"$W/$1.offline.log" 2>&1 ||
		{ cat "$W/$1.offline.log"; fail "$1: ibsm-route --engine $2 failed"; }
	fts_entries "$W/$1.offline.fts" | sort >"$W/$1.offline.e"
	sort "$W/$1.fts.e" >"$W/$1.fts.s"
	_d1=$(comm -23 "$W/$1.fts.s" "$W/$1.offline.e" | wc -l)
	_d2=$(comm -13 "$W/$1.fts.s" "$W/$1.offline.e" | wc -l)
	[ "$_d1" -eq 0 ] && [ "$_d2" -eq 0 ] || {
		comm -3 "$W/$1.fts.s" "$W/$1.offline.e" | head -6
		fail "$1: switches and ibsm-route --engine $2 differ ($_d1 / $_d2 entries)"; }
	echo "  offline ibsm-route --engine $2: $(wc -l <"$W/$1.fts.s") entries identical"
}

# LMC > 0: sm_check_fabric's verifier call assumes LMC 0, so check here:
# the switches hold the plugin's tables (alias LIDs included), and the
# verifier, told the LMC, accepts them (complete, loop- and deadlock-free,
# path diversity measured).
check_lmc() { # NAME LMC
	sim_run ibnetdiscover >"$W/$1.ibnd" 2>/dev/null || fail "$1: ibnetdiscover failed"
	sim_run dump_fts >"$W/$1.fts" 2>/dev/null || fail "$1: dump_fts failed"
	fts_entries "$W/$1.fts" | sort >"$W/$1.fts.e"
	fts_entries "$W/$1.dump/lfts.txt" | sort >"$W/$1.ours.e"
	comm -3 "$W/$1.fts.e" "$W/$1.ours.e" | head -3 | grep -q . &&
		fail "$1: switches do not hold the plugin's tables"
	# Every switch routes 2^LMC LIDs per CA port plus each switch's LID
	# (dump_fts may drop the top LID when it is a multiple of 64).
	_nca=$(awk '/^Ca/ { ca = 1; next } /^Switch/ { ca = 0 } /^\[/ && ca { n++ } END { print n + 0 }' "$W/$1.ibnd")
	_nsw=$(grep -c "^Switch" "$W/$1.ibnd")
	_want=$((_nca * (1 << $2) + _nsw - 1))
	_short=$(awk -v w="$_want" '{ c[$1]++ } END { for (g in c) if (c[g] < w) n++; print n + 0 }' "$W/$1.fts.e")
	[ "$_short" -eq 0 ] || fail "$1: $_short switches route fewer than $_want LIDs"
	if [ -x "$ROUTE" ]; then
		"$ROUTE" --topo "$W/$1.ibnd" --lfts-in "$W/$1.fts" --lmc "$2" --check \
			>"$W/$1.verify" 2>&1 || { cat "$W/$1.verify"; fail "$1: verifier rejects LMC $2 tables"; }
		echo "  verifier (LMC $2): ok, min disjoint paths $(sed -n 's/.*"min_disjoint_paths"[^0-9]*\([0-9.]*\).*/\1/p' "$W/$1.verify")"
	fi
	echo "ok $1: $(wc -l <"$W/$1.fts.e") entries, $_nca CA ports x $((1 << $2)) LIDs + $_nsw switches per switch"
}

# routed NAME ENGINE TOPO_ARGS...: bring the fabric up with ibsm-ENGINE.
routed() {
	_name=$1 _eng=$2; shift 2
	"$TOPO" "$@" -o "$W/$_name.net" >/dev/null 2>&1 || fail "$_name: ibsm-topo $*"
	routed_net "$_name" "$_eng" "$W/$_name.net"
}

# routed_net NAME ENGINE NET: the same on a net file. With LMC 0 the
# verifier also puts the routes to switch LIDs in its credit-loop check
# (--cdg-switch-lids, as the daemon's own verification does): SMPs, PerfMgr
# GMPs and SA traffic to switches share VL0 with the data.
routed_net() {
	_name=$1 _eng=$2
	sm_sim "$3" "$_name"
	osm_run "$_name" "ibsm-$_eng"
	osm_expect_ours "$_name" "ibsm-$_eng"
	_lmc=$(sed -n 's/^lmc \([0-9]\).*/\1/p' "$W/$_name.conf")
	if [ "${_lmc:-0}" -eq 0 ]; then
		sm_check_fabric "$_name"
		if [ -x "$ROUTE" ]; then
			"$ROUTE" --topo "$W/$_name.ibnd" --lfts-in "$W/$_name.fts" --check \
				--cdg-switch-lids >"$W/$_name.swcdg" 2>&1 ||
				{ tail -3 "$W/$_name.swcdg"; fail "$_name: the switches' tables fail --cdg-switch-lids"; }
			echo "  $_name: no credit loop with the routes to switch LIDs"
		fi
	else
		check_lmc "$_name" "$_lmc"
	fi
	offline_compare "$_name" "$_eng"
	sim_cleanup
}

FT="fattree --levels 3 --radix 8"
DEG="fattree --levels 3 --radix 8 --remove 0.05 --seed 3"
routed ft3-updn updn $FT
# The plugin registers every engine of the registry: is ftree there yet?
have_ftree=0
grep -q "registered routing engine ibsm-ftree" "$W/ft3-updn.osm.log" && have_ftree=1
routed deg-updn updn $DEG
if [ $have_ftree -eq 1 ]; then
	routed ft3-ftree ftree $FT
	routed deg-ftree ftree $DEG
	# Issue 24: random GUIDs (OpenSM orders the nodes by GUID, as the
	# daemon does), 5% of the links removed: the switch-LID routes kept
	# a credit loop before the detours turned at a hub.
	routed_net rguid-ftree ftree "$top/tests/data/ft3-r12-deg5-rguid-s1.net"
	# LMC 1: two LIDs per port, the engine spreads them over paths.
	OSM_CONF_EXTRA="lmc 1" routed lmc1-ftree ftree $FT
	grep -q "ibsm: ibsm-ftree routed .*(LMC 1)" "$W/lmc1-ftree.osm.log" ||
		fail "lmc1: the plugin did not route with LMC 1"
else
	echo "note: ftree is not in the engine registry yet; ibsm-ftree parts skipped"
fi

# A running OpenSM re-routes with our engine when a link fails (trap 128
# from the switches, heavy sweep); with reroute=1 ftree keeps the entries
# that are still valid, so few change.
live_eng=updn
[ $have_ftree -eq 1 ] && live_eng=ftree
"$TOPO" $FT -o "$W/live.net" >/dev/null 2>&1 || fail "live: ibsm-topo"
sm_sim "$W/live.net" live
osm_conf live "ibsm-$live_eng" "reroute=1"
OSM_CACHE_DIR="$W/live.cache" LD_LIBRARY_PATH="$IBSM_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	sim_bg env LD_PRELOAD="$OSM_PRELOAD" ASAN_OPTIONS="$OSM_ASAN" \
	opensm -F "$W/live.conf" -D 0x07 -d2 -f "$W/live.osm.log" >"$W/live.osm.out" 2>&1
wait_log "$W/live.osm.log" "SUBNET UP" 1 60 || fail "live: no SUBNET UP"
wait_log "$W/live.osm.log" "ibsm: ibsm-$live_eng routed" 1 10 || fail "live: not routed by us"
cp "$W/live.dump/plugin.lfts" "$W/live.before.lfts" || fail "live: no plugin dump"
ibsim_cmd 'Unlink "leaf-0"[5]'
wait_log "$W/live.osm.log" "ibsm: ibsm-$live_eng routed" 2 60 ||
	{ grep "ibsm:" "$W/live.osm.log"; fail "live: no re-route after a link went down"; }
wait_log "$W/live.osm.log" "ibsm-$live_eng tables configured" 2 30 ||
	fail "live: OpenSM did not configure our tables after the failure"
wait_log "$W/live.osm.log" "SUBNET UP" 2 30 || {
	grep "ERR\|Errors during" "$W/live.osm.log" | tail -5
	fail "live: no SUBNET UP after the re-route"; }
osm_expect_ours live "ibsm-$live_eng"
sleep 1     # let OpenSM finish programming before reading the switches
sm_check_fabric live
fts_entries "$W/live.before.lfts" | sort >"$W/live.before.e"
fts_entries "$W/live.dump/lfts.txt" | sort >"$W/live.after.e"
_chg=$(comm -23 "$W/live.after.e" "$W/live.before.e" | wc -l)
_all=$(wc -l <"$W/live.after.e")
echo "  link leaf-0/5 down: re-routed, $_chg of $_all entries changed"
if [ "$live_eng" = ftree ]; then
	[ $((_chg * 10)) -lt "$_all" ] || fail "live: reroute=1 changed $_chg of $_all entries"
fi
sim_cleanup

# Failures fall back cleanly. A torus is no fat-tree.
"$TOPO" torus --dims 4x4 --hcas-per-switch 2 -o "$W/torus.net" >/dev/null 2>&1 ||
	fail "ibsm-topo torus"
sm_sim "$W/torus.net" torus
if [ $have_ftree -eq 1 ]; then
	osm_run torus-list "ibsm-ftree,ibsm-updn"
	grep -q "ibsm: ibsm-ftree refused the fabric.*: ." "$W/torus-list.osm.log" ||
		fail "torus: ibsm-ftree did not log a refusal with a reason"
	grep "ibsm: ibsm-ftree refused" "$W/torus-list.osm.log" | sed 's/.*ibsm: /  /'
	osm_expect_ours torus-list ibsm-updn
	sm_check_fabric torus-list
	osm_run torus-alone ibsm-ftree
	[ "$(osm_used torus-alone)" = minhop ] ||
		fail "torus: after ibsm-ftree refused alone, OpenSM used '$(osm_used torus-alone)'"
	echo "  ibsm-ftree alone: OpenSM fell back to its minhop, SUBNET UP"
fi
# Bad options: our engine refuses (saying why), OpenSM's minhop routes.
osm_run torus-badopt ibsm-updn "no_such_option=1"
grep -q "unknown option \"no_such_option\"" "$W/torus-badopt.osm.log" ||
	fail "bad options: no message naming the option"
[ "$(osm_used torus-badopt)" = minhop ] ||
	fail "bad options: OpenSM used '$(osm_used torus-badopt)', not its minhop"
# A root GUID file that does not exist: refuse, fall back.
osm_run torus-noroots ibsm-updn "roots=$W/no-such-file"
grep -q "ibsm: ibsm-updn refused the fabric.*no-such-file" "$W/torus-noroots.osm.log" ||
	fail "missing roots file: no refusal naming it"
[ "$(osm_used torus-noroots)" = minhop ] || fail "missing roots file: no fallback"
echo "  bad options and a missing roots file: refused with a reason, minhop routed"
sim_cleanup

# Rank order (issue 13): hosts cabled in a shuffled port order. ibsm-ftree
# in OpenSM routes for host-name order by default (shifts in that order
# congestion-free, judged on what dump_fts reads from the switches);
# cn_order=port brings the congestion back.
if [ $have_ftree -eq 1 ]; then
	"$TOPO" fattree --levels 2 --radix 8 --shuffle-hosts --seed 3 -o "$W/shuf.net" >/dev/null ||
		fail "ibsm-topo shuffled"
	sm_sim "$W/shuf.net" shuffled
	for v in rank port; do
		opt=""; [ $v = port ] && opt="cn_order=port"
		osm_run shuf-$v ibsm-ftree "$opt"
		osm_expect_ours shuf-$v ibsm-ftree
		sim_run ibnetdiscover >"$W/shuf-$v.ibnd" 2>/dev/null || fail "shuffled: ibnetdiscover"
		sim_run dump_fts >"$W/shuf-$v.fts" 2>/dev/null || fail "shuffled: dump_fts"
		"$ROUTE" --topo "$W/shuf-$v.ibnd" --lfts-in "$W/shuf-$v.fts" --check --shifts 0 \
			>"$W/shuf-$v.json" 2>/dev/null || fail "shuffled $v: tables fail verification"
		eval "cong_$v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shifts_congested"])' "$W/shuf-$v.json")"
	done
	echo "  shuffled hosts: $cong_rank shifts congested in host order with the rank order, $cong_port with cn_order=port"
	[ "$cong_rank" = 0 ] || fail "ibsm-ftree in OpenSM: shifts congested in host-name order"
	[ "$cong_port" -gt 0 ] || fail "cn_order=port made no difference"
	sim_cleanup
fi
echo "ok: OpenSM plugin"
exit 0
