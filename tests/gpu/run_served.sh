#!/bin/bash
# Runtime entries older runtimes lack, on a GPU: tests/gpu/served_probe.cu (nvcc 13, -cudart shared)
# directly on the real 13.0 runtime, and through `cudyn run --runtime` on every real runtime of the
# carry folder of tests/gpu/stage_cudart.sh, unclamped and under a 12.2 clamp. Builds the probe with
# the machine's nvcc into OUT.
# Usage (GPU machine, repository root): bash tests/gpu/run_served.sh CARRY OUT
set -u
C=${1:?carry folder}
O=${2:?output folder}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$O"
"$nvcc" -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart shared -o "$O/served_probe" \
  tests/gpu/served_probe.cu -lcuda || exit 1
cudyn=$C/tree/bin/cudyn
failed=0
run() { # run <label> <command...>
  local label=$1
  shift
  echo "=== $label"
  "$@" >"$O/$label.txt" 2>"$O/$label.err"
  local rc=$?
  cat "$O/$label.txt"
  [[ $rc == 0 ]] || { echo "FAILED: $label (exit $rc)"; tail -5 "$O/$label.err"; failed=1; }
}
run direct_13.0 env LD_LIBRARY_PATH="$C/runtimes/13.0" "$O/served_probe"
for rt in 13.0 12.5 12.4 11.8 11.2; do
  run "cudyn_$rt" "$cudyn" run --runtime "$(ls "$C"/runtimes/$rt/libcudart.so.*)" -- "$O/served_probe"
done
for rt in 12.4 11.8; do
  run "cudyn_${rt}_clamp_12.2" "$cudyn" run --runtime "$(ls "$C"/runtimes/$rt/libcudart.so.*)" \
    --max-cuda-version 12.2 -- "$O/served_probe"
done
# One table: entry -> answer per run.
python3 - "$O" <<'PY'
import glob, os, sys
runs = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.txt"))):
    rows = {}
    for line in open(f):
        if "=" in line:
            k, v = line.rstrip("\n").split("=", 1)
            rows[k] = v
    runs[os.path.basename(f)[:-4]] = rows
names = ["direct_13.0"] + [r for r in runs if r != "direct_13.0"]
keys = []
for r in names:
    for k in runs.get(r, {}):
        if k not in keys:
            keys.append(k)
print("\n| entry | " + " | ".join(names) + " |")
print("|---" * (len(names) + 1) + "|")
for k in keys:
    print("| %s | %s |" % (k, " | ".join(runs.get(r, {}).get(k, "-") for r in names)))
PY
exit $failed
