#!/bin/sh
# The control path cannot kill or starve the daemon (issue 26, findings 6
# and 7):
#  1. ctl_socket: 200 clients that send `status` and close before reading
#     the answer (a health check, an interrupted ibsmctl). ibsm wrote the
#     answer into a closed socket and died of SIGPIPE (status 141, no log
#     line); now it keeps running and the next ibsmctl is answered.
#  2. /metrics slowloris: 40 connections from 127.0.0.1 that send a header
#     byte a second and never finish. They held libmicrohttpd's 16 slots
#     for 10 s each and scrapes timed out; now one address holds at most
#     metrics_per_ip_connections (4 here) and an idle one is closed after
#     metrics_timeout (2 s here): three scrapes from 127.0.0.2 are
#     answered within 2 s each while the 40 keep trying.
# Only loopback addresses are used.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 91 curl
PY=/usr/bin/python3
test_need_built ibsmctl
S=$W/ibsm.sock
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

sm_topo ft fattree --levels 2 --radix 4
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 --set ctl_socket="$S" \
	--set metrics_listen=127.0.0.1:$PORT --set metrics_per_ip_connections=4 \
	--set metrics_timeout=2
grep -q "at most 64 connections, 4 per address, 2 s idle" "$W/sm.log" || fail "no metrics limits in the log"

# --- 1. clients that close before reading ------------------------------------
$PY - "$S" <<'PYEOF' || fail "the closing clients"
import socket, sys
for i in range(200):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1])
        s.sendall(b"status\n")
    except OSError:
        pass
    s.close()
PYEOF
sleep 0.5
kill -0 "$SMPID" 2>/dev/null || { wait "$SMPID"; fail "ibsm died (exit $?) after clients closed before reading"; }
"$IBSM_BUILD/bin/ibsmctl" -s "$S" status >"$W/st" || fail "ibsmctl status after the closing clients"
grep -q "^SM: *MASTER" "$W/st" || { cat "$W/st"; fail "status text"; }
echo "ok 1: 200 clients closed before reading; ibsm runs and answers ($(sed -n 1p "$W/st"))"

# --- 2. slowloris on /metrics --------------------------------------------------
sleep 1.5                       # the first metrics text is published
curl -sf --max-time 2 "http://127.0.0.1:$PORT/metrics" >/dev/null || fail "no scrape before the attack"
$PY - "$PORT" 12 >"$W/slow.out" 2>&1 <<'PYEOF' &
# 40 connections that dribble a header byte a second for N seconds,
# reconnecting when closed.
import socket, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
end = time.time() + secs
conns, opened, closed = [], 0, 0
def new():
    global opened
    s = socket.socket()
    s.settimeout(0.2)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        opened += 1
        return s
    except OSError:
        s.close()
        return None
conns = [new() for _ in range(40)]
while time.time() < end:
    for i, s in enumerate(conns):
        try:
            if s is None:
                raise OSError
            s.sendall(b"X")
        except OSError:
            if s is not None:
                s.close()
                closed += 1
            conns[i] = new()
    time.sleep(1)
print(f"opened {opened} closed {closed}")
PYEOF
SLOW=$!
sleep 3
ok=0
for i in 1 2 3; do
	t0=$(date +%s.%N)
	if curl -sf --max-time 2 --interface 127.0.0.2 "http://127.0.0.1:$PORT/metrics" >"$W/m$i.txt"; then
		grep -q "^ibsm_" "$W/m$i.txt" && ok=$((ok + 1))
	fi
	echo "scrape $i: $(echo "$(date +%s.%N) - $t0" | bc) s"
	sleep 1
done
wait "$SLOW"
echo "slow clients: $(cat "$W/slow.out")"
[ $ok -eq 3 ] || fail "$ok of 3 scrapes answered during the slowloris"
sm_reroute "$W/ft.net" "$W/sm.log"
kill -0 "$SMPID" 2>/dev/null || fail "ibsm died"
echo "ok 2: 3 of 3 scrapes answered beside 40 slow connections"
sm_stop_clean "$W/sm.log"
echo "PASS"
