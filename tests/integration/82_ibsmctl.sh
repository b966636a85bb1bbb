#!/bin/sh
# ibsmctl over the control socket (docs/telemetry.md): a round trip for
# each command, human and --json (parsed by python3's json), avoid and
# restore judged by dump_fts, garbage on the socket answered with an error
# while the daemon keeps running, and the socket's mode.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 82
PY=/usr/bin/python3
test_need_built ibsmctl
S=$W/ibsm.sock
ctl() { "$IBSM_BUILD/bin/ibsmctl" -s "$S" "$@"; }
jget() { $PY -c "import json,sys; d = json.load(sys.stdin); print($1)"; }

sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --dump "$W/ft.dump" --sweep 2 \
	--set perf_interval=1 --set ctl_socket="$S"
[ "$(stat -c %a "$S")" = 660 ] || fail "socket mode $(stat -c %a "$S"), want 660"

ctl status >"$W/st" || fail "status"
grep -q "^SM: *MASTER" "$W/st" && grep -q "12 switches, 32 CAs" "$W/st" || { cat "$W/st"; fail "status text"; }
[ "$(ctl --json status | jget 'd["state"], d["switches"], d["cas"], d["fabric_up"]')" = "MASTER 12 32 True" ] || fail "status --json"
echo "ok status: $(sed -n 2p "$W/st")"

wait_log "$W/sm.log" "perfmgr: cycle 2:" 20 || fail "no PerfMgr cycles"
ibsim_cmd 'PerformanceSet "node-3"[1] PortCounters.PortRcvErrors=7'
ibsim_cmd 'PerformanceSet "node-9"[1] PortCounters.PortRcvErrors=2'
sleep 2.5
ctl top 5 >"$W/top" || fail "top"
head -1 "$W/top" | grep -q '"node-3" *port *1 .*PortRcvErrors=7' || grep -q 'node-3 .*port *1 .*PortRcvErrors=7' "$W/top" || { cat "$W/top"; fail "top: node-3 first"; }
[ "$(ctl --json top 5 | jget 'd[0]["node_desc"], d[0]["errors"]["PortRcvErrors"]["total"], d[1]["node_desc"]')" = "node-3 7 node-9" ] || fail "top --json"
echo "ok top: $(head -1 "$W/top")"

sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
LEAF=$(awk '/^Switch/ && /# "leaf-2" / { g = $3; gsub(/"|S-/, "", g); print "0x" g; exit }' "$W/ibnd")
uses() { sim_run dump_fts >"$W/fts" 2>/dev/null; fts_entries "$W/fts" | awk -v a="$LEAF" '$1 == a && $3 == 6 { n++ } END { print n + 0 }'; }
[ "$(uses)" -gt 0 ] || fail "leaf-2 port 6 carries no routes to begin with"
ups=$(grep -c "fabric UP" "$W/sm.log")
ctl avoid "$LEAF" 6 cable check >"$W/av" || fail "avoid"
grep -q rerouting "$W/av" || fail "avoid: $(cat "$W/av")"
i=0; until [ "$(grep -c "fabric UP" "$W/sm.log")" -gt "$ups" ]; do i=$((i + 1)); [ $i -gt 200 ] && fail "no reroute"; sleep 0.1; done
sleep 0.3
[ "$(uses)" -eq 0 ] || fail "avoided link still used"
ctl holds | grep -q "port 6, .*operator: cable check" || fail "holds"
[ "$(ctl --json holds | jget 'len(d), d[0]["port"]')" = "1 6" ] || fail "holds --json"
echo "ok avoid: leaf-2 port 6 carries no routes; $(ctl holds)"
# The dump's drawing is a heat map: measured transmit rates (ibsim's PMA
# counts the management traffic) or else the all-to-all route load, the
# avoided link dashed; graphviz renders it.
[ "$(ctl dump)" = "$W/ft.dump" ] || fail "dump (heat map)"
grep -q 'label="link load, busiest [0-9.e+-]* \(MB/s measured\|routes (all-to-all)\)' "$W/ft.dump/fabric.dot" ||
	fail "fabric.dot has no heat map"
[ "$(grep -c 'style=dashed.*label="avoided"' "$W/ft.dump/fabric.dot")" = 1 ] || fail "fabric.dot: not exactly one avoided link"
grep -q 'headlabel="6".*avoided\|taillabel="6".*avoided' "$W/ft.dump/fabric.dot" || fail "fabric.dot: the avoided link is not port 6's"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$W/ft.dump/fabric.dot" -o "$W/fabric.svg" && [ -s "$W/fabric.svg" ] || fail "graphviz cannot render fabric.dot"
fi
echo "ok heat map: $(grep -c penwidth "$W/ft.dump/fabric.dot") links drawn by load, 1 avoided"
ups=$(grep -c "fabric UP" "$W/sm.log")
[ "$(ctl --json restore "$LEAF" 6 | jget 'd["changed"]')" = True ] || fail "restore --json"
i=0; until [ "$(grep -c "fabric UP" "$W/sm.log")" -gt "$ups" ]; do i=$((i + 1)); [ $i -gt 200 ] && fail "no reroute after restore"; sleep 0.1; done
sleep 0.3
[ "$(uses)" -gt 0 ] || fail "restored link unused"
echo "ok restore: leaf-2 port 6 carries $(uses) routes again"

heavy=$(grep -c "heavy sweep [0-9.]* s" "$W/sm.log")
ctl resweep | grep -q "heavy sweep requested" || fail "resweep"
i=0; until [ "$(grep -c "heavy sweep [0-9.]* s" "$W/sm.log")" -gt "$heavy" ]; do i=$((i + 1)); [ $i -gt 200 ] && fail "no heavy sweep"; sleep 0.1; done
echo "ok resweep"
rm -f "$W/ft.dump/perf-counters.txt"
[ "$(ctl dump)" = "$W/ft.dump" ] || fail "dump"
[ -s "$W/ft.dump/perf-counters.txt" ] && [ -s "$W/ft.dump/lfts.txt" ] || fail "dump files"
echo "ok dump: $(ls "$W/ft.dump" | tr '\n' ' ')"

# Bad input: errors, exit 1, the daemon keeps running.
ctl frobnicate 2>"$W/e1"; [ $? -eq 1 ] && grep -q "unknown command 'frobnicate'" "$W/e1" || fail "unknown command: $(cat "$W/e1")"
ctl avoid 0x1234 99 2>"$W/e2"; [ $? -eq 1 ] && grep -q "no node 0x0000000000001234" "$W/e2" || fail "bad link: $(cat "$W/e2")"
ctl top lots 2>"$W/e3"; [ $? -eq 1 ] || fail "bad count accepted"
head -c 3000 /dev/urandom >"$W/junk"
$PY - "$S" "$W/junk" <<'PYEOF' || fail "garbage not refused"
import socket, sys
for data in (open(sys.argv[2], "rb").read(), b"status", b"\x00\x01\x02\n"):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(data)
    s.settimeout(10); r = b""
    while True:
        c = s.recv(4096)
        if not c: break
        r += c
    assert r.startswith(b"error: "), r
print("ok garbage:", r.decode().strip())
PYEOF
"$IBSM_BUILD/bin/ibsmctl" -s "$W/none.sock" status 2>/dev/null; [ $? -eq 2 ] || fail "missing socket: want exit 2"
ctl status >/dev/null || fail "daemon stopped answering"
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
