#!/usr/bin/env bash
# Proves the checked-in runtime table (cudart_api_table.tsv) equals a fresh generate_runtime.py run
# from the checked-in inputs. The generated includes are not checked in: the build makes them from
# the same inputs (//version_tables:cudart_generated_files).
set -euo pipefail
src=version_tables
out="${TEST_TMPDIR:-$(mktemp -d)}/cudart_regen"
mkdir -p "$out"
python3 "$src/generate_runtime.py" --inputs "$src/inputs" --out "$out"
if ! diff -u "$src/cudart_api_table.tsv" "$out/cudart_api_table.tsv" > "$out/diff.txt"; then
  echo "STALE: $src/cudart_api_table.tsv differs from a fresh run (run version_tables/regen):"
  head -40 "$out/diff.txt"
  exit 1
fi
if ! diff -u "$src/CUDART_SERVED.md" "$out/CUDART_SERVED.md" > "$out/diff_served.txt"; then
  echo "STALE: $src/CUDART_SERVED.md differs from a fresh run (run version_tables/regen):"
  head -40 "$out/diff_served.txt"
  exit 1
fi
echo "checked-in runtime table matches a fresh run ($(wc -l < "$src/cudart_api_table.tsv") table lines)"
