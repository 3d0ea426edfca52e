#!/bin/bash
# A CUDA runtime linked statically into the main program under a clamp (stubs/shim.cc,
# LookupSeesRealDriver): what the program looks up through cuGetProcAddress (every lookup of such a
# runtime) is the real driver's where a real driver of the clamped version runs that runtime, so the
# runtime sees one consistent driver (an 11.8 static runtime answered 103 at its first call under
# every clamp below 13.0 on the H100 before); the program's own direct calls keep the clamp. A
# runtime the clamp does not run (13.0 under 12.0) and a program with no runtime table see the clamp
# in both. Programs linked at a fixed address (no PIE) keep the table in read-only data, not RELRO.
# Under driver emulation such a runtime's module loads are still cudyn's (emulation wrappers: no
# registration hook reaches a static runtime's fatbins), everything else it looks up stays real.
#
# Under emulation, the fatbins such a runtime registered (nvcc's wrapper in the program's writable
# data; here an ISA 9.0 PTX fatbin) are replaced at its first lookup with what the real driver
# answers as the emulated one would (a 12.2 driver: 222, so a PTX no driver JITs): on the fake 13.0
# driver with a fake sm_90.
#
# Args: DROPIN DRIVER DRIVER_VERSION FAKE_13000_DRIVER then programs VERSION:PROGRAM (VERSION 0: no
# runtime table).
set -uo pipefail
dropin=$(readlink -f "$1") driver=$(readlink -f "$2") real=$3 fake=$(readlink -f "$4")
shift 4
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/static.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ln -s "$dropin" "$tmp/libcuda.so.1"
source "$(dirname "$0")/expect_key.sh"
for spec in "$@"; do
  IFS=: read -r runtime program <<<"$spec"
  program=$(readlink -f "$program")
  pie=PIE
  readelf -h "$program" | grep -q 'Type:.*EXEC' && pie="fixed address"
  for mode_clamp in "versions none" "versions 11040" "versions 12000" "emulate 11040" "emulate 12000"; do
    read -r mode clamp <<<"$mode_clamp"
    env_clamp=()
    [[ $clamp == none ]] || env_clamp=(CUDYN_MAX_CUDA_VERSION="$clamp" CUDYN_CLAMP_MODE="$mode")
    seen=$real
    [[ $clamp == none ]] || seen=$clamp
    # A real driver of version D runs a runtime R when D >= R's major x 1000.
    lookup=$seen
    ((runtime > 0)) && [[ $clamp != none ]] && ((runtime / 1000 * 1000 <= clamp)) && lookup=$real
    # The looked-up cuModuleLoadData is the real driver's where the lookup sees the real driver,
    # but never under emulation (cudyn's wrapper judges the runtime's loads).
    module_load_real=0
    [[ $clamp != none && $lookup == "$real" && $mode != emulate ]] && module_load_real=1
    name="program with runtime $runtime ($pie), driver $real, clamp $clamp ($mode)"
    out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$driver" "${env_clamp[@]}" "$program" 2>&1) ||
      { echo "FAIL [$name]: exit $?: $out"; fail=1; continue; }
    expect "$out" lookup_driver "$lookup" "$name: its runtime's lookup"
    expect "$out" direct_driver "$seen" "$name: the program's own call"
    expect "$out" module_load_real "$module_load_real" "$name: the cuModuleLoadData it looks up"
    expect "$out" wrapper_replaced 0 "$name: its fatbin (no GPU here: not judged)"
  done
  # On the fake 13.0 driver with a fake sm_90: the PTX 9.0 fatbin is replaced only under an
  # emulated 12.2, only for a runtime that sees the real driver there.
  for mode in emulate versions; do
    replaced=0
    ((runtime > 0 && runtime / 1000 * 1000 <= 12020)) && [[ $mode == emulate ]] && replaced=1
    name="program with runtime $runtime ($pie), fake 13.0 driver, sm_90, clamp 12020 ($mode)"
    out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$fake" CUDYN_FAKE_GPU=90 \
      CUDYN_MAX_CUDA_VERSION=12020 CUDYN_CLAMP_MODE="$mode" "$program" 2>&1) ||
      { echo "FAIL [$name]: exit $?: $out"; fail=1; continue; }
    expect "$out" wrapper_replaced "$replaced" "$name: its registered fatbin"
  done
done
exit $fail
