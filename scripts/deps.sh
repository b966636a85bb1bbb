#!/bin/sh
# Install the Debian packages ibsm needs, only those that are missing.
#   sh scripts/deps.sh build   what `make` and `make install` need (headers,
#                              compiler): run by `make`
#   sh scripts/deps.sh test    the build deps plus the simulator, the diag
#                              tools, OpenSM (the baseline the tests compare
#                              with), cmocka, graphviz: run by `make check`,
#                              `make demo`, `make bench`
# Test tools are installed without starting or enabling their services:
# Debian's opensm package enables and starts opensm.service, an SM on every
# port of the host. During the install a policy-rc.d (exit 101) forbids
# starting services (invoke-rc.d and deb-systemd-invoke honour it), and
# afterwards each service unit the new packages brought is disabled and
# stopped, with a line saying so. Only packages this run installs are
# touched; an opensm that was there before is left as it is.
# Overridable for tests: POLICY_RC_D (default /usr/sbin/policy-rc.d).
set -eu
BUILD_PKGS="build-essential pkg-config libibumad-dev libibmad-dev libopensm-dev \
libyaml-dev libmicrohttpd-dev"
TEST_PKGS="ibsim-utils infiniband-diags opensm ibutils libcmocka-dev graphviz \
python3 python3-prometheus-client"
# Services a test package would start: package:unit.
TEST_SERVICES="opensm:opensm.service"

mode=${1:-build}
case "$mode" in
build) PKGS=$BUILD_PKGS ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
*) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "deps: not root and no sudo; install:$missing" >&2
		exit 1
	}
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive

POLICY=${POLICY_RC_D:-/usr/sbin/policy-rc.d}
made_policy=""
if [ "$mode" = test ] && [ ! -e "$POLICY" ]; then
	# Exit 101: "action forbidden by policy" (Debian policy-rc.d interface).
	printf '#!/bin/sh\n# written by ibsm scripts/deps.sh during apt-get install\nexit 101\n' |
		$SUDO tee "$POLICY" >/dev/null
	$SUDO chmod 0755 "$POLICY"
	made_policy=1
	trap '$SUDO rm -f "$POLICY"' EXIT
fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
if [ -n "$made_policy" ]; then
	$SUDO rm -f "$POLICY"
	trap - EXIT
fi

# The packages installed enable their units even when policy-rc.d kept them
# from starting: disable (and stop, in case) what this run brought in.
for ps in $TEST_SERVICES; do
	pkg=${ps%%:*}
	unit=${ps#*:}
	case " $missing " in *" $pkg "*) ;; *) continue ;; esac
	echo "deps: $pkg is a test tool here: systemctl disable --now $unit" \
	     "(ibsm tests start OpenSM themselves; enable it by hand if this host needs it)"
	if command -v systemctl >/dev/null 2>&1; then
		$SUDO systemctl disable --now "$unit" >/dev/null 2>&1 ||
			echo "deps: could not disable $unit (no systemd running?)" >&2
	fi
done
exit 0
