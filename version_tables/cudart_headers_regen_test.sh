#!/usr/bin/env bash
# Proves inputs/runtime_headers/*.json are what extract_runtime_headers.py makes from the real CUDA
# 13.0, 12.5, 12.4, 11.8 and 11.2 runtime headers today (checked in so the merge step needs no
# toolkit; this test keeps them honest on every machine that has the headers).
#   $1..$5: cuda.h of 13.0, 12.5, 12.4, 11.8 and 11.2 (@cuda, @cuda_12_5, @cuda_12_4, @cuda_11_8,
#   @cuda_11_2); cuda_runtime_api.h sits beside it.
set -euo pipefail
src=version_tables
out="${TEST_TMPDIR:-$(mktemp -d)}/runtime_headers"
mkdir -p "$out"
status=0
for pair in "13.0:$1" "12.5:$2" "12.4:$3" "11.8:$4" "11.2:$5"; do
  version=${pair%%:*}
  include=$(dirname "${pair#*:}")
  python3 "$src/extract_runtime_headers.py" "$include" "$out/cudart-$version.json"
  if ! cmp -s "$src/inputs/runtime_headers/cudart-$version.json" "$out/cudart-$version.json"; then
    echo "STALE: $src/inputs/runtime_headers/cudart-$version.json differs from the $version headers" \
      "(run version_tables/regen --headers):"
    diff -u "$src/inputs/runtime_headers/cudart-$version.json" "$out/cudart-$version.json" | head -40 || true
    status=1
  else
    echo "cudart-$version.json matches a fresh extraction from $include"
  fi
done
exit $status
