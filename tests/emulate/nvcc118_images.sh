#!/usr/bin/env bash
# Builds the device-code images of //tests/emulate with Debian's CUDA 11.8 nvcc (nvidia-cuda-toolkit
# 11.8.89, extracted into the deps cache by third_party/fetch_deps.sh; @nvcc_11_8 in WORKSPACE):
#   nvcc118_images.sh NVCC CUDA_INCLUDE_DIR KERNEL_CU OUTDIR
# CUDA_INCLUDE_DIR: the 11.8 headers (@cuda_11_8). nvcc 11.8 runs the host preprocessor even for
# -ptx/-cubin/-fatbin and refuses gcc 12 (crt/host_config.h): clang++-14 is the host compiler.
# Fails (never skips) when a tool is missing.
set -euo pipefail
nvcc="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
inc="$(cd "$2" && pwd)"
cu="$(realpath "$3")"
out="$(realpath -m "$4")"
[[ -x "$nvcc" ]] || { echo "nvcc118_images: no nvcc at $nvcc (run third_party/fetch_deps.sh)" >&2; exit 1; }
command -v clang++-14 >/dev/null || { echo "nvcc118_images: no clang++-14 (a build dependency)" >&2; exit 1; }
mkdir -p "$out"
export TMPDIR="$out/tmp"
mkdir -p "$TMPDIR"
n=("$nvcc" -ccbin clang++-14 -I"$inc")
"${n[@]}" -fatbin -gencode arch=compute_80,code=sm_80 -o "$out/sm80.fatbin" "$cu"
"${n[@]}" -fatbin -gencode arch=compute_86,code=sm_86 -o "$out/sm86.fatbin" "$cu"
"${n[@]}" -fatbin -gencode arch=compute_90,code=sm_90 -o "$out/sm90.fatbin" "$cu"
"${n[@]}" -fatbin -gencode arch=compute_80,code=compute_80 -o "$out/ptx80.fatbin" "$cu"
"${n[@]}" -fatbin -gencode 'arch=compute_80,code=[sm_80,compute_80]' -o "$out/both.fatbin" "$cu"
"${n[@]}" -ptx -arch=compute_80 -o "$out/ptx80.ptx" "$cu"
"${n[@]}" -cubin -arch=sm_80 -o "$out/sm80.cubin" "$cu"
"${n[@]}" -cubin -arch=sm_90 -o "$out/sm90.cubin" "$cu"
# The same sm_80 SASS + compute_80 PTX in an object with the runtime registration nvcc writes
# (.nv_fatbin, .nvFatBinSegment): an ELF file for `cudyn-check binary`.
"${n[@]}" -c -gencode 'arch=compute_80,code=[sm_80,compute_80]' -o "$out/both.o" "$cu"
rm -rf "$TMPDIR"
