#!/bin/bash
# Under a clamp, a real CUDA runtime must see one consistent driver (stubs/shim.cc): with cudyn's
# drop-in as the process's libcuda.so.1 (loaded first, as -lcuda loads it), the runtime's own
# cudaDriverGetVersion is the real driver's version while the program's cuDriverGetVersion is the
# clamp; through cudyn's runtime drop-in the program's cudaDriverGetVersion is the clamp again.
# Before this rule the real runtime saw the clamped driver, and on a GPU its first call answered
# 103 (cudaErrorSoftwareValidityNotEstablished).
#
# The same holds for a runtime compiled into a library (cuBLAS, cuFFT, ...: recognised by the
# runtime's versioned entry-point table), and a runtime the clamped version cannot run (a 12.5
# runtime under 11.8, a 13.0 one under 12.x) sees the clamp and fails as on such a driver:
# a real driver of version D runs a runtime R when D >= R's major x 1000 (R >= 11.0), D >= R before.
#
# Args: PROBE DRIVER_DROPIN CUDART_DROPIN EMBEDDED_LIBS CUBLAS_12_5 then cases
# DRIVER_LIB:DRIVER_VERSION:CLAMP:RUNTIME_LIB (CLAMP "none": unclamped). EMBEDDED_LIBS:
# comma-separated libembedded_runtime_<version>.so.
set -euo pipefail
probe=$1 dropin=$2 cudart_dropin=$3 embedded=$4 cublas=$5 fake_driver=$6 gpu_arch=$7 ptx_isa=$8
shift 8
IFS=, read -r -a embedded_libs <<<"$embedded"

# What a runtime of version $1 sees from a driver $2 clamped to $3 ("none"): the real version
# when a real driver of the clamped version runs it, else the clamp.
runtime_sees() {
  local runtime=$1 real=$2 clamp=$3 needs
  [[ $clamp == none ]] && { echo "$real"; return; }
  needs=$runtime
  ((runtime >= 11000)) && needs=$((runtime / 1000 * 1000))
  if ((needs <= clamp)); then echo "$real"; else echo "$clamp"; fi
}

tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/clamp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ln -s "$(readlink -f "$dropin")" "$tmp/libcuda.so.1"

source "$(dirname "$0")/expect_key.sh"

