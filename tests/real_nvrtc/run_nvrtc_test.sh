#!/usr/bin/env bash
# `cudyn run --nvrtc`: a 13.0-nvrtc.h program linked against the real libnvrtc.so.13 (NEEDED
# libnvrtc.so.13, knowing nothing of cudyn) gets the NVRTC cudyn picks for the driver in front.
#   $1 cudyn (tools/run)  $2 nvrtc_program_direct  $3 the real 535 libcuda.so.1  $4 the real
#   NVRTC 11.8 (libnvrtc.so.11.2, builtins beside it)
# On the real 535 (CUDA 12.2, JITs PTX up to 8.2) with 11.8 also offered: NVRTC 11.8, PTX 7.8.
# Without cudyn run: the program's own 13.0 NVRTC, PTX 9.0.
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
cudyn=$(abs "$1") program=$(abs "$2") real535=$(abs "$3") nvrtc118=$(abs "$4")
failures=0
check() { # check LABEL OUTPUT LINE...
  local label=$1 out=$2
  shift 2
  for line in "$@"; do
    grep -qxF -- "$line" <<<"$out" || { echo "FAIL: $label: no '$line' in:"; echo "$out"; failures=$((failures + 1)); return; }
  done
  echo "ok: $label"
}
readelf -d "$program" | grep -q 'NEEDED.*\[libnvrtc\.so\.13\]' ||
  { echo "FAIL: $program does not need libnvrtc.so.13"; exit 1; }
clean=(env -u LD_PRELOAD -u CUDYN_NVRTC_PATH -u CUDYN_MAX_CUDA_VERSION -u CUDYN_CLAMP_MODE)

out=$("${clean[@]}" LD_LIBRARY_PATH="$(dirname "$nvrtc118")" "$cudyn" run --nvrtc --driver "$real535" \
  -- "$program" 2>&1)
check "cudyn run --nvrtc, real 535" "$out" "version_rc=0" "nvrtc=11.8" "compile_rc=0" "ptx_version=7.8"

out=$("${clean[@]}" LD_LIBRARY_PATH="$(dirname "$nvrtc118")" CUDYN_DRIVER_PATH="$real535" "$program" 2>&1)
check "without cudyn run: its own libnvrtc.so.13" "$out" "version_rc=0" "nvrtc=13.0" "compile_rc=0" \
  "ptx_version=9.0"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
