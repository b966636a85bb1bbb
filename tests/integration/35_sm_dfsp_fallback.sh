#!/bin/sh
# dfsp in the daemon, before SL2VL programming exists: the daemon cannot
# hand out path SLs, so dfsp must never leave tables that are only
# deadlock-free with SLs. On a fat-tree dfsp needs one layer and routes
# (the switches' tables pass our verifier's one-VL credit-loop check); on a
# torus it needs several, refuses with the reason, and the fallback (updn)
# routes, logged; again the tables the switches hold pass --check.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
IBSM_BUILD=${IBSM_BUILD:-$top/build}
. "$top/sim/ibsim_harness.sh"
. "$top/tests/integration/sm_lib.sh"
sm_need
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-t35.XXXXXX")
trap 'sim_cleanup; rm -rf "$W"' EXIT

run() { # name engines ibsm-topo args...
	_name=$1; _eng=$2; shift 2
	"$IBSM_BUILD/bin/ibsm-topo" "$@" -o "$W/$_name.net" || fail "$_name: ibsm-topo $*"
	ibsim_start "$W/$_name.net" || fail "$_name: ibsim did not start"
	sim_run "$IBSM_BUILD/bin/ibsm" --once -R "$_eng" --cache-dir "$W/$_name.cache" \
		>"$W/$_name.log" 2>&1 || { cat "$W/$_name.log"; fail "$_name: ibsm --once failed"; }
	grep -q "fabric UP" "$W/$_name.log" || fail "$_name: no 'fabric UP' in the log"
	sm_check_fabric "$_name"
}

run ft dfsp fattree --levels 2 --radix 8
grep -q "route dfsp:" "$W/ft.log" || { cat "$W/ft.log"; fail "ft: dfsp did not route the fat-tree"; }
ibsim_stop
echo "ok fat-tree: dfsp routed on one layer"

run torus dfsp,updn torus --dims 4x4 --hcas-per-switch 2
grep -q "routing engine 'dfsp' refused the fabric: routes need [0-9]* SL layers" "$W/torus.log" ||
	{ cat "$W/torus.log"; fail "torus: dfsp refusal not logged with its reason"; }
grep -q "falling back to routing engine 'updn'" "$W/torus.log" || fail "torus: no logged fallback"
grep -q "route updn:" "$W/torus.log" || fail "torus: updn did not route"
ibsim_stop
echo "ok torus: dfsp refused (needs SLs), updn routed, logged"
