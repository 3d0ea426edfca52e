#!/bin/bash
# `cudyn run --cudart` with a runtime-only program (no -lcuda) under a clamp: the real runtime
# behind cudyn's runtime drop-in must meet cudyn's driver drop-in as its libcuda.so.1, as a program
# linked with -lcuda has it, so the clamp reaches the runtime's own driver calls. The runtime drop-in
# opens the real driver by its path; were that object the first libcuda.so.1 in the process, the
# runtime's dlopen("libcuda.so.1") would match it by SONAME and escape the clamp (a 12.5 runtime
# then runs under an 11.4 clamp, where a real 11.4 driver answers 35).
#
# Args: CUDYN PROBE DRIVER DRIVER_CUDA_VERSION then cases RUNTIME_VERSION:CLAMP:RUNTIME_LIB
# (CLAMP "none": unclamped).
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
cudyn=$(abs "$1") probe=$(abs "$2") driver=$(abs "$3") driver_version=$4
shift 4
clean=(env -u LD_PRELOAD -u CUDYN_CUDART_PATH -u CUDYN_DRIVER_PATH -u CUDYN_MAX_CUDA_VERSION
  -u CUDYN_CLAMP_MODE -u CUDA_HOME -u CUDA_PATH)
# Sanitizer builds: cudyn run preloads instrumented drop-ins ahead of the ASan runtime.
if readelf -d "$cudyn" | grep -q 'NEEDED.*\[libasan'; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
source "$(dirname "$0")/expect_key.sh"

# What the real driver itself answers this program (no clamp, no GPU on a CPU machine): measured
# with the first unclamped case, the reference for the cases a real driver of the clamp would run.
reference=""
for spec in "$@"; do
  IFS=: read -r rt_version clamp runtime <<<"$spec"
  runtime=$(abs "$runtime")
  clamp_args=()
  [[ $clamp == none ]] || clamp_args=(--max-cuda-version "$clamp")
  name="runtime $rt_version, clamp $clamp"
  out=$("${clean[@]}" "$cudyn" run --cudart --runtime "$runtime" --driver "$driver" \
    "${clamp_args[@]}" -- "$probe" 2>&1) ||
    { echo "FAIL [$name]: exit $?: $out"; fail=1; continue; }
  expect "$out" libcuda_is_cudyn 1 "$name: the runtime's libcuda.so.1 is cudyn's drop-in"
  seen=$driver_version
  [[ $clamp == none ]] || seen=$clamp
  expect "$out" driver_version "$seen" "$name: cudaDriverGetVersion"
  got_rc=$(sed -n 's/^device_count_rc=\([0-9-]*\).*/\1/p' <<<"$out")
  if [[ $clamp == none ]]; then
    [[ -z $reference ]] && reference=$got_rc
    expect "$out" device_count_rc "$reference" "$name: as the real driver answers"
    continue
  fi
  # A real driver of version D runs a runtime R when D >= R's major x 1000.
  needs=$((rt_version / 1000 * 1000))
  if ((needs > clamp)); then
    expect "$out" device_count_rc 35 "$name: cudaErrorInsufficientDriver, as a real $clamp driver"
  elif [[ -n $reference ]]; then
    expect "$out" device_count_rc "$reference" "$name: runs as on the real driver"
  else
    echo "FAIL [$name]: no unclamped case ran first"
    fail=1
  fi
done
exit $fail
