#!/usr/bin/env bash
# Every fake runtime: exports exactly its facts' names (minus the ones left out) plus the control
# API, has its SONAME, reports its version, and records / answers calls as the control API says.
#   fake_runtime_test.sh VERSION=LIB=EXPORTS_TXT=WITHOUT_REGEXES...
set -euo pipefail
fails=0
for spec in "$@"; do
  IFS='=' read -r version lib exports without <<<"$spec"
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  got=$(readelf --dyn-syms --wide "$lib" | awk '$7 != "UND" && ($4 == "FUNC" || $4 == "OBJECT") {print $8}' |
    grep -v '^fake_cudart_' | grep -vxF "$soname" | sort -u)
  want=$(grep -v '^#' "$exports" | sed 's/@@.*//' | sort -u)
  if [[ -n $without ]]; then
    IFS=',' read -r -a res <<<"$without"
    for re in "${res[@]}"; do want=$(grep -Ev -- "$re" <<<"$want" || true); done
  fi
  want=$(sed "s/\$/@@$soname/" <<<"$want" | sort -u)
  if [[ "$got" != "$want" ]]; then
    echo "FAIL $version: exports differ from the facts:"
    diff <(echo "$want") <(echo "$got") | head -10
    fails=$((fails + 1))
  fi
  major=${version%%.*} minor=${version#*.}
  [[ $soname == libcudart.so.* ]] || { echo "FAIL $version: SONAME '$soname'"; fails=$((fails + 1)); }
  if ! python3 - "$lib" "$((major * 1000 + minor * 10))" <<'PY'; then
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
v = ctypes.c_int(-1)
assert lib.cudaRuntimeGetVersion(ctypes.byref(v)) == 0 and v.value == int(sys.argv[2]), v.value
assert lib.cudaSetDevice(7) == 0
out = ctypes.c_int(0)
assert lib.fake_cudart_last_arg(b"cudaSetDevice", 0, ctypes.byref(out), 4) == 4 and out.value == 7
assert lib.fake_cudart_call_count(b"cudaSetDevice") == 1
lib.fake_cudart_set_result(b"cudaSetDevice", 101)
assert lib.cudaSetDevice(1) == 101
five = ctypes.c_int(5)
lib.fake_cudart_set_out(b"cudaGetDevice", 0, ctypes.byref(five), 4)
d = ctypes.c_int(0)
assert lib.cudaGetDevice(ctypes.byref(d)) == 0 and d.value == 5, d.value
lib.fake_cudart_reset()
assert lib.fake_cudart_call_count(b"cudaSetDevice") == 0
PY
    echo "FAIL $version: calls"
    fails=$((fails + 1))
  fi
  echo "ok $version ($soname, $(wc -l <<<"$got") exports)"
done
((fails == 0))
