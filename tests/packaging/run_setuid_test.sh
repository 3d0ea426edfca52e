#!/usr/bin/env bash
# `cudyn run` refuses to run under AT_SECURE (the dynamic linker would ignore LD_LIBRARY_PATH and
# cudyn CUDYN_DRIVER_PATH). A copy of the installed bin/cudyn owned by nobody (uid 65534) with
# the set-user-ID bit, started by root, runs with ruid 0 / euid 65534, so the kernel sets
# AT_SECURE; the same copy without the bit runs the program (so this test can fail).
# Needs root and a filesystem without nosuid: both are reported as failures, never skipped.
#   $1 install.sh  $2 tarball  $3 plain_lcuda  $4 a fake driver
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
install_sh=$(abs "$1") tarball=$(abs "$2") prog=$(abs "$3") fake=$(abs "$4")
fail() { echo "FAIL: $*"; exit 1; }
[[ $(id -u) == 0 ]] || fail "this test must run as root (it chowns a copy of cudyn and runs it setuid)"
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/cudyn_run_setuid.XXXXXX")
chmod 755 "$tmp"
CUDYN_DIST_TARBALL=$tarball "$install_sh" "$tmp/prefix" > /dev/null || fail "install"
chmod 755 "$tmp/prefix" "$tmp/prefix/bin"
cudyn=$tmp/prefix/bin/cudyn
chown 65534 "$cudyn" && chmod 4755 "$cudyn" || fail "cannot make $cudyn setuid"
out=$("$cudyn" run --driver "$fake" -- "$prog" 2>&1)
st=$?
[[ $st == 125 ]] || fail "setuid cudyn run exited $st, expected 125; output: $out"
grep -q "refusing to run setuid.*AT_SECURE" <<<"$out" || fail "setuid cudyn run: no clear refusal: $out"
echo "ok: setuid: $out"
chmod 0755 "$cudyn"
out=$("$cudyn" run --driver "$fake" -- "$prog" 2>&1) || fail "without the setuid bit: exit $?: $out"
grep -q "cuDriverGetVersion: rc=0" <<<"$out" || fail "without the setuid bit: $out"
echo "ok: the same copy without the setuid bit runs the program"
