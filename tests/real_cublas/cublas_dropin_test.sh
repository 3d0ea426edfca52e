#!/usr/bin/env bash
# The 13.0-cublas_v2.h C program linked with cudyn's static cuBLAS drop-in (instead of -lcublas), run
#   $1: the program; $2 $3: the files of @cuda_cublas//:cublas_11.8 (libcublas.so.11 and its Lt)
# on the real 535 driver with CUDYN_CUBLAS_PATH naming the 13.0 toolkit's cuBLAS (taken though the
# driver is too old for it: explicit) and the real 11.8 one, on 535 by the search with no cuBLAS in
# reach, and on 418 with 11.8 explicit: the real answers through the trampolines, cudyn's own where
# an entry (cublasSetVector_64 on 11.x) or cuBLAS itself is missing.
set -euo pipefail
program=$1
cublas11=
for f in "${@:2}"; do [[ $(basename "$f") == libcublas.so.11 ]] && cublas11=$PWD/$f; done
[[ -n $cublas11 ]] || { echo "FAIL: no libcublas.so.11 among ${*:2}"; exit 1; }
drivers=${TEST_SRCDIR:?}/nvidia_drivers
cublas13=${CUDA_PATH:-/usr/local/cuda-13.0}/lib64/libcublas.so.13
status=0

# run <driver major> <CUDYN_CUBLAS_PATH or ""> <expected key=value>...
run() {
  local major=$1 path=$2 out asan=${ASAN_OPTIONS:-}
  shift 2
  # The real libcublasLt.so.11 is reported leaking by LeakSanitizer even when a plain C program only
  # dlopens it (tests/real_cublas/cublas_loader_real_test.cc): not checked for leaks (asan builds).
  [[ -n $asan && $path == "$cublas11" ]] && asan="$asan:detect_leaks=0"
  out=$(env -u CUDA_HOME -u CUDA_PATH ${asan:+ASAN_OPTIONS="$asan"} CUDYN_LOG=off LD_LIBRARY_PATH="$drivers/$major" \
    CUDYN_DRIVER_PATH="$drivers/$major/libcuda.so.1" ${path:+CUDYN_CUBLAS_PATH="$path"} \
    "$program")
  for want in "$@"; do
    if grep -qxF "$want" <<<"$out"; then
      echo "ok   driver $major, ${path:-search}: $want"
    else
      echo "FAIL driver $major, ${path:-search}: want $want; got:"
      sed 's/^/       /' <<<"$out"
      status=1
    fi
  done
}

# CUBLAS_STATUS_NOT_INITIALIZED 1, CUBLAS_STATUS_NOT_SUPPORTED 15; the real 13.x cublasSetVector_64
# returns success for n = 0 before looking at anything else.
run 535 "$cublas13" get_version_rc=0 get_version=130100 property_major=13 cudart=13000 \
  "status_string=the requested functionality is not supported" set_vector_64_rc=0 cudyn_entries=517
run 535 "$cublas11" get_version_rc=0 get_version=111103 property_major=11 cudart=11080 \
  set_vector_64_rc=15
run 418 "$cublas11" get_version=111103 set_vector_64_rc=15
run 535 /nonexistent/libcublas.so.12 get_version_rc=1 get_version=-1 property_rc=1 cudart=0 \
  set_vector_64_rc=1 cudyn_entries=517
exit $status
