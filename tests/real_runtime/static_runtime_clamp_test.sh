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
# Args: DROPIN DRIVER DRIVER_VERSION then programs VERSION:PROGRAM (VERSION 0: no runtime table).
set -uo pipefail
dropin=$(readlink -f "$1") driver=$(readlink -f "$2") real=$3
shift 3
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/static.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ln -s "$dropin" "$tmp/libcuda.so.1"
fail=0
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
  done
done
exit $fail
