#!/usr/bin/env bash
# A library's drop-in exports every function name any real release of the library exports (the
# other libraries of a release import internal ones: libcublas.so.13 calls libcublasLt.so.13's
# cublasLtCtxInit, cuSOLVER 130 cuBLAS functions), as the driver drop-in exports every driver
# symbol. The real lists: version_tables/inputs/<lib>_exports/<release>.txt (checked against the
# real libraries by the facts tests).
#   dropin_exports_test.sh DROPIN.so EXPORTS_TXT...
set -uo pipefail
so=$1
shift
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u)
missing=$(cat "$@" | grep -v '^#' | sed 's/@.*//' | sed '/^$/d' | sort -u | comm -23 - <(echo "$exported"))
if [[ -n $missing ]]; then
  echo "FAIL: $so lacks $(wc -l <<<"$missing") name(s) a real release exports:"
  head -20 <<<"$missing"
  exit 1
fi
echo "ok: $so exports all $(cat "$@" | grep -v '^#' | sed 's/@.*//' | sed '/^$/d' | sort -u | wc -l) names of $# real releases"
