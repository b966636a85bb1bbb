# The randomized fabric campaign's pieces (issue 24), sourced by
# tests/campaign/campaign.sh: draw a fabric from a family and a seed, bring
# it up with an SM (ibsm or OpenSM) under ibsim, judge it with the real diag
# tools, apply a seeded fault script and judge again after every fault.
# Needs top, IBSM_BUILD, sim/ibsim_harness.sh and sm_lib.sh sourced (for
# fts/ibnd helpers, not for sm_check_fabric: the campaign records failures
# instead of exiting on the first). See docs/campaign.md.

# A tiny seeded generator (an LCG, Park-Miller constants of the C library's
# rand()) in shell arithmetic, so the same seed draws the same fabric and
# faults on every machine (awk's srand differs between mawk and gawk).
#   camp_seed S; camp_rand N  -> R in [0, N)
camp_seed() { CR=$(( ($1 * 2654435761 + 17) % 2147483648 )); }
camp_rand() {
	CR=$(( (CR * 1103515245 + 12345) % 2147483648 ))
	R=$(( (CR >> 4) % $1 ))
}
# One of the arguments, at random.
camp_pick() {
	camp_rand $#
	shift $R
	P=$1
}

CAMP_FAMILIES="ft2 ft2-deg ft3 ft3-deg director dragonfly torus random dump"

# The ibsm-topo arguments of FAMILY drawn with SEED (CAMP_SIZE small|large:
# small keeps every fabric under ~250 nodes for make check), in GEN;
# dumps: the file to convert, in DUMP. Families whose random draw is not a
# valid shape draw again (same seed, next numbers): deterministic.
#   camp_params FAMILY SEED
camp_params() {
	camp_seed "$2"
	GEN=""; DUMP=""
	_big=0; [ "${CAMP_SIZE:-small}" = large ] && _big=1
	_real="--guids random --shuffle-ports --seed $2"
	case $1 in
	ft2|ft2-deg)
		if [ $_big -eq 1 ]; then camp_pick 6 8 10 12 16; else camp_pick 6 8 10 12; fi
		GEN="fattree --levels 2 --radix $P"
		;;
	ft3|ft3-deg)
		if [ $_big -eq 1 ]; then camp_pick 4 6 8 10 12; else camp_pick 4 6 8; fi
		GEN="fattree --levels 3 --radix $P"
		;;
	director)
		camp_pick 1 2
		_d=$P
		camp_pick 4 8
		_r=$P
		[ $_d -eq 2 ] && [ $_r -eq 4 ] && _d=1
		camp_rand $((_r - 1)); _n=$((R + 2))
		GEN="director --directors $_d --radix $_r --line-asics $_n"
		camp_rand 2
		[ $R -eq 1 ] && GEN="$GEN --remove 0.0$((2 + R * 3))"
		;;
	dragonfly)
		camp_rand 4; _g=$((R + 3))
		camp_rand 3; _a=$((R + 2))
		camp_rand 3; _p=$((R + 1))
		# every pair of groups needs a global link: a*h >= g-1
		_h=$(( (_g - 1 + _a - 1) / _a ))
		camp_rand 2; _h=$((_h + R))
		GEN="dragonfly --groups $_g --switches $_a --hosts $_p --global $_h"
		;;
	torus)
		camp_rand 2
		if [ $R -eq 0 ]; then
			camp_rand 4; _x=$((R + 2)); camp_rand 4; _y=$((R + 2))
			GEN="torus --dims ${_x}x${_y}"
		else
			camp_rand 2; _x=$((R + 2)); camp_rand 2; _y=$((R + 2))
			camp_rand 2; _z=$((R + 2))
			GEN="torus --dims ${_x}x${_y}x${_z}"
		fi
		camp_rand 2; [ $R -eq 1 ] && GEN="$GEN --mesh"
		camp_rand 2; GEN="$GEN --hcas-per-switch $((R + 1))"
		;;
	random)
		if [ $_big -eq 1 ]; then camp_rand 40; else camp_rand 19; fi
		_s=$((R + 6))
		camp_rand 3; _deg=$((R + 3))
		[ $((_s * _deg % 2)) -eq 1 ] && _s=$((_s + 1))  # a regular graph needs it
		camp_rand 3
		GEN="random --switches $_s --degree $_deg --hosts $((R + 1))"
		;;
	dump)
		# the public dumps in tests/data that describe a whole fabric
		set -- "$top"/tests/data/*.net "$top"/tests/data/*.ibnd
		camp_pick "$@"
		DUMP=$P
		return 0
		;;
	*)
		echo "campaign: unknown family '$1' (known: $CAMP_FAMILIES)" >&2
		return 2
		;;
	esac
	case $1 in
	*-deg)
		camp_rand 10
		GEN="$GEN --remove $(printf '0.%02d' $((R + 1)))"
		;;
	esac
	case $1 in
	ft*|director) camp_rand 2; [ $R -eq 1 ] && GEN="$GEN --shuffle-hosts" ;;
	esac
	GEN="$GEN $_real"
}

# Write the fabric of FAMILY/SEED as an ibsim net file OUT.
#   camp_make FAMILY SEED OUT
camp_make() {
	camp_params "$1" "$2" || return 2
	if [ -n "$DUMP" ]; then
		"$IBSM_BUILD/bin/topo-convert" "$DUMP" "$3" >/dev/null 2>&1 && return 0
		echo "campaign: $DUMP does not convert to an ibsim net file" >&2
		return 1
	fi
	# shellcheck disable=SC2086
	"${CAMP_TOPO:-$IBSM_BUILD/bin/ibsm-topo}" $GEN -o "$3" 2>"$3.err" && return 0
	echo "campaign: ibsm-topo $GEN: $(cat "$3.err")" >&2
	return 1
}

# Switch-to-switch links of a net file: "id port peer peerport" once each
# (ids as ibsim's console names them). SM's switch: the peer of the first
# CA (ibsim attaches clients there).
camp_links() {
	awk -F'"' '
	/^Switch/ { sw[$2] = 1 }
	{ lines[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			split(lines[i], f, "\"")
			if (lines[i] ~ /^Switch/) { cur = f[2]; continue }
			if (lines[i] ~ /^(Ca|Hca|Rt)/) { cur = ""; continue }
			if (cur == "" || lines[i] !~ /^\[/) continue
			if (!(f[2] in sw)) continue
			p = lines[i]; sub(/^\[/, "", p); sub(/\].*/, "", p)
			q = f[3]; sub(/^\[/, "", q); sub(/\].*/, "", q)
			k = (cur < f[2]) ? cur SUBSEP p : f[2] SUBSEP q
			if (k in seen) continue
			seen[k] = 1
			print cur "\t" p "\t" f[2] "\t" q
		}
	}' "$1"
}
camp_sm_switch() {
	awk -F'"' '/^(Ca|Hca)/ { ca = 1; next } ca && /^\[/ { print $2; exit }' "$1"
}

