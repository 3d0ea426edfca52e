#!/usr/bin/env bash
# cudyn for people who do not use Bazel: install the tree (dist/install.sh, as `bazel run
# //dist:install -- PREFIX` does), move it (it must be relocatable), then build the consumer
# project in consumer/ with CMake (find_package(cudyn): cudyn::cuda, cudyn::cuda_static) and with
# Make + pkg-config (cudyn-cuda, cudyn-cuda-static, plain -lcudyn_cuda -ldl -lpthread -lstdc++),
# no Bazel inside, and run every program on the real 535 driver and on fake drivers, asserting
# what they print. The runtime side the same way (cudyn::cudart, cudyn::cudart_static,
# cudyn-cudart.pc, cudyn-cudart-static.pc) on fake runtimes and the real 12.5 runtime, plus a
# program linked against libcudart.so.13 that gets cudyn through the drop-in directory.
#   $1 install.sh  $2 the tarball  $3 consumer/CMakeLists.txt  $4 the 535 libcuda.so.1
#   $5 the real 12.5 libcudart.so.12  $6 fake runtime 13.0  $7 fake runtime 11.8
#   $8... fake drivers (tests/fake_driver/cuda_<V>/libcuda.so.1)
# The NVRTC side (cudyn::nvrtc, cudyn::nvrtc_static, cudyn-nvrtc.pc, cudyn-nvrtc-static.pc): a
# 13.0-nvrtc.h program (consumer_nvrtc/) compiles a kernel through the installed library with the
# real NVRTCs 11.8 and 12.5 offered on LD_LIBRARY_PATH: 11.8 (PTX 7.8) on the real 535, 12.5 (PTX
# 8.5) named by CUDYN_NVRTC_PATH with no driver. Given by the environment: CONSUMER_NVRTC_SRC (consumer_nvrtc/CMakeLists.txt),
# NVRTC_H (the 13.0 nvrtc.h), NVRTC_118 and NVRTC_125 (the real libraries, builtins beside them).
# The cuBLAS side (cudyn::cublas, cudyn::cublas_static, cudyn-cublas.pc, cudyn-cublas-static.pc): a
# 13.0-cublas_v2.h program (consumer_cublas/) gets the real cuBLAS 12.5 offered on LD_LIBRARY_PATH on
# the real 535 (the 13.x one is too new for it), and cudyn's own answers with none. Given by the
# environment: CONSUMER_CUBLAS_SRC (consumer_cublas/CMakeLists.txt), CUBLAS_H (the 13.0
# cublas_v2.h, the toolkit's other headers beside it), CUBLAS_125 (the real libcublas.so.12, its
# libcublasLt beside it).
set -euo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
install_sh=$(abs "$1") tarball=$(abs "$2") src=$(dirname "$(abs "$3")") real535=$(abs "$4")
real_cudart125=$(abs "$5") fake_cudart13=$(abs "$6") fake_cudart118=$(abs "$7")
shift 7
fakes=()
for f in "$@"; do fakes+=("$(abs "$f")"); done

tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ---- install, then move the tree -----------------------------------------------------------------
CUDYN_DIST_TARBALL=$tarball "$install_sh" "$tmp/first_prefix"
mv "$tmp/first_prefix" "$tmp/prefix"
prefix=$tmp/prefix
for f in bin/cudyn bin/cudyn-check lib/libcudyn_cuda.a lib/libcudyn_cuda.so lib/cudyn/libcuda.so.1 \
  lib/pkgconfig/cudyn-cuda.pc lib/cmake/cudyn/cudynConfig.cmake lib/cmake/cudyn/cudynConfigVersion.cmake \
  include/cudyn/cudyn.h include/cudyn/cudyn_c.h lib/libcudyn_cudart.a lib/libcudyn_cudart.so \
  lib/cudyn/cudart/libcudart.so.13 lib/pkgconfig/cudyn-cudart.pc lib/pkgconfig/cudyn-cudart-static.pc \
  include/cudyn/cudart.h include/cudyn/cudart_c.h lib/libcudyn_nvrtc.a lib/libcudyn_nvrtc.so \
  lib/cudyn/nvrtc/libnvrtc.so.13 lib/pkgconfig/cudyn-nvrtc.pc lib/pkgconfig/cudyn-nvrtc-static.pc \
  lib/libcudyn_cublas.a lib/libcudyn_cublas.so lib/cudyn/cublas/libcublas.so.13 \
  lib/pkgconfig/cudyn-cublas.pc lib/pkgconfig/cudyn-cublas-static.pc; do
  [[ -e $prefix/$f ]] || fail "installed tree lacks $f"
