#!/bin/sh
# Restart with an empty cache dir changes nothing (issue 10: "on an
# unchanged fabric, a takeover, or a restart with an empty cache dir,
# changes no LID and writes no LFT block"). The LIDs live in the ports, not
# only in guid2lid: a new SM keeps every valid LID a port holds.
#  1. ibsm brings the fabric up with LMC 1 (so LIDs are not 1..N in sweep
#     order by chance), then is stopped (SIGTERM) and started again with a
#     new, empty cache dir: LIDs unchanged (ibnetdiscover), dump_fts
#     identical, its log says 0 LIDs changed and 0 LFT blocks written.
#  2. The same after kill -9.
#  3. Some LIDs made unusual first: the SM started with a guid2lid file
#     that gives 6 CAs high LIDs; after a restart without the file, the
#     high LIDs stay.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 76 ibnetdiscover dump_fts

sm_topo ft fattree --levels 3 --radix 8
state() {  # state TAG: LIDs (sorted by GUID) and tables
	# ibnetdiscover -p: "CA LID PORT GUID ... - SW LID PORT GUID ..."
	sim_run ibnetdiscover -p 2>/dev/null | awk '{ print $4, $2; if ($7 == "-") print $11, $9 }' | sort -u >"$W/lids.$1"
	[ -s "$W/lids.$1" ] || fail "$1: ibnetdiscover gave no LIDs"
	sim_run dump_fts >"$W/fts.$1" 2>/dev/null || fail "$1: dump_fts"
}
same() {  # same A B WHAT
	cmp -s "$W/lids.$1" "$W/lids.$2" || { diff "$W/lids.$1" "$W/lids.$2" | head; fail "$3: LIDs changed"; }
	cmp -s "$W/fts.$1" "$W/fts.$2" || { diff "$W/fts.$1" "$W/fts.$2" | head; fail "$3: dump_fts changed"; }
}
quiet_start() {  # quiet_start LOG: the restarted SM wrote nothing
	grep -q "sweep 1: LIDs: 0 changed" "$1" || { grep "LIDs:" "$1"; fail "$1: LIDs changed at restart"; }
	grep -q "sweep 1: program .*LFT blocks 0 written" "$1" || { grep "program" "$1"; fail "$1: LFT blocks written at restart"; }
}

sm_sim "$W/ft.net"
sm_daemon "$W/a.log" -R ftree,updn --lmc 1 --cache-dir "$W/ca" --sweep 0
state a
kill "$SMPID"; wait "$SMPID" 2>/dev/null
# --- 1. SIGTERM, empty cache dir ---------------------------------------------
sm_daemon "$W/b.log" -R ftree,updn --lmc 1 --cache-dir "$W/cb" --sweep 0
quiet_start "$W/b.log"
state b; same a b "restart after SIGTERM"
echo "ok 1: restart with an empty cache dir: $(wc -l <"$W/lids.a") port LIDs and dump_fts unchanged, 0 blocks written"
# --- 2. kill -9 ------------------------------------------------------------------
kill -9 "$SMPID"; wait "$SMPID" 2>/dev/null
sm_daemon "$W/c.log" -R ftree,updn --lmc 1 --cache-dir "$W/cc" --sweep 0
quiet_start "$W/c.log"
state c; same a c "restart after kill -9"
echo "ok 2: the same after kill -9"
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sim_cleanup

# --- 3. LIDs from an earlier guid2lid, not from sweep order -------------------------
sm_sim "$W/ft.net" 3
sim_run ibnetdiscover -p 2>/dev/null | awk '$1 == "CA" { print $4 }' | sort -u | head -6 >"$W/six" 2>/dev/null
[ "$(wc -l <"$W/six")" -eq 6 ] || { sim_run ibnetdiscover -p 2>/dev/null | head -3; fail "cannot pick 6 CA port GUIDs"; }
mkdir -p "$W/cd"
awk '{ printf "%s %d %d\n", $1, 1000 + 2 * NR, 1001 + 2 * NR }' "$W/six" >"$W/cd/guid2lid"
sm_daemon "$W/d.log" -R ftree,updn --lmc 1 --cache-dir "$W/cd" --sweep 0
state d
hi=$(awk '$2 >= 1000' "$W/lids.d" | wc -l)
[ "$hi" -ge 6 ] || { cat "$W/cd/guid2lid"; fail "the guid2lid hints were not used ($hi high LIDs)"; }
kill "$SMPID"; wait "$SMPID" 2>/dev/null
sm_daemon "$W/e.log" -R ftree,updn --lmc 1 --cache-dir "$W/ce" --sweep 0
quiet_start "$W/e.log"
state e; same d e "restart without the guid2lid file"
echo "ok 3: $hi ports with LIDs >= 1000 from a guid2lid file keep them after a restart with an empty cache dir"
echo "PASS"
