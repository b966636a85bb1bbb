#!/bin/sh
# Whole SA tables through RMPP, and a fuzzed SA (issue 9), with in-tree
# libibumad clients (tests/tools/): sa-table is an RMPP receiver (segments in
# order, ACKed per window, duplicates re-ACKed), sa-fuzz sends malformed and
# random requests.
#  1. ibsm: NodeRecords, one per endpoint port, equal the (LID, port GUID)
#     pairs of `ibnetdiscover -p`; LinkRecords equal its port lines (both
#     directions of every link); a PathRecord GetTable from one source has
#     one record per endpoint, distinct DLIDs that are the fabric's LIDs.
#     Under ibsim every MAD a client receives loses its bytes 224..255
#     (umad2sim; see sa_table_main.c), so counts come from the bytes the
#     transfer carried and only records that arrived whole are compared.
#     GetMulti(MultiPathRecord) from one source GID to two destination GIDs
#     gives one PathRecord per pair.
#  2. OpenSM, same client: its table answers come as one unsegmented MAD
#     under ibsim (it leaves RMPP to a kernel that is not there), reported
#     as such (exit 5), and what arrived agrees with ibnetdiscover too. Bad
#     MultiPathRecord requests (unknown GID, no destination) get the same
#     statuses from both SMs.
#  3. sa-fuzz --strict against ibsm: every request that reaches the SA is
#     answered with a status the spec allows, none that must not be is;
#     afterwards the SM answers saquery and still sweeps. Against OpenSM
#     (fewer requests, not strict: it leaves unsupported methods
#     unanswered) the statuses it gives are allowed ones too.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 54 opensm saquery ibnetdiscover
for b in sa-table sa-fuzz; do
	[ -x "$IBSM_BUILD/bin/$b" ] || fail "no $IBSM_BUILD/bin/$b"
done

sm_topo ft fattree --levels 2 --radix 8
client=$(ibsim_ca_name "$W/ft.net" 3)

# ibnetdiscover -p: "CA lid port guid ... - SW lid port guid ...", one line
# per linked port.
truth() {
	SIM_HOST=$client sim_run timeout 60 ibnetdiscover -p 2>/dev/null >"$W/ibnd.$1" ||
		fail "ibnetdiscover ($1)"
	awk '{ printf "lid %d guid %s\n", $2, $4 }' "$W/ibnd.$1" | sort -u >"$W/nodes.$1"
	awk '{ print $2 }' "$W/ibnd.$1" | sort -u >"$W/lids.$1"
}
# Every intact "lid L guid G" line of a NodeRecord table is a true pair.
nr_agree() {
	grep '^lid ' "$1" | sort -u >"$1.pairs"
	[ -s "$1.pairs" ] || fail "$2: no whole NodeRecord arrived"
	comm -23 "$1.pairs" "$W/nodes.$3" | head -3 | grep . && fail "$2: NodeRecords not in ibnetdiscover"
	:
}

# --- 1. ibsm ---------------------------------------------------------------------
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" -R updn --cache-dir "$W/cache" --sweep 1
truth ibsm
nodes=$(wc -l <"$W/nodes.ibsm"); ports=$(wc -l <"$W/ibnd.ibsm")
sa_tab NR >"$W/nr.ibsm" || { cat "$W/nr.ibsm"; fail "sa-table NR against ibsm"; }
tail -1 "$W/nr.ibsm"
grep -qx "records $nodes intact [0-9]* cut [0-9]* segments [0-9]*" "$W/nr.ibsm" ||
	fail "NodeRecords: not one per endpoint port ($nodes)"
[ "$(awk '/^records/ { print $6 }' "$W/nr.ibsm")" -gt 1 ] || fail "NodeRecord table not segmented"
nr_agree "$W/nr.ibsm" ibsm ibsm
sa_tab LR >"$W/lr.ibsm" || fail "sa-table LR against ibsm"
tail -1 "$W/lr.ibsm"
grep -qx "records $ports intact [0-9]* cut [0-9]* segments [0-9]*" "$W/lr.ibsm" ||
	fail "LinkRecords: not one per direction of every link ($ports)"
src=$(sed -n 5p "$W/lids.ibsm")
sa_tab --slid "$src" PR >"$W/pr.ibsm" || fail "sa-table PR against ibsm"
tail -1 "$W/pr.ibsm"
grep -qx "records $nodes intact [0-9]* cut [0-9]* segments [0-9]*" "$W/pr.ibsm" ||
	fail "PathRecord GetTable from LID $src: not one record per endpoint ($nodes)"
