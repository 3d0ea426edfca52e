#!/usr/bin/env bash
# Builds tools/elf/elf_fuzzer.cc with clang++-14 (-fsanitize=fuzzer,address,undefined) outside
# Bazel, seeds a corpus with small real ELF files and runs it.
#
#   tools/elf/run_fuzzer.sh [seconds]        (default 60)
#
# Environment: CLANGXX (default clang++-14), CC (default gcc, builds the seed ELFs),
# FUZZ_CORPUS (a corpus directory to use and keep; default: a temporary one),
# FUZZ_ARGS (extra libFuzzer flags, e.g. "-jobs=8 -workers=8"; per-job logs go to the work dir).
# Exit status: 0 when the time ran out without a finding; libFuzzer's non-zero status on a crash,
# leak, timeout or OOM, with the reproducer kept under the printed work directory.
# Needs clang-14 and its runtime (Debian: clang-14, libclang-rt-14-dev).
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CLANGXX="${CLANGXX:-clang++-14}"
CC="${CC:-gcc}"
work="$(mktemp -d "${TMPDIR:-/tmp}/elf_fuzzer.XXXXXX")"

source "$root/tests/fuzz/libfuzzer.sh"
libfuzzer_sources //tools/elf:elf_fuzzer_sources
libfuzzer_build "$work/elf_fuzzer" -I"$root" "$here/elf_fuzzer.cc" "${LIBFUZZER_SOURCES[@]}"

# Seeds: small real ELF files of several kinds (executable, shared library, ELF32, static-pie).
seeds="$work/seeds"
mkdir -p "$seeds"
src="$here/testdata"
if command -v "$CC" >/dev/null 2>&1; then
  lib_flags=(-Wl,-soname,libelftest_cuda.so.1 "-Wl,--version-script,$src/fake_cuda.lds")
  "$CC" -O2 -shared -fPIC "${lib_flags[@]}" -o "$seeds/lib64.so" "$src/fake_cuda.c" || true
  "$CC" -O2 -shared -fPIC "${lib_flags[@]}" -Wl,--hash-style=sysv -o "$seeds/lib64_sysv.so" "$src/fake_cuda.c" || true
  if [[ -f "$seeds/lib64.so" ]]; then
    "$CC" -O2 -o "$seeds/app64" "$src/elftest_app.c" "$seeds/lib64.so" '-Wl,-rpath,/opt/x:$ORIGIN' || true
  fi
  if "$CC" -m32 -O2 -shared -fPIC "${lib_flags[@]}" -o "$seeds/lib32.so" "$src/fake_cuda.c" 2>/dev/null; then
    "$CC" -m32 -O2 -o "$seeds/app32" "$src/elftest_app.c" "$seeds/lib32.so" || true
  fi
  "$CC" -O2 -static-pie -o "$work/static_pie" "$src/static_app.c" 2>/dev/null &&
    strip -o "$seeds/static_pie_stripped" "$work/static_pie" 2>/dev/null || true
fi
for f in /bin/true /usr/bin/true /lib/x86_64-linux-gnu/libdl.so.2 /lib/x86_64-linux-gnu/libutil.so.1; do
  [[ -f "$f" ]] && cp -L "$f" "$seeds/$(basename "$f")" || true
done
echo "seeds: $(ls "$seeds" | wc -l) files in $seeds"

libfuzzer_run elf_fuzzer "$work/elf_fuzzer" "$work" "$seconds" 65536 -- "$seeds"
