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

# loader/kernel_rule.cc (the fatbin entry decoding the reader shares with the loader) includes the
# PTX ISA and GPU arch facts version_tables generates at build time.
BAZEL="${BAZEL:-bazel}"
(cd "$root" && "$BAZEL" build //version_tables:ptx_isa_inc //version_tables:gpu_arch_inc >&2)
bin="$(cd "$root" && "$BAZEL" info bazel-bin 2>/dev/null)"

source "$root/tests/fuzz/libfuzzer.sh"
libfuzzer_build "$work/binary_fuzzer" -I"$root" -I"$bin" "$here/binary_fuzzer.cc" \
  "$root/tools/fatbin/fatbin_reader.cc" "$here/runtime_layer.cc" "$root/loader/cudart_family.cc" "$root/loader/kernel_rule.cc" \
  "$root/tools/elf/elf_reader.cc" -llz4 -lzstd

seeds="$work/seeds"
mkdir -p "$seeds"
cp "$root"/tools/fatbin/testdata/*.fatbin "$root"/tools/fatbin/testdata/*.elf "$seeds/"
echo "seeds: $(ls "$seeds" | wc -l) files in $seeds"

libfuzzer_run binary_fuzzer "$work/binary_fuzzer" "$work" "$seconds" 65536 -- "$seeds"
