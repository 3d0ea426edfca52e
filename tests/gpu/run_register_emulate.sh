#!/bin/bash
# Driver emulation and the shared runtime's own kernels (issue 23): tests/gpu/register_probe.cu
# built with nvcc (13.0) `-cudart shared` as
#   ptx90   -gencode arch=compute_90,code=compute_90    (PTX only, ISA 9.0)
#   sm100   -gencode arch=compute_100,code=sm_100       (SASS only, for another GPU)
#   sm90    -gencode arch=compute_90,code=sm_90         (SASS for this GPU)
#   both    -gencode arch=compute_90,code=[sm_90,compute_90]
# and, with relocatable device code (-rdc=true: nvcc's link stub registers the device-linked image
# through __cudaRegisterFatBinary too), ptx90_rdc, sm100_rdc, sm90_rdc,
# and run directly (the toolkit's runtime; lazy and eager module loading) and under
# `cudyn run --cudart [--max-cuda-version V [--emulate-driver]]`. Each run's answers go to
# OUT/<image>_<run>.txt, cudyn's debug log to .log. Then, for each image and emulated V,
# `cudyn-check binary <image> --target-version V --gpu <this GPU> --json` (its kernels layer's
# cuda_error, 0: it runs) must equal the emulated run's answer at the launch.
# Usage (GPU machine, repository root):
#   bash tests/gpu/run_register_emulate.sh TREE RUNTIMES OUT
#   TREE: the install tree (bin/cudyn, bin/cudyn-check, lib/cudyn); RUNTIMES: <v>/libcudart.so.*
set -u
source "$(dirname "$0")/kernel_agree.sh"
tree=$(cd "${1:?install tree}" && pwd)
runtimes=$(cd "${2:?runtimes}" && pwd)
mkdir -p "${3:?output folder}" && dest=$(cd "$3" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-register.XXXXXX")
trap 'tar czf "$dest/register_results.tgz" -C "$work" res; rm -rf "$work"' EXIT
mkdir -p "$work/res" && out=$work/res
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cudalib=$(dirname "$(dirname "$nvcc")")/lib64
declare -A gencode=(
  [ptx90]='arch=compute_90,code=compute_90'
  [sm100]='arch=compute_100,code=sm_100'
  [sm90]='arch=compute_90,code=sm_90'
  [both]='arch=compute_90,code=[sm_90,compute_90]'
)
images=(ptx90 sm100 sm90 both ptx90_rdc sm100_rdc sm90_rdc)
for i in "${images[@]}"; do
  flags=()
  [[ $i == *_rdc ]] && flags=(-rdc=true)
  "$nvcc" -std=c++17 -cudart shared "${flags[@]}" -gencode "${gencode[${i%_rdc}]}" -o "$work/$i" \
    tests/gpu/register_probe.cu || exit 2
done
gpu=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$out/gpu.log"
paths="$runtimes/12.5:$runtimes/11.8"
# one IMAGE NAME COMMAND...: runs it in both orders.
one() {
  local i=$1 name=$2
  shift 2
  for order in launch attr; do
    "$@" "$work/$i" "$order" >"$out/${i}_${name}_$order.txt" 2>"$out/${i}_${name}_$order.log"
    echo "rc=$?" >>"$out/${i}_${name}_$order.txt"
  done
}
for i in "${images[@]}"; do
  one "$i" direct env LD_LIBRARY_PATH="$cudalib"
  one "$i" direct_eager env LD_LIBRARY_PATH="$cudalib" CUDA_MODULE_LOADING=EAGER
  one "$i" cudyn env LD_LIBRARY_PATH="$cudalib" CUDYN_LOG=debug "$tree/bin/cudyn" run --cudart --
  for v in 12.2 11.8; do
    one "$i" "plain_$v" env LD_LIBRARY_PATH="$paths" CUDYN_LOG=debug \
      "$tree/bin/cudyn" run --cudart --max-cuda-version "$v" --
    one "$i" "emulate_$v" env LD_LIBRARY_PATH="$paths" CUDYN_LOG=debug \
      "$tree/bin/cudyn" run --cudart --max-cuda-version "$v" --emulate-driver --
  done
  one "$i" emulate_12.2_eager env LD_LIBRARY_PATH="$paths" CUDYN_LOG=debug CUDA_MODULE_LOADING=EAGER \
    "$tree/bin/cudyn" run --cudart --max-cuda-version 12.2 --emulate-driver --
done
failed=0
printf '%-22s %-8s %-10s %-10s %s\n' image version predicted observed agree | tee "$out/table.txt"
for i in "${images[@]}"; do
  for v in 12.2 11.8; do
    observed=$(sed -n 's/^cudaLaunchKernel=\([0-9]*\)$/\1/p' "$out/${i}_emulate_${v}_launch.txt")
    agree "$tree/bin/cudyn-check" "$work/$i" "$v" "$gpu" "$i" "$observed" "$out/table.txt" ||
      failed=1
  done
done
# One line per run: runtime/driver version, the answers in the order the probe printed them
# (register_probe.cu), the kernel's output, how many of cudyn's log lines came from emulation.
for f in "$out"/*_launch.txt "$out"/*_attr.txt; do
  printf '%-30s %s emu-log=%s\n' "$(basename "$f" .txt)" \
    "$(sed 's/^runtime=\([0-9]*\) driver=/\1\//; s/^[^=/]*=//; s/ out=/:/' "$f" | tr '\n' ' ')" \
    "$(grep -c 'driver emulation' "${f%.txt}.log")"
done
exit $failed