# --- judging -----------------------------------------------------------

# Judge the running fabric with the real tools, as seen from node-0:
# ibnetdiscover (what is physically there), iblinkinfo (every linked port
# ACTIVE), unique nonzero LIDs, dump_fts judged by ibsm-route --lfts-in
# --check --cdg-switch-lids (every pair routed, no loop, no credit loop
# including switch LIDs). Sets J_OK (1/0), J_WHY (first failure, one
# line), J_A2A, J_UNREACH (pairs unreachable, CA -> any LID), J_MISSING
# (LFT entries missing, switch to any LID), J_CLOOP (1/0), J_NODES.
#   camp_judge DIR TAG
camp_judge() {
	_d=$1; _t=$2
	J_OK=0; J_WHY=""; J_A2A=""; J_UNREACH=""; J_MISSING=""; J_CLOOP=""; J_NODES=0
	if ! sim_run timeout 60 ibnetdiscover >"$_d/$_t.ibnd" 2>/dev/null; then
		J_WHY="ibnetdiscover failed"; return 1
	fi
	J_NODES=$(grep -cE "^(Switch|Ca)" "$_d/$_t.ibnd")
	sim_run timeout 60 iblinkinfo >"$_d/$_t.links" 2>/dev/null ||
		{ J_WHY="iblinkinfo failed"; return 1; }
	_bad=$(grep "LinkUp" "$_d/$_t.links" | grep -vc "Active")
	if [ "$_bad" -ne 0 ]; then
		J_WHY="$_bad linked ports not ACTIVE"
	fi
	ibnd_lids "$_d/$_t.ibnd" >"$_d/$_t.lids"
	if grep -qx 0 "$_d/$_t.lids"; then
		J_WHY="${J_WHY:-$(grep -cx 0 "$_d/$_t.lids") endpoints without a LID}"
	fi
	_nl=$(wc -l <"$_d/$_t.lids"); _nu=$(sort -u "$_d/$_t.lids" | wc -l)
	[ "$_nl" -eq "$_nu" ] || J_WHY="${J_WHY:-LIDs not unique ($_nl endpoints, $_nu LIDs)}"
	sim_run timeout 60 dump_fts >"$_d/$_t.fts" 2>/dev/null ||
		{ J_WHY="${J_WHY:-dump_fts failed}"; return 1; }
	"$IBSM_BUILD/bin/ibsm-route" --topo "$_d/$_t.ibnd" --lfts-in "$_d/$_t.fts" \
		--check --cdg-switch-lids --shifts 1 >"$_d/$_t.verify" 2>"$_d/$_t.verify.err"
	_v() { sed -n "s/.*\"$1\": \\([^,]*\\),*\$/\\1/p" "$_d/$_t.verify" | tr -d '"' | head -1; }
	_miss=$(_v missing_entries); _unr=$(_v pairs_unreachable)
	_loop=$(_v pairs_looping); _jcl=$(_v credit_loop); J_A2A=$(_v a2a_ratio)
	_badp=$(_v bad_port_entries); _mis=$(_v misdelivered_entries)
	if [ -z "$_miss" ]; then
		J_WHY="${J_WHY:-ibsm-route cannot judge: $(head -1 "$_d/$_t.verify.err")}"
		return 1
	fi
	J_UNREACH=$_unr; J_MISSING=$_miss
	J_CLOOP=0; [ "$_jcl" = true ] && J_CLOOP=1
	[ "$_miss" -eq 0 ] || J_WHY="${J_WHY:-$_miss LFT entries missing}"
	[ "$_unr" -eq 0 ] || J_WHY="${J_WHY:-$_unr pairs unreachable}"
	[ "$_loop" -eq 0 ] || J_WHY="${J_WHY:-$_loop pairs loop}"
	[ "$_badp" -eq 0 ] && [ "$_mis" -eq 0 ] ||
		J_WHY="${J_WHY:-$_badp entries on bad ports, $_mis misdelivered}"
	[ $J_CLOOP -eq 0 ] || J_WHY="${J_WHY:-credit loop: $(_v cdg_cycle | cut -c1-80)}"
	[ -z "$J_WHY" ] && J_OK=1
	[ $J_OK -eq 1 ]
}