awk '/^path/ { print $3 }' "$W/pr.ibsm" | sort >"$W/prd"
[ -z "$(uniq -d "$W/prd")" ] || fail "PathRecord GetTable repeats a DLID"
comm -23 "$W/prd" "$W/lids.ibsm" | grep . && fail "PathRecord DLIDs that are not the fabric's LIDs"
awk '/^path/ && $2 != '"$src"' { bad = 1 } END { exit bad }' "$W/pr.ibsm" || fail "PathRecords from another SLID"
sa_tab --lid "$src" NR | grep -qx "records 1 intact 1 cut 0 segments 1" || fail "NodeRecord GetTable of one LID"

# MultiPathRecord (GetMulti): one source, two destinations, no LMC: one
# PathRecord per pair, from the source's LID to each destination's.
gid_of() { awk -v l="$2" '$1 == "CA" && $2 == l { print $4; exit }' "$W/ibnd.$1" |
	sed 's/^0x\(....\)\(....\)\(....\)\(....\)$/fe80::\1:\2:\3:\4/'; }
calids=$(awk '$1 == "CA" { print $2 }' "$W/ibnd.ibsm" | sort -un | head -3 | tr '\n' ' ')
set -- $calids
sa_tab --sgid "$(gid_of ibsm "$1")" --dgid "$(gid_of ibsm "$2")" --dgid "$(gid_of ibsm "$3")" MPR >"$W/mpr.ibsm" ||
	{ cat "$W/mpr.ibsm"; fail "GetMulti(MultiPathRecord) against ibsm"; }
cat "$W/mpr.ibsm"
[ "$(grep -c "^path $1 \($2\|$3\)\$" "$W/mpr.ibsm")" = 2 ] && grep -q "^records 2 " "$W/mpr.ibsm" ||
	fail "MultiPathRecord: not one path from LID $1 to each of $2 and $3"
mpr_bad() { # build: the statuses of two bad requests
	sa_tab --sgid "$(gid_of "$1" "$2")" --dgid fe80::dead:1 MPR
	sa_tab --sgid "$(gid_of "$1" "$2")" MPR
}
mpr_bad ibsm "$1" >"$W/mprbad.ibsm"

# --- 3. fuzz ibsm (before its run ends) ------------------------------------------
SIM_HOST=$client sim_run timeout 300 "$IBSM_BUILD/bin/sa-fuzz" --strict --count 600 --seed 54 >"$W/fuzz.ibsm" 2>&1
rc=$?
cat "$W/fuzz.ibsm"
[ $rc = 0 ] || fail "sa-fuzz against ibsm (rc $rc)"
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died under the fuzzer"
SIM_HOST=$client sim_run timeout 10 saquery NR "$src" | grep -q "lid\.*$src" || fail "saquery after the fuzzer"
sweeps=$(grep -c "heavy sweep .* fabric UP" "$W/sm.log")
kill -HUP "$SMPID"
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(grep -c "heavy sweep .* fabric UP" "$W/sm.log")" -gt "$sweeps" ] && break
	sleep 0.5
done
[ "$(grep -c "heavy sweep .* fabric UP" "$W/sm.log")" -gt "$sweeps" ] || fail "no heavy sweep after the fuzzer"
sim_cleanup

# --- 2. OpenSM ---------------------------------------------------------------------
sm_sim "$W/ft.net" "OpenSM run"
osm_daemon "$W/osm.log"
truth osm
sa_tab NR >"$W/nr.osm"
rc=$?
cat "$W/nr.osm" | tail -2
[ $rc = 5 ] && grep -q "^unsegmented" "$W/nr.osm" ||
	fail "OpenSM's NodeRecord table under ibsim: expected one unsegmented MAD (rc 5), rc $rc"
nr_agree "$W/nr.osm" OpenSM osm
mpr_bad osm "$(awk '$1 == "CA" { print $2 }' "$W/ibnd.osm" | sort -un | head -1)" >"$W/mprbad.osm"
diff "$W/mprbad.osm" "$W/mprbad.ibsm" || fail "MultiPathRecord errors differ from OpenSM's"
grep -qx "status 0x0500" "$W/mprbad.ibsm" || fail "MultiPathRecord with an unknown GID: not ERR_REQ_INVALID_GID"
SIM_HOST=$client sim_run timeout 300 "$IBSM_BUILD/bin/sa-fuzz" --count 100 --wait 150 --seed 54 >"$W/fuzz.osm" 2>&1 ||
	{ cat "$W/fuzz.osm"; fail "sa-fuzz against OpenSM: a status the spec does not allow, or no answer at the end"; }
grep "^status\|no-answer" "$W/fuzz.osm"
echo "ok: whole tables over RMPP ($nodes NodeRecords, $ports LinkRecords, $nodes PathRecords), fuzzed SA answered by the spec"
