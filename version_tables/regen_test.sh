#!/usr/bin/env bash
# Proves the checked-in table and generated includes equal a fresh generator run from the
# checked-in inputs.
set -euo pipefail
src=version_tables
out="${TEST_TMPDIR:-$(mktemp -d)}/regen"
mkdir -p "$out"
python3 "$src/generate.py" --inputs "$src/inputs" --out "$out"
status=0
for rel in $(cd "$out" && ls cuda_api_table.tsv generated/*); do
  if ! diff -u "$src/$rel" "$out/$rel" > "$out/diff.txt"; then
    echo "STALE: $src/$rel differs from a fresh run (run version_tables/regen):"
    head -40 "$out/diff.txt"
    status=1
  fi
done
(cd "$out" && ls cuda_api_table.tsv generated/*) | sort > "$out/fresh.list"
(cd "$src" && ls cuda_api_table.tsv generated/*) | sort > "$out/checked.list"
diff -u "$out/checked.list" "$out/fresh.list" || { echo "generated file set differs"; status=1; }
[[ $status == 0 ]] && echo "checked-in outputs match a fresh run ($(wc -l < "$src/cuda_api_table.tsv") table lines)"
exit $status
