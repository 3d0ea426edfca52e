#!/bin/bash
# Under a clamp, a real CUDA runtime must see one consistent driver (stubs/shim.cc): with cudyn's
# drop-in as the process's libcuda.so.1 (loaded first, as -lcuda loads it), the runtime's own
# cudaDriverGetVersion is the real driver's version while the program's cuDriverGetVersion is the
# clamp; through cudyn's runtime drop-in the program's cudaDriverGetVersion is the clamp again.
# Before this rule the real runtime saw the clamped driver, and on a GPU its first call answered
# 103 (cudaErrorSoftwareValidityNotEstablished).
#
# Args: PROBE DRIVER_DROPIN CUDART_DROPIN then cases DRIVER_LIB:DRIVER_VERSION:CLAMP:RUNTIME_LIB
# (CLAMP "none": unclamped).
set -euo pipefail
probe=$1 dropin=$2 cudart_dropin=$3
shift 3

fail=0
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/clamp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ln -s "$(readlink -f "$dropin")" "$tmp/libcuda.so.1"

expect() {  # expect <output> <key> <value> <case>
  local got
  got=$(sed -n "s/^$2=\([0-9-]*\).*/\1/p" <<<"$1")
  if [[ $got != "$3" ]]; then
    echo "FAIL [$4]: $2=$got, expected $3"
    fail=1
  else
    echo "ok   [$4]: $2=$got"
  fi
}

for spec in "$@"; do
  IFS=: read -r driver real clamp runtime <<<"$spec"
  driver=$(readlink -f "$driver")
  runtime=$(readlink -f "$runtime")
  seen=$clamp
  [[ $clamp == none ]] && seen=$real
  env_clamp=()
  [[ $clamp == none ]] || env_clamp=(CUDYN_MAX_CUDA_VERSION="$clamp")
  name="driver $real, clamp $clamp, runtime ${runtime##*/cuda_runtimes/}"

  out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$driver" "${env_clamp[@]}" \
    "$probe" "$runtime" 2>&1) || { echo "FAIL [$name]: probe exited $?: $out"; fail=1; continue; }
  expect "$out" dropin_mapped 1 "$name"
  expect "$out" program_driver "$seen" "$name"
  expect "$out" runtime_driver "$real" "$name: the real runtime sees the real driver"
  expect "$out" libcuda_files 1 "$name: one real driver in the process"

  out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$driver" CUDYN_CUDART_PATH="$runtime" \
    "${env_clamp[@]}" "$probe" "$(readlink -f "$cudart_dropin")" 2>&1) ||
    { echo "FAIL [$name, cudyn's runtime]: probe exited $?: $out"; fail=1; continue; }
  expect "$out" runtime_driver "$seen" "$name, through cudyn's runtime: the program sees the clamp"
  expect "$out" libcuda_files 1 "$name, through cudyn's runtime: one real driver"
done
exit $fail
