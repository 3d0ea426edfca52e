#!/usr/bin/env bash
# CUDYN_DRIVER_PATH, CUDYN_CUDART_PATH, CUDYN_NVRTC_PATH and CUDYN_CUBLAS_PATH are ignored under
# AT_SECURE. Runs a real setuid helper: a copy of
# :setuid_helper owned by nobody (uid 65534) with the set-user-ID bit, started by root, runs with
# ruid 0 / euid 65534, so the kernel sets AT_SECURE. The same copy without the bit shows that the
# override is honoured otherwise (so this test can fail). Also: CUDYN_LOG never names a file
# (cudyn logs to stderr only; a path given as CUDYN_LOG is rejected as a level and no file
# appears), setuid or not.
#
#   setuid_test.sh HELPER FAKE_DRIVER FAKE_RUNTIME FILES...  (a real NVRTC and its builtins, a real
#   cuBLAS and its libcublasLt)
# Needs root (to chown and to start the helper) and a temporary directory on a filesystem
# mounted without nosuid; both are checked and reported as failures, never skipped.
set -euo pipefail
helper_src="$1"
fake="$(readlink -f "$2")"
fake_runtime="$(readlink -f "$3")"
nvrtc=""
for f in "${@:4}"; do [[ $(basename "$f") == libnvrtc.so.* ]] && nvrtc="$(readlink -f "$f")"; done
[[ -n $nvrtc ]] || { echo "FAIL: no libnvrtc.so.* among ${*:4}" >&2; exit 1; }
cublas=""
for f in "${@:4}"; do [[ $(basename "$f") == libcublas.so.* ]] && cublas="$(readlink -f "$f")"; done
[[ -n $cublas ]] || { echo "FAIL: no libcublas.so.* among ${*:4}" >&2; exit 1; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# One line per override: the helper's key prefix, the variable, the file it names, a label.
overrides=("- CUDYN_DRIVER_PATH $fake driver" "runtime_ CUDYN_CUDART_PATH $fake_runtime runtime"
  "nvrtc_ CUDYN_NVRTC_PATH $nvrtc NVRTC" "cublas_ CUDYN_CUBLAS_PATH $cublas cuBLAS")

[[ "$(id -u)" == 0 ]] || fail "this test must run as root (it chowns a helper and runs it setuid)"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/setuid.XXXXXX")"
chmod 0755 "$tmp"
helper="$tmp/helper"
cp "$helper_src" "$helper"
chmod 0755 "$helper"
log="$tmp/cudyn.log"

run() {  # run OUTPUT_FILE: the helper with the overrides an attacker would set
  env CUDYN_DRIVER_PATH="$fake" CUDYN_CUDART_PATH="$fake_runtime" CUDYN_NVRTC_PATH="$nvrtc" \
    CUDYN_CUBLAS_PATH="$cublas" CUDYN_LOG="$log" "$helper" \
    >"$1" 2>"$1.err" ||
    fail "helper exited with $? ($(cat "$1.err"))"
}
field() { grep -m1 "^$1=" "$2" | cut -d= -f2- || true; }

# 1. Plain: the override is honoured.
run "$tmp/plain.out"
cat "$tmp/plain.out"
[[ "$(field at_secure "$tmp/plain.out")" == 0 ]] || fail "AT_SECURE set without setuid?"
[[ "$(field error "$tmp/plain.out")" == 0 ]] || fail "plain run: the fake driver did not open"
for override in "${overrides[@]}"; do
  read -r prefix variable file label <<<"$override"
  prefix=${prefix#-}  # the driver's keys have none
  [[ "$(field "${prefix}path" "$tmp/plain.out")" == "$file" ]] || fail "plain run: $variable not honoured"
  [[ "$(field "${prefix}found_by" "$tmp/plain.out")" == "$variable" ]] || fail "plain run: ${prefix}found_by"
done
[[ ! -e "$log" ]] || fail "CUDYN_LOG=$log created a file"
grep -q "CUDYN_LOG='$log' is not one of" "$tmp/plain.out.err" || fail "CUDYN_LOG path not rejected"

# 2. Setuid nobody, started by root: AT_SECURE, the override is ignored and says so.
chown 65534 "$helper"
chmod 4755 "$helper"
run "$tmp/setuid.out"
cat "$tmp/setuid.out"
if [[ "$(field euid "$tmp/setuid.out")" != 65534 ]]; then
  fail "the set-user-ID bit had no effect (is $tmp on a nosuid filesystem? run with tags no-sandbox): $(findmnt -T "$tmp" -no TARGET,OPTIONS 2>/dev/null)"
fi
[[ "$(field ruid "$tmp/setuid.out")" == 0 ]] || fail "setuid run: ruid"
[[ "$(field at_secure "$tmp/setuid.out")" == 1 ]] || fail "setuid run: AT_SECURE not set"
# Each override: ignored, recorded as a typed candidate with a warning, and the search went on as if
# it were unset (no candidate after the ignored one is the file it named).
for override in "${overrides[@]}"; do
  read -r prefix variable file label <<<"$override"
  prefix=${prefix#-}  # the driver's keys have none
  [[ "$(field "${prefix}path" "$tmp/setuid.out")" != "$file" ]] || fail "setuid run: $variable was honoured"
  [[ "$(field "${prefix}found_by" "$tmp/setuid.out")" != "$variable" ]] || fail "setuid run: ${prefix}found_by"
  grep -qxF "${prefix}candidate=$variable|$file|ignored: the process runs with AT_SECURE (setuid/setgid)" \
    "$tmp/setuid.out" || fail "setuid run: the ignored $label override is not recorded as a candidate"
  grep -A1 -F "${prefix}candidate=$variable|$file|" "$tmp/setuid.out" |
    grep -qxF "${prefix}rejection=ignored_secure" || fail "setuid run: the ignored $label override is not typed ignored_secure"
  grep -qxF "${prefix}warning=$variable ignored in a setuid/setgid process" "$tmp/setuid.out" ||
    fail "setuid run: no $label warning"
  grep "^${prefix}candidate=" "$tmp/setuid.out" | tail -n +2 | grep -qF "|$file|" &&
    fail "setuid run: the $label named by $variable was tried anyway"
done
[[ ! -e "$log" ]] || fail "CUDYN_LOG=$log created a file under setuid"
echo "PASS: CUDYN_DRIVER_PATH, CUDYN_CUDART_PATH, CUDYN_NVRTC_PATH and CUDYN_CUBLAS_PATH honoured normally, ignored under AT_SECURE; CUDYN_LOG writes no file"