# --- the SMs -----------------------------------------------------------

# Start the SM (CAMP_SM ibsm|opensm) on the running ibsim; log in
# $D/sm.N.log (N = starts so far). Sets SMPID and SMLOG.
camp_sm_start() {
	CAMP_STARTS=$((CAMP_STARTS + 1))
	SMLOG=$D/sm.$CAMP_STARTS.log
	if [ "$CAMP_SM" = opensm ]; then
		OSM_CACHE_DIR=$D/cache; export OSM_CACHE_DIR
		mkdir -p "$OSM_CACHE_DIR"
		sim_bg_run opensm -d2 -f "$SMLOG" -s 1 -l "$CAMP_LMC" \
			-R ftree,updn,minhop >"$SMLOG.out" 2>&1
	else
		sim_bg_run "$IBSM_BUILD/bin/ibsm" --sweep 1 --lmc "$CAMP_LMC" \
			--cache-dir "$D/cache" --log-file "$SMLOG" >"$SMLOG.out" 2>&1
	fi
	SMPID=$SIM_LAST_PID
}

camp_sm_stop() { sim_stop_pid "$SMPID"; }

# The engine the SM routed with last.
camp_engine() {
	if [ "$CAMP_SM" = opensm ]; then
		# "... tables configured on all switches" names it (IBSIM-NOTES)
		sed -n 's/.*: \([a-z0-9_]*\) tables configured on all switches.*/\1/p' "$SMLOG" | tail -1
	else
		sed -n 's/.*routed with \([a-z0-9_-]*\):.*/\1/p' "$SMLOG" | tail -1
	fi
}

