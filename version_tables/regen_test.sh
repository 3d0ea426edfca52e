#!/usr/bin/env bash
# Proves the checked-in table (cuda_api_table.tsv) equals a fresh generator run from the
# checked-in inputs. The generated includes are not checked in: the build makes them from the
# same inputs (//version_tables:generated_files).
set -euo pipefail
src=version_tables
out="${TEST_TMPDIR:-$(mktemp -d)}/regen"
mkdir -p "$out"
python3 "$src/generate.py" --inputs "$src/inputs" --out "$out"
if ! diff -u "$src/cuda_api_table.tsv" "$out/cuda_api_table.tsv" > "$out/diff.txt"; then
  echo "STALE: $src/cuda_api_table.tsv differs from a fresh run (run version_tables/regen):"
  head -40 "$out/diff.txt"
  exit 1
fi
echo "checked-in table matches a fresh run ($(wc -l < "$src/cuda_api_table.tsv") table lines)"
