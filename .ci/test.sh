#!/usr/bin/env bash
# .ci/test.sh — the project's test command: runs every test step, sums the results and prints a final line
#   N passed, N failed
# Exit status 0 only if nothing failed (a build failure counts as a failure).
#
# Steps are calls of run_bazel_tests / run_script in main() below; add more there (sanitizer runs,
# the examples/ workspace, ...) and their counts are summed automatically.
#
#   run_bazel_tests <label> [--workspace DIR] <bazel test args...>
#       `bazel test --keep_going <args>` in the repo (or in DIR); counts every test target of the summary:
#       PASSED / FLAKY -> passed; FAILED, TIMEOUT, NO STATUS, INCOMPLETE, FAILED TO BUILD, ... -> failed.
#       If Bazel fails without any failed test in its summary (analysis/build error), that counts as 1 failed.
#   run_script <label> <command...>
#       a step outside Bazel (e.g. a libFuzzer smoke run): 1 passed or 1 failed by its exit status.
#
# Environment:
#   BAZEL               bazel binary (default: bazel)
#   CUDYN_CI_LOGDIR     where each step's full Bazel output is kept (default: a new temp directory)
#   CUDYN_CI_SUMMARY    if set, the final "N passed, N failed" line is also written to this file
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BAZEL=${BAZEL:-bazel}
LOGDIR=${CUDYN_CI_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/cudyn-ci.XXXXXX")}
mkdir -p "$LOGDIR"

TOTAL_PASSED=0
TOTAL_FAILED=0
STEP_LINES=()         # one summary line per step, printed at the end
FAILED_TAILS=()       # the end of each failed test's log, printed before the summary
WORKSPACES=("$ROOT")  # every workspace a Bazel server was started in (shut down at the end)

# Sandboxes on tmpfs when there is room (every action builds its sandbox tree of links there): the
# plain step of a fresh clone took 342 s instead of 430 s on the 2-core development machine. A small
# /dev/shm (a container's default 64 MiB) keeps Bazel's default, the output base.
SANDBOX_FLAGS=()
if shm_kib=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }') && ((${shm_kib:-0} >= 4194304)); then
  SANDBOX_FLAGS=(--sandbox_base=/dev/shm)
fi

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# parse_test_summary <log>: prints "<passed> <failed>" from Bazel's per-target test summary lines.
parse_test_summary() {
  awk '
    # //pkg:target   (cached) PASSED in 0.2s  |  @repo//pkg:t   FAILED TO BUILD  |  //p:t   NO STATUS
    /^(\/\/|@)[^ \t]+[ \t]+/ {
      line = $0
      sub(/^[^ \t]+[ \t]+/, "", line)
      sub(/^\(cached\)[ \t]+/, "", line)
      if (line ~ /^(PASSED|FLAKY)/) { passed++; next }
      if (line ~ /^SKIPPED/) { next }
      if (line ~ /^(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|REMOTE FAILURE|BUILD FAILURE|TOOL HALTED)/) { failed++; next }
    }
    END { printf "%d %d\n", passed, failed }
  ' "$1"
}

# failed_targets <log>: Bazel's summary lines of the targets that did not pass.
failed_targets() {
  grep -E '^(//|@)[^ ]+ +(\(cached\) +)?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|REMOTE FAILURE|BUILD FAILURE|TOOL HALTED)' \
    "$1" | sed -E 's/ +/ /g' || true
}

# _parse_workspace <args...>: sets WS (and registers it) from an optional leading --workspace DIR.
_parse_workspace() {
  WS=$ROOT
  if [[ ${1:-} == --workspace ]]; then
    WS=$(cd "$2" && pwd)
    local w
    for w in "${WORKSPACES[@]}"; do [[ $w == "$WS" ]] && return 0; done
    WORKSPACES+=("$WS")
  fi
}

