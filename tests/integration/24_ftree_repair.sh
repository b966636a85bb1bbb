#!/bin/sh
# ftree minimal-change repair after a lost link (issue 13, speed item).
# Offline, a 3-level radix-8 tree routed, then one link taken out of the
# net file and re-routed with ibsm-route --prev-topo/--prev-lfts:
#  1. a leaf-middle link and a middle-top link, and a whole middle switch:
#     the engine takes the repair path (log line), --check --cdg-switch-lids
#     is ok, and ftree_repair_check.py finds the tables complete, loop-free
#     and credit-loop free with every switch as a source, every entry on a
#     lost port changed, and no entry changed that neither crossed the lost
#     link nor was idle (no switch sent that LID through it); the count of
#     changed entries is the engine's, ibsm-route's and the checker's, and
#     far below what a route from scratch changes;
#  2. a fabric that gained a link, or previous tables from another engine
#     (updn), are not repaired: routed in full, said why;
#  3. bad input: missing --prev-lfts file, tables of another fabric (names
#     file:line), a malformed table line (file:line), --prev-lfts alone, a
#     --prev-topo sharing no switch with --topo: exit 2;
#  4. the daemon (ibsm -R ftree under ibsim): after Unlink it logs the
#     repair, and dump_fts / ibtracert agree with its tables.
. "$(dirname "$0")/sm_lib.sh"
test_start 24
TOPO=$IBSM_BUILD/bin/ibsm-topo
ROUTE=$IBSM_BUILD/bin/ibsm-route
CHECK=$top/tests/integration/ftree_repair_check.py
test_need_built ibsm-route ibsm-topo
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# Drop the link at port P of node N (both ends) from a net file.
unlink_net() { # net node port > out
	awk -v N="\"$2\"" -v P="$3" '
	FNR == NR {
		if ($1 == "Switch" || $1 == "Ca") cur = $3
		if (cur == N && $1 == "[" P "]") {
			match($2, /\[[0-9]+\]$/)
			pn = substr($2, 1, RSTART - 1); pp = substr($2, RSTART + 1, RLENGTH - 2)
		}
		next
	}
	{
		if ($1 == "Switch" || $1 == "Ca") cur = $3
		if ((cur == N && $1 == "[" P "]") || (cur == pn && $1 == "[" pp "]")) next
		print
	}' "$1" "$1"
}

# Drop node N and every link to it.
remove_node() { # net node > out
	awk -v N="\"$2\"" '
	{
		if ($1 == "Switch" || $1 == "Ca") cur = $3
		if (cur == N) { if ($0 ~ /^$/) cur = ""; next }
		if (index($2, N "[") == 1) next
		print
	}' "$1"
}

"$TOPO" fattree --levels 3 --radix 8 -o "$W/ft.net" >/dev/null 2>&1 || fail "ibsm-topo"
"$ROUTE" --topo "$W/ft.net" --engine ftree --out "$W/ft.lfts" -q || fail "route the intact tree"
grep -q '^\[5\]	"spine-0"\[2\]' "$W/ft.net" || fail "leaf-1 port 5 is not spine-0 port 2: generator changed"

