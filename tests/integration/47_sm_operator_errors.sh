#!/bin/sh
# What an operator is told (issue 25):
#  1. no umad device (ibsm run outside ibsim on a host without InfiniBand):
#     exit 1, and the message says what to check: the ib_umad module,
#     device permissions, `ibstat`.
#  2. persistence lost: cache_dir or dump_dir not writable. `--once` brings
#     the fabric up and exits 4 naming what was not saved; the daemon keeps
#     running and /metrics shows ibsm_persistence_ok 0 and the failures.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 47 curl

# --- 1. no umad device -------------------------------------------------------------
if [ -e /sys/class/infiniband_mad/umad0 ]; then
	echo "(this host has umad devices: no-device check skipped)"
else
	"$IBSM_BUILD/bin/ibsm" --once --cache-dir "$W/c0" >"$W/nodev.log" 2>&1
	rc=$?
	cat "$W/nodev.log"
	[ $rc = 1 ] || fail "no umad device: exit $rc, want 1"
	grep -q "ibstat" "$W/nodev.log" || fail "no umad device: the message does not mention ibstat"
	[ -e /sys/class/infiniband_mad ] || grep -q "ib_umad" "$W/nodev.log" ||
		fail "no umad device: the message does not name the ib_umad module"
fi

# --- 2. persistence lost ----------------------------------------------------------------
sm_topo ft fattree --levels 2 --radix 4
sm_sim "$W/ft.net"
: >"$W/notadir"     # a file: nothing under it can be created, not even by root
sim_run "$IBSM_BUILD/bin/ibsm" --once --cache-dir "$W/notadir/cache" >"$W/once.log" 2>&1
rc=$?
grep "persistence\|exit 4\|cannot" "$W/once.log"
[ $rc = 4 ] || fail "--once with cache_dir not writable: exit $rc, want 4"
grep -q "fabric UP" "$W/once.log" || fail "--once did not bring the fabric up"
grep -q "persistence lost: guid2lid could not be written (is cache_dir writable?)" "$W/once.log" ||
	fail "no 'persistence lost' line naming guid2lid"
sim_run "$IBSM_BUILD/bin/ibsm" --once --cache-dir "$W/cache" --dump "$W/notadir/dump" >"$W/once2.log" 2>&1
rc=$?
[ $rc = 4 ] || fail "--once with dump_dir not writable: exit $rc, want 4"
grep -q "persistence lost: dumps could not be written (is dump_dir writable?)" "$W/once2.log" ||
	fail "no 'persistence lost' line naming the dumps"
sim_run "$IBSM_BUILD/bin/ibsm" --once --cache-dir "$W/cache" --dump "$W/dump" >"$W/once3.log" 2>&1 ||
	fail "--once with writable dirs: exit $?, want 0"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sm_daemon "$W/d.log" --cache-dir "$W/notadir/cache" --sweep 1 --set metrics_listen=127.0.0.1:$PORT
sleep 1.5
kill -0 "$SMPID" || fail "the daemon stopped"
curl -sf "http://127.0.0.1:$PORT/metrics" >"$W/metrics.txt" || fail "GET /metrics failed"
grep "ibsm_persistence" "$W/metrics.txt"
grep -qx "ibsm_persistence_ok 0" "$W/metrics.txt" || fail "/metrics: ibsm_persistence_ok is not 0"
grep -q "^ibsm_persistence_failures_total [1-9]" "$W/metrics.txt" || fail "/metrics: no persistence failures counted"
echo "ok: no umad device explained; lost persistence is exit 4 for --once, a metric for the daemon"
