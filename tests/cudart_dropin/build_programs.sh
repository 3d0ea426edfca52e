#!/usr/bin/env bash
# Builds the runtime drop-in's test programs with the real nvcc 13 (`-cudart none`), linked with
# cudyn's libcudyn_cudart.so instead of libcudart:
#   build_programs.sh LIBCUDYN_CUDART_SO OUTDIR SOURCE.cu...
# Each program finds the drop-in next to itself (RUNPATH $ORIGIN), so a directory with the
# program and libcudyn_cudart.so can be copied to another machine (the H100) as it is.
# nvcc: $CUDA_PATH/bin/nvcc, else /usr/local/cuda-13.0/bin/nvcc. Fails (never skips) without it.
set -euo pipefail
lib="$(realpath "$1")"
out="$(realpath -m "$2")"
shift 2
nvcc="${CUDA_PATH:-/usr/local/cuda-13.0}/bin/nvcc"
[[ -x "$nvcc" ]] || { echo "build_programs: no nvcc at $nvcc (set CUDA_PATH)" >&2; exit 1; }
mkdir -p "$out" "$out/tmp"
export TMPDIR="$out/tmp"
root="$PWD"
cp "$lib" "$out/libcudyn_cudart.so"
for cu in "$@"; do
  name="$(basename "$cu" .cu)"
  # sm_90 SASS + compute_90 PTX: runs on the H100, and its registration works on any runtime.
  "$nvcc" -cudart none -std=c++17 -I "$root" -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
    -Xcompiler -Wno-deprecated-declarations -Wno-deprecated-declarations \
    -o "$out/$name" "$cu" -L "$out" -l:libcudyn_cudart.so -ldl -Xlinker "-rpath=\$ORIGIN"
done
rm -rf "$out/tmp"