done
if grep -rlF -e "$tmp/first_prefix" -e "execroot" -e "bazel-out" "$prefix" 2>/dev/null; then
  fail "the files above name the install path or a build path: the tree is not relocatable"
fi

# Under --config=asan/tsan/ubsan the archive needs the sanitizer runtime at link time too.
san=()
archive_syms=$(nm "$prefix/lib/libcudyn_cuda.a" 2>/dev/null || true)
grep -q ' U __asan_' <<<"$archive_syms" && san+=(-fsanitize=address)
grep -q ' U __tsan_' <<<"$archive_syms" && san+=(-fsanitize=thread)
grep -q ' U __ubsan_' <<<"$archive_syms" && san+=(-fsanitize=undefined)
sanflags="${san[*]:-}"

# ---- build -----------------------------------------------------------------------------------------
cp -r "$src" "$tmp/cmake_src"
cp -r "$src" "$tmp/make_src"
chmod -R u+w "$tmp/cmake_src" "$tmp/make_src"
echo "== cmake"
cmake -S "$tmp/cmake_src" -B "$tmp/cmake_build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_FLAGS="$sanflags" -DCMAKE_CXX_FLAGS="$sanflags" -DCMAKE_EXE_LINKER_FLAGS="$sanflags" \
  > "$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "cmake configure"; }
grep -q "cudyn 0.*drop-in directory $prefix/lib/cudyn" "$tmp/cmake.log" ||
  fail "find_package(cudyn) did not report the version and drop-in directory: $(grep cudyn "$tmp/cmake.log")"
cmake --build "$tmp/cmake_build" > "$tmp/cmake_build.log" 2>&1 || { cat "$tmp/cmake_build.log"; fail "cmake build"; }
echo "== make + pkg-config"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C "$tmp/make_src" CFLAGS="$sanflags" LDFLAGS="$sanflags" \
  > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make"; }
[[ $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion cudyn-cuda) == "$(sed -n 's/^#define CUDYN_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/cudyn/cudyn_version.h")" ]] ||
  fail "pkg-config --modversion differs from cudyn_version.h"

# The shared programs need libcudyn_cuda.so.0 (the SONAME), the static ones no cudyn library.
for p in "$tmp/cmake_build/app_shared" "$tmp/make_src/app_shared"; do
  grep -q 'NEEDED.*\[libcudyn_cuda\.so\.[0-9]*\]' <<<"$(readelf -d "$p")" || fail "$p does not need libcudyn_cuda.so.<major>"
done
for p in "$tmp/cmake_build/app_cudart_shared" "$tmp/make_src/app_cudart_shared"; do
  grep -q 'NEEDED.*\[libcudyn_cudart\.so\.[0-9]*\]' <<<"$(readelf -d "$p")" || fail "$p does not need libcudyn_cudart.so.<major>"
done
for p in "$tmp/cmake_build/app_cudart_static" "$tmp/make_src/app_cudart_static"; do
  grep -q 'NEEDED.*libcudyn' <<<"$(readelf -d "$p")" && fail "$p needs a cudyn shared library but was linked statically"
  grep -q ' T cudaRuntimeGetVersion$' <<<"$(nm "$p")" || fail "$p does not contain cudyn's cudaRuntimeGetVersion"
done
# A program as nvcc -cudart shared links it: against libcudart.so.13 (the fake 13.0 runtime has the
# real one's SONAME and versioned exports), knowing nothing of cudyn.
cc $sanflags -o "$tmp/app_lcudart" "$src/app_lcudart.c" "$fake_cudart13" -ldl ||
  fail "linking app_lcudart against libcudart.so.13"
grep -q 'NEEDED.*\[libcudart\.so\.13\]' <<<"$(readelf -d "$tmp/app_lcudart")" || fail "app_lcudart does not need libcudart.so.13"
for p in "$tmp/cmake_build/app_static" "$tmp/make_src/app_static" "$tmp/make_src/app_plain_static"; do
  grep -q 'NEEDED.*libcudyn' <<<"$(readelf -d "$p")" && fail "$p needs a cudyn shared library but was linked statically"
  grep -q ' T cuDriverGetVersion$' <<<"$(nm "$p")" || fail "$p does not contain cudyn's cuDriverGetVersion"
done

