#!/usr/bin/env bash
# `cudyn run --cublas`: a 13.0-cublas_v2.h program linked against the real libcublas.so.13 (NEEDED
# libcublas.so.13, DT_RPATH to the toolkit, knowing nothing of cudyn) gets the cuBLAS cudyn picks
# for the driver in front.
#   $1 cudyn (tools/run)  $2 cublas_program_direct  $3 the real 535 libcuda.so.1  $4 the real
#   cuBLAS 12.5 (libcublas.so.12, its libcublasLt beside it)
# On the real 535 (CUDA 12.2: runs cuBLAS 11.x and 12.x, not 13.x) with 12.5 also offered: cuBLAS
# 12.5 through cudyn's drop-in. Without cudyn run: the program's own 13.x cuBLAS.
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
cudyn=$(abs "$1") program=$(abs "$2") real535=$(abs "$3") cublas125=$(abs "$4")
failures=0
check() { # check LABEL OUTPUT LINE...
  local label=$1 out=$2
  shift 2
  for line in "$@"; do
    grep -qxF -- "$line" <<<"$out" || { echo "FAIL: $label: no '$line' in:"; echo "$out"; failures=$((failures + 1)); return; }
  done
  echo "ok: $label"
}
readelf -d "$program" | grep -q 'NEEDED.*\[libcublas\.so\.13\]' ||
  { echo "FAIL: $program does not need libcublas.so.13"; exit 1; }
# DT_RPATH is searched before LD_LIBRARY_PATH: only the preload gets cudyn in ahead of it.
readelf -d "$program" | grep -q '(RPATH)' || { echo "FAIL: $program has no DT_RPATH"; exit 1; }
clean=(env -u LD_PRELOAD -u CUDYN_CUBLAS_PATH -u CUDYN_MAX_CUDA_VERSION -u CUDYN_CLAMP_MODE -u CUDA_HOME -u CUDA_PATH)
# Sanitizer builds: as run_nvrtc_test.sh (cudyn run puts its drop-in ahead of the ASan runtime).
if readelf -d "$program" | grep -q 'NEEDED.*\[libasan'; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi

out=$("${clean[@]}" LD_LIBRARY_PATH="$(dirname "$cublas125")" "$cudyn" run --cublas --driver "$real535" \
  -- "$program" 2>&1)
check "cudyn run --cublas, real 535" "$out" "version_rc=0" "version=120502" "cublas_major=12" "cudyn=yes"
grep -q '^mapped=.*/libcublas\.so\.12$' <<<"$out" || { echo "FAIL: no libcublas.so.12 mapped under cudyn run"; failures=$((failures + 1)); }

out=$("${clean[@]}" LD_LIBRARY_PATH="$(dirname "$cublas125")" CUDYN_DRIVER_PATH="$real535" "$program" 2>&1)
check "without cudyn run: its own libcublas.so.13" "$out" "version_rc=0" "cublas_major=13" "cudyn=no"
grep -q '^mapped=.*libcublas\.so\.12' <<<"$out" && { echo "FAIL: a libcublas.so.12 was mapped without cudyn run"; failures=$((failures + 1)); }

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
