#!/usr/bin/env bash
# Builds the runtime drop-in's test programs with the real nvcc 13 (`-cudart none`), linked with
# cudyn's libcudyn_cudart.so instead of libcudart:
#   build_programs.sh LIBCUDYN_CUDART_SO OUTDIR SOURCE.cu...
# Each program finds the drop-in next to itself (RUNPATH $ORIGIN), so a directory with the
# program and libcudyn_cudart.so can be copied to another machine (the H100) as it is.
#   build_programs.sh --cudart-shared LIBCUDYN_CUDART_SO OUTDIR SOURCE.cu...
# builds them as the toolkit does by default for `-cudart shared`: linked against the toolkit's own
# libcudart.so.13, knowing nothing of cudyn, no RUNPATH; OUTDIR also gets cudyn's drop-in under the
# name libcudart.so.13 (the install tree's lib/cudyn/cudart), which LD_LIBRARY_PATH=OUTDIR selects.
# nvcc: $CUDA_PATH/bin/nvcc, else /usr/local/cuda-13.0/bin/nvcc. Fails (never skips) without it.
set -euo pipefail
shared=0
if [[ $1 == --cudart-shared ]]; then shared=1; shift; fi
lib="$(realpath "$1")"
out="$(realpath -m "$2")"
shift 2
nvcc="${CUDA_PATH:-/usr/local/cuda-13.0}/bin/nvcc"
[[ -x "$nvcc" ]] || { echo "build_programs: no nvcc at $nvcc (set CUDA_PATH)" >&2; exit 1; }
mkdir -p "$out" "$out/tmp"
export TMPDIR="$out/tmp"
root="$PWD"
if ((shared)); then
  cp "$lib" "$out/libcudart.so.13"
  link=(-cudart shared -ldl)
else
  cp "$lib" "$out/libcudyn_cudart.so"
  link=(-cudart none -L "$out" -l:libcudyn_cudart.so -ldl -Xlinker "-rpath=\$ORIGIN")
fi
for cu in "$@"; do
  name="$(basename "$cu" .cu)"
  # sm_90 SASS + compute_90 PTX: runs on the H100, and its registration works on any runtime.
  "$nvcc" -std=c++17 -I "$root" -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
    -Xcompiler -Wno-deprecated-declarations -Wno-deprecated-declarations \
    -o "$out/$name" "$cu" "${link[@]}"
done
rm -rf "$out/tmp"