# 1. repair cases
repair_case() { # name new-net
	_n=$1
	"$ROUTE" --topo "$2" --prev-topo "$W/ft.net" --prev-lfts "$W/ft.lfts" --engine ftree \
		--out "$W/$_n.lfts" --check --cdg-switch-lids -v >"$W/$_n.json" 2>"$W/$_n.log" ||
		{ tail -5 "$W/$_n.log"; fail "$_n: ibsm-route exit $?"; }
	grep -q "ftree: repair: .* entries changed" "$W/$_n.log" ||
		{ grep ftree "$W/$_n.log"; fail "$_n: the repair path was not taken"; }
	[ "$(field "$W/$_n.json" ok)" = True ] || fail "$_n: --check not ok"
	[ "$(field "$W/$_n.json" credit_loop)" = False ] || fail "$_n: credit loop with switch LIDs"
	eng=$(sed -n 's/.*ftree: repair: .* \([0-9]*\) entries changed.*/\1/p' "$W/$_n.log")
	clr=$(sed -n 's/.*entries changed (+\([0-9]*\) cleared).*/\1/p' "$W/$_n.log")
	cli=$(sed -n 's/.*re-route: \([0-9]*\) entries differ.*/\1/p' "$W/$_n.log")
	cli=$((cli - clr))       # columns of LIDs that left: the checker skips them
	python3 "$CHECK" "$2" "$W/$_n.lfts" "$W/ft.net" "$W/ft.lfts" >"$W/$_n.check" ||
		{ cat "$W/$_n.check"; fail "$_n: tables judged wrong"; }
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(sed -n 's/^changed \([0-9]*\) broken \([0-9]*\) affected \([0-9]*\) free \([0-9]*\)/\1 \2 \3 \4/p' "$W/$_n.check")
	[ "$1" = "$eng" ] && [ "$1" = "$cli" ] ||
		fail "$_n: changed entries: checker $1, engine $eng, ibsm-route $cli"
	[ "$1" -ge "$2" ] || fail "$_n: fewer changes ($1) than entries on the lost port ($2)"
	# from scratch, for scale: entries that differ from the previous tables
	"$ROUTE" --topo "$W/$_n.net" --engine ftree --out "$W/$_n.full.lfts" --check >"$W/$_n.full.json" 2>/dev/null
	fts_entries "$W/ft.lfts" >"$W/ft.e"
	fts_entries "$W/$_n.full.lfts" >"$W/$_n.full.e"
	full=$(awk 'FNR == NR { old[$1 " " $2] = $3; next } old[$1 " " $2] != "" && old[$1 " " $2] != $3 { n++ } END { print n + 0 }' "$W/ft.e" "$W/$_n.full.e")
	echo "$_n: $1 entries changed ($2 on the lost port; $3 whose path crossed it, $4 idle ones may), a2a $(field "$W/$_n.json" a2a_ratio)x; from scratch: $full changed, a2a $(field "$W/$_n.full.json" a2a_ratio)x"
	[ "$full" -gt "$1" ] || fail "$_n: the repair changed no fewer entries than a full route ($full)"
}
unlink_net "$W/ft.net" leaf-1 5 >"$W/lm.net"
repair_case lm "$W/lm.net"
unlink_net "$W/ft.net" spine-0 5 >"$W/mt.net"
repair_case mt "$W/mt.net"
remove_node "$W/ft.net" spine-3 >"$W/sw.net"
repair_case sw "$W/sw.net"
grep -q "1 LIDs gone" "$W/sw.log" || fail "sw: the lost switch's LID not cleared"
# Without --prev-lfts ibsm-route routes the previous fabric itself and
# keeps ftree's memo of those tables (their down->up turns), as the daemon
# does: the repair takes its previous turns from there instead of scanning
# the tables, and writes the same tables.
for _n in lm mt; do
	"$ROUTE" --topo "$W/$_n.net" --prev-topo "$W/ft.net" --engine ftree \
		--out "$W/$_n.memo.lfts" -v >/dev/null 2>"$W/$_n.memo.log" || fail "$_n memo: exit $?"
	grep -q "ftree: repair: .*scanned" "$W/$_n.log" || { grep "repair:" "$W/$_n.log"; fail "$_n: --prev-lfts turns not scanned"; }
	grep -q "ftree: repair: .*previous turns [1-9][0-9]* from the memo" "$W/$_n.memo.log" ||
		{ grep "repair:" "$W/$_n.memo.log"; fail "$_n: previous turns not taken from the memo"; }
	cmp -s "$W/$_n.lfts" "$W/$_n.memo.lfts" || fail "$_n: tables differ with the memo"
	echo "$_n: $(grep -o 'previous turns [0-9]* from the memo' "$W/$_n.memo.log"): the same tables as from the scan"
done

# 2. a new link: not repairable, routed in full
"$ROUTE" --topo "$W/ft.net" --prev-topo "$W/lm.net" --prev-lfts "$W/lm.lfts" --engine ftree \
	-v >"$W/new.json" 2>"$W/new.log" || fail "new link: exit $?"
grep -q "not repairable (port .* has a new link): routing in full" "$W/new.log" ||
	{ grep ftree "$W/new.log"; fail "new link: no reason logged"; }
echo "a link added: not repairable, routed in full (reason logged)"
# previous tables from another engine: their turns are not ftree's
"$ROUTE" --topo "$W/ft.net" --engine updn --out "$W/updn.lfts" -q || fail "updn route"
"$ROUTE" --topo "$W/lm.net" --prev-topo "$W/ft.net" --prev-lfts "$W/updn.lfts" --engine ftree \
	--check --cdg-switch-lids -v >"$W/up.json" 2>"$W/up.log" || fail "updn tables: exit $?"
grep -q "another engine" "$W/up.log" || { grep ftree "$W/up.log"; fail "updn tables repaired as if ftree's"; }
echo "previous tables from updn: not repaired, routed in full (reason logged)"

