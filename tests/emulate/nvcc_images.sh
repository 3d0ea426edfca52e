#!/usr/bin/env bash
# Builds the device-code images of //tests/emulate with the real 13.0 nvcc:
#   nvcc_images.sh KERNEL_CU OUTDIR
# nvcc: $CUDA_PATH/bin/nvcc, else /usr/local/cuda-13.0/bin/nvcc. Fails (never skips) without it.
set -euo pipefail
cu="$(realpath "$1")"
out="$(realpath -m "$2")"
nvcc="${CUDA_PATH:-/usr/local/cuda-13.0}/bin/nvcc"
[[ -x "$nvcc" ]] || { echo "nvcc_images: no nvcc at $nvcc (set CUDA_PATH)" >&2; exit 1; }
mkdir -p "$out"
export TMPDIR="$out/tmp"
mkdir -p "$TMPDIR"
"$nvcc" -fatbin -gencode arch=compute_90,code=sm_90 -o "$out/sm90.fatbin" "$cu"
"$nvcc" -fatbin -gencode arch=compute_80,code=compute_80 -o "$out/ptx80.fatbin" "$cu"
"$nvcc" -fatbin -gencode arch=compute_100,code=sm_100 -o "$out/sm100.fatbin" "$cu"
"$nvcc" -fatbin -gencode 'arch=compute_90,code=[sm_90,compute_90]' -o "$out/both.fatbin" "$cu"
"$nvcc" -ptx -arch=compute_80 -o "$out/ptx80.ptx" "$cu"
"$nvcc" -cubin -arch=sm_90 -o "$out/sm90.cubin" "$cu"
"$nvcc" -cubin -arch=sm_100 -o "$out/sm100.cubin" "$cu"
rm -rf "$TMPDIR"