# Lines that mark the end of one of the SM's heavy sweeps, good or not.
camp_sweeps() {
	_c=0
	if [ "$CAMP_SM" = opensm ]; then
		_c=$(grep -c "SUBNET UP\|tables configured on all switches\|Errors during initialization" "$SMLOG" 2>/dev/null)
	else
		_c=$(grep -c "heavy sweep .* s, \|keeping the\|not programmed" "$SMLOG" 2>/dev/null)
	fi
	echo "${_c:-0}"
}

# Now, in seconds with 2 decimals.
camp_now() { date +%s.%N | cut -c1-14; }
camp_since() { echo "$(date +%s.%N) $1" | awk '{ printf "%.2f", $1 - $2 }'; }

# Wait for the SM to finish reacting to what just happened (T0 = when),
# then judge: its first heavy sweep after the event, then 0.4 s without a
# new one (settle), at most CAMP_SETTLE s (default 12). Sets RR (seconds
# from the event to the end of that sweep as the driver saw it, or "-" if
# the SM never swept) and the J_ variables.
#   camp_settle TAG T0 SWEEPS_BEFORE
camp_settle() {
	_lim=${CAMP_SETTLE:-12}
	RR="-"
	while [ "$(camp_sweeps)" -le "$3" ]; do
		[ "$(camp_since "$2" | cut -d. -f1)" -ge "$_lim" ] && break
		sleep 0.1
	done
	_last=$(camp_sweeps)
	while sleep 0.4; do
		_n=$(camp_sweeps)
		[ "$_n" -eq "$_last" ] && break
		_last=$_n
		[ "$(camp_since "$2" | cut -d. -f1)" -ge "$_lim" ] && break
	done
	[ "$_last" -gt "$3" ] && RR=$(camp_since "$2")
	camp_judge "$D" "$1"
}

# --- faults ------------------------------------------------------------

# Apply fault TYPE: link-loss, link-return, switch-loss, loss-burst,
# sm-restart. Links and switches are drawn with the campaign generator
# from what is still up ($D/links.up); the SM's own switch is never lost.
# Sets F_DESC (what was done, for the report).
camp_fault() {
	F_TYPE=$1
	case $1 in
	link-loss|loss-burst)
		_n=$(wc -l <"$D/links.up")
		[ "$_n" -gt 0 ] || { F_DESC="no link left"; return 0; }
		camp_rand "$_n"
		_l=$(sed -n "$((R + 1))p" "$D/links.up")
		_id=$(echo "$_l" | cut -f1); _p=$(echo "$_l" | cut -f2)
		if [ "$1" = loss-burst ]; then
			# 20% of MADs lost on the SM's link and every port of its
			# switch, a link lost inside the burst, cleared after 2 s
			_sw=$(camp_sm_switch "$D/fabric.net")
			ibsim_cmd "Error \"$FIRST_CA\"[1] 20"
			ibsim_cmd "Error \"$_sw\" 20"
		fi
		ibsim_cmd "Unlink \"$_id\"[$_p]"
		echo "$_l" >>"$D/links.down"
		grep -vxF "$_l" "$D/links.up" >"$D/links.t"; mv "$D/links.t" "$D/links.up"
		F_DESC="Unlink \"$_id\"[$_p]"
		if [ "$1" = loss-burst ]; then
			sleep 2
			ibsim_cmd "Error \"$FIRST_CA\"[1] 0"
			ibsim_cmd "Error \"$_sw\" 0"
			F_DESC="20% loss near the SM for 2 s + $F_DESC"
		fi
		;;
	link-return)
		_n=$(wc -l <"$D/links.down" 2>/dev/null || echo 0)
		if [ "$_n" -eq 0 ]; then camp_fault link-loss; return; fi
		camp_rand "$_n"
		_l=$(sed -n "$((R + 1))p" "$D/links.down")
		_id=$(echo "$_l" | cut -f1); _p=$(echo "$_l" | cut -f2)
		ibsim_cmd "ReLink \"$_id\"[$_p]"
		echo "$_l" >>"$D/links.up"
		grep -vxF "$_l" "$D/links.down" >"$D/links.t"; mv "$D/links.t" "$D/links.down"
		F_DESC="ReLink \"$_id\"[$_p]"
		;;
	switch-loss)
		_sw=$(camp_sm_switch "$D/fabric.net")
		cut -f1,3 "$D/links.up" | tr '\t' '\n' | sort -u | grep -vxF "$_sw" >"$D/sw.cand"
		_n=$(wc -l <"$D/sw.cand")
		[ "$_n" -gt 0 ] || { camp_fault link-loss; return; }
		camp_rand "$_n"
		_id=$(sed -n "$((R + 1))p" "$D/sw.cand")
		ibsim_cmd "Unlink \"$_id\""
		awk -F'\t' -v s="$_id" '$1 != s && $3 != s' "$D/links.up" >"$D/links.t"
		mv "$D/links.t" "$D/links.up"
		F_DESC="Unlink \"$_id\" (switch lost)"
		;;
	sm-restart)
		camp_sm_stop
		camp_sm_start
		F_DESC="SM restarted (same cache dir)"
		;;
	esac
}