run_bazel_tests() {
  local label=$1 start log rc passed failed WS
  shift
  _parse_workspace "$@"
  [[ $WS == "$ROOT" ]] || shift 2
  log="$LOGDIR/$label.log"
  echo "=== [$label] $BAZEL test --keep_going $* (in $WS)"
  start=$(now)
  set +e
  (cd "$WS" && "$BAZEL" test --keep_going --test_summary=short ${SANDBOX_FLAGS[@]+"${SANDBOX_FLAGS[@]}"} "$@") 2>&1 |
    tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  read -r passed failed < <(parse_test_summary "$log")
  # 0: all passed; 3: some tests failed; 4: built fine but no tests.  Anything else is a build/analysis
  # failure: make sure it is counted even if no test line says so.
  if { ((rc != 0 && rc != 4)) && ((failed == 0)); }; then
    echo "=== [$label] bazel exited with $rc without a failed test in its summary: counted as 1 failed"
    failed=1
  fi
  TOTAL_PASSED=$((TOTAL_PASSED + passed))
  TOTAL_FAILED=$((TOTAL_FAILED + failed))
  STEP_LINES+=("$(printf '%-24s %4d passed, %4d failed  (bazel exit %d, %s, log %s)' \
    "$label" "$passed" "$failed" "$rc" "$(elapsed "$start")" "$log")")
  # Name what failed in the summary: CI shows only the tail of the output.
  local bad target testlog
  while IFS= read -r bad; do
    STEP_LINES+=("    $bad")
    # And the end of its log, printed before the summary.
    target=${bad%% *}
    target=${target#//}
    testlog="$WS/bazel-testlogs/${target/://}/test.log"
    [[ -f $testlog ]] && FAILED_TAILS+=("$(printf '=== [%s] %s: the last 40 lines of %s\n%s' \
      "$label" "$bad" "$testlog" "$(tail -n 40 "$testlog")")")
  done < <(failed_targets "$log")
}

# run_script <label> <command...>: a test step outside Bazel (e.g. a libFuzzer smoke run): 1 passed
# or 1 failed by its exit status.
run_script() {
  local label=$1 start log rc passed=1 failed=0
  shift
  log="$LOGDIR/$label.log"
  echo "=== [$label] $*"
  start=$(now)
  set +e
  (cd "$ROOT" && "$@") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if ((rc != 0)); then passed=0 failed=1; fi
  TOTAL_PASSED=$((TOTAL_PASSED + passed))
  TOTAL_FAILED=$((TOTAL_FAILED + failed))
  STEP_LINES+=("$(printf '%-24s %4d passed, %4d failed  (exit %d, %s, log %s)' \
    "$label" "$passed" "$failed" "$rc" "$(elapsed "$start")" "$log")")
}

# run_scripts_parallel <jobs> <label>=<command words...> ...: run_script steps, at most <jobs> at a
# time, the next one started as soon as any finishes (give the longest first), counted as
# run_script counts them. Each step's output is printed whole when it ends, not interleaved.
run_scripts_parallel() {
  local jobs=$1 spec label words running=0 finished
  local -A label_of=() start_of=()
  shift
  for spec in "$@"; do
    if ((running == jobs)); then
      _reap_script
      running=$((running - 1))
    fi
    label=${spec%%=*}
    read -r -a words <<<"${spec#*=}"
    echo "=== [$label] ${words[*]} (in the background)"
    ( cd "$ROOT" && "${words[@]}" ) >"$LOGDIR/$label.log" 2>&1 &
    label_of[$!]=$label
    start_of[$!]=$(now)
    running=$((running + 1))
  done
  while ((running > 0)); do
    _reap_script
    running=$((running - 1))
  done
}

# Waits for any one background step of run_scripts_parallel and records it (uses its label_of and
# start_of; a reaped step leaves label_of). Only those pids: a step started by start_bazel_step
# runs beside them and is waited for by finish_bazel_step.
_reap_script() {
  local pid rc=0 passed=1 failed=0 label
  wait -n -p pid "${!label_of[@]}" || rc=$?
  label=${label_of[$pid]}
  unset "label_of[$pid]"
  ((rc == 0)) || { passed=0; failed=1; }
  echo "=== [$label] finished (exit $rc):"
  cat "$LOGDIR/$label.log"
  TOTAL_PASSED=$((TOTAL_PASSED + passed))
  TOTAL_FAILED=$((TOTAL_FAILED + failed))
  STEP_LINES+=("$(printf '%-24s %4d passed, %4d failed  (exit %d, %s, log %s)' \
    "$label" "$passed" "$failed" "$rc" "$(elapsed "${start_of[$pid]}")" "$LOGDIR/$label.log")")
}

# start_bazel_step <label> --workspace DIR <bazel test args...>: run_bazel_tests in the background,
# for a workspace with a Bazel server of its own (no lock shared with the steps that go on). Its
# output is printed, and its counts added, by finish_bazel_step.
start_bazel_step() {
  local label=$1
  _parse_workspace "${@:2}"
  (
    TOTAL_PASSED=0 TOTAL_FAILED=0 STEP_LINES=() FAILED_TAILS=()
    run_bazel_tests "$@" || true
    {
      echo "BG_PASSED=$TOTAL_PASSED BG_FAILED=$TOTAL_FAILED"
      declare -p STEP_LINES FAILED_TAILS | sed -E 's/^declare -a (STEP_LINES|FAILED_TAILS)=/BG_\1=/'
    } >"$LOGDIR/$label.state"
  ) >"$LOGDIR/$label.out" 2>&1 &
  BG_PID=$!
  BG_LABEL=$label
}

finish_bazel_step() {
  local BG_PASSED=0 BG_FAILED=1 BG_STEP_LINES=() BG_FAILED_TAILS=()
  wait "$BG_PID" || true
  cat "$LOGDIR/$BG_LABEL.out"
  if [[ -s $LOGDIR/$BG_LABEL.state ]]; then
    # shellcheck disable=SC1090  # written by start_bazel_step
    source "$LOGDIR/$BG_LABEL.state"
  else
    BG_STEP_LINES=("$BG_LABEL: died before its summary: counted as 1 failed")
  fi
  TOTAL_PASSED=$((TOTAL_PASSED + BG_PASSED))
  TOTAL_FAILED=$((TOTAL_FAILED + BG_FAILED))
  STEP_LINES+=(${BG_STEP_LINES[@]+"${BG_STEP_LINES[@]}"})
  FAILED_TAILS+=(${BG_FAILED_TAILS[@]+"${BG_FAILED_TAILS[@]}"})
}

# thread_tests: the test targets (outside tests/packaging) that start a thread — those depending on
# a source of this repository that creates one (std::thread, std::async, pthread_create), directly
# or through a library or a binary they run. Prints the labels, one per line.
thread_tests() {
  local files
  files=$(cd "$ROOT" && git ls-files -- '*.cc' '*.c' '*.h' | grep -v '^third_party/' |
    xargs grep -lE 'std::(thread|jthread|async)\b|pthread_create' || true)
  [[ -n $files ]] || return 1
  (cd "$ROOT" && "$BAZEL" query --noshow_progress \
    "tests(rdeps(//... - //tests/packaging/..., set($(echo $files))))" 2>/dev/null)
}

# sanitized_tests: the test targets the sanitizer step runs: every test outside tests/packaging and
# dist/ that runs C or C++ of this repository (depends on a cc_* target, directly, through a
# binary it runs or through its data). A test of Python or shell only (the tables' fact checks,
# the documentation checks) runs the same code in every configuration: it runs once, in the plain
# step. Prints the labels, one per line.
sanitized_tests() {
  (cd "$ROOT" && "$BAZEL" query --noshow_progress \
    'let t = tests(//... - //tests/packaging/... - //dist/...) in
     rdeps($t, kind("cc_(library|binary|test)", //...)) intersect $t' 2>/dev/null)
}

shutdown_servers() {
  local w
  for w in "${WORKSPACES[@]}"; do
    (cd "$w" && "$BAZEL" shutdown) >/dev/null 2>&1 || true
  done
}

finish() {
  local line
  shutdown_servers
  for line in "${FAILED_TAILS[@]}"; do echo "$line"; done
  echo "=== summary"
  for line in "${STEP_LINES[@]}"; do echo "  $line"; done
  line="$TOTAL_PASSED passed, $TOTAL_FAILED failed"
  [[ -z ${CUDYN_CI_SUMMARY:-} ]] || echo "$line" >"$CUDYN_CI_SUMMARY"
  echo "$line"
  ((TOTAL_FAILED == 0))
}

main() {
  cd "$ROOT"
  # Stop the Bazel server(s) even if this script dies half-way (finish() does it on the normal path).
  trap 'shutdown_servers' EXIT
  run_bazel_tests tests //...
  # The Python tests (tests/python: the wheel, the extension module) run under pytest: its closing
  # line of each, from the test logs.
  local log closing
  for log in bazel-testlogs/tests/python/*/test.log; do
    closing=$(grep -E '^=+ .*( passed| failed| error).* in [0-9.]+s' "$log" 2>/dev/null | tail -1 || true)
    if [[ -n $closing ]]; then echo "=== [pytest] ${log#bazel-testlogs/}: $closing"; fi
  done
  # Sanitizers: each config has its own --platform_suffix, so they do not rebuild each other.
  # tests/packaging checks what ships (no debug paths, NEEDED only glibc/libstdc++, setuid
  # refusal, consumers linking without -fsanitize): sanitizer-instrumented copies are not that,
  # so those tests run in the plain step only.
  # --build_tests_only: what the tests do not use (benchmarks, the .deb and tarball, examples'
  # binaries) is built once, by the plain step, not instrumented three more times.
  # ASan and UBSan instrument one build (--config=asan_ubsan): every test that runs C or C++ of
  # this repository (sanitized_tests) runs under both.
  # ThreadSanitizer reports races between threads, so it runs the tests that start threads: those
  # whose code (test or code under test, found by thread_tests) creates one.
  # dist/ and the library drop-ins' shape tests (tag "shipped", stubs/dropin_linkopts.bzl) check the
  # shipped files too: plain step only, as tests/packaging.
  local sanitized
  if sanitized=$(sanitized_tests) && [[ -n $sanitized ]]; then
    # shellcheck disable=SC2086  # one label per word
    run_bazel_tests asan_ubsan --config=asan_ubsan --build_tests_only --test_tag_filters=-shipped \
      -- $sanitized
  else
    STEP_LINES+=("asan_ubsan: could not list the tests that run C/C++: counted as 1 failed")
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
  fi
  local threaded
  if threaded=$(thread_tests) && [[ -n $threaded ]]; then
    # shellcheck disable=SC2086  # one label per word
    run_bazel_tests tsan --config=tsan --build_tests_only -- $threaded
  else
    STEP_LINES+=("tsan: could not list the tests that start threads: counted as 1 failed")
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
  fi
  # libFuzzer smoke runs (clang-14, outside Bazel): 10 s of real fuzzing each, fail on any finding. Two
  # at a time: each builds and fuzzes on one core, and the machine has two. One object cache for
  # the step: env, shim and cudart compile the same loader sources (tests/fuzz/libfuzzer.sh), so
  # env (the longest: it compiles them) runs beside the readers, and shim and cudart after it.
  # The cache outlives the run (objects are keyed by the content of everything they include), so
  # the next run on this machine compiles only what changed, as Bazel's output base does.
  export FUZZ_OBJ_CACHE="${CUDYN_FUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudyn/fuzz-objects}"
  # The consumer workspace (links @cudyn//stubs:cudyn_cuda instead of -lcuda, runs on fake
  # drivers) builds beside the fuzzers, on a Bazel server of its own: its server start, loading
  # and analysis use one core.
  start_bazel_step examples --workspace examples //...
  run_scripts_parallel 2 \
    "fuzz_env=tests/fuzz/run_fuzzer.sh env 10" \
    "fuzz_elf_reader=tools/elf/run_fuzzer.sh 10" \
    "fuzz_binary_bytes=tools/layers/run_fuzzer.sh 10" \
    "fuzz_zip_reader=tools/zip/run_fuzzer.sh 10" \
    "fuzz_shim=tests/fuzz/run_fuzzer.sh shim 10" \
    "fuzz_cudart=tests/fuzz/run_fuzzer.sh cudart 10"
  finish_bazel_step
  # The library against Debian's CUDA 11.8 headers (variants those headers lack are compiled out),
  # with the real-driver tests. Last: it re-points @cuda, so everything after it would rebuild. The
  # runtime, NVRTC and cuBLAS drop-ins serve the 13.0 APIs only: their targets carry the tag
  # cuda_13_api (stubs/dropin_linkopts.bzl) and are left out here. The plain step's output tree:
  # what does not include the CUDA headers (the readers, the tables, gtest) is not compiled again;
  # what does is, over the plain step's outputs (a later local run rebuilds those).
  run_bazel_tests cuda_11_8 "--repo_env=CUDA_PATH=${CUDYN_DEPS:-/var/cache/cudyn-deps}/cuda-11.8/usr" \
    --build_tag_filters=-cuda_13_api --test_tag_filters=-cuda_13_api -- \
    //loader:cudyn //stubs/... //tools:cudyn-check //tests/real_driver/... \
    //version_tables:api_table_test //version_tables:regen_test
  finish
}

main "$@"
