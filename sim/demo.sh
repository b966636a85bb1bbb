#!/bin/sh
# make demo: a simulated fat-tree brought up from cold by ibsm, then checked
# with the real InfiniBand tools, not with ours alone:
#   ibnetdiscover   every node found, every port a unique LID
#   iblinkinfo      every linked port ACTIVE
#   dump_fts        every switch's LFT, judged by our verifier (complete,
#                   loop-free, credit-loop-free, link balance)
#   ibtracert       sampled CA pairs reach each other
#   sminfo          the master SM is us (ibsm restarted as a daemon, which
#                   must also keep every LID)
# Prints one PASS/FAIL line per check and exits nonzero if any failed.
#
#   sh sim/demo.sh [BUILD_DIR]       (BUILD_DIR defaults to build)
#   DEMO_NET=file.net sh sim/demo.sh  another fabric
#   DEMO_KEEP=1 ...                   keep the work directory (logs, dumps)
#   IBSM=/path/to/ibsm ...            another SM binary with ibsm's options
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
IBSM=${IBSM:-$B/bin/ibsm}
ROUTE=$B/bin/ibsm-route
TOPO=$B/bin/ibsm-topo
NET=${DEMO_NET:-$top/sim/fabrics/demo-fattree.net}
IBSM_TIMEOUT=${IBSM_TIMEOUT:-120}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-demo.XXXXXX")
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# Show the end of a log under a failure, indented.
show() { [ -s "$1" ] && tail -"${2:-15}" "$1" | sed 's/^/    | /'; }

