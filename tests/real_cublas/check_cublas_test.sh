#!/usr/bin/env bash
# cudyn-check cublas on the real drivers: the toolkit's cuBLAS 13 refused on 535 (CUDA 12.2) with
# why, exit 1 when nothing else is in reach; the real 11.8 cuBLAS named by CUDYN_CUBLAS_PATH picked
# on 470 (exit 0, text and --json); 418 refuses nothing explicit (taken with a warning) but the
# search finds none for it; no driver exit 3.
#   $1: cudyn-check; $2 $3: the files of @cuda_cublas//:cublas_11.8
set -euo pipefail
check=$1
cublas11=
for f in "${@:2}"; do [[ $(basename "$f") == libcublas.so.11 ]] && cublas11=$PWD/$f; done
[[ -n $cublas11 ]] || { echo "FAIL: no libcublas.so.11 among ${*:2}"; exit 1; }
drivers=${TEST_SRCDIR:?}/nvidia_drivers
status=0
fail() { echo "FAIL: $*"; status=1; }

# run <driver major or ""> [VAR=value...] -- args...: sets $out and $code.
run() {
  local major=$1
  shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  # The real libcublasLt.so.11 is reported leaking by LeakSanitizer even when a plain C program only
  # dlopens it (see cublas_loader_real_test.cc): runs that load it skip leak detection (asan builds).
  if [[ -n ${ASAN_OPTIONS:-} && " ${envs[*]} " == *"CUDYN_CUBLAS_PATH=$cublas11 "* ]]; then
    envs+=("ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0")
  fi
  code=0
  out=$(env -u CUDA_HOME -u CUDA_PATH -u CUDYN_CUBLAS_PATH CUDYN_LOG=off \
    CUDYN_DRIVER_PATH="${major:+$drivers/$major/libcuda.so.1}${major:-/nonexistent/libcuda.so.1}" \
    "${envs[@]}" "$check" cublas ${major:+--driver "$drivers/$major/libcuda.so.1"} "$@") || code=$?
}

run 535 -- --json
[[ $code == 1 ]] || fail "535: exit $code, want 1"
grep -q '"rejection": "driver_too_old"' <<<"$out" || fail "535: no driver_too_old candidate: $out"
grep -q '"min_driver": 13000' <<<"$out" || fail "535: cuBLAS 13 not judged as needing 13.0: $out"
grep -q '"picked": null' <<<"$out" || fail "535: something picked: $out"

run 470 CUDYN_CUBLAS_PATH="$cublas11" -- --json
[[ $code == 0 ]] || fail "470 + 11.8: exit $code, want 0"
grep -q '"cublas_version": 111103' <<<"$out" || fail "470 + 11.8: not picked: $out"
grep -q '"found_by": "CUDYN_CUBLAS_PATH"' <<<"$out" || fail "470 + 11.8: found_by: $out"
grep -q '"driver_cuda_version": 11040' <<<"$out" || fail "470: driver version: $out"

run 470 CUDYN_CUBLAS_PATH="$cublas11" --
[[ $code == 0 ]] || fail "470 + 11.8 (text): exit $code"
grep -q "^picked: $cublas11 (cuBLAS 11.11.3, CUDA 11.8 release, .*libcublasLt.so.11)$" <<<"$out" ||
  fail "470 + 11.8 (text): $out"
grep -q "^  taken    $cublas11 (CUDYN_CUBLAS_PATH)" <<<"$out" || fail "470 + 11.8 (text) candidate: $out"

run 535 CUDYN_MAX_CUDA_VERSION=13.0 -- --json
[[ $code == 1 ]] || fail "a clamp above the driver changes nothing: exit $code"

run "" -- --json
[[ $code == 3 ]] || fail "no driver: exit $code, want 3"

[[ $status == 0 ]] && echo "ok: cudyn-check cublas on 535, 470 (+11.8), clamped, no driver"
exit $status
