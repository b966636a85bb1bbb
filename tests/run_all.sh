#!/bin/sh
# Run every test: cmocka unit binaries, then integration scripts.
#   tests/run_all.sh [--unit-only|--integration-only] UNIT_BUILD INTEG_BUILD
# Integration scripts (tests/integration/*.sh) get IBSM_BUILD (absolute) and
# exit 0 = pass, 77 = skipped, anything else = fail. Output of a failing test
# is printed; the last line is "check: N passed, N failed, N skipped".
# Tests run in IBSM_TEST_JOBS lanes (default 2, one per core of the
# machines we target): every test has its own ibsim socket, work directory
# and (where it serves metrics) a port picked free, so two run side by side.
# The longest start first (LONG_FIRST), so the lanes end together.
# Sanitizers: every process a test starts (background daemons included,
# whose death the script may never notice) writes its ASan/UBSan/LSan
# report to $logdir/NAME.san.PID (log_path, exported per test as
# IBSM_SAN_LOG); a test that leaves such a file fails, and the reports are
# printed. With INTEG_BUILD a SAN=1 build this covers the integration tests.
# IBSM_TESTS="30 43 89" runs only the integration tests with those numbers
# (and no unit test unless --unit-only is given).
mode=all
case "${1:-}" in
--unit-only) mode=unit; shift ;;
--integration-only) mode=integ; shift ;;
esac
ubuild=${1:-build}
ibuild=${2:-$ubuild}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
pass=0; fail=0; skip=0; failed=""
logdir=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-check.XXXXXX")

jobs=${IBSM_TEST_JOBS:-2}
running=""     # names of the tests under way

# Report a finished test: PASS/SKIP/FAIL line, the failure's log tail.
# (Variables here and below start with _: sh has no locals, and run_one's
# name must survive the reaping it does while it waits for a lane.)
report() { # name
	_r=$1
	_rc=$(cat "$logdir/$_r.rc")
	_dt=$(( $(cat "$logdir/$_r.t1") - $(cat "$logdir/$_r.t0") ))
	# A sanitizer report from any of its processes fails the test.
	_san=$(ls "$logdir/$_r.san".* 2>/dev/null)
	if [ -n "$_san" ] && [ "$_rc" -eq 0 -o "$_rc" -eq 77 ]; then
		echo "sanitizer report(s): $_san" >>"$logdir/$_r.log"
		_rc=1
	fi
	if [ "$_rc" -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $_r (${_dt}s)"
	elif [ "$_rc" -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP $_r: $(tail -1 "$logdir/$_r.log")"
	else
		fail=$((fail + 1)); failed="$failed $_r"
		echo "FAIL $_r (rc $_rc, ${_dt}s):"
		tail -40 "$logdir/$_r.log" | sed 's/^/    /'
		for _f in $_san; do
			echo "    --- $(basename "$_f")"
			head -60 "$_f" | sed 's/^/    /'
		done
	fi
	case $_r in unit/*)
		grep -h -E '^\[  (PASSED|FAILED)  \]' "$logdir/$_r.log" 2>/dev/null | sed 's/^/    /' ;;
	esac
}

# Report every finished test; keep the others in $running.
reap() {
	_still=""
	for _n in $running; do
		if [ -f "$logdir/$_n.rc" ]; then report "$_n"; else _still="$_still $_n"; fi
	done
	running=$_still
}

# Start a test in a free lane (waiting for one); its exit status lands in
# NAME.rc, written whole (renamed into place) after NAME.t1.
run_one() { # name, cmd...
	_name=$1; shift
	while [ "$(echo $running | wc -w)" -ge "$jobs" ]; do
		sleep 0.2
		reap
	done
	mkdir -p "$logdir/$(dirname "$_name")"
	date +%s >"$logdir/$_name.t0"
	( IBSM_SAN_LOG="$logdir/$_name.san"
	  ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$IBSM_SAN_LOG"
	  UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$IBSM_SAN_LOG"
	  export IBSM_SAN_LOG ASAN_OPTIONS UBSAN_OPTIONS
	  "$@" >"$logdir/$_name.log" 2>&1; _rc=$?
	  date +%s >"$logdir/$_name.t1"
	  echo $_rc >"$logdir/$_name.rc.tmp" && mv "$logdir/$_name.rc.tmp" "$logdir/$_name.rc" ) &
	running="$running $_name"
}

# Wait for every test under way.
drain() {
	while [ -n "$(echo $running)" ]; do
		sleep 0.2
		reap
	done
}

LONG_FIRST="89_campaign 50_sa_consistency 56_sa_sl2vl 53_sa_informinfo 74_sm_standby_loss"

# Is integration test N (its file name) wanted (IBSM_TESTS)?
wanted() {
	[ -z "${IBSM_TESTS:-}" ] && return 0
	case " $IBSM_TESTS " in *" ${1%%_*} "*) return 0 ;; esac
	return 1
}
[ -n "${IBSM_TESTS:-}" ] && [ $mode = all ] && mode=integ

if [ $mode != integ ]; then
	for t in "$ubuild"/tests/test_*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" "$t"
	done
fi
if [ $mode != unit ]; then
	export IBSM_BUILD="$top/$ibuild"
	for n in $LONG_FIRST; do
		wanted "$n" || continue
		[ -f "tests/integration/$n.sh" ] && run_one "integration/$n" sh "tests/integration/$n.sh"
	done
	for t in tests/integration/[0-9]*.sh; do
		[ -f "$t" ] || continue
		n=$(basename "$t" .sh)
		case " $LONG_FIRST " in *" $n "*) continue ;; esac
		wanted "$n" || continue
		run_one "integration/$n" sh "$t"
	done
fi
drain
rm -rf "$logdir"
[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
