#!/usr/bin/env bash
# instructions.sh — instruction counts (callgrind: repeatable on a noisy machine) next to wall
# ratios, against linking libcuda.so.1 directly, in the two compilation modes users build with.
#
#   bench/instructions.sh [--driver /abs/libcuda.so.1] [--runs N]
#
# 1. Per call: bench/count_calls.c built per way (direct -lcuda, static drop-in, shared drop-in,
#    embedding) in -c fastbuild and -c opt; instructions per cuCtxGetCurrent call =
#    (I(n2) - I(n1)) / (n2 - n1), so start-up and binding cancel out. Extra = way - direct.
# 2. Start-up: bench/first_call.c (exec, one cuDriverGetVersion, exit), linked directly vs with
#    libcudyn_cuda.so finding the driver by the default search: callgrind totals and the median
#    wall time of N interleaved runs of each, as ratios.
# Default driver: the real 535 from the deps cache (third_party/fetch_deps.sh).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
driver=${CUDYN_DEPS:-/var/cache/cudyn-deps}/drivers/535/libcuda.so.1
runs=200
while (($#)); do
  case $1 in
    --driver) driver=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "instructions.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $driver == /* && -e $driver ]] || { echo "instructions.sh: no driver at '$driver'" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
driver_dir=$(dirname "$driver")
targets=(//bench:count_direct //bench:count_stub_static //bench:count_stub_shared //bench:count_embed
         //bench:first_call_direct //bench:first_call_shared)

# callgrind's total instruction count of one run: env... program args...
count() {
  local out
  out=$(env "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' || true)
  [[ -n $out ]] || { echo "instructions.sh: callgrind gave no count for: $*" >&2; exit 1; }
  echo "$out"
}
callgrind=(valgrind --tool=callgrind --callgrind-out-file=/dev/null)

echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; $(valgrind --version)"
echo "Driver: $driver ($(basename "$(readlink -f "$driver")"))"
echo
echo "| mode | way | instructions per call | extra vs direct |"
echo "|---|---|---|---|"
n1=1000 n2=101000
for mode in fastbuild opt; do
  (cd "$repo" && bazel build -c "$mode" --symlink_prefix=/ "${targets[@]}" >/dev/null 2>&1) ||
    { echo "instructions.sh: bazel build -c $mode failed" >&2; exit 1; }
  bin=$(cd "$repo" && bazel info -c "$mode" bazel-bin 2>/dev/null)/bench
  shim_dir=$(dirname "$(readlink -f "$bin/../stubs/libcudyn_cuda.so")")
  direct_per_call=""
  for way in direct stub_static stub_shared embed; do
    prog=$bin/count_$way
    if [[ $way == direct ]]; then
      envs=(LD_LIBRARY_PATH="$driver_dir")
    else
      envs=(LD_LIBRARY_PATH="$shim_dir" CUDYN_DRIVER_PATH="$driver")
    fi
    a=$(count "${envs[@]}" "${callgrind[@]}" "$prog" $n1)
    b=$(count "${envs[@]}" "${callgrind[@]}" "$prog" $n2)
    per_call=$(awk -v a="$a" -v b="$b" -v n=$((n2 - n1)) 'BEGIN { printf "%.2f", (b - a) / n }')
    [[ -n $direct_per_call ]] || direct_per_call=$per_call
    extra=$(awk -v x="$per_call" -v d="$direct_per_call" 'BEGIN { printf "%+.2f", x - d }')
    echo "| $mode | $way | $per_call | $extra |"
  done
  if [[ $mode == opt ]]; then
    first_direct=$bin/first_call_direct first_shared=$bin/first_call_shared
    opt_shim_dir=$shim_dir
  fi
done

echo
echo "Start-up (-c opt): exec + one cuDriverGetVersion + exit"
echo
direct_env=(LD_LIBRARY_PATH="$driver_dir")
shared_env=(LD_LIBRARY_PATH="$opt_shim_dir:$driver_dir")
i_direct=$(count "${direct_env[@]}" "${callgrind[@]}" "$first_direct")
i_shared=$(count "${shared_env[@]}" "${callgrind[@]}" "$first_shared")
python3 - "$runs" "$i_direct" "$i_shared" "$first_direct" "$first_shared" "$driver_dir" "$opt_shim_dir" <<'PY'
import os, statistics, subprocess, sys, time
runs, i_direct, i_shared = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
first_direct, first_shared, driver_dir, shim_dir = sys.argv[4:8]
env_direct = dict(os.environ, LD_LIBRARY_PATH=driver_dir)
env_shared = dict(os.environ, LD_LIBRARY_PATH=shim_dir + ":" + driver_dir)
env_direct.pop("CUDYN_DRIVER_PATH", None)
env_shared.pop("CUDYN_DRIVER_PATH", None)
times = {"direct": [], "shared": []}
for _ in range(runs):  # interleaved, so drift hits both alike
    for name, prog, env in (("direct", first_direct, env_direct), ("shared", first_shared, env_shared)):
        t = time.perf_counter()
        rc = subprocess.run([prog], env=env).returncode
        times[name].append(time.perf_counter() - t)
        if rc != 0:
            sys.exit("%s exited with %d" % (prog, rc))
md, ms = statistics.median(times["direct"]), statistics.median(times["shared"])
print("| measure | direct -lcuda | libcudyn_cuda.so | ratio |")
print("|---|---|---|---|")
print("| instructions (callgrind) | %d | %d | %.3fx |" % (i_direct, i_shared, i_shared / i_direct))
print("| wall, median of %d runs | %.3f ms | %.3f ms | %.3fx |" % (runs, md * 1e3, ms * 1e3, ms / md))
PY
