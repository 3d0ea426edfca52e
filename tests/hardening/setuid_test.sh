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
[[ "$(field path "$tmp/plain.out")" == "$fake" ]] || fail "plain run: CUDYN_DRIVER_PATH not honoured"
[[ "$(field found_by "$tmp/plain.out")" == CUDYN_DRIVER_PATH ]] || fail "plain run: found_by"
[[ "$(field runtime_path "$tmp/plain.out")" == "$fake_runtime" ]] ||
  fail "plain run: CUDYN_CUDART_PATH not honoured"
[[ "$(field runtime_found_by "$tmp/plain.out")" == CUDYN_CUDART_PATH ]] || fail "plain run: runtime_found_by"
[[ "$(field nvrtc_path "$tmp/plain.out")" == "$nvrtc" ]] || fail "plain run: CUDYN_NVRTC_PATH not honoured"
[[ "$(field nvrtc_found_by "$tmp/plain.out")" == CUDYN_NVRTC_PATH ]] || fail "plain run: nvrtc_found_by"
[[ "$(field cublas_path "$tmp/plain.out")" == "$cublas" ]] || fail "plain run: CUDYN_CUBLAS_PATH not honoured"
[[ "$(field cublas_found_by "$tmp/plain.out")" == CUDYN_CUBLAS_PATH ]] || fail "plain run: cublas_found_by"
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
[[ "$(field path "$tmp/setuid.out")" != "$fake" ]] || fail "setuid run: CUDYN_DRIVER_PATH was honoured"
[[ "$(field found_by "$tmp/setuid.out")" != CUDYN_DRIVER_PATH ]] || fail "setuid run: found_by"
grep -qxF "candidate=CUDYN_DRIVER_PATH|$fake|ignored: the process runs with AT_SECURE (setuid/setgid)" \
  "$tmp/setuid.out" || fail "setuid run: the ignored override is not recorded as a candidate"
grep -A1 -F "candidate=CUDYN_DRIVER_PATH|$fake|" "$tmp/setuid.out" | grep -qxF "rejection=ignored_secure" ||
  fail "setuid run: the ignored override is not typed ignored_secure"
grep -qxF "warning=CUDYN_DRIVER_PATH ignored in a setuid/setgid process" "$tmp/setuid.out" ||
  fail "setuid run: no warning"
# No candidate after the ignored one is the fake (the search went on as if it were unset).
grep "^candidate=" "$tmp/setuid.out" | tail -n +2 | grep -qF "|$fake|" &&
  fail "setuid run: the fake was tried anyway"
# The same for the runtime's CUDYN_CUDART_PATH.
[[ "$(field runtime_path "$tmp/setuid.out")" != "$fake_runtime" ]] ||
  fail "setuid run: CUDYN_CUDART_PATH was honoured"
grep -qxF "runtime_candidate=CUDYN_CUDART_PATH|$fake_runtime|ignored: the process runs with AT_SECURE (setuid/setgid)" \
  "$tmp/setuid.out" || fail "setuid run: the ignored runtime override is not recorded as a candidate"
grep -A1 -F "runtime_candidate=CUDYN_CUDART_PATH|$fake_runtime|" "$tmp/setuid.out" |
  grep -qxF "runtime_rejection=ignored_secure" || fail "setuid run: the ignored runtime override is not typed"
grep -qxF "runtime_warning=CUDYN_CUDART_PATH ignored in a setuid/setgid process" "$tmp/setuid.out" ||
  fail "setuid run: no runtime warning"
grep "^runtime_candidate=" "$tmp/setuid.out" | tail -n +2 | grep -qF "|$fake_runtime|" &&
  fail "setuid run: the fake runtime was tried anyway"
# The same for NVRTC's CUDYN_NVRTC_PATH.
[[ "$(field nvrtc_path "$tmp/setuid.out")" != "$nvrtc" ]] || fail "setuid run: CUDYN_NVRTC_PATH was honoured"
grep -qxF "nvrtc_candidate=CUDYN_NVRTC_PATH|$nvrtc|ignored: the process runs with AT_SECURE (setuid/setgid)" \
  "$tmp/setuid.out" || fail "setuid run: the ignored NVRTC override is not recorded as a candidate"
grep -A1 -F "nvrtc_candidate=CUDYN_NVRTC_PATH|$nvrtc|" "$tmp/setuid.out" |
  grep -qxF "nvrtc_rejection=ignored_secure" || fail "setuid run: the ignored NVRTC override is not typed"
grep -qxF "nvrtc_warning=CUDYN_NVRTC_PATH ignored in a setuid/setgid process" "$tmp/setuid.out" ||
  fail "setuid run: no NVRTC warning"
grep "^nvrtc_candidate=" "$tmp/setuid.out" | tail -n +2 | grep -qF "|$nvrtc|" &&
  fail "setuid run: the given NVRTC was tried anyway"
# The same for cuBLAS's CUDYN_CUBLAS_PATH.
[[ "$(field cublas_path "$tmp/setuid.out")" != "$cublas" ]] || fail "setuid run: CUDYN_CUBLAS_PATH was honoured"
grep -qxF "cublas_candidate=CUDYN_CUBLAS_PATH|$cublas|ignored: the process runs with AT_SECURE (setuid/setgid)" \
  "$tmp/setuid.out" || fail "setuid run: the ignored cuBLAS override is not recorded as a candidate"
grep -A1 -F "cublas_candidate=CUDYN_CUBLAS_PATH|$cublas|" "$tmp/setuid.out" |
  grep -qxF "cublas_rejection=ignored_secure" || fail "setuid run: the ignored cuBLAS override is not typed"
grep -qxF "cublas_warning=CUDYN_CUBLAS_PATH ignored in a setuid/setgid process" "$tmp/setuid.out" ||
  fail "setuid run: no cuBLAS warning"
grep "^cublas_candidate=" "$tmp/setuid.out" | tail -n +2 | grep -qF "|$cublas|" &&
  fail "setuid run: the given cuBLAS was tried anyway"
[[ ! -e "$log" ]] || fail "CUDYN_LOG=$log created a file under setuid"
echo "PASS: CUDYN_DRIVER_PATH, CUDYN_CUDART_PATH, CUDYN_NVRTC_PATH and CUDYN_CUBLAS_PATH honoured normally, ignored under AT_SECURE; CUDYN_LOG writes no file"
