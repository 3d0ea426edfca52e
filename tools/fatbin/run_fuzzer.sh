#!/usr/bin/env bash
# Builds tools/fatbin/fatbin_fuzzer.cc with clang++-14 (-fsanitize=fuzzer,address,undefined)
# outside Bazel, seeds a corpus with the real fatbins in tools/fatbin/testdata (LZ4, zstd and
# uncompressed entries; SASS, PTX, sm_90a, compute_100f) and runs it.
#
#   tools/fatbin/run_fuzzer.sh [seconds]        (default 60)
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
work="$(mktemp -d "${TMPDIR:-/tmp}/fatbin_fuzzer.XXXXXX")"

"$CLANGXX" -std=c++17 -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$root" "$here/fatbin_fuzzer.cc" "$here/fatbin_reader.cc" "$root/tools/layers/runtime_layer.cc" \
  "$root/tools/elf/elf_reader.cc" -llz4 -lzstd -o "$work/fatbin_fuzzer"

seeds="$work/seeds"
mkdir -p "$seeds"
cp "$here"/testdata/*.fatbin "$here"/testdata/*.elf "$seeds/"
echo "seeds: $(ls "$seeds" | wc -l) files in $seeds"

corpus="$(realpath -m "${FUZZ_CORPUS:-$work/corpus}")"
mkdir -p "$corpus" "$work/artifacts"
set +e
cd "$work"
"$work/fatbin_fuzzer" -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 \
  -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} \
  "$corpus" "$seeds"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "fatbin_fuzzer FAILED (exit $rc); reproducers in $work/artifacts:" >&2
  ls -l "$work/artifacts" >&2 || true
  exit "$rc"
fi
echo "fatbin_fuzzer: no findings in ${seconds}s"
rm -rf "$work"