# 3. bad input
bad() { # what expected-message args...
	_w=$1; _m=$2; shift 2
	"$ROUTE" --topo "$W/lm.net" --engine ftree "$@" >/dev/null 2>"$W/bad.err"
	_rc=$?
	[ $_rc -eq 2 ] || { cat "$W/bad.err"; fail "$_w: exit $_rc, want 2"; }
	grep -q "$_m" "$W/bad.err" || { cat "$W/bad.err"; fail "$_w: message lacks '$_m'"; }
	echo "$_w: exit 2, $(head -1 "$W/bad.err" | cut -c1-110)"
}
bad "missing tables" "$W/none.lfts" --prev-topo "$W/ft.net" --prev-lfts "$W/none.lfts"
"$TOPO" fattree --levels 2 --radix 4 -o "$W/other.net" >/dev/null 2>&1
"$ROUTE" --topo "$W/other.net" --engine ftree --out "$W/other.lfts" -q
sed 's/guid 0x0002c9020000/guid 0x0002c90a0000/' "$W/other.lfts" >"$W/other2.lfts"
bad "tables of another fabric" "$W/other2.lfts:1: switch 0x" --prev-topo "$W/ft.net" --prev-lfts "$W/other2.lfts"
awk 'NR == 5 { print "0xzz 001 : broken"; next } { print }' "$W/ft.lfts" >"$W/broken.lfts"
bad "malformed table line" "$W/broken.lfts:5:" --prev-topo "$W/ft.net" --prev-lfts "$W/broken.lfts"
bad "tables without their fabric" "needs --prev-topo" --prev-lfts "$W/ft.lfts"
sed 's/guid=0x2c90/guid=0x2c9a/' "$W/ft.net" >"$W/alien.net"
bad "a previous fabric with no switch in common" "no switch GUID in common" --prev-topo "$W/alien.net"

# 4. the daemon under ibsim
sm_need
LOG=$W/daemon.log
sm_sim "$W/ft.net"
sim_bg_run "$IBSM_BUILD/bin/ibsm" -R ftree --cache-dir "$W/cache" --sweep 1 \
	--dump "$W/d.dump" --log-file "$LOG" -vv
wait_ups() { # n
	_i=0
	while :; do
		_c=$(grep -c 'fabric UP' "$LOG" 2>/dev/null)
		[ "${_c:-0}" -ge "$1" ] && break
		_i=$((_i + 1)); [ $_i -gt 600 ] && { tail -20 "$LOG"; fail "no fabric UP #$1"; }
		sleep 0.05
	done
}
wait_ups 1
sleep 2.5       # as test 32: the first sweep's background reads settle
ibsim_cmd 'Unlink "leaf-1"[5]'
wait_ups 2
sleep 0.5
grep -q "ftree: repair: .* entries changed" "$LOG" ||
	{ grep -E "ftree|route" "$LOG" | tail; fail "daemon: no repair after Unlink"; }
echo "daemon: $(grep -o 'ftree: repair: .* entries changed' "$LOG" | tail -1)"
# the held set keeps the memo of the tables it holds: no scan
grep "ftree: repair:" "$LOG" | tail -1 | grep -q "previous turns [0-9]* \(from the memo\|not needed\)" ||
	{ grep "ftree: repair:" "$LOG"; fail "daemon: the repair scanned the held tables for their turns"; }
echo "daemon: $(grep -o 'previous turns [0-9]* [a-z ]* in' "$LOG" | tail -1)"
# and, in its idle loop, a copy of the tables it holds in the spare set:
# the repair starts from it instead of copying the tables
grep "ftree: repair:" "$LOG" | tail -1 | grep -q "held a copy made beforehand" ||
	{ grep "ftree: repair:" "$LOG"; fail "daemon: the repair copied the held tables (no copy made beforehand)"; }
echo "daemon: the repair started from the copy of the held tables made beforehand"
# made in slices between turns of the event loop, logged once complete
# (debug), before the repair that started from it
_cp=$(grep -n "spare set made a copy of the tables held (.* MB) in .* s, [1-9][0-9]* slices\{0,1\} of at most" "$LOG" | head -1 | cut -d: -f1)
_rp=$(grep -n "ftree: repair:" "$LOG" | tail -1 | cut -d: -f1)
[ -n "$_cp" ] && [ "$_cp" -lt "$_rp" ] ||
	{ grep "spare set" "$LOG"; fail "daemon: no complete copy of the held tables logged before the repair"; }
echo "daemon: $(grep -o 'made a copy of the tables held .* slices\{0,1\}' "$LOG" | head -1)"
# Once up, the daemon pre-faults a spare set of tables, and the re-route
# after the Unlink builds its tables there (no fresh pages on that path).
grep -q "route tables: spare set of .* pre-faulted" "$LOG" ||
	fail "daemon: no spare tables pre-faulted once the fabric was up"
grep -q "route ftree: .*(tables in the spare's warm memory)" "$LOG" ||
	{ grep "route ftree" "$LOG"; fail "daemon: the re-route did not use the spare tables"; }
echo "daemon: the re-route built its tables in the pre-faulted spare"
sm_check_fabric d
echo "daemon: dump_fts and ibtracert agree with the repaired tables"
exit 0
