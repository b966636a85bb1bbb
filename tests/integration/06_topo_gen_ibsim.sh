#!/bin/sh
# Generated fabrics load into ibsim as the graphs we generated: for a 2-level
# radix-8 fat-tree, a 3x3x2 torus, two director chassis with leaves, a
# 9-group dragonfly and a random graph, ibsm-topo writes
# an ibsim net file, ibsim loads it, and ibnetdiscover (no SM needed: it
# walks directed routes) must find every node with our node GUID and our
# description (checked by plain text processing of both files), and the
# same links (topo-diff). Node ids are the descriptions, so ibsim's console
# and SIM_HOST address nodes by name: Unlink "leaf-0"[5] must remove
# exactly that link, and a client attached at node-5 must see node-5.
. "$(dirname "$0")/sm_lib.sh"
test_start 06 ibsim ibnetdiscover smpquery
TOPO=$IBSM_BUILD/bin/ibsm-topo
[ -x "$TOPO" ] || { echo "$TOPO not built"; exit 1; }

# "guid desc" for every node: the *guid= line before a record, then the
# quoted description after '#' on the record's header line. Works for our
# net files and for ibnetdiscover output alike.
guid_desc() {
	awk '/^(switchguid|caguid|rtguid)=/ { sub(/^[a-z]+=/, ""); sub(/\(.*/, "");
			g = tolower($0); sub(/^0x0*/, "", g) }
	     /^(Switch|Ca|Rt)[ \t]/ { d = $0; sub(/^[^#]*#[ \t]*"/, "", d);
			sub(/".*/, "", d); print g, d }' "$1" | sort
}

check() { # name, ibsm-topo args...
	name=$1; shift
	net=$W/$name.net
	"$TOPO" "$@" -o "$net" || fail "$name: ibsm-topo $* failed"
	head -c 200 "$net" >/dev/null
	first=$(grep -m1 -E '^(Switch|Ca|Rt)[[:space:]]' "$net")
	case $first in Ca*'"node-0"'*) ;; *) fail "$name: first record is not node-0: $first" ;; esac
	want=$(grep -cE '^(Switch|Ca)[[:space:]]' "$net")
	ibsim_start "$net" || fail "$name: ibsim did not load $net"
	sim_run ibnetdiscover >"$W/$name.ibnd" 2>"$W/$name.err" ||
		fail "$name: ibnetdiscover failed: $(tail -2 "$W/$name.err")"
	got=$(grep -cE '^(Switch|Ca)[[:space:]]' "$W/$name.ibnd")
	[ "$got" -eq "$want" ] || fail "$name: ibnetdiscover found $got nodes, file has $want"
	guid_desc "$net" >"$W/$name.ours"
	guid_desc "$W/$name.ibnd" >"$W/$name.theirs"
	[ "$(wc -l <"$W/$name.ours")" -eq "$want" ] || fail "$name: cannot read our own file"
	diff "$W/$name.ours" "$W/$name.theirs" >"$W/$name.diff" ||
		fail "$name: GUIDs/descriptions differ under ibsim: $(head -4 "$W/$name.diff")"
	if [ -x "$IBSM_BUILD/bin/topo-diff" ]; then
		"$IBSM_BUILD/bin/topo-diff" -1 net -2 ibnd "$net" "$W/$name.ibnd" >"$W/$name.tdiff" 2>&1 ||
			fail "$name: links differ: $(head -5 "$W/$name.tdiff")"
	fi
	echo "ok: $name: $got nodes, every GUID and description as generated"
}

check ft2-r8 fattree --levels 2 --radix 8
# A client attached at node-5 (SIM_HOST is a node id = our description).
SIM_HOST=node-5 sim_run smpquery -D nodedesc 0 >"$W/nd5" 2>&1 ||
	fail "smpquery at node-5 failed: $(cat "$W/nd5")"
grep -q 'node-5$' "$W/nd5" || fail "SIM_HOST=node-5 reached: $(cat "$W/nd5")"
# Console commands name nodes by description: unlink leaf-0's first up port.
# ibsim's syntax is "node"[port]; a bare "node" unlinks all its ports.
ibsim_cmd 'Unlink "leaf-0"[5]'
sim_run ibnetdiscover >"$W/unlinked.ibnd" 2>/dev/null || fail "ibnetdiscover after Unlink failed"
before=$(grep -c '^\[' "$W/ft2-r8.ibnd")
after=$(grep -c '^\[' "$W/unlinked.ibnd")
[ $((before - after)) -eq 2 ] || fail "Unlink \"leaf-0\"[5] removed $(((before - after) / 2)) links, not 1"
awk '/"leaf-0"/ && /^Switch/ { on = 1; next } /^$/ { on = 0 } on && /^\[5\]/ { bad = 1 } END { exit bad }' \
	"$W/unlinked.ibnd" || fail "leaf-0 port 5 still linked after Unlink"
echo "ok: SIM_HOST=node-5 and Unlink \"leaf-0\"[5] address nodes by description"
sim_cleanup

check torus-3x3x2 torus --dims 3x3x2 --hcas-per-switch 2
sim_cleanup
# Director chassis: descriptions with ';', ':' and '/' (as real chassis
# report them) survive ibsim and ibnetdiscover.
check dir-2x4 director --directors 2 --radix 8 --line-asics 4
sim_cleanup
check df-9x4 dragonfly --groups 9 --switches 4 --hosts 2 --global 2
sim_cleanup
check rr-16 random --switches 16 --degree 5 --hosts 2 --seed 3
sim_cleanup
check ft2-r8-cut fattree --levels 2 --radix 8 --remove 0.25 --seed 4
sim_cleanup
exit 0
