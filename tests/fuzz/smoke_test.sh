#!/usr/bin/env bash
# Runs a fuzz target's smoke binary (fuzz_smoke_main.cc) over its seeds.
#   smoke_test.sh SMOKE_BINARY DRIVER|- [--fake_cudart=PATH]... [--mutations=N] SEED...
# DRIVER: the fake driver CUDYN_DRIVER_PATH names for the run ("-": none); each --fake_cudart a
# fake runtime for the cudart target's adapter mode (CUDYN_FUZZ_CUDART_FAKES, ':'-separated). The loader's log
# output (the env target logs every rejected value) goes to a file, shown on failure.
set -euo pipefail
smoke="$1"
driver="$2"
shift 2
log="${TEST_TMPDIR:-/tmp}/smoke.stderr"
env_args=(CUDYN_LOG=off)
if [[ "$driver" != - ]]; then
  env_args+=(CUDYN_DRIVER_PATH="$(readlink -f "$driver")")
fi
fakes=()
while [[ ${1:-} == --fake_cudart=* ]]; do
  fakes+=("$(readlink -f "${1#--fake_cudart=}")")
  shift
done
if ((${#fakes[@]})); then
  env_args+=(CUDYN_FUZZ_CUDART_FAKES="$(IFS=:; echo "${fakes[*]}")")
fi
rc=0
env "${env_args[@]}" "$smoke" "$@" 2>"$log" || rc=$?
if ((rc != 0)); then
  echo "FAIL: $smoke exited with $rc; last stderr lines:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
if [[ ${1:-} == --mutations=* ]]; then
  echo "PASS: $(($# - 1)) seeds, each with ${1#--mutations=} mutations"
else
  echo "PASS: $# seeds, each with 2000 mutations"
fi
