# ibsim harness, sourced by integration tests, the demo and benchmarks.
#
#   . sim/ibsim_harness.sh
#   ibsim_start NETFILE [extra ibsim args]   # starts ibsim, waits until ready
#   sim_run CMD ARGS...                      # runs CMD attached to the fabric
#   SIM_HOST=node sim_run ...                # ... attached at another node
#   ibsim_cmd 'Unlink "leaf-1"[3]'        # type into the ibsim console (node[port])
#   ibsim_stop                               # stops ibsim and its helpers
#
# Every run gets its own IBSIM_SOCKNAME and work directory, so tests can run
# side by side. Processes are stopped by pid, never by name. ibsim's console
# reads stdin; at EOF it spins at 100% CPU, so it reads a fifo we keep open.

UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

ibsim_start() {
	_net=$1; shift
	SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-sim.XXXXXX")
	export SIM_DIR
	IBSIM_SOCKNAME="ibsm-$$-$(basename "$SIM_DIR")"
	export IBSIM_SOCKNAME
	mkfifo "$SIM_DIR/console"
	# Hold the fifo open for writing on fd 7 for the whole run.
	ibsim -s "$@" "$_net" <"$SIM_DIR/console" >"$SIM_DIR/ibsim.log" 2>&1 &
	IBSIM_PID=$!
	exec 7>"$SIM_DIR/console"
	_i=0
	while ! grep -q "Network simulator ready" "$SIM_DIR/ibsim.log" 2>/dev/null; do
		if ! kill -0 "$IBSIM_PID" 2>/dev/null; then
			echo "harness: ibsim exited while loading $_net:" >&2
			tail -5 "$SIM_DIR/ibsim.log" >&2
			return 1
		fi
		_i=$((_i + 1))
		if [ "$_i" -gt 1200 ]; then
			echo "harness: ibsim not ready after 120 s" >&2
			return 1
		fi
		sleep 0.1
	done
}

# Run a command as an ibsim client (libumad2sim preloaded). Sanitized
# binaries need ASan to tolerate not being first in the library list.
sim_run() {
	LD_PRELOAD="$UMAD2SIM" \
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0" \
	"$@"
}

# Type a line into ibsim's console (Unlink, ReLink, Error, Dump, ...).
ibsim_cmd() {
	printf '%s\n' "$1" >&7
	sleep 0.2
}

ibsim_stop() {
	if [ -n "${IBSIM_PID:-}" ]; then
		kill "$IBSIM_PID" 2>/dev/null
		wait "$IBSIM_PID" 2>/dev/null
		IBSIM_PID=
	fi
	exec 7>&- 2>/dev/null
	if [ -n "${SIM_DIR:-}" ] && [ -z "${SIM_KEEP:-}" ]; then
		rm -rf "$SIM_DIR"
	fi
}

# Start a background process and remember its pid for sim_cleanup. It must
# be a program, not a shell function ($! would be a subshell's pid).
# SIM_LAST_PID holds the pid of the process just started.
SIM_PIDS=""
sim_bg() {
	"$@" &
	SIM_LAST_PID=$!
	SIM_PIDS="$SIM_PIDS $SIM_LAST_PID"
}

# sim_run in the background: env execs the program, so the recorded pid is
# the program's own (kill by pid reaches it).
sim_bg_run() {
	sim_bg env LD_PRELOAD="$UMAD2SIM" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0" \
		"$@"
}

# The name of the K-th CA of an ibsim net file (tests query from the
# third: node-0 hosts the SM, node-1 often a second SM).
#   ibsim_ca_name NET K
ibsim_ca_name() {
	awk -F'"' -v k="$2" '/^Ca/ { n++; if (n == k) { print $2; exit } }' "$1"
}

# Stop one program started with sim_bg/sim_bg_run: SIGTERM, up to 5 s,
# then SIGKILL. OpenSM under libumad2sim can hang in its exit path after
# SIGTERM (seen in bench/perfmgr_bench.sh and test 42).
#   sim_stop_pid PID
sim_stop_pid() {
	kill "$1" 2>/dev/null
	_i=0
	while kill -0 "$1" 2>/dev/null && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

sim_cleanup() {
	for _p in $SIM_PIDS; do
		kill "$_p" 2>/dev/null
	done
	for _p in $SIM_PIDS; do
		wait "$_p" 2>/dev/null
	done
	SIM_PIDS=""
	ibsim_stop
}