# ---- run -------------------------------------------------------------------------------------------
# expect PROGRAM DRIVER CLAMP LINE...: each LINE must appear in the output (exit status 0).
expect() {
  local program=$1 driver=$2 clamp=$3
  shift 3
  expect_env "$program" "on ${driver#"$TEST_SRCDIR"/}${clamp:+ clamped to $clamp}" 0 \
    CUDYN_DRIVER_PATH="$driver" ${clamp:+CUDYN_MAX_CUDA_VERSION=$clamp} -- "$@"
}
# expect_env PROGRAM LABEL STATUS VAR=VALUE... -- LINE...: run PROGRAM with those variables (and no
# inherited CUDYN_*), expect that exit status and each LINE in the output.
expect_env() {
  local program=$1 label="$(basename "$(dirname "$1")")/$(basename "$1") $2" status=$3 vars=()
  shift 3
  while [[ $1 != -- ]]; do vars+=("$1"); shift; done
  shift
  local out rc=0
  out=$(env -u CUDYN_MAX_CUDA_VERSION -u CUDYN_DRIVER_PATH -u CUDYN_CUDART_PATH -u CUDYN_NVRTC_PATH -u CUDYN_CUBLAS_PATH \
    -u LD_LIBRARY_PATH \
    "${vars[@]}" "$program" 2>&1) || rc=$?
  ((rc == status)) || { fail "$label exited $rc, expected $status:"$'\n'"$out"; return; }
  for line in "$@"; do
    grep -qF -- "$line" <<<"$out" || { fail "$label: no '$line' in:"$'\n'"$out"; return; }
  done
  echo "ok: $label"
}
programs=("$tmp/cmake_build/app_shared" "$tmp/cmake_build/app_static"
  "$tmp/make_src/app_shared" "$tmp/make_src/app_static" "$tmp/make_src/app_plain_static")
