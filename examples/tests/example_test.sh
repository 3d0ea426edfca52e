#!/bin/bash
# CI test for one example binary on a machine without a GPU: the fake drivers of
# @cudyn//tests/fake_driver stand in for libcuda.so.1 (CUDYN_DRIVER_PATH).
#
#   example_test.sh NAME BINARY STUB FAKE_10010 FAKE_12020 FAKE_13000 [SHIM]
#
# Asserts what a run without a device can show:
#   * the binary links no libcuda/libcudart (readelf -d: no such DT_NEEDED) and imports no cu* symbol;
#   * it runs on each fake, reports the fake's CUDA version (or the CUDYN_MAX_CUDA_VERSION clamp),
#     gets 100 CUDA_ERROR_NO_DEVICE from cuInit and exits 2 with "result: NO DEVICE";
#   * a missing driver, a relative CUDYN_DRIVER_PATH and the toolkit stub give "result: NO DRIVER"
#     with 303 / 34 and exit 3 - never a crash.
# With SHIM (shim_client): the shared shim is passed by path; also a missing shim exits 3, and all
# entry points resolve through its cuGetProcAddress_v2.
set -u

name=$1
binary=$PWD/$2
stub=$PWD/$3
fake_10010=$PWD/$4
fake_12020=$PWD/$5
fake_13000=$PWD/$6
shim=${7:+$PWD/$7}

failures=0
checks=0
out=${TEST_TMPDIR:-/tmp}/out.txt

fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# run_case DESCRIPTION EXPECTED_EXIT [VAR=VALUE...] -- PATTERN...   (fixed-string patterns on stdout+stderr)
run_case() {
  local what=$1 want=$2
  shift 2
  local -a envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local -a args=()
  [ -n "$shim" ] && args=("$shim")
  checks=$((checks + 1))
  env -u CUDYN_DRIVER_PATH -u CUDYN_MAX_CUDA_VERSION -u CUDYN_SHIM_PATH CUDYN_LOG=off "${envs[@]}" \
    "$binary" "${args[@]}" >"$out" 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want; output:"
    sed 's/^/    /' "$out"
    return
  fi
  local pattern
  for pattern in "$@"; do
    if ! grep -qF -- "$pattern" "$out"; then
      fail "$what: output lacks '$pattern'; output:"
      sed 's/^/    /' "$out"
      return
    fi
  done
  echo "ok: $what (exit $got)"
}

for f in "$binary" "$stub" "$fake_10010" "$fake_12020" "$fake_13000" ${shim:+"$shim"}; do
  [ -e "$f" ] || { echo "FAILED: missing input $f"; exit 1; }
done
command -v readelf >/dev/null || { echo "FAILED: readelf (binutils) is required"; exit 1; }

# --- linkage ------------------------------------------------------------------------------------
checks=$((checks + 1))
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "DT_NEEDED of $name: $(echo $needed)"
if echo "$needed" | grep -E '^(libcuda\.so|libcudart\.so)'; then
  fail "$name links the driver or the runtime directly"
fi
if [ -n "$shim" ] && echo "$needed" | grep -E '^libcudyn'; then
  fail "$name must load libcudyn_cuda.so with dlopen, not link it"
fi
checks=$((checks + 1))
imports=$(readelf --dyn-syms -W "$binary" | awk '$7 == "UND" {print $8}' | sed 's/@.*//' | grep -E '^cu[A-Z]' || true)
if [ -n "$imports" ]; then
  fail "$name imports driver-API symbols dynamically: $(echo $imports)"
fi

# --- fake drivers: no device --------------------------------------------------------------------
run_case "fake CUDA 13.0" 2 CUDYN_DRIVER_PATH="$fake_13000" -- \
  "driver: CUDA 13.0 (13000)" "init: cuInit(0) = 100 CUDA_ERROR_NO_DEVICE" "result: NO DEVICE"
run_case "fake CUDA 12.2" 2 CUDYN_DRIVER_PATH="$fake_12020" -- \
  "driver: CUDA 12.2 (12020)" "init: cuInit(0) = 100 CUDA_ERROR_NO_DEVICE" "result: NO DEVICE"
run_case "fake CUDA 10.1" 2 CUDYN_DRIVER_PATH="$fake_10010" -- \
  "driver: CUDA 10.1 (10010)" "init: cuInit(0) = 100 CUDA_ERROR_NO_DEVICE" "result: NO DEVICE"
run_case "fake CUDA 13.0 clamped to 11.4" 2 CUDYN_DRIVER_PATH="$fake_13000" CUDYN_MAX_CUDA_VERSION=11040 -- \
  "driver: CUDA 11.4 (11040)" "init: cuInit(0) = 100 CUDA_ERROR_NO_DEVICE" "result: NO DEVICE"
if [ -z "$shim" ]; then
  # cudyn's introspection line: which driver, how it was bound.
  run_case "introspection line" 2 CUDYN_DRIVER_PATH="$fake_13000" CUDYN_MAX_CUDA_VERSION=10010 -- \
    "cudyn: $fake_13000, CUDA 13000, effective 10010, strategy dlsym" "example: $name"
else
  run_case "entry points through the shim's cuGetProcAddress" 2 CUDYN_DRIVER_PATH="$fake_10010" -- \
    "resolved: 21 entry points through cuGetProcAddress_v2 at 13000" \
    "proc: cuMemAdvise -> cuMemAdvise_v2" "proc: cuCtxSynchronize -> cuCtxSynchronize_v2"
fi

# --- wrong or missing driver: the documented error, not a crash -----------------------------------
if [ -z "$shim" ]; then
  no_driver_303="result: NO DRIVER (cuDriverGetVersion returned 303 CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"
  no_driver_34="result: NO DRIVER (cuDriverGetVersion returned 34 CUDA_ERROR_STUB_LIBRARY"
else
  no_driver_303="returned 303: the shim found no usable libcuda.so.1)"
  no_driver_34="returned 34: the shim found no usable libcuda.so.1)"
fi
run_case "missing driver" 3 CUDYN_DRIVER_PATH=/nonexistent/cudyn-example-test/libcuda.so.1 -- \
  "$no_driver_303"
run_case "relative CUDYN_DRIVER_PATH" 3 CUDYN_DRIVER_PATH=libcuda.so.1 -- "$no_driver_303"
run_case "toolkit stub as the driver" 3 CUDYN_DRIVER_PATH="$stub" -- "$no_driver_34"
if [ -n "$shim" ]; then
  saved=$shim
  shim=/nonexistent/cudyn-example-test/libcudyn_cuda.so
  run_case "missing shim" 3 CUDYN_DRIVER_PATH="$fake_13000" -- "result: NO DRIVER (cannot load the shim"
  shim=$saved
fi

echo "$name: $((checks - failures)) of $checks checks passed"
[ "$failures" -eq 0 ]
