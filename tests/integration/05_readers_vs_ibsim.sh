#!/bin/sh
# Our readers agree with the real tools: for each net file, ibsim loads it,
# OpenSM brings the fabric up, and ibnetdiscover's dump must equal what our
# ibsim-net reader makes of the file (same node GUIDs, port GUIDs, links,
# descriptions, vendor/device ids, link widths and speeds). Then:
# - OpenSM's guid2lid file loads, and LID assignment keeping it changes no
#   LID of the dump;
# - our ibnetdiscover writer's output, loaded by ibsim, dumps back equal;
# - a net file with one link moved must be reported as different.
. "$(dirname "$0")/sm_lib.sh"
test_start 05 ibsim ibnetdiscover opensm
B=$IBSM_BUILD
[ -x "$B/bin/topo-diff" ] && [ -x "$B/bin/topo-convert" ] || { echo "tools not built in $B"; exit 1; }
OSM_PID=
cleanup() {
	[ -n "$OSM_PID" ] && kill "$OSM_PID" 2>/dev/null && wait "$OSM_PID" 2>/dev/null
	OSM_PID=
	sim_cleanup
}
TEST_AT_EXIT=cleanup

# start ibsim on $1, bring it up with OpenSM, dump to $2
bring_up_and_dump() {
	ibsim_start "$1" || fail "ibsim did not load $1"
	export OSM_CACHE_DIR="$SIM_DIR/osm-cache"
	mkdir -p "$OSM_CACHE_DIR"
	LD_PRELOAD="$UMAD2SIM" opensm -d2 -f "$SIM_DIR/osm.log" >/dev/null 2>&1 &
	OSM_PID=$!
	i=0
	until grep -q "SUBNET UP" "$SIM_DIR/osm.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "OpenSM did not bring $1 up in 30 s"
		sleep 0.1
	done
	sim_run ibnetdiscover >"$2" 2>/dev/null || fail "ibnetdiscover failed on $1"
	[ -s "$OSM_CACHE_DIR/guid2lid" ] && cp "$OSM_CACHE_DIR/guid2lid" "$2.guid2lid"
	cleanup
}

for net in small_2sw.net ft2_4x8.net; do
	src="$top/tests/data/$net"
	dump="$W/$net.ibnd"
	bring_up_and_dump "$src" "$dump"
	grep -q "lid [1-9]" "$dump" || fail "$net: dump has no LIDs (OpenSM did not assign)"
	"$B/bin/topo-diff" --rates -1 net -2 ibnd "$src" "$dump" ||
		fail "$net: our reader disagrees with ibnetdiscover"
	echo "ok: $net agrees with ibnetdiscover under ibsim"

	# OpenSM's guid2lid: loading it and keeping its LIDs reproduces the dump.
	[ -s "$dump.guid2lid" ] || fail "$net: OpenSM wrote no guid2lid"
	cp "$dump.guid2lid" "$W/g2l"
	"$B/bin/topo-convert" -f net --guid2lid "$W/g2l" "$src" "$W/assigned.ibnd" ||
		fail "$net: LID assignment from OpenSM's guid2lid failed"
	"$B/bin/topo-diff" --lids --rates "$dump" "$W/assigned.ibnd" ||
		fail "$net: LIDs from guid2lid differ from OpenSM's"
	echo "ok: $net LIDs from OpenSM's guid2lid match its dump"

	# Our writer's text loads into ibsim as the same fabric.
	"$B/bin/topo-convert" -f net "$src" "$W/ours.ibnd" || fail "$net: writer failed"
	ibsim_start "$W/ours.ibnd" || fail "ibsim did not load our ibnetdiscover text"
	sim_run ibnetdiscover >"$W/ours.dump" 2>/dev/null || fail "ibnetdiscover failed"
	cleanup
	"$B/bin/topo-diff" --rates "$src" "$W/ours.dump" ||
		fail "$net: ibsim loading our writer's output gives another fabric"
	echo "ok: $net written by us, loaded by ibsim, dumps back equal"
done

# DOT output renders.
if command -v dot >/dev/null 2>&1; then
	"$B/bin/topo-convert" "$top/tests/data/ft2_4x8.net" "$W/ft.dot" || fail "dot writer failed"
	dot -Tsvg "$W/ft.dot" >"$W/ft.svg" 2>"$W/dot.err" || fail "dot rejects our DOT: $(cat "$W/dot.err")"
	[ "$(grep -c '<g id="node' "$W/ft.svg")" -eq 60 ] || fail "DOT: expected 60 nodes in the SVG"
	echo "ok: DOT of ft2_4x8 renders with dot -Tsvg (60 nodes)"
fi

# The check can fail: move one host link and the diff must notice.
sed 's/^\[1\]\t"host-1"\[1\]$/[6]\t"host-1"[1]/; s/^\[1\]\t"leaf-a"\[1\]$/[1]\t"leaf-a"[6]/' \
	"$top/tests/data/small_2sw.net" >"$W/moved.net"
cmp -s "$W/moved.net" "$top/tests/data/small_2sw.net" && fail "test edit did not apply"
if "$B/bin/topo-diff" -q "$W/moved.net" "$W/small_2sw.net.ibnd" >/dev/null; then
	fail "a moved link was not reported"
fi
echo "ok: a moved link is reported"
exit 0