. "$top/sim/ibsim_harness.sh"
cleanup() {
	sim_cleanup             # the daemon (by pid), then ibsim (by pid)
	if [ -n "${DEMO_KEEP:-}" ]; then
		echo "demo: work files kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

finish() {
	total=$((passed + failed))
	if [ $failed -eq 0 ]; then
		echo "demo: PASS ($passed/$total checks)"
		exit 0
	fi
	echo "demo: FAIL ($failed of $total checks failed)"
	exit 1
}

# --- prerequisites -----------------------------------------------------------
missing=""
for t in ibsim ibnetdiscover iblinkinfo dump_fts ibtracert sminfo ibstat; do
	command -v $t >/dev/null 2>&1 || missing="$missing $t"
done
[ -f "$UMAD2SIM" ] || missing="$missing libumad2sim.so(ibsim-utils)"
if [ -n "$missing" ]; then
	fail "missing tools:$missing (run: make deps)"
	finish
fi
for p in "$IBSM" "$ROUTE"; do
	if [ ! -x "$p" ]; then
		fail "$p is not built (run: make)"
		finish
	fi
done

# --- the fabric --------------------------------------------------------------
# The bundled file was made with: ibsm-topo fattree --levels 2 --radix 16
# (128 CAs, 16 leaves, 8 spines). Without it, make one now.
if [ ! -f "$NET" ]; then
	if [ ! -x "$TOPO" ]; then
		fail "no fabric: $NET is missing and $TOPO is not built"
		finish
	fi
	NET=$WORK/demo-fattree.net
	if ! "$TOPO" fattree --levels 2 --radix 16 -o "$NET" >"$WORK/topo.log" 2>&1; then
		fail "ibsm-topo could not generate the demo fat-tree"
		show "$WORK/topo.log"
		finish
	fi
fi
want_cas=$(grep -cE '^(Ca|Hca)[[:space:]]' "$NET")
want_sws=$(grep -cE '^Switch[[:space:]]' "$NET")
echo "demo: fabric $(basename "$NET"): $want_cas CAs, $want_sws switches"

case $NET in /*) ;; *) NET=$(pwd)/$NET ;; esac
# libumad2sim leaves sys-PID/ directories in the working directory of a
# client that dies early: keep them out of the source tree.
cd "$WORK" || exit 1
if ! ibsim_start "$NET"; then
	fail "ibsim did not load $NET"
	finish
fi

# --- cold start: ibsm --once -------------------------------------------------
CACHE=$WORK/cache
mkdir -p "$CACHE"
t0=$(date +%s.%N)
sim_run timeout "$IBSM_TIMEOUT" "$IBSM" --once --cache-dir "$CACHE" \
	>"$WORK/ibsm-once.log" 2>&1
rc=$?
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
if [ $rc -eq 0 ]; then
	pass "ibsm --once: exit 0 after $secs s"
	# The daemon's own account of its phases and MAD counts.
	grep -iE 'discover|lid|rout|program|activ|mads?' "$WORK/ibsm-once.log" |
		tail -8 | sed 's/^/    /'
else
	[ $rc -eq 124 ] && why="timed out after $IBSM_TIMEOUT s" || why="exit $rc"
	fail "ibsm --once ($why, $secs s)"
	show "$WORK/ibsm-once.log"
	finish          # nothing below can pass without it
fi

# --- ibnetdiscover: nodes and LIDs ---------------------------------------------
if ! sim_run ibnetdiscover >"$WORK/fabric.ibnd" 2>"$WORK/ibnd.err"; then
	fail "ibnetdiscover failed"
	show "$WORK/ibnd.err"
	finish
fi
got_cas=$(grep -cE '^(Ca|Hca)[[:space:]]' "$WORK/fabric.ibnd")
got_sws=$(grep -cE '^Switch[[:space:]]' "$WORK/fabric.ibnd")
if [ "$got_cas" -eq "$want_cas" ] && [ "$got_sws" -eq "$want_sws" ]; then
	pass "ibnetdiscover: $got_cas CAs, $got_sws switches (as in the net file)"
else
	fail "ibnetdiscover: $got_cas CAs, $got_sws switches; the net file has $want_cas, $want_sws"
fi

# Endpoint LIDs: a switch's from its header ("base port 0 lid N"), a CA
# port's from its port line ("# lid N lmc M", the first lid on the line).
lids_of() {
	awk '
	/^Switch/ { if (match($0, /base port 0 lid [0-9]+/)) {
			s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); print s } }
	/^(Ca|Hca)/ { ca = 1; next }
	/^$/ { ca = 0 }
	ca && /^\[/ { if (match($0, /# lid [0-9]+/)) {
			s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); print s } }
	' "$1"
}
lids_of "$WORK/fabric.ibnd" | sort -n >"$WORK/lids"
n_lids=$(wc -l <"$WORK/lids")
n_uniq=$(sort -un "$WORK/lids" | wc -l)
n_zero=$(grep -cx '0' "$WORK/lids")
want_eps=$((want_sws + $(awk '/^(Ca|Hca)/ { ca = 1; next } /^$/ { ca = 0 } ca && /^\[/ { n++ } END { print n + 0 }' "$WORK/fabric.ibnd")))
if [ "$n_lids" -eq "$want_eps" ] && [ "$n_uniq" -eq "$n_lids" ] && [ "$n_zero" -eq 0 ]; then
	pass "LIDs: $n_lids endpoints, all unique and valid ($(head -1 "$WORK/lids")..$(tail -1 "$WORK/lids"))"
else
	fail "LIDs: $n_lids of $want_eps endpoints have one, $n_uniq distinct, $n_zero zero"
fi
max_lid=$(tail -1 "$WORK/lids")

# --- iblinkinfo: every linked port ACTIVE --------------------------------------
if sim_run iblinkinfo >"$WORK/linkinfo" 2>"$WORK/linkinfo.err"; then
	# Linked ports show physical state LinkUp; unlinked ones Polling/Disabled.
	n_up=$(grep -c 'LinkUp)' "$WORK/linkinfo")
	n_notactive=$(grep 'LinkUp)' "$WORK/linkinfo" | grep -vc ' Active/')
	if [ "$n_up" -gt 0 ] && [ "$n_notactive" -eq 0 ]; then
		pass "ports: all $n_up linked port ends ACTIVE (iblinkinfo)"
	else
		fail "ports: $n_notactive of $n_up linked port ends not ACTIVE"
		grep 'LinkUp)' "$WORK/linkinfo" | grep -v ' Active/' | head -5 | sed 's/^/    | /'
	fi
else
	fail "iblinkinfo failed"
	show "$WORK/linkinfo.err"
fi

# --- dump_fts + our verifier -------------------------------------------------------
json_field() { # key file: the value of a flat JSON field
	sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\{0,1\}\([^,}\"]*\).*/\1/p" "$2" | head -1
}
if sim_run dump_fts >"$WORK/lfts.txt" 2>"$WORK/dump_fts.err"; then
	n_tables=$(grep -c '^Unicast lids' "$WORK/lfts.txt")
	"$ROUTE" --topo "$WORK/fabric.ibnd" --lfts-in "$WORK/lfts.txt" --check \
		>"$WORK/verify.json" 2>"$WORK/verify.err"
	vrc=$?
	ok=$(json_field ok "$WORK/verify.json")
	missing=$(json_field missing_entries "$WORK/verify.json")
	unreach=$(json_field pairs_unreachable "$WORK/verify.json")
	loops=$(json_field pairs_looping "$WORK/verify.json")
	cloop=$(json_field credit_loop "$WORK/verify.json")
	a2a=$(json_field a2a_max_link_load "$WORK/verify.json")
	ratio=$(json_field a2a_ratio "$WORK/verify.json")
	shift_worst=$(json_field shift_worst_load "$WORK/verify.json")
	summary="$n_tables switch LFTs; missing entries ${missing:-?}, unreachable pairs ${unreach:-?}, looping ${loops:-?}, credit loop ${cloop:-?}; all-to-all max link load ${a2a:-?} (${ratio:-?}x bound), worst shift ${shift_worst:-?}"
	if [ "$n_tables" -eq "$want_sws" ] && [ "$vrc" -eq 0 ] &&
	   { [ "$ok" = true ] || [ "$ok" = 1 ]; } &&
	   [ "${missing:-x}" = 0 ] && [ "${unreach:-x}" = 0 ] &&
	   [ "${loops:-x}" = 0 ] && { [ "${cloop:-x}" = 0 ] || [ "${cloop:-x}" = false ]; }; then
		pass "dump_fts verified: complete, loop-free, credit-loop-free: $summary"
	else
		fail "dump_fts verification: $summary (exit $vrc)"
		if [ $((max_lid % 64)) -eq 0 ]; then
			echo "    note: the highest LID ($max_lid) is a multiple of 64; dump_fts drops it"
		fi
		show "$WORK/verify.err" 5
		show "$WORK/verify.json" 5
	fi
	# The same tables drawn as a heat map of the all-to-all link load
	# (graphviz renders it; build/demo/fabric-heat.svg).
	mkdir -p "$B/demo"
	"$ROUTE" --topo "$WORK/fabric.ibnd" --lfts-in "$WORK/lfts.txt" -q \
		--dot "$WORK/heat.dot" 2>"$WORK/heat.err"
	if grep -q penwidth "$WORK/heat.dot" 2>/dev/null &&
	   dot -Tsvg "$WORK/heat.dot" -o "$B/demo/fabric-heat.svg" 2>>"$WORK/heat.err" &&
	   grep -q "<svg" "$B/demo/fabric-heat.svg"; then
		pass "heat map: $B/demo/fabric-heat.svg ($(grep -c penwidth "$WORK/heat.dot") links coloured by all-to-all load)"
	else
		fail "heat map: $(head -3 "$WORK/heat.err")"
	fi
