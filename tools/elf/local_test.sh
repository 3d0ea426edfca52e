#!/usr/bin/env bash
# Builds and runs elf_reader_test without Bazel (plain g++/clang++ and the system GoogleTest).
# The test data is built with the same commands and flags as tools/elf/testdata/BUILD.
#
#   tools/elf/local_test.sh [--asan] [gtest args...]
#
# CXX / CC pick the compilers (default g++ / gcc). --asan builds the reader and the test with
# -fsanitize=address,undefined. Needs: libgtest-dev, gcc-multilib (for the ELF32 test data).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CXX="${CXX:-g++}"
CC="${CC:-gcc}"
san=()
if [[ "${1:-}" == "--asan" ]]; then
  san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  shift
fi
out="$(mktemp -d "${TMPDIR:-/tmp}/elf_local_test.XXXXXX")"
trap 'rm -rf "$out"' EXIT
td="$out/testdata"
mkdir -p "$td"
src="$here/testdata"
lib_flags=(-Wl,-soname,libelftest_cuda.so.1 "-Wl,--version-script,$src/fake_cuda.lds")

"$CC" -O2 -shared -fPIC "${lib_flags[@]}" -Wl,--disable-new-dtags,-rpath,/opt/elftest/old \
  -o "$td/libelftest_cuda.so" "$src/fake_cuda.c"
"$CC" -O2 -shared -fPIC "${lib_flags[@]}" -Wl,--hash-style=sysv \
  -o "$td/libelftest_cuda_sysv.so" "$src/fake_cuda.c"
"$CC" -O2 -o "$td/elftest_app" "$src/elftest_app.c" "$td/libelftest_cuda.so" \
  '-Wl,--enable-new-dtags,-rpath,/opt/elftest/lib:$ORIGIN/../lib'
"$CC" -m32 -O2 -shared -fPIC "${lib_flags[@]}" -o "$td/libelftest_cuda32.so" "$src/fake_cuda.c"
"$CC" -m32 -O2 -o "$td/elftest_app32" "$src/elftest_app.c" "$td/libelftest_cuda32.so"
"$CC" -O2 -static -o "$td/static_app" "$src/static_app.c"
"$CC" -O2 -static-pie -o "$td/static_pie_app" "$src/static_app.c"

"$CXX" -std=c++17 -O1 -g -Wall -Wextra -Werror "${san[@]}" -I"$root" \
  "$here/elf_reader.cc" "$here/elf_reader_test.cc" \
  -lgtest_main -lgtest -pthread -o "$out/elf_reader_test"
mkdir -p "$out/tmp"
ELF_TESTDATA_DIR="$td" TEST_TMPDIR="$out/tmp" "$out/elf_reader_test" "$@"
