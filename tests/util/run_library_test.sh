#!/usr/bin/env bash
# `cudyn run --LIB`: a program linked against the real toolkit library (NEEDED libLIB.so.13,
# knowing nothing of cudyn) gets the library cudyn picks for the driver in front; without cudyn run
# it gets its own. Shared by //tests/real_cublas:run_cublas_test and //tests/real_nvrtc:run_nvrtc_test.
#   run_library_test.sh LIB CUDYN PROGRAM DRIVER LIBRARY [OPTION]...
#     LIB      cublas | nvrtc (`cudyn run --LIB`, CUDYN_<LIB>_PATH)
#     CUDYN    cudyn (tools/run)   PROGRAM  the program   DRIVER  the libcuda.so.1 handed to cudyn run
#     LIBRARY  the older real library offered on LD_LIBRARY_PATH (the one cudyn should pick)
#   Options:
#     --needs=SONAME        PROGRAM must have NEEDED SONAME
#     --rpath               PROGRAM must have a DT_RPATH (searched before LD_LIBRARY_PATH: only the
#                           preload gets cudyn in ahead of it)
#     --with=LINE           a line of PROGRAM's output under cudyn run (repeatable)
#     --without=LINE        a line of its output without cudyn run, DRIVER named by
#                           CUDYN_DRIVER_PATH (repeatable)
#     --mapped-with=RE      an output line matching RE under cudyn run
#     --unmapped-without=RE no output line matching RE without cudyn run
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
lib=$1 driver_arg=$4 cudyn=$(abs "$2") program=$(abs "$3") driver=$(abs "$4") library=$(abs "$5")
shift 5
needs="" rpath=0 with=() without=() mapped_with="" unmapped_without=""
for arg in "$@"; do
  case $arg in
    --needs=*) needs=${arg#*=} ;;
    --rpath) rpath=1 ;;
    --with=*) with+=("${arg#*=}") ;;
    --without=*) without+=("${arg#*=}") ;;
    --mapped-with=*) mapped_with=${arg#*=} ;;
    --unmapped-without=*) unmapped_without=${arg#*=} ;;
    *) echo "FAIL: unknown argument '$arg'"; exit 2 ;;
  esac
done
((${#with[@]} && ${#without[@]})) || { echo "FAIL: no --with or no --without line given"; exit 2; }
failures=0
check() { # check LABEL OUTPUT LINE...
  local label=$1 out=$2
  shift 2
  for line in "$@"; do
    grep -qxF -- "$line" <<<"$out" || { echo "FAIL: $label: no '$line' in:"; echo "$out"; failures=$((failures + 1)); return; }
  done
  echo "ok: $label"
}
if [[ -n $needs ]]; then
  readelf -d "$program" | grep '(NEEDED)' | grep -qF "[$needs]" ||
    { echo "FAIL: $program does not need $needs"; exit 1; }
fi
if ((rpath)); then
  readelf -d "$program" | grep -q '(RPATH)' || { echo "FAIL: $program has no DT_RPATH"; exit 1; }
fi
path_variable="CUDYN_${lib^^}_PATH"
clean=(env -u LD_PRELOAD -u "$path_variable" -u CUDYN_MAX_CUDA_VERSION -u CUDYN_CLAMP_MODE -u CUDA_HOME -u CUDA_PATH)
# Sanitizer builds (--config=asan_ubsan): the program and the drop-in cudyn run preloads need the
# ASan runtime, which then cannot come first in the library list (cudyn run puts its drop-in ahead
# of everything, as it must for a real program); ASan's start-up check of that order is turned off.
if readelf -d "$program" | grep -q 'NEEDED.*\[libasan'; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi

out=$("${clean[@]}" LD_LIBRARY_PATH="$(dirname "$library")" "$cudyn" run "--$lib" --driver "$driver" \
  -- "$program" 2>&1)
check "cudyn run --$lib --driver $driver_arg" "$out" "${with[@]}"
if [[ -n $mapped_with ]] && ! grep -q -- "$mapped_with" <<<"$out"; then
  echo "FAIL: nothing mapped matching '$mapped_with' under cudyn run"
  failures=$((failures + 1))
fi

out=$("${clean[@]}" LD_LIBRARY_PATH="$(dirname "$library")" CUDYN_DRIVER_PATH="$driver" "$program" 2>&1)
check "without cudyn run: its own ${needs:-lib$lib}" "$out" "${without[@]}"
if [[ -n $unmapped_without ]] && grep -q -- "$unmapped_without" <<<"$out"; then
  echo "FAIL: '$unmapped_without' mapped without cudyn run"
  failures=$((failures + 1))
fi

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
