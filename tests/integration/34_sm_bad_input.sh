#!/bin/sh
# Bad input: ibsm must say clearly what is wrong and exit 1, before it
# touches the fabric: bad YAML, unknown key, bad value, unknown engine,
# missing config file, a port that does not exist, stray arguments.
. "$(dirname "$0")/sm_lib.sh"
test_need_built ibsm
test_start 34

expect() { # description, expected message (grep -E), command...
	_d=$1; _m=$2; shift 2
	timeout 20 "$@" >"$W/out" 2>&1
	_rc=$?
	[ $_rc -eq 1 ] || { cat "$W/out"; fail "$_d: exit $_rc, want 1"; }
	grep -qE "$_m" "$W/out" || { cat "$W/out"; fail "$_d: message does not match '$_m'"; }
	echo "ok $_d: $(grep -E "$_m" "$W/out" | head -1)"
}
IBSM=$IBSM_BUILD/bin/ibsm

printf 'lmc: 1\nrouting_engine: [updn\n' >"$W/syntax.yaml"
expect "YAML syntax" "syntax.yaml:[0-9]+" "$IBSM" -c "$W/syntax.yaml" --dump-config
printf 'lmc: 1\nroutng_engine: updn\n' >"$W/key.yaml"
expect "unknown key" "key.yaml:2:.*routng_engine" "$IBSM" -c "$W/key.yaml" --dump-config
printf 'mad_window: 0\n' >"$W/value.yaml"
expect "bad value" "value.yaml:1:.*mad_window" "$IBSM" -c "$W/value.yaml" --dump-config
expect "missing config file" "nonexistent.yaml" "$IBSM" -c "$W/nonexistent.yaml"
expect "bad --lmc" "lmc" "$IBSM" --lmc 9 --cache-dir "$W/c"
expect "unknown option" "usage" "$IBSM" --frobnicate
expect "stray argument" "unexpected argument" "$IBSM" extra --cache-dir "$W/c"
expect "unknown engine" "unknown routing engine 'nosuch'" "$IBSM" -R updn,nosuch --once --cache-dir "$W/c"
printf 'routing_engine: [minhop, bogus]\ncache_dir: %s\n' "$W/c" >"$W/engine.yaml"
expect "unknown engine in file" "unknown routing engine 'bogus'" "$IBSM" -c "$W/engine.yaml" --once

# A missing port needs a (simulated) device to look at.
if command -v ibsim >/dev/null 2>&1 && [ -f "$UMAD2SIM" ]; then
	printf 'Ca 1 "h"\n[1] "s"[1]\n\nSwitch 4 "s"\n[1] "h"[1]\n' >"$W/tiny.net"
	sm_sim "$W/tiny.net"
	expect "missing port" "no local port" env LD_PRELOAD="$UMAD2SIM" "$IBSM" -P 7 --once -R minhop --cache-dir "$W/c"
	expect "missing CA" "no local port" env LD_PRELOAD="$UMAD2SIM" "$IBSM" -C mlx5_9 --once -R minhop --cache-dir "$W/c"
	expect "missing GUID" "no local port has GUID" env LD_PRELOAD="$UMAD2SIM" "$IBSM" -g 0x1234 --once -R minhop --cache-dir "$W/c"
	# and the same tiny fabric comes up with good input
	sim_run "$IBSM" --once -R minhop --cache-dir "$W/c" >"$W/good" 2>&1 || { cat "$W/good"; fail "good input failed"; }
fi
echo "PASS"
