#!/usr/bin/env bash
# cudyn._native exports PyInit__native and nothing else: no cu*, cuda*, cudyn*, nvml* symbol (nor
# any C++ one) is defined and exported, and it needs only glibc (stubs/shipped_deps_test.sh), not
# even libstdc++/libgcc_s (linked in statically, hidden).
#   $1: _native.so   $2: stubs/shipped_deps_test.sh
set -euo pipefail
so=$1
shipped_deps_test=$2
status=0

# nm -D --defined-only: an upper-case type is a GLOBAL/WEAK (exported) symbol; lower-case ones are
# LOCAL entries the linker keeps in .dynsym for TLS relocations (not exported).
defined=$(nm -D --defined-only "$so")
[[ -n $defined ]] || { echo "FAIL: nm -D --defined-only printed nothing for $so"; exit 1; }
exported=$(awk 'NF >= 3 && $2 ~ /^[A-Z]$/ { print $3 }' <<<"$defined" | sed 's/@.*//' | LC_ALL=C sort -u)
if [[ $exported != "PyInit__native" ]]; then
  echo "FAIL: $(basename "$so") exports more than PyInit__native:"
  echo "$exported" | sed 's/^/  /'
  status=1
else
  echo "ok: exports only PyInit__native"
fi
leaked=$(awk 'NF >= 3 { print $3 }' <<<"$defined" | grep -E '^(cu|cuda|cudyn|nvml|_ZN5cudyn)' || true)
if [[ -n $leaked ]]; then
  echo "FAIL: defined dynamic symbols of cudyn/CUDA/NVML:"
  echo "$leaked" | sed 's/^/  /'
  status=1
else
  echo "ok: no cu*/cuda*/cudyn*/nvml* symbol in .dynsym"
fi
# The trampolines are inside, hidden: the embedding is real (the static symbol table has them).
symtab=$(nm "$so")
if ! grep -Eq ' t cuDriverGetVersion$' <<<"$symtab"; then
  echo "FAIL: no local cuDriverGetVersion trampoline inside $(basename "$so")"
  status=1
fi

"$shipped_deps_test" "$so" || status=1
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if grep -Eq '^(libstdc\+\+|libgcc_s)' <<<"$needed"; then
  echo "FAIL: $(basename "$so") needs libstdc++/libgcc_s (they are to be linked in statically)"
  status=1
fi
if grep -Eq '^libpython' <<<"$needed"; then
  echo "FAIL: an extension module must not need libpython"
  status=1
fi
exit $status
