#!/usr/bin/env bash
# Builds tools/layers/binary_fuzzer.cc with clang++-14 (-fsanitize=fuzzer,address,undefined)
# outside Bazel, seeds a corpus with the real fatbins in tools/fatbin/testdata (LZ4, zstd and
# uncompressed entries; SASS, PTX, sm_90a, compute_100f) and runs it.
#
#   tools/layers/run_fuzzer.sh [seconds]        (default 60)
#
# Environment: CLANGXX (default clang++-14), FUZZ_CORPUS (a corpus directory to use and keep;
# default: a temporary one), FUZZ_ARGS (extra libFuzzer flags).
# Exit status: 0 when the time ran out without a finding; libFuzzer's non-zero status on a crash,
# leak, timeout or OOM, with the reproducer kept under the printed work directory.
# Needs clang-14 and its runtime (Debian: clang-14, libclang-rt-14-dev) and liblz4-dev/libzstd-dev.
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CLANGXX="${CLANGXX:-clang++-14}"
work="$(mktemp -d "${TMPDIR:-/tmp}/binary_fuzzer.XXXXXX")"

# The sources come from the smoke binary's Bazel deps; building them also builds the facts some
# include (loader/kernel_rule.cc: the PTX ISA and GPU arch tables), found under bazel-bin.
source "$root/tests/fuzz/libfuzzer.sh"
libfuzzer_sources //tools/layers:binary_fuzzer_sources
libfuzzer_build "$work/binary_fuzzer" -I"$root" -I"$LIBFUZZER_BIN" -isystem "${CUDA_PATH:-/usr/local/cuda}/include" \
  "$here/binary_fuzzer.cc" "${LIBFUZZER_SOURCES[@]}" -llz4 -lzstd

seeds="$work/seeds"
mkdir -p "$seeds"
cp "$root"/tools/fatbin/testdata/*.fatbin "$root"/tools/fatbin/testdata/*.elf "$seeds/"
echo "seeds: $(ls "$seeds" | wc -l) files in $seeds"

libfuzzer_run binary_fuzzer "$work/binary_fuzzer" "$work" "$seconds" 65536 -- "$seeds"