else
	fail "dump_fts failed"
	show "$WORK/dump_fts.err"
fi

# --- ibtracert between sampled CA pairs ---------------------------------------------
# CA LIDs in file order; pairs: first-last, and three spread across the tree.
awk '/^(Ca|Hca)/ { ca = 1; next } /^$/ { ca = 0 }
     ca && /^\[/ && match($0, /# lid [0-9]+/) { s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); print s }' \
	"$WORK/fabric.ibnd" >"$WORK/ca_lids"
n_ca=$(wc -l <"$WORK/ca_lids")
pairs=""
if [ "$n_ca" -ge 2 ]; then
	for ij in "1 $n_ca" "2 $((n_ca / 2 + 1))" "$((n_ca / 3 + 1)) $((n_ca - 1))" "$n_ca 1"; do
		set -- $ij
		[ "$1" -ge 1 ] && [ "$2" -ge 1 ] && [ "$1" -ne "$2" ] || continue
		pairs="$pairs $(sed -n "${1}p" "$WORK/ca_lids"):$(sed -n "${2}p" "$WORK/ca_lids")"
	done
fi
n_pairs=0
bad_pairs=""
hops=""
for p in $pairs; do
	s=${p%:*}; d=${p#*:}
	n_pairs=$((n_pairs + 1))
	if sim_run ibtracert "$s" "$d" >"$WORK/tr.$s.$d" 2>&1 &&
	   grep -q "^To ca .* lid $d-" "$WORK/tr.$s.$d"; then
		hops="$hops $(grep -c '^\[' "$WORK/tr.$s.$d")"
	else
		bad_pairs="$bad_pairs $s->$d"
	fi
done
if [ $n_pairs -gt 0 ] && [ -z "$bad_pairs" ]; then
	pass "ibtracert: $n_pairs CA pairs ($(echo $pairs | sed 's/:/->/g')) reach their destination (links per path:$hops)"
else
	fail "ibtracert: $n_pairs pairs tried, failed:${bad_pairs:- none tried}"
	for p in $bad_pairs; do show "$WORK/tr.${p%->*}.${p#*->}" 6; done
fi

# --- sminfo: ibsm as a running master; a restart keeps every LID -------------------
our_guid=$(sim_run ibstat -p 2>/dev/null | head -1)
sim_bg_run "$IBSM" --cache-dir "$CACHE" >"$WORK/ibsm-daemon.log" 2>&1
SM_PID=$SIM_LAST_PID
state=""
deadline=$(($(date +%s) + ${SMINFO_WAIT:-20}))
while [ "$(date +%s)" -lt $deadline ]; do
	if ! kill -0 "$SM_PID" 2>/dev/null; then
		state="daemon exited"
		break
	fi
	state=$(sim_run sminfo 2>&1 | grep -v '^ibwarn')
	case $state in *SMINFO_MASTER*) break ;; esac
	sleep 0.2
done
sm_guid=$(echo "$state" | sed -n 's/.*sm guid \(0x[0-9a-fA-F]*\).*/\1/p')
if echo "$state" | grep -q 'SMINFO_MASTER' &&
   [ -n "$our_guid" ] && [ "$((sm_guid))" = "$((our_guid))" ]; then
	pass "sminfo: $(echo "$state" | sed 's/^sminfo: //') = us"
else
	fail "sminfo: expected MASTER with guid ${our_guid:-?}, got: ${state:-nothing}"
	show "$WORK/ibsm-daemon.log"
fi
if sim_run ibnetdiscover >"$WORK/fabric2.ibnd" 2>/dev/null; then
	lids_of "$WORK/fabric2.ibnd" | sort -n >"$WORK/lids2"
	# Same nodes in the same order (directed-route discovery), so the
	# sequence of every "lid N" in the text must be identical.
	if [ "$(grep -o 'lid [0-9]*' "$WORK/fabric.ibnd")" = \
	     "$(grep -o 'lid [0-9]*' "$WORK/fabric2.ibnd")" ] &&
	   ! grep -qx 0 "$WORK/lids2"; then
		pass "restart: ibsm as a daemon on the routed fabric changed no LID"
	else
		fail "restart: LIDs changed or missing ($(grep -cx 0 "$WORK/lids2") ports without a LID)"
	fi
else
	fail "ibnetdiscover after the restart failed"
fi
# --- saquery: the daemon's Subnet Administration ------------------------------------
# Asked from another CA (SIM_HOST), one record per query (ibsim passes only
# the first segment of a multi-record answer).
client=$(awk -F'"' '/^(Ca|Hca)/ { n++; if (n == 2) { print $2; exit } }' "$NET")
n_nr=0
for l in $(cat "$WORK/lids"); do
	SIM_HOST=$client sim_run saquery NR "$l" 2>/dev/null | grep -q "lid\.*$l\$" &&
		n_nr=$((n_nr + 1))
done
n_pr=0
for p in $pairs; do
	s=${p%:*}; d=${p#*:}
	SIM_HOST=$client sim_run saquery -p --slid "$s" --dlid "$d" 2>/dev/null |
		grep -q "dlid\.*$d\$" && n_pr=$((n_pr + 1))
done
if [ "$n_nr" -eq "$n_lids" ] && [ "$n_pr" -eq "$n_pairs" ] && [ "$n_pairs" -gt 0 ]; then
	pass "saquery: NodeRecords for all $n_nr LIDs, PathRecords for the $n_pr traced pairs"
else
	fail "saquery: NodeRecords for $n_nr of $n_lids LIDs, PathRecords for $n_pr of $n_pairs pairs"
fi
kill "$SM_PID" 2>/dev/null
wait "$SM_PID" 2>/dev/null

finish
