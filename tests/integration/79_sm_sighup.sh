#!/bin/sh
# SIGHUP (issue 25): ibsm reopens its log file (logrotate: the rotated file
# is let go, the new one written), re-reads the configuration file, applies
# the keys that can change live (head_of_queue_lifetime: smpquery sees the
# new HOQLife after the sweep SIGHUP starts), names each changed key that
# needs a restart (mad_window), and keeps running on its configuration
# when the file has become bad (the bad line named). The logrotate snippet
# in contrib is checked with logrotate -d when logrotate is installed, and
# used for the rotation then.
. "$(dirname "$0")/sm_lib.sh"
sm_test_start 79 smpquery

sm_topo ft fattree --levels 2 --radix 4
cat >"$W/ibsm.yaml" <<EOT
log_file: $W/log/ibsm.log
cache_dir: $W/cache
sweep_interval: 1
EOT
mkdir -p "$W/log"
sm_sim "$W/ft.net"
sim_bg_run "$IBSM_BUILD/bin/ibsm" -c "$W/ibsm.yaml" >"$W/stderr" 2>&1
P=$SIM_LAST_PID
wait_log "$W/log/ibsm.log" "fabric UP" 30 || { cat "$W/stderr"; fail "ibsm not up"; }
sweeps() { cat "$W"/log/ibsm.log* 2>/dev/null | grep -c "heavy sweep .*fabric"; }
hup_and_sweep() {
	_n=$(sweeps)
	kill -HUP "$P"
	_i=0
	until [ "$(sweeps)" -gt "$_n" ]; do
		_i=$((_i + 1)); [ $_i -gt 200 ] && fail "no heavy sweep after SIGHUP"; sleep 0.1
	done
}

# --- 1. log rotation -----------------------------------------------------------
grep -q "^/var/log/ibsm/ibsm.log {" "$top/contrib/ibsm.logrotate" &&
	grep -q "systemctl reload ibsm.service" "$top/contrib/ibsm.logrotate" ||
	fail "contrib/ibsm.logrotate does not rotate /var/log/ibsm/ibsm.log with a reload"
if command -v logrotate >/dev/null 2>&1; then
	sed -e "s|/var/log/ibsm/ibsm.log|$W/log/ibsm.log|" \
	    -e "s|systemctl reload ibsm.service.*|kill -HUP $P|" \
	    -e "/compress/d" "$top/contrib/ibsm.logrotate" >"$W/lr.conf"
	logrotate -s "$W/lr.state" -f "$W/lr.conf" || fail "logrotate failed on the contrib snippet"
	wait_log "$W/log/ibsm.log" "log file reopened" 10 || fail "no log line in the new file after logrotate"
else
	echo "(no logrotate: rotating by hand)"
	mv "$W/log/ibsm.log" "$W/log/ibsm.log.1"
	hup_and_sweep
fi
wait_log "$W/log/ibsm.log" "log file reopened" 10 || fail "no log line in the new file after rotation"
grep -q "log file reopened" "$W/log/ibsm.log.1" && fail "the rotated file got the reopen line"
grep -q "fabric UP" "$W/log/ibsm.log.1" || fail "the rotated file lost the old lines"
echo "rotation: $(wc -l <"$W/log/ibsm.log.1") lines in ibsm.log.1, new file: $(grep -c . "$W/log/ibsm.log") lines"

# --- 2. a live key and a restart key ----------------------------------------------
printf 'head_of_queue_lifetime: 0x11\nmad_window: 16\n' >>"$W/ibsm.yaml"
hup_and_sweep
grep "SIGHUP" "$W/log/ibsm.log" | tail -4
grep -q "SIGHUP: .*head_of_queue_lifetime changed: applied" "$W/log/ibsm.log" || fail "head_of_queue_lifetime not applied"
grep -q "SIGHUP: .*mad_window changed: needs a restart" "$W/log/ibsm.log" || fail "mad_window not named as needing a restart"
hoq=$(sim_run smpquery -D portinfo 0,1 3 2>/dev/null | sed -n 's/^HoqLife:\.*//p')
[ "$hoq" = 17 ] || fail "uplink HoqLife $hoq after SIGHUP, want 17"

# --- 3. a bad file ---------------------------------------------------------------
echo "bogus_key: 1" >>"$W/ibsm.yaml"
hup_and_sweep
grep -q "ibsm.yaml:6: unknown key 'bogus_key'\|ibsm.yaml:6:.*bogus_key" "$W/log/ibsm.log" ||
	{ grep -i "bogus\|SIGHUP" "$W/log/ibsm.log"; fail "the bad line is not named"; }
grep -q "SIGHUP: .* not reloaded" "$W/log/ibsm.log" || fail "no 'not reloaded' line"
kill -0 "$P" || fail "ibsm stopped on a bad file at SIGHUP"
echo "ok: SIGHUP reopens the log, applies live keys, names restart keys, survives a bad file"