# --- one fabric --------------------------------------------------------

# Bring up FAMILY/SEED/LMC with CAMP_SM, judge, apply NFAULTS faults and
# judge after each. Prints one tab-separated result line:
#   sm family seed lmc nodes up_s up verified faults_ok/faults engine a2a
#   reroute_max unreachable_max missing_max credit_loops status why
# and, for a failure, the reproducer on the next line ("repro: ...").
#   camp_one FAMILY SEED LMC NFAULTS [SIZE]
camp_one() {
	_fam=$1; _seed=$2; CAMP_LMC=$3; _nf=$4
	CAMP_SIZE=${5:-${CAMP_SIZE:-small}}
	CAMP_STARTS=0
	D=$(mktemp -d "${CAMP_WORK:-/tmp}/camp-$CAMP_SM-$_fam-$_seed.XXXXXX")
	_repro="IBSM_BUILD=$IBSM_BUILD sh tests/campaign/campaign.sh --sm $CAMP_SM --faults $_nf --fabric $_fam:$_seed:$CAMP_LMC:$CAMP_SIZE"
	_res() { # up_s up verified fok engine a2a rr unreach cloops status why
		# one write per fabric: lanes share stdout
		_rl=""; [ "${10}" = ok ] || _rl="
repro: $_repro"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' \
			"$CAMP_SM" "$_fam" "$_seed" "$CAMP_LMC" "${_nodes:-0}" \
			"$1" "$2" "$3" "$4" "$_nf" "${5:--}" "${6:--}" "${7:--}" \
			"${8:-0}" "${_mimax:-0}" "${9:-0}" "${10}" "${11}" "$_rl"
	}
	_nodes=0; J_OK=0; J_WHY=""; J_A2A=""; J_UNREACH=""; J_MISSING=""; J_CLOOP=""; J_NODES=0
	if ! camp_make "$_fam" "$_seed" "$D/fabric.net" 2>"$D/make.err"; then
		_res - no no 0 - - - 0 0 FAIL "generate: $(head -c 200 "$D/make.err" | tr '\n\t' '  ')"
		return 1
	fi
	camp_links "$D/fabric.net" >"$D/links.up"
	: >"$D/links.down"
	FIRST_CA=$(awk -F'"' '/^(Ca|Hca)/ { print $2; exit }' "$D/fabric.net")
	# the SM and the judging tools sit on the first CA (a converted dump
	# may start with a switch, where ibsim would attach them by default)
	SIM_HOST=$FIRST_CA; export SIM_HOST
	# faults, drawn from the seed and family (a stream of their own: the
	# faults of ft3 seed 7 do not change when its fabric's draw does)
	camp_seed $((_seed * 7919 + $(printf '%s' "$_fam" | cksum | cut -d' ' -f1) % 7919))
	_faults=""
	_i=0
	while [ $_i -lt "$_nf" ]; do
		camp_pick link-loss link-return switch-loss loss-burst sm-restart link-loss
		_faults="$_faults $P"
		_i=$((_i + 1))
	done
	(
	cd "$D" || exit 1
	ibsim_start "$D/fabric.net" >"$D/ibsim.err" 2>&1 ||
		{ _res - no no 0 - - - 0 0 FAIL "ibsim did not start"; sim_cleanup; exit 1; }
	_t0=$(camp_now)
	camp_sm_start
	_pat="fabric UP"; [ "$CAMP_SM" = opensm ] && _pat="SUBNET UP"
	_up=yes
	wait_log "$SMLOG" "$_pat" "${CAMP_UP_LIMIT:-20}" || _up=no
	_ups=$(camp_since "$_t0")
	[ "$CAMP_SM" = opensm ] && [ $_up = yes ] && sleep 0.5   # its tables
	_st=ok; _why=""; _ver=no; _fok=0; _a2a=""; _rrmax="-"; _unmax=0; _mimax=0; _cl=0
	if [ $_up = yes ] && camp_judge "$D" start; then
		_ver=yes
	else
		_st=FAIL; _why="start: ${J_WHY:-SM not up in ${CAMP_UP_LIMIT:-20} s}"
		# the SM's own word on it: its last error
		_e=$(grep -h "error: \|ERR " "$SMLOG" 2>/dev/null | tail -1 | sed 's/.*error: //' | cut -c1-110)
		[ -n "$_e" ] && _why="$_why; SM: $_e"
	fi
	_a2a=$J_A2A; _unmax=${J_UNREACH:-0}; _mimax=${J_MISSING:-0}
	_cl=${J_CLOOP:-0}; _nodes=$J_NODES
	_eng=$(camp_engine)
	_k=0
	for _f in $_faults; do
		# a fabric that failed goes on through its faults (for the
		# counts); the first failure is the one reported
		[ $_up = yes ] || break
		_k=$((_k + 1))
		_before=$(camp_sweeps); _before=${_before:-0}
		_tf=$(camp_now)
		camp_fault "$_f"
		[ "$_f" = sm-restart ] && _before=0
		camp_settle "f$_k-$_f" "$_tf" "$_before"
		_ok=$?
		echo "$_k $_f $F_DESC: ok=$J_OK rr=$RR ${J_WHY}" >>"$D/faults.log"
		# every fault, for the driver's per-fault table
		[ -n "${CAMP_WORK:-}" ] && printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$CAMP_SM" \
			"$_fam" "$_seed" "${F_TYPE:-$_f}" "$J_OK" "$RR" >>"$CAMP_WORK/faults.tsv"
		[ -n "${J_UNREACH:-}" ] && [ "$J_UNREACH" -gt "$_unmax" ] && _unmax=$J_UNREACH
		[ -n "${J_MISSING:-}" ] && [ "$J_MISSING" -gt "$_mimax" ] && _mimax=$J_MISSING
		[ "${J_CLOOP:-0}" = 1 ] && _cl=$((_cl + 1))
		if [ "$RR" != "-" ]; then
			_rrmax=$(echo "$_rrmax $RR" | awk '{ print ($1 == "-" || $2 > $1) ? $2 : $1 }')
		fi
		if [ $_ok -eq 0 ]; then
			_fok=$((_fok + 1))
			_a2a=$(echo "${_a2a:-0} ${J_A2A:-0}" | awk '{ print ($2 > $1) ? $2 : $1 }')
		elif [ $_st = ok ]; then
			_st=FAIL; _why="fault $_k ($F_DESC): $J_WHY"
		fi
	done
	_e2=$(camp_engine); [ -n "$_e2" ] && [ "$_e2" != "$_eng" ] && _eng="$_eng>$_e2"
	_res "$_ups" "$_up" "$_ver" "$_fok" "$_eng" "$_a2a" "$_rrmax" "$_unmax" "$_cl" "$_st" "$_why"
	sim_cleanup
	[ $_st = ok ]
	)
	_rc=$?
	[ $_rc -eq 0 ] && [ -z "${CAMP_KEEP:-}" ] && rm -rf "$D"
	[ $_rc -ne 0 ] && [ -z "${CAMP_KEEP:-}" ] && [ -n "${CAMP_FAILDIR:-}" ] &&
		mv "$D" "$CAMP_FAILDIR/" 2>/dev/null
	return $_rc
}
