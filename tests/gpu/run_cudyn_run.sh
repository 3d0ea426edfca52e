#!/bin/bash
# `cudyn run` on the GPU machine: unmodified programs with cudyn as their libcuda.so.1.
#
#   tests/gpu/run_cudyn_run.sh CARRY_DIR OUT_DIR
#
# CARRY_DIR holds cudyn-<version>-linux-x86_64.tar.gz (tests/gpu/stage.sh). On the GPU machine
# (nvcc, python3; no Bazel) this unpacks the tree, builds with the machine's nvcc
#   app_driver  tests/packaging/plain_lcuda.c linked with plain -lcuda (driver API only)
#   app_kernel  tests/gpu/cudyn_run_kernel.cu, nvcc defaults (static CUDA runtime) + -lcuda
# and runs them and tests/gpu/cudyn_run_python.py (PyTorch or CuPy) three ways: without cudyn,
# `cudyn run --`, and `cudyn run --max-cuda-version 12.2 --`. Logs: OUT_DIR/cudyn_run/*.log.
# Exit 0 when every expectation below holds; each is stated where it is checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
carry=$(cd "$1" && pwd) || exit 2
mkdir -p "$2/cudyn_run" && out=$(cd "$2/cudyn_run" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir -p "$work/prefix"
tar -C "$work/prefix" --strip-components=1 -xzf "$carry"/cudyn-*-linux-x86_64.tar.gz || exit 2
cudyn=$work/prefix/bin/cudyn
"$cudyn" --version
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$nvcc" -o "$work/app_driver" "$repo/tests/packaging/plain_lcuda.c" -lcuda -ldl || exit 2
"$nvcc" -o "$work/app_kernel" "$here/cudyn_run_kernel.cu" -lcuda || exit 2

# run NAME MODE CMD... -> OUT/NAME__MODE.log and .rc; MODE: plain | cudyn | cudyn12020
run() {
  local name=$1 mode=$2
  shift 2
  local pre=()
  case $mode in
    cudyn) pre=("$cudyn" run --) ;;
    cudyn12020) pre=("$cudyn" run --max-cuda-version 12.2 --) ;;
  esac
  local start=$(date +%s%N)
  CUDYN_LOG=info timeout -k 5 300 "${pre[@]}" "$@" >"$out/${name}__${mode}.log" 2>&1
  local rc=$?
  echo "$rc" >"$out/${name}__${mode}.rc"
  printf '%-8s %-11s exit %-3s %6sms  %s\n' "$name" "$mode" "$rc" \
    "$(( ($(date +%s%N) - start) / 1000000 ))" "$(grep -m1 '^result:' "$out/${name}__${mode}.log")"
  return 0
}
# expect NAME MODE STATUS PATTERN...: the run's exit status and lines its log must contain.
expect() {
  local name=$1 mode=$2 want=$3 log="$out/$1__$2.log" pattern
  shift 3
  [[ $(cat "$out/${name}__${mode}.rc") == "$want" ]] ||
    fail "$name $mode: exit $(cat "$out/${name}__${mode}.rc"), expected $want"
  for pattern in "$@"; do
    grep -qE -- "$pattern" "$log" || fail "$name $mode: no /$pattern/ in its log"
  done
}

for mode in plain cudyn cudyn12020; do
  run driver "$mode" "$work/app_driver"
  run kernel "$mode" "$work/app_kernel"
  run python "$mode" python3 "$here/cudyn_run_python.py"
done

native=$(sed -n 's/.*version=\([0-9]*\).*/\1/p' "$out/driver__plain.log" | head -n 1)
# Without cudyn: the real driver; cudyn's C API is absent.
expect driver plain 0 "cuDriverGetVersion: rc=0 version=$native" "cudyn: absent"
# Under cudyn run: the same version through cudyn, which found the real driver (not itself).
expect driver cudyn 0 "cuDriverGetVersion: rc=0 version=$native" "cudyn: present; driver=/"
grep -q "driver=.*/lib/cudyn/" "$out/driver__cudyn.log" && fail "driver cudyn: cudyn named itself as the driver"
# Clamped to 12.2: cuDriverGetVersion says 12020; cuMemAdvise_v2 (12.2) still served natively.
expect driver cudyn12020 0 "cuDriverGetVersion: rc=0 version=12020" "cuMemAdvise_v2=native"
# The kernel program runs natively and under cudyn; clamped to 12.2 its 13.x static runtime must
# refuse the driver (35 cudaErrorInsufficientDriver), exactly as on a real 12.2 driver.
expect kernel plain 0 "^result: ok"
expect kernel cudyn 0 "^result: ok" "cuDriverGetVersion: rc=0 version=$native"
if grep -q "cudaDriverGetVersion: rc=0 version=1[3-9]" "$out/kernel__plain.log"; then
  expect kernel cudyn12020 1 "cuDriverGetVersion: rc=0 version=12020" "cudaErrorInsufficientDriver"
fi
# Python: whatever the package computes natively it computes under cudyn, with cudyn's drop-in and
# the real driver file behind it both mapped (maps name the drop-in by its real file, libcudyn_cuda.so.*). Clamped, the package's own runtime decides (logged).
if [[ $(cat "$out/python__plain.rc") == 0 ]]; then
  expect python cudyn 0 "^result: ok" "mapped: .*libcudyn_cuda.so" "mapped: .*libcuda.so.[0-9]{3}"
else
  fail "python plain: exit $(cat "$out/python__plain.rc") (no usable CUDA package?)"
fi
echo "run_cudyn_run.sh: $failures failure(s)"
((failures == 0))
