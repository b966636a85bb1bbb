# Shared by the bench scripts (sourced): the named bench fabrics, generated
# once into $FABDIR with $TOPO (ibsm-topo), and a JSON field reader.
# Needs TOPO, FABDIR and WORK set by the caller.

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