for spec in "$@"; do
  IFS=: read -r driver real clamp runtime <<<"$spec"
  driver=$(readlink -f "$driver")
  runtime=$(readlink -f "$runtime")
  seen=$clamp
  [[ $clamp == none ]] && seen=$real
  env_clamp=()
  [[ $clamp == none ]] || env_clamp=(CUDYN_MAX_CUDA_VERSION="$clamp")
  name="driver $real, clamp $clamp, runtime ${runtime##*/cuda_runtimes/}"

  # The runtime's version from its runfiles directory (cuda_runtimes/<major.minor>/).
  rt_dir=${runtime%/*}
  rt_version=${rt_dir##*/}
  rt_version=$((${rt_version%.*} * 1000 + ${rt_version#*.} * 10))

  out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$driver" "${env_clamp[@]}" \
    "$probe" "$runtime" "${embedded_libs[@]}" 2>&1) ||
    { echo "FAIL [$name]: probe exited $?: $out"; fail=1; continue; }
  expect "$out" dropin_mapped 1 "$name"
  expect "$out" program_driver "$seen" "$name"
  expect "$out" runtime_driver "$(runtime_sees "$rt_version" "$real" "$clamp")" \
    "$name: the real runtime sees the real driver where the clamped version runs it"
  expect "$out" libcuda_files 1 "$name: one real driver in the process"
  if [[ $(runtime_sees "$rt_version" "$real" "$clamp") != "$real" ]]; then
    # What a real driver too old for the runtime answers: cudaErrorInsufficientDriver.
    expect "$out" device_count_rc 35 "$name: the runtime fails as on a driver that old"
  fi
  for lib in "${embedded_libs[@]}"; do
    v=${lib##*libembedded_runtime_}
    v=${v%.so}
    got=$(sed -n "s|^embedded_driver=\([0-9-]*\) .*libembedded_runtime_$v.so$|\1|p" <<<"$out")
    want=$(runtime_sees "$v" "$real" "$clamp")
    if [[ $got != "$want" ]]; then
      echo "FAIL [$name]: a library carrying runtime $v sees $got, expected $want"
      fail=1
    else
      echo "ok   [$name]: a library carrying runtime $v sees $got"
    fi
  done

  out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$driver" CUDYN_CUDART_PATH="$runtime" \
    "${env_clamp[@]}" "$probe" "$(readlink -f "$cudart_dropin")" 2>&1) ||
    { echo "FAIL [$name, cudyn's runtime]: probe exited $?: $out"; fail=1; continue; }
  expect "$out" runtime_driver "$seen" "$name, through cudyn's runtime: the program sees the clamp"
  expect "$out" libcuda_files 1 "$name, through cudyn's runtime: one real driver"
done

# The real cuBLAS 12.5 (its runtime: 12.3) on the real 535 under a 12.0 clamp: its runtime's calls
# reach the drop-in from inside libcublas, which the drop-in recognises (debug log) and answers
# with the real driver. No GPU here: cublasCreate answers an error either way.
driver535=$(readlink -f "${1%%:*}")
out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$driver535" CUDYN_MAX_CUDA_VERSION=12000 \
  CUDYN_LOG=debug "$probe" --cublas "$(readlink -f "$cublas")" 2>&1) ||
  { echo "FAIL [cuBLAS 12.5]: probe exited $?: $out"; fail=1; }
if grep -q "CUDA runtime 12030 in .*libcublas.so.12 " <<<"$out"; then
  echo "ok   [cuBLAS 12.5]: its compiled-in runtime 12030 recognised"
else
  echo "FAIL [cuBLAS 12.5]: no 'CUDA runtime 12030 in ...libcublas.so.12' in: $out"
  fail=1
fi
# Driver emulation offers the GPU as the emulated version would, to a runtime served the real
# driver too: the stand-in with an 11.8 runtime (one an 11.4 driver runs) asks cuGetProcAddress for
# cuInit from inside itself, on the fake 13.0 driver with a fake sm_90 GPU. The oldest driver that
# knows sm_90: gpu_arch.tsv's PTX ISA for it, then ptx_isa.tsv's CUDA release of that ISA.
isa=$(awk -F'\t' '$1 == "sm_90" {print $2}' "$gpu_arch")
sm90_cuda=$(awk -F'\t' -v isa="$isa" '$1 == isa {print $2}' "$ptx_isa")
sm90_driver=$((${sm90_cuda%.*} * 1000 + ${sm90_cuda#*.} * 10))
stand_in=""
for lib in "${embedded_libs[@]}"; do [[ $lib == *libembedded_runtime_11080.so ]] && stand_in=$lib; done
[[ -n $stand_in && $sm90_driver -gt 11000 ]] ||
  { echo "FAIL [emulation]: no 11.8 stand-in or no sm_90 row ($sm90_driver)"; fail=1; }
for clamp_mode in "11040 emulate" "$sm90_driver emulate" "11040 versions"; do
  read -r clamp mode <<<"$clamp_mode"
  want=0  # CUDA_SUCCESS: the GPU is offered
  [[ $mode == emulate ]] && ((clamp < sm90_driver)) && want=100  # CUDA_ERROR_NO_DEVICE
  name="fake 13.0 driver, sm_90, clamp $clamp $mode, runtime 11.8 inside a library"
  out=$(env LD_LIBRARY_PATH="$tmp" CUDYN_DRIVER_PATH="$(readlink -f "$fake_driver")" \
    CUDYN_FAKE_GPU=90 CUDYN_MAX_CUDA_VERSION="$clamp" CUDYN_CLAMP_MODE="$mode" \
    "$probe" --init "$(readlink -f "$stand_in")" 2>&1) ||
    { echo "FAIL [$name]: probe exited $?: $out"; fail=1; continue; }
  expect "$out" init_rc "$want" "$name: the runtime's cuInit"
  expect "$out" program_init_rc "$want" "$name: the program's cuInit"
done
exit $fail
