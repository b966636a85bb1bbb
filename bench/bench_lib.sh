# shellcheck shell=sh disable=SC2034,SC2154 # sourced: reads top, B, W; sets variables for its caller
# Shared by the bench scripts (sourced): the start the ibsim benches share
# (needs top set), timing helpers, the fattree they run on; the named bench
# fabrics, generated once into $FABDIR with $TOPO (ibsm-topo; needs TOPO,
# FABDIR and WORK set by the caller), and a JSON field reader.

# bench_need NAME CMD...: exit 77 (skipped) when a command is missing.
bench_need() {
	_bn=$1; shift
	for _c; do
		command -v "$_c" >/dev/null 2>&1 || { echo "$_bn: $_c missing"; exit 77; }
	done
}

# bench_sim_workdir TAG: source the ibsim harness, make the work directory
# W, remove it at exit after sim_cleanup (kept when KEEP is set) and cd there.
bench_sim_workdir() {
	. "$top/sim/ibsim_harness.sh"
	W=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-$1.XXXXXX")
	trap 'sim_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
	trap 'exit 130' INT TERM HUP PIPE
	cd "$W" || exit 1
}

now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# bench_wait_log LOG PATTERN PID [SECONDS]: 0 once LOG has PATTERN, 1 when
# PID died or after SECONDS (default 600).
bench_wait_log() {
	_i=0
	while [ $_i -lt $((${4:-600} * 20)) ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		_i=$((_i + 1)); sleep 0.05
	done
	return 1
}

# bench_fattree NET ARGS...: ibsm-topo fattree ARGS into NET, its summary
# beside it (NET with .sum for .net); sets limits (ibsim's -s arguments
# for it).
bench_fattree() {
	_net=$1; shift
	"$B/bin/ibsm-topo" fattree "$@" -o "$_net" --summary >"${_net%.net}.sum" || exit 1
	limits=$(sed -n 's/.*ibsim -s \(.*\) FILE.*/\1/p' "${_net%.net}.sum")
}

# bench_sm_start ibsm|opensm TAG: start that SM on the running ibsim
# (ibsm: ftree,updn, no periodic sweep, cache and log in $W/TAG.*;
# OpenSM: -d2, its cache in $W/TAG.osm); sets pid, log and up (the line
# its log shows once the fabric is up).
bench_sm_start() {
	if [ "$1" = ibsm ]; then
		sim_bg_run "$B/bin/ibsm" -R ftree,updn --cache-dir "$W/$2.c" \
			--sweep 0 --log-file "$W/$2.ibsm.log"
		pid=$SIM_LAST_PID; log=$W/$2.ibsm.log; up="fabric UP"
	else
		export OSM_CACHE_DIR="$W/$2.osm"; mkdir -p "$OSM_CACHE_DIR"
		sim_bg_run opensm -d2 -f "$W/$2.osm.log" >/dev/null 2>&1
		pid=$SIM_LAST_PID; log=$W/$2.osm.log; up="SUBNET UP"
	fi
}

# bench_ca_peer CA: the switch port ("name"[n]) CA's port 1 is cabled to
# in $W/ft.net.
bench_ca_peer() {
	awk -v c="\"$1\"" '$1 == "Ca" && $3 == c { getline; sub(/^\[1\][ \t]*/, ""); sub(/[ \t].*/, ""); print; exit }' "$W/ft.net"
}

# name -> ibsm-topo arguments
bench_topo_args() {
	case $1 in
	ft2-r36) echo "fattree --levels 2 --radix 36" ;;   # 648 CAs, 54 switches
	ft3-r20) echo "fattree --levels 3 --radix 20" ;;   # 2,000 CAs, 500 switches
	ft3-r20-d5) echo "fattree --levels 3 --radix 20 --remove 0.05 --seed 1" ;;
	ft3-r36) echo "fattree --levels 3 --radix 36" ;;   # 11,664 CAs, 1,620 switches
	ft3-r64) echo "fattree --levels 3 --radix 64" ;;   # 65,536 CAs, 5,120 switches
	ft3-r64-d5) echo "fattree --levels 3 --radix 64 --remove 0.05 --seed 1" ;;
	dir2-r36) echo "director --directors 2 --radix 36" ;; # 2 x 648-port chassis, 1,296 CAs, 180 switches
	dir6-r36) echo "director --directors 6 --radix 36" ;; # 6 x 648-port chassis, 3,888 CAs, 540 switches
	*) return 1 ;;
	esac
}

# name -> path of its net file, generated once (a temporary name first, so
# an interrupted run leaves no half-written fabric behind)
bench_fabric() {
	_f=$FABDIR/$1.net
	if [ ! -s "$_f" ]; then
		_args=$(bench_topo_args "$1") || { echo "bench: unknown fabric $1" >&2; return 1; }
		mkdir -p "$FABDIR"
		# shellcheck disable=SC2086
		"$TOPO" $_args -o "$_f.tmp.$$" >"$WORK/topo.log" 2>&1 || {
			echo "bench: ibsm-topo $_args failed:" >&2
			tail -3 "$WORK/topo.log" >&2
			rm -f "$_f.tmp.$$"
			return 1
		}
		mv "$_f.tmp.$$" "$_f"
	fi
	echo "$_f"
}

json_field() { # key file
	sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\{0,1\}\([^,}\"]*\).*/\1/p" "$2" | head -1
}
