#!/usr/bin/env bash
# `cudyn-check binary` on real library files without a runtime inside: a cuFFT or nvJitLink release
# needs its release's driver (the 13.0 cuFFT answers CUFFT_NOT_SUPPORTED on a 12.8 driver, measured
# on an H200: tests/gpu/RESULTS.md), as the loader refuses them; one that carries a runtime keeps
# the runtime's rule.
#   check_binary_library_test.sh CUDYN_CHECK CUFFT_12_5 NVJITLINK_12_5 TOOLKIT_LIB64
set -uo pipefail
check=$1 cufft125=$2 nvjitlink125=$3 toolkit=$4
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
judge() { # FILE TARGET -> "exit linkage min_driver verdict"
  local out code
  out=$("$check" binary "$1" --target-version "$2" --gpu sm_90 --json 2>&1)
  code=$?
  python3 -c '
import json, sys
j = json.load(sys.stdin)
f = j["files"][0] if "files" in j else j
print(sys.argv[1], f["runtime"]["linkage"], f["runtime"]["min_driver"], f["verdict"])' "$code" <<<"$out"
}
expect() { # LABEL GOT WANT
  [[ $2 == "$3" ]] && echo "ok: $1: $2" || fail "$1: got '$2', want '$3'"
}
expect "13.0 cuFFT at 12.2" "$(judge "$toolkit/libcufft.so.12" 12.2)" "1 library_release 13000 incompatible"
expect "13.0 cuFFT at 13.0" "$(judge "$toolkit/libcufft.so.12" 13.0 | cut -d' ' -f2-3)" "library_release 13000"
expect "12.5 cuFFT at 12.2" "$(judge "$cufft125" 12.2 | cut -d' ' -f1-3)" "0 library_release 12000"
expect "12.5 cuFFT at 11.8" "$(judge "$cufft125" 11.8)" "1 library_release 12000 incompatible"
expect "13.0 nvJitLink at 12.2" "$(judge "$toolkit/libnvJitLink.so.13" 12.2)" "1 library_release 13000 incompatible"
expect "12.5 nvJitLink at 12.2" "$(judge "$nvjitlink125" 12.2 | cut -d' ' -f1-3)" "0 library_release 12000"
# A release with a runtime inside keeps the runtime's rule.
expect "13.0 cuRAND at 12.2" "$(judge "$toolkit/libcurand.so.10" 12.2 | cut -d' ' -f2-3)" "static 13000"
exit $((failures > 0))