for p in "${programs[@]}"; do
  expect "$p" "$real535" "" "cuDriverGetVersion: rc=0 version=12020" "cuInit: CUDA_ERROR_NO_DEVICE" \
    "driver=$real535 driver_version=12020 effective=12020 strategy=cuGetProcAddress_v2"
  expect "$p" "$real535" 11.4 "cuDriverGetVersion: rc=0 version=11040" \
    "driver_version=12020 effective=11040 strategy=cuGetProcAddress"
  for fake in "${fakes[@]}"; do
    v=$(basename "$(dirname "$fake")")
    v=${v#cuda_}
    strategy=cuGetProcAddress_v2
    ((v < 12000)) && strategy=cuGetProcAddress
    ((v < 11030)) && strategy=dlsym
    expect "$p" "$fake" "" "cuDriverGetVersion: rc=0 version=$v" \
      "driver=$fake driver_version=$v effective=$v strategy=$strategy"
  done
done
out=$("$tmp/cmake_build/loader_api" "$real535" 2>&1) || fail "loader_api on 535: $out"
grep -q "loader: cuda_version=12020 effective=11040 strategy=cuGetProcAddress entries=[1-9]" <<<"$out" ||
  fail "loader_api on 535 printed: $out"

# The runtime drop-in: the runtime named by CUDYN_CUDART_PATH answers, whatever the driver.
for p in "$tmp/cmake_build/app_cudart_shared" "$tmp/cmake_build/app_cudart_static" \
  "$tmp/make_src/app_cudart_shared" "$tmp/make_src/app_cudart_static"; do
  expect_env "$p" "on the fake 11.8 runtime" 0 CUDYN_CUDART_PATH="$fake_cudart118" -- \
    "cudaRuntimeGetVersion: rc=0 version=11080" "cudaGetDeviceCount: rc=0" \
    "runtime=$fake_cudart118 family=11 version=11080"
  expect_env "$p" "on the fake 13.0 runtime" 0 CUDYN_CUDART_PATH="$fake_cudart13" -- \
    "cudaRuntimeGetVersion: rc=0 version=13000" "runtime=$fake_cudart13 family=13 version=13000"
  # The real 12.5 runtime on the real 535 driver (no GPU here: 100 cudaErrorNoDevice).
  expect_env "$p" "on the real 12.5 runtime, 535 driver" 0 CUDYN_CUDART_PATH="$real_cudart125" \
    CUDYN_DRIVER_PATH="$real535" -- "cudaRuntimeGetVersion: rc=0 version=12050" \
    "cudaGetDeviceCount: rc=100" "runtime=$real_cudart125 family=12 version=12050"
  expect_env "$p" "with no runtime" 1 CUDYN_CUDART_PATH="$tmp/nonexistent/libcudart.so.13" -- \
    "cudaRuntimeGetVersion: rc=303" "runtime= family=0 version=0"
done
out=$("$tmp/cmake_build/cudart_api" "$fake_cudart118" 2>&1) || fail "cudart_api on the fake 11.8 runtime: $out"
grep -q "runtime: family=11 version=11080 entries=[1-9][0-9]* missing=[1-9]" <<<"$out" ||
  fail "cudart_api on the fake 11.8 runtime printed: $out"

# A program linked against libcudart.so.13: its own runtime, or cudyn's through the drop-in directory.
dropin=$prefix/lib/cudyn/cudart
expect_env "$tmp/app_lcudart" "with the fake 13.0 runtime it was linked with" 0 \
  LD_LIBRARY_PATH="$(dirname "$fake_cudart13")" -- "cudaRuntimeGetVersion: rc=0 version=13000" \
  "cudaRuntimeGetVersion from $fake_cudart13" "cudyn runtime: (cudyn not loaded)"
expect_env "$tmp/app_lcudart" "through the drop-in directory on the fake 11.8 runtime" 0 \
  LD_LIBRARY_PATH="$dropin" CUDYN_CUDART_PATH="$fake_cudart118" -- \
  "cudaRuntimeGetVersion: rc=0 version=11080" "cudaRuntimeGetVersion from $dropin/libcudart.so.13" \
  "cudyn runtime: $fake_cudart118"
expect_env "$tmp/app_lcudart" "through the drop-in directory on the real 12.5 runtime" 0 \
  LD_LIBRARY_PATH="$dropin" CUDYN_CUDART_PATH="$real_cudart125" CUDYN_DRIVER_PATH="$real535" -- \
  "cudaRuntimeGetVersion: rc=0 version=12050" "cudyn runtime: $real_cudart125"
# cudyn named as the runtime: refused (never a loop into itself), a clear error.
expect_env "$tmp/app_lcudart" "with cudyn itself named as the runtime" 1 \
  LD_LIBRARY_PATH="$dropin" CUDYN_CUDART_PATH="$dropin/libcudart.so.13" -- \
  "cudaRuntimeGetVersion: rc=303" "is cudyn itself"

# ---- NVRTC and cuBLAS ----------------------------------------------------------------------------
# build_toolkit_consumer LIB LABEL SRC_DIR INCLUDE_DIR SYMBOL: the consumer project in SRC_DIR
# (consumer_LIB/) built with CMake and with Make + pkg-config against the installed tree and the
# toolkit headers in INCLUDE_DIR (passed as <LIB upper-cased>_INCLUDE_DIR); the shared programs
# (app_LIB_shared) need libcudyn_LIB.so.<major> and no real libLIB, the static ones
# (app_LIB_static) no shared cudyn or LIB library and contain cudyn's SYMBOL. Built in
# $tmp/LIB_cmake_build and $tmp/LIB_make_src.
build_toolkit_consumer() {
  local lib=$1 label=$2 lsrc=$3 inc=$4 symbol=$5 p
  local inc_var="${lib^^}_INCLUDE_DIR"
  cp -r "$lsrc" "$tmp/${lib}_cmake_src"
  cp -r "$lsrc" "$tmp/${lib}_make_src"
  chmod -R u+w "$tmp/${lib}_cmake_src" "$tmp/${lib}_make_src"
  echo "== $label: cmake"
  cmake -S "$tmp/${lib}_cmake_src" -B "$tmp/${lib}_cmake_build" -DCMAKE_PREFIX_PATH="$prefix" \
    -D"$inc_var"="$inc" -DCMAKE_C_FLAGS="$sanflags" -DCMAKE_EXE_LINKER_FLAGS="$sanflags" \
    > "$tmp/${lib}_cmake.log" 2>&1 || { cat "$tmp/${lib}_cmake.log"; fail "$label cmake configure"; }
  cmake --build "$tmp/${lib}_cmake_build" > "$tmp/${lib}_cmake_build.log" 2>&1 ||
    { cat "$tmp/${lib}_cmake_build.log"; fail "$label cmake build"; }
  echo "== $label: make + pkg-config"
  PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C "$tmp/${lib}_make_src" "$inc_var"="$inc" \
    CFLAGS="$sanflags" LDFLAGS="$sanflags" > "$tmp/${lib}_make.log" 2>&1 ||
    { cat "$tmp/${lib}_make.log"; fail "$label make"; }
  for p in "$tmp/${lib}_cmake_build/app_${lib}_shared" "$tmp/${lib}_make_src/app_${lib}_shared"; do
    grep -q "NEEDED.*\[libcudyn_${lib}\.so\.[0-9]*\]" <<<"$(readelf -d "$p")" ||
      fail "$p does not need libcudyn_${lib}.so.<major>"
    grep -q "NEEDED.*\[lib${lib}" <<<"$(readelf -d "$p")" && fail "$p needs a real lib${lib}"
  done
  for p in "$tmp/${lib}_cmake_build/app_${lib}_static" "$tmp/${lib}_make_src/app_${lib}_static"; do
    grep -q "NEEDED.*libcudyn\|NEEDED.*lib${lib}" <<<"$(readelf -d "$p")" &&
      fail "$p needs a cudyn or $label shared library but was linked statically"
    grep -q " T ${symbol}\$" <<<"$(nm "$p")" || fail "$p does not contain cudyn's $symbol"
  done
  return 0
}

nvrtc118=$(abs "$NVRTC_118") nvrtc125=$(abs "$NVRTC_125")
build_toolkit_consumer nvrtc NVRTC "$(dirname "$(abs "$CONSUMER_NVRTC_SRC")")" "$(dirname "$(abs "$NVRTC_H")")" \
  nvrtcCompileProgram
nvrtc_dirs="$(dirname "$nvrtc125"):$(dirname "$nvrtc118")"
for p in "$tmp/nvrtc_cmake_build/app_nvrtc_shared" "$tmp/nvrtc_cmake_build/app_nvrtc_static" \
  "$tmp/nvrtc_make_src/app_nvrtc_shared" "$tmp/nvrtc_make_src/app_nvrtc_static"; do
  # The real 535 (CUDA 12.2, JITs PTX up to 8.2): the newest NVRTC whose PTX it loads is 11.8.
  expect_env "$p" "NVRTC 12.5 and 11.8 offered, real 535 driver" 0 LD_LIBRARY_PATH="$nvrtc_dirs" \
    CUDYN_DRIVER_PATH="$real535" -- "nvrtcVersion: rc=0 version=11.8" "nvrtcCompileProgram: rc=0" \
    "ptx_version=7.8"
  # No driver: nothing to refuse; the NVRTC named (else the newest found, the toolkit's here).
  expect_env "$p" "NVRTC 12.5 named, no driver" 0 CUDYN_NVRTC_PATH="$nvrtc125" \
    CUDYN_DRIVER_PATH="$tmp/nonexistent/libcuda.so.1" -- "nvrtcVersion: rc=0 version=12.5" \
    "nvrtcCompileProgram: rc=0" "ptx_version=8.5"
done

cublas125=$(abs "$CUBLAS_125")
build_toolkit_consumer cublas cuBLAS "$(dirname "$(abs "$CONSUMER_CUBLAS_SRC")")" \
  "$(dirname "$(abs "$CUBLAS_H")")" cublasCreate_v2
# The real 535 (CUDA 12.2) runs cuBLAS 12.x but not 13.x: by the search, the 12.5 offered
# (cublasCreate answers whatever the real cuBLAS says without a GPU; it must answer). A real cuBLAS
# run costs a second or two (the 13.x one is opened and refused first; cublasCreate looks for a GPU):
# once by the search (CMake, shared), once with the 12.5 named (Make, static).
expect_env "$tmp/cublas_cmake_build/app_cublas_shared" "cuBLAS 12.5 offered, real 535 driver" 0 \
  LD_LIBRARY_PATH="$(dirname "$cublas125")" CUDYN_DRIVER_PATH="$real535" -- \
  "cublasGetVersion: rc=0 version=120502" "cublasCreate: rc="
expect_env "$tmp/cublas_make_src/app_cublas_static" "cuBLAS 12.5 named, real 535 driver" 0 \
  CUDYN_CUBLAS_PATH="$cublas125" CUDYN_DRIVER_PATH="$real535" -- \
  "cublasGetVersion: rc=0 version=120502" "cublasCreate: rc="
for p in "$tmp/cublas_cmake_build/app_cublas_shared" "$tmp/cublas_cmake_build/app_cublas_static" \
  "$tmp/cublas_make_src/app_cublas_shared" "$tmp/cublas_make_src/app_cublas_static"; do
  # No cuBLAS (the one named is missing, nothing else is tried): cudyn's CUBLAS_STATUS_NOT_INITIALIZED.
  expect_env "$p" "no cuBLAS, no driver" 0 CUDYN_CUBLAS_PATH="$tmp/nonexistent/libcublas.so.12" \
    CUDYN_DRIVER_PATH="$tmp/nonexistent/libcuda.so.1" -- "cublasGetVersion: rc=1 version=-1" \
    "cublasCreate: rc=1"
done

# No driver at all: the programs report 303 instead of crashing.
out=$(CUDYN_DRIVER_PATH=$tmp/nonexistent/libcuda.so.1 "$tmp/make_src/app_static" 2>/dev/null) && fail "app_static succeeded with no driver"
grep -q "cuDriverGetVersion: rc=303" <<<"$out" || fail "no driver: expected rc=303, got: $out"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all consumers built and ran"
