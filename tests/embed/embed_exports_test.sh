#!/usr/bin/env bash
# The embedding libraries export their own entry points and nothing of cudyn: no cu* symbol (the
# driver API), no cudyn* C API, no C++ symbol of the cudyn namespace or of spdlog/fmt.
#   $@: the shared objects to check.
set -euo pipefail
status=0
for so in "$@"; do
  exported=$(nm -D --defined-only "$so" | awk '{print $NF}')
  leaked=$(grep -E '^(cu|cudyn|_ZN5cudyn|_ZN6spdlog|_ZN3fmt)' <<<"$exported" || true)
  own=$(grep -c '^embed_' <<<"$exported" || true)
  if [[ -n $leaked ]]; then
    echo "FAIL: $so exports cudyn/driver symbols:"
    head -20 <<<"$leaked"
    status=1
  elif ((own != 4)); then
    echo "FAIL: $so exports $own embed_* functions, expected 4"
    status=1
  else
    echo "ok: $so exports its 4 embed_* functions and no cu*/cudyn symbol"
  fi
done
exit $status
