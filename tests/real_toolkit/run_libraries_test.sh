#!/usr/bin/env bash
# `cudyn run --libraries` on the real 535 driver (CUDA 12.2): a program linked against the 13.0
# cuFFT, cuRAND, cuSPARSE, cuSOLVER and nvJitLink (which a 12.2 driver does not run) gets the 12.5
# release of each, offered on LD_LIBRARY_PATH: each library's own version call says 12.5's, and the
# process maps no file of those libraries from the 13.0 toolkit. Without cudyn run it gets 13.0's.
#   run_libraries_test.sh CUDYN PROGRAM DRIVER TOOLKIT_LIB64 RELEASE_DIR... -- WANT_13 -- WANT_12
#     WANT_*: name=version lines the program must print (cufft_version=11203 ...)
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
cudyn=$(abs "$1") program=$(abs "$2") driver=$(abs "$3") toolkit=$(readlink -f "$4")
shift 4
dirs=() want13=() want12=()
while [[ $1 != -- ]]; do dirs+=("$(dirname "$(readlink -f "$1")")"); shift; done
shift
while [[ $1 != -- ]]; do want13+=("$1"); shift; done
shift
want12=("$@")
# The mapped files (mapped=PATH lines) whose real directory is DIR.
mapped_in() { # OUTPUT DIR
  local path
  sed -n 's/^mapped=//p' <<<"$1" | while read -r path; do
    [[ $(dirname "$(readlink -f "$path")") == "$2" ]] && echo "$path"
  done
}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_lines() { # LABEL OUTPUT LINE...
  local label=$1 out=$2
  shift 2
  for line in "$@"; do grep -qxF -- "$line" <<<"$out" || fail "$label: no '$line' in:"$'\n'"$out"; done
}
for needed in libcufft.so.12 libcurand.so.10 libcusparse.so.12 libcusolver.so.12 libnvJitLink.so.13; do
  readelf -d "$program" | grep '(NEEDED)' | grep -qF "[$needed]" || fail "$program does not need $needed"
done
clean=(env -u LD_PRELOAD -u CUDYN_MAX_CUDA_VERSION -u CUDYN_CLAMP_MODE -u CUDA_HOME -u CUDA_PATH
       -u CUDYN_CUFFT_PATH -u CUDYN_CURAND_PATH -u CUDYN_CUSPARSE_PATH -u CUDYN_CUSOLVER_PATH
       -u CUDYN_NVJITLINK_PATH)
if readelf -d "$program" | grep -q 'NEEDED.*\[libasan'; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
library_path=$(IFS=:; echo "${dirs[*]}")

# Directly: the toolkit's own (its DT_RPATH), 13.0 everywhere.
out=$("${clean[@]}" LD_LIBRARY_PATH="$library_path" "$program" 2>&1) || fail "direct run failed: $out"
expect_lines "direct" "$out" "${want13[@]}"
[[ -n $(mapped_in "$out" "$toolkit") ]] || fail "direct: nothing mapped from $toolkit:"$'\n'"$out"

# Through cudyn run on the 535 driver: the 12.5 releases, and nothing of those libraries mapped from
# the 13.0 toolkit (cudyn refused its SONAMEs unloaded, or loaded and refused none).
out=$("${clean[@]}" LD_LIBRARY_PATH="$library_path" "$cudyn" run --libraries --driver "$driver" \
        -- "$program" 2>&1) || fail "cudyn run failed: $out"
expect_lines "cudyn run" "$out" "${want12[@]}"
[[ -z $(mapped_in "$out" "$toolkit") ]] || fail "cudyn run: a 13.0 file is mapped:"$'\n'"$out"
for lib in libcufft libcurand libcusparse libcusolver libnvJitLink; do
  grep -q "^mapped=${dirs[0]}/$lib[.]so[.]" <<<"$out" || fail "cudyn run: no 12.5 $lib mapped:"$'\n'"$out"
done
((failures == 0)) && echo "ok: direct 13.0, through cudyn run 12.5 for every library"
exit $((failures > 0))
