#!/bin/bash
# Asserts that a binary using @spdlog/@fmt does not need libspdlog.so or libfmt.so at run time
# (loader/DESIGN.md "Contracts": shipped libraries depend on glibc and libstdc++ only).
set -euo pipefail
status=0
for bin in "$@"; do
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "$bin NEEDED: ${needed//$'\n'/ }"
  if grep -E '^lib(spdlog|fmt)\.so' <<<"$needed"; then
    echo "FAIL: $bin links spdlog/fmt dynamically" >&2
    status=1
  fi
done
exit $status
