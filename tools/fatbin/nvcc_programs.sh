#!/usr/bin/env bash
# Builds the test programs of tools/fatbin and tools/layers with the real nvcc:
#   nvcc_programs.sh KERNEL_CU HOST_CPP KERN_LIB_CU APP_KERN_CPP OUTDIR
# nvcc: $CUDA_PATH/bin/nvcc, else /usr/local/cuda-13.0/bin/nvcc. Fails (never skips) without it.
set -euo pipefail
cu="$(realpath "$1")"
cpp="$(realpath "$2")"
kern_lib="$(realpath "$3")"
app_kern="$(realpath "$4")"
out="$(realpath -m "$5")"
nvcc="${CUDA_PATH:-/usr/local/cuda-13.0}/bin/nvcc"
[[ -x "$nvcc" ]] || { echo "nvcc_programs: no nvcc at $nvcc (set CUDA_PATH)" >&2; exit 1; }
mkdir -p "$out"
export TMPDIR="$out/tmp"
mkdir -p "$TMPDIR"
build() {  # name, nvcc options...
  local name="$1"
  shift
  "$nvcc" "$@" -o "$out/$name" "$cu"
}
build default
build cudart_shared -cudart shared
"$nvcc" -cudart none -o "$out/cudart_none" "$cpp"
build ptx_compute80 -gencode arch=compute_80,code=compute_80
build sass_sm80 -gencode arch=compute_80,code=sm_80
build sass_sm90a -gencode arch=compute_90a,code=sm_90a
build multi -gencode arch=compute_75,code=sm_75 -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
  -gencode arch=compute_100f,code=sm_100f
build uncompressed --compress-mode=none
build speed_lz4 --compress-mode=speed -cudart shared
build rdc_object -rdc=true -c -gencode 'arch=compute_80,code=[sm_80,compute_80]'
build rdc_sass_sm80 -rdc=true -gencode arch=compute_80,code=sm_80
# Shared libraries with device code and no runtime (the application brings libcudart): only
# their kernels decide.
lib() {  # name, nvcc options...
  local name="$1"
  shift
  build "$name" -cudart none -shared -Xcompiler -fPIC "$@"
}
lib lib_ptx80 -gencode arch=compute_80,code=compute_80
lib lib_sm90 -gencode 'arch=compute_90,code=[sm_90,compute_90]'
lib lib_sm90a -gencode arch=compute_90a,code=sm_90a
# For --deps: a library with sm_90 SASS that needs libcudart.so.13 (RUNPATH into a wheel's
# nvidia/cu13/lib), and a host program that needs the library (RUNPATH $ORIGIN/../lib).
"$nvcc" -cudart shared -shared -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 \
  -Xlinker -soname=libkern_sm90.so -Xlinker '-rpath=$ORIGIN/../../nvidia/cu13/lib' \
  -o "$out/libkern_sm90.so" "$kern_lib"
"$nvcc" -cudart none -o "$out/app_kern" "$app_kern" -L"$out" -lkern_sm90 \
  -Xlinker '-rpath=$ORIGIN/../lib'
# Device code no runtime registers (like CUDA 13.0's libcufft/libcufftw): a bare fatbin with sm_75
# SASS placed in .nv_fatbin of a host-only shared library (no .nvFatBinSegment): the library would
# load it itself with cuModuleLoadData.
"$nvcc" -fatbin -gencode arch=compute_75,code=sm_75 -o "$TMPDIR/sm75.fatbin" "$cu"
objcopy -I binary -O elf64-x86-64 -B i386:x86-64 \
  --rename-section .data=.nv_fatbin,alloc,load,readonly,data,contents \
  --set-section-alignment .data=8 "$TMPDIR/sm75.fatbin" "$TMPDIR/sm75_fatbin.o"
"$nvcc" -cudart none -shared -Xcompiler -fPIC -o "$out/lib_selfloaded_sm75" "$cpp" \
  "$TMPDIR/sm75_fatbin.o"
rm -rf "$TMPDIR"
