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
# Sanitizer builds (--config=asan_ubsan): the program and the drop-in cudyn run preloads need the
# ASan runtime, which then cannot come first in the library list (cudyn run puts its drop-in ahead
# of everything, as it must for a real program); ASan's start-up check of that order is turned off.
if readelf -d "$program" | grep -q 'NEEDED.*\[libasan'; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi

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
