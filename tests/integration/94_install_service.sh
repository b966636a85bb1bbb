#!/bin/sh
# Install, service and deps (issue 25): `make install DESTDIR=` puts the
# programs, man pages and docs in place and no test tool; every man page
# renders without groff warnings (ibsm(8)'s MULTICAST section was garbled);
# contrib/ibsm.service passes `systemd-analyze verify` (where present) and
# holds what ibsm needs (AF_INET/AF_INET6 for metrics_listen, a
# RuntimeDirectory for ctl_socket); contrib/ibsm.yaml links only existing
# docs; scripts/deps.sh (with apt-get, dpkg-query and systemctl stubbed)
# installs only build deps for `make`, and for tests installs opensm under
# a policy-rc.d and disables opensm.service, saying so.
. "$(dirname "$0")/sm_lib.sh"
test_need_built ibsm
test_start 94

# --- make install --------------------------------------------------------
# -o build-all: install what the build under test holds, never rebuild it
# (the sanitized build needs SAN=1, which this test does not know).
D=$W/root
make -C "$top" --no-print-directory -s -o build-all BUILD="$IBSM_BUILD" DESTDIR="$D" install >"$W/install.log" 2>&1 ||
	{ tail "$W/install.log"; fail "make install"; }
for f in usr/sbin/ibsm usr/bin/ibsm-route usr/bin/ibsm-topo usr/bin/ibsmctl usr/bin/ibsm-config \
	 usr/share/man/man8/ibsm.8 usr/share/man/man8/ibsmctl.8 usr/share/man/man8/ibsm-config.8 \
	 usr/share/man/man1/ibsm-route.1 usr/share/man/man1/ibsm-topo.1 \
	 usr/share/doc/ibsm/opensm-users.md usr/share/doc/ibsm/install.md usr/share/doc/ibsm/README.md \
	 etc/ibsm/ibsm.yaml lib/systemd/system/ibsm.service etc/logrotate.d/ibsm; do
	[ -e "$D/$f" ] || fail "make install: no /$f"
done
for t in sa-client sa-fuzz sa-load sa-table sm-rogue; do
	[ ! -e "$D/usr/bin/$t" ] && [ ! -e "$D/usr/sbin/$t" ] || fail "make install put test tool $t in place"
done
echo "ok make install: $(find "$D" -type f | wc -l) files, no test tools"

# --- man pages -----------------------------------------------------------
for m in "$top"/docs/*.[18]; do
	w=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
	[ -z "$w" ] || fail "$(basename "$m"): groff: $w"
done
txt=$(MANWIDTH=200 man -l "$top/docs/ibsm.8" 2>/dev/null | tr -s ' \n' '  ')
case "$txt" in
*"ipoib: true. Ports join and leave groups through the SA"*) ;;
*) fail "ibsm(8) MULTICAST renders wrong" ;;
esac
"$IBSM_BUILD/bin/ibsm" --help | grep -q "3 --once found another master" || fail "--help lacks exit status 3"
echo "ok man pages render without warnings"

# --- systemd unit --------------------------------------------------------
U=$top/contrib/ibsm.service
grep -q '^RuntimeDirectory=ibsm$' "$U" || fail "unit: no RuntimeDirectory=ibsm for ctl_socket /run/ibsm"
fam=$(sed -n 's/^RestrictAddressFamilies=//p' "$U")
for a in AF_UNIX AF_INET AF_INET6; do
	case " $fam " in *" $a "*) ;; *) fail "unit: RestrictAddressFamilies lacks $a ($fam)" ;; esac
done
grep -q '^ExecStart=/usr/sbin/ibsm ' "$U" && [ -x "$D/usr/sbin/ibsm" ] || fail "unit: ExecStart is not the installed ibsm"
grep -q '^ExecReload=/bin/kill -HUP \$MAINPID' "$U" || fail "unit: no ExecReload (SIGHUP)"
if command -v systemd-analyze >/dev/null 2>&1; then
	sed "s#/usr/sbin/ibsm#$D/usr/sbin/ibsm#; s#/etc/ibsm/ibsm.yaml#$D/etc/ibsm/ibsm.yaml#" "$U" >"$W/ibsm.service"
	out=$(systemd-analyze verify --man=no "$W/ibsm.service" 2>&1)
	[ -z "$out" ] || fail "systemd-analyze verify: $out"
	echo "ok systemd-analyze verify"
else
	echo "note: no systemd-analyze; unit checked statically only"
fi
# What the unit makes writable is what the default config writes.
grep -q '^CacheDirectory=ibsm' "$U" && grep -q '^LogsDirectory=ibsm' "$U" || fail "unit: cache/log directories"
"$IBSM_BUILD/bin/ibsm" -c "$D/etc/ibsm/ibsm.yaml" --set ctl_socket=/run/ibsm/ibsm.sock \
	--set metrics_listen=127.0.0.1:9464 --dump-config >/dev/null || fail "installed ibsm.yaml does not load"
echo "ok unit directives"

# --- contrib/ibsm.yaml's links ------------------------------------------
for d in $(grep -o 'docs/[A-Za-z0-9_.-]*\.md' "$top/contrib/ibsm.yaml" | sort -u); do
	[ -e "$top/$d" ] || fail "contrib/ibsm.yaml links $d, which does not exist"
done
echo "ok ibsm.yaml links"

# --- scripts/deps.sh with stubs -----------------------------------------
S=$W/stub; mkdir -p "$S"
cat >"$S/dpkg-query" <<'EOS'
#!/bin/sh
echo "unknown ok not-installed"
EOS
cat >"$S/apt-get" <<'EOS'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
case "$*" in *install*) [ -e "$POLICY_RC_D" ] && echo "policy-rc.d present" >>"$STUB_LOG";; esac
exit 0
EOS
cat >"$S/systemctl" <<'EOS'
#!/bin/sh
echo "systemctl $*" >>"$STUB_LOG"
EOS
cat >"$S/id" <<'EOS'
#!/bin/sh
echo 0
EOS
chmod +x "$S"/*
export STUB_LOG="$W/stub.log" POLICY_RC_D="$W/policy-rc.d"
PATH="$S:$PATH" sh "$top/scripts/deps.sh" build >"$W/deps-build.out" 2>&1 || fail "deps.sh build"
grep "install" "$STUB_LOG" | grep -q -w opensm && fail "deps.sh build installs opensm"
grep "install" "$STUB_LOG" | grep -q -w ibsim-utils && fail "deps.sh build installs ibsim-utils"
grep "install" "$STUB_LOG" | grep -q -w libyaml-dev || fail "deps.sh build does not install libyaml-dev"
: >"$STUB_LOG"
PATH="$S:$PATH" sh "$top/scripts/deps.sh" test >"$W/deps-test.out" 2>&1 || fail "deps.sh test"
grep "install" "$STUB_LOG" | grep -q -w opensm || fail "deps.sh test does not install opensm"
grep -q "policy-rc.d present" "$STUB_LOG" || fail "deps.sh test: no policy-rc.d during apt-get install"
[ ! -e "$POLICY_RC_D" ] || fail "deps.sh test left $POLICY_RC_D behind"
grep -q "systemctl disable --now opensm.service" "$STUB_LOG" || fail "deps.sh test did not disable opensm.service"
grep -q "systemctl disable --now opensm.service" "$W/deps-test.out" || fail "deps.sh test did not print the disable line"
echo "ok deps.sh: build deps only for make; opensm installed under policy-rc.d and disabled"
echo "PASS"
