#!/usr/bin/env bash
# tests/run_all.sh — the project's test command (README's second command; .ci/run calls it).
#   1. third_party/fetch_deps.sh   apt sources, build deps, real drivers + CUDA 11.x headers cache
#   2. .ci/test.sh                 every test step (bazel test //..., sanitizers, 11.8 headers build,
#                                  the examples/ workspace, fuzz smoke); prints "N passed, N failed"
# The last line printed is always "N passed, N failed"; the exit status is non-zero if anything failed
# (a failing fetch_deps.sh counts as 1 failed and skips the tests: CI fails, it does not skip).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

timings=()
summary_file=$(mktemp "${TMPDIR:-/tmp}/cudyn-ci-summary.XXXXXX")
trap 'rm -f "$summary_file"' EXIT

start=$(now)
echo "=== run_all: third_party/fetch_deps.sh"
if ! third_party/fetch_deps.sh; then
  timings+=("fetch_deps  FAILED  $(elapsed "$start")")
  printf '=== run_all timings\n'
  printf '  %s\n' "${timings[@]}"
  echo "0 passed, 1 failed"
  exit 1
fi
timings+=("fetch_deps  ok      $(elapsed "$start")")

start=$(now)
echo "=== run_all: .ci/test.sh"
rc=0
CUDYN_CI_SUMMARY=$summary_file .ci/test.sh || rc=$?
timings+=("test.sh     $( ((rc == 0)) && echo 'ok    ' || echo 'FAILED')  $(elapsed "$start")")

printf '=== run_all timings\n'
printf '  %s\n' "${timings[@]}"
if [[ -s $summary_file ]]; then
  cat "$summary_file"
else
  echo "0 passed, 1 failed" # test.sh died before its summary
  ((rc != 0)) || rc=1
fi
exit "$rc"
