#!/bin/sh
# Install the Debian packages ibsm needs, only those that are missing.
# Run by `make deps` (and so by make, make check and make demo).
set -eu
PKGS="build-essential pkg-config libibumad-dev libibmad-dev libopensm-dev \
ibsim-utils infiniband-diags opensm ibutils libyaml-dev libcmocka-dev graphviz \
python3 libmicrohttpd-dev python3-prometheus-client"
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
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
