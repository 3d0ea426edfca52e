#!/usr/bin/env bash
# Proves inputs/headers/*.json are what extract_headers.py makes from the real CUDA 13.0, 11.8 and
# 11.2 headers today (the JSON files are checked in so the merge step needs no toolkit; this test
# keeps them honest on every machine that has the headers, which CI always has).
#   $1..$3: cuda.h of 13.0, 11.8 and 11.2 (from the @cuda, @cuda_11_8, @cuda_11_2 repositories).
set -euo pipefail
src=version_tables
out="${TEST_TMPDIR:-$(mktemp -d)}/headers"
mkdir -p "$out"
status=0
for pair in "13.0:$1" "11.8:$2" "11.2:$3"; do
  version=${pair%%:*}
  include=$(dirname "${pair#*:}")
  python3 "$src/extract_headers.py" "$include" "$out/cuda-$version.json"
  if ! cmp -s "$src/inputs/headers/cuda-$version.json" "$out/cuda-$version.json"; then
    echo "STALE: $src/inputs/headers/cuda-$version.json differs from the $version headers" \
      "(run version_tables/regen --headers):"
    diff -u "$src/inputs/headers/cuda-$version.json" "$out/cuda-$version.json" | head -40 || true
    status=1
  else
    echo "cuda-$version.json matches a fresh extraction from $include"
  fi
done
exit $status
