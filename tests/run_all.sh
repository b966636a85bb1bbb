#!/bin/sh
# Run every test: cmocka unit binaries, then integration scripts.
#   tests/run_all.sh [--unit-only|--integration-only] UNIT_BUILD INTEG_BUILD
# Integration scripts (tests/integration/*.sh) get IBSM_BUILD (absolute) and
# exit 0 = pass, 77 = skipped, anything else = fail. Output of a failing test
# is printed; the last line is "check: N passed, N failed, N skipped".
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

run_one() { # name, cmd...
	name=$1; shift
	t0=$(date +%s)
	mkdir -p "$logdir/$(dirname "$name")"
	"$@" >"$logdir/$name.log" 2>&1
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $name (${dt}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP $name: $(tail -1 "$logdir/$name.log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name (rc $rc, ${dt}s):"
		tail -40 "$logdir/$name.log" | sed 's/^/    /'
	fi
}

if [ $mode != integ ]; then
	for t in "$ubuild"/tests/test_*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" "$t"
		grep -h -E '^\[  (PASSED|FAILED)  \]' "$logdir/unit/$(basename "$t").log" 2>/dev/null | sed 's/^/    /'
	done
fi
if [ $mode != unit ]; then
	export IBSM_BUILD="$top/$ibuild"
	for t in tests/integration/[0-9]*.sh; do
		[ -f "$t" ] || continue
		run_one "integration/$(basename "$t" .sh)" sh "$t"
	done
fi
rm -rf "$logdir"
[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
