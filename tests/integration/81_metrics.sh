#!/bin/sh
# Prometheus /metrics (docs/telemetry.md): with metrics_listen set, the
# endpoint serves the text format that Debian's Prometheus parser
# (python3-prometheus-client) reads, with the inventory matching
# ibnetdiscover, sweeps, MADs, SA queries, the engine, PerfMgr counters
# matching perfquery, and a link avoided by the noisy-link policy. Bad
# metrics_listen values give FILE:LINE errors; a port already in use a
# clear error and exit 1.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 81
PY=/usr/bin/python3
$PY -c "import prometheus_client.parser" 2>/dev/null || { echo "python3-prometheus-client not installed"; exit 77; }
command -v curl >/dev/null 2>&1 || { echo "curl not installed"; exit 77; }

printf 'metrics_listen: "localhost:http"\n' >"$W/bad.yaml"
"$IBSM_BUILD/bin/ibsm" -c "$W/bad.yaml" --dump-config >"$W/bad.out" 2>&1 && fail "bad metrics_listen accepted"
grep -q "bad.yaml:1: bad value for 'metrics_listen'" "$W/bad.out" || { cat "$W/bad.out"; fail "no FILE:LINE error for metrics_listen"; }
echo "ok bad metrics_listen: $(head -1 "$W/bad.out")"

# A free TCP port on loopback.
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sm_topo ft fattree --levels 2 --radix 8
sm_sim "$W/ft.net"
sm_daemon "$W/sm.log" --cache-dir "$W/cache" --sweep 1 \
	--set perf_interval=1 --set metrics_listen=127.0.0.1:$PORT
# A second SM on the same address: clear error, exit 1.
SIM_HOST=node-9 sim_run "$IBSM_BUILD/bin/ibsm" --cache-dir "$W/cache2" --once \
	--set metrics_listen=127.0.0.1:$PORT >"$W/second.log" 2>&1 && fail "a second ibsm listened on a busy port"
grep -q "metrics_listen 127.0.0.1:$PORT: cannot listen" "$W/second.log" || { cat "$W/second.log"; fail "no clear error for a busy port"; }
echo "ok busy port: $(grep "cannot listen" "$W/second.log")"

wait_log "$W/sm.log" "perfmgr: cycle 2:" 20 || fail "no PerfMgr cycles"
ibsim_cmd 'PerformanceSet "leaf-1"[6] PortCounters.SymbolErrorCounter=500'
ibsim_cmd 'PerformanceSet "node-5"[1] PortCounters.PortRcvErrors=3'
wait_log "$W/sm.log" "link hold: routing around .*leaf-1" 20 || fail "noisy link not avoided"
wait_log "$W/sm.log" "perfmgr: rerouted" 20 || fail "no reroute"
sim_run saquery NR >/dev/null 2>&1
sim_run ibnetdiscover >"$W/ibnd" 2>/dev/null || fail "ibnetdiscover"
sleep 6                         # one metrics refresh at most
curl -sf "http://127.0.0.1:$PORT/metrics" >"$W/metrics.txt" || fail "GET /metrics failed"
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nope" | grep -q 404 || fail "/nope is not 404"
node5=$(awk '/^Ca/ && /"node-5"/ { ca = 1; next } ca && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$W/ibnd")
pq_rcv=$(sim_run perfquery "$node5" 1 2>/dev/null | awk -F'[.:]+' '$1 == "PortRcvErrors" { print $2 }')
sw=$(grep -c "^Switch" "$W/ibnd"); ca=$(grep -c "^Ca" "$W/ibnd")
$PY - "$W/metrics.txt" "$sw" "$ca" "$pq_rcv" "$top/contrib/grafana-ibsm.json" <<'PYEOF' || fail "metrics check failed"
import sys, re, json
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
fam = {f.name: f for f in text_string_to_metric_families(text)}
def val(name, **labels):
    for s in fam[name].samples:
        if all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise SystemExit(f"no sample {name} {labels}")
want_sw, want_ca, pq_rcv = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
assert val("ibsm_nodes", type="switch") == want_sw, "switches"
assert val("ibsm_nodes", type="ca") == want_ca, "CAs"
assert val("ibsm_ports", state="active") > 0
assert val("ibsm_heavy_sweeps") >= 2, "heavy sweeps (one reroute at least)"
assert val("ibsm_light_sweeps") >= 1
assert val("ibsm_mads_sent") > 0 and val("ibsm_mads_timed_out") >= 0
assert val("ibsm_sa_requests") >= 1, "saquery not counted"
assert val("ibsm_routing_engine_info", engine="ftree") == 1
assert val("ibsm_perf_cycles") >= 2
assert val("ibsm_avoided_links") == 1
assert val("ibsm_link_avoided", port="6") == 1
assert val("ibsm_port_counter", node_desc="leaf-1", port="6", counter="symbol_error") == 500
assert val("ibsm_port_counter", node_desc="node-5", port="1", counter="port_rcv_errors") == pq_rcv == 3
assert val("ibsm_port_counter", node_desc="node-5", port="1", counter="port_xmit_data") > 0
# The Grafana dashboard asks only for metrics that exist.
names = set(re.findall(r"ibsm_[a-z_]+", json.dumps(json.load(open(sys.argv[5])))))
exported = {s.name for f in fam.values() for s in f.samples}
missing = sorted(n for n in names if n not in exported and n + "_total" not in exported and n not in fam)
assert not missing, f"dashboard uses unknown metrics {missing}"
print(f"ok dashboard: {len(names)} metric names, all exported")
print(f"ok metrics: {len(fam)} families, {sum(len(f.samples) for f in fam.values())} samples parsed by prometheus_client")
PYEOF
kill -0 "$SMPID" || fail "ibsm died"
echo "PASS"
