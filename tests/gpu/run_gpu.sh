#!/bin/bash
# Runs the cudyn examples and cudyn-check on a GPU machine and collects the outputs.
#
#   tests/gpu/run_gpu.sh CARRY_DIR OUT_DIR
#
# CARRY_DIR holds what tests/gpu/stage.sh built on a machine with Bazel: the example binaries
# (vector_add managed_memory graph context events vmm), shim_client, libcudyn_cuda.so and
# cudyn-check. Needs only bash, coreutils and python3 (standard library) - no Bazel, no network,
# no nvcc. Every example runs natively and with CUDYN_MAX_CUDA_VERSION=12020, 11040 and 10010;
# `cudyn-check report` and `cudyn-check apis --json` run natively and at each clamp, and
# tests/gpu/check_apis.py checks every apis answer. tests/gpu/summarize.py then compares the runs
# (exit codes, parts that ran, checksums identical across runs) and writes OUT_DIR/summary.md and
# OUT_DIR/summary.json. Exit 0 only when everything passed.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 CARRY_DIR OUT_DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
carry=$(cd "$1" && pwd) || { echo "run_gpu.sh: no such directory: $1" >&2; exit 2; }
mkdir -p "$2" && out=$(cd "$2" && pwd)
mkdir -p "$out/runs" "$out/check"

EXAMPLES="vector_add managed_memory graph context events vmm shim_client"
MODES="native 12020 11040 10010"
PER_RUN_TIMEOUT=${PER_RUN_TIMEOUT:-120}

# Work on executable copies (a carried tree may lose the x bit or be read-only).
bin=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-gpu.XXXXXX")
trap 'rm -rf "$bin"' EXIT
missing=0
for f in $EXAMPLES libcudyn_cuda.so cudyn-check; do
  if [ -f "$carry/$f" ]; then
    cp "$carry/$f" "$bin/$f" && chmod 755 "$bin/$f"
  else
    echo "run_gpu.sh: missing $carry/$f (run tests/gpu/stage.sh on the build machine)" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 2

# --- the machine ------------------------------------------------------------------------------------
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "nvidia_smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4 | tr '\n' ';')"
  else
    echo "nvidia_smi: (not installed)"
  fi
  echo "kernel_module: $(head -n 1 /proc/driver/nvidia/version 2>/dev/null || echo '(no /proc/driver/nvidia/version)')"
  echo "carry_sha256:"
  (cd "$bin" && sha256sum $EXAMPLES libcudyn_cuda.so cudyn-check 2>/dev/null | sed 's/^/  /')
} >"$out/environment.txt" 2>&1
cat "$out/environment.txt"

# run NAME MODE CMD...   -> runs/NAME__MODE.log (stdout+stderr), runs/NAME__MODE.rc
run() {
  local name=$1 mode=$2
  shift 2
  local log="$out/runs/${name}__${mode}.log"
  local start end rc
  start=$(date +%s%N)
  if [ "$mode" = native ]; then
    env -u CUDYN_MAX_CUDA_VERSION timeout -k 5 "$PER_RUN_TIMEOUT" "$@" >"$log" 2>&1
  else
    env CUDYN_MAX_CUDA_VERSION="$mode" timeout -k 5 "$PER_RUN_TIMEOUT" "$@" >"$log" 2>&1
  fi
  rc=$?
  end=$(date +%s%N)
  echo "$rc" >"$out/runs/${name}__${mode}.rc"
  echo "$(( (end - start) / 1000000 ))" >"$out/runs/${name}__${mode}.ms"
  printf '%-16s %-7s exit %-3s %6sms  %s\n' "$name" "$mode" "$rc" "$(( (end - start) / 1000000 ))" \
    "$(grep -m1 '^result:' "$log" || tail -n 1 "$log")"
}

# --- the examples -----------------------------------------------------------------------------------
export CUDYN_LOG=${CUDYN_LOG:-info}   # cudyn's one-line driver/strategy log goes into each run's log
for mode in $MODES; do
  for name in $EXAMPLES; do
    if [ "$name" = shim_client ]; then
      run "$name" "$mode" "$bin/shim_client" "$bin/libcudyn_cuda.so"
    else
      run "$name" "$mode" "$bin/$name"
    fi
  done
done
unset CUDYN_LOG

# --- probes stay silent -----------------------------------------------------------------------------
# Every table symbol probed through the shim's cuGetProcAddress(_v2) at 13000, at the default log
# level: stderr must stay empty, natively and clamped (where most answers are "not found").
if [ -f "$carry/probe_silence" ]; then
  cp "$carry/probe_silence" "$bin/probe_silence" && chmod 755 "$bin/probe_silence"
  for mode in $MODES; do
    run probe_silence "$mode" sh -c '"$1" "$2" 2>"$3"; rc=$?; cat "$3";
      if [ -s "$3" ]; then echo "result: FAIL stderr not empty"; exit 1; fi;
      echo "result: ok silent"; exit $rc' _ "$bin/probe_silence" "$bin/libcudyn_cuda.so" \
      "$out/runs/probe_silence__${mode}.stderr"
  done
fi

# --- cudyn-check ------------------------------------------------------------------------------------
check_cmd() {  # check_cmd FILE CMD...   (stdout to FILE, stderr to FILE.stderr, exit code to FILE.rc)
  local file=$1
  shift
  timeout -k 5 "$PER_RUN_TIMEOUT" "$@" >"$out/check/$file" 2>"$out/check/$file.stderr"
  echo $? >"$out/check/$file.rc"
  echo "cudyn-check: $file exit $(cat "$out/check/$file.rc")"
}
for mode in $MODES; do
  if [ "$mode" = native ]; then clamp=(); else clamp=(--max-cuda-version "$mode"); fi
  check_cmd "report__${mode}.txt" "$bin/cudyn-check" report "${clamp[@]}"
  check_cmd "report__${mode}.json" "$bin/cudyn-check" report --json "${clamp[@]}"
  check_cmd "apis__${mode}.json" "$bin/cudyn-check" apis --json "${clamp[@]}"
  check_cmd "apis__${mode}.txt" "$bin/cudyn-check" apis --status adapter "${clamp[@]}"
done
check_cmd "drivers.txt" "$bin/cudyn-check" drivers
check_cmd "binary.json" "$bin/cudyn-check" binary --json "$bin/vector_add" "$bin/managed_memory" \
  "$bin/graph" "$bin/context" "$bin/events" "$bin/vmm"

for mode in $MODES; do
  if [ "$mode" = native ]; then expect=(); else expect=(--expect-version "$mode"); fi
  python3 "$here/check_apis.py" "$out/check/apis__${mode}.json" "${expect[@]}" \
    --summary "$out/check/apis__${mode}.check.json" >"$out/check/apis__${mode}.check.txt" 2>&1
  echo $? >"$out/check/apis__${mode}.check.rc"
  cat "$out/check/apis__${mode}.check.txt" | cut -c1-400
done

# --- compare and summarize --------------------------------------------------------------------------
python3 "$here/summarize.py" "$out" --examples $EXAMPLES --modes $MODES
rc=$?
echo "run_gpu.sh: summary in $out/summary.md (exit $rc)"
exit $rc
