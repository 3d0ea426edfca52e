#!/usr/bin/env bash
# Builds one of cudyn's libFuzzer targets with clang++-14 (-fsanitize=fuzzer,address,undefined)
# outside Bazel and runs it from the checked-in seeds.
#
#   tests/fuzz/run_fuzzer.sh env|shim|cudart [seconds]       (default 60)
#
# Needs clang-14 + libclang-rt-14-dev, the CUDA headers (CUDA_PATH, default /usr/local/cuda; the
# runtime loader of `cudart` is written for the 13.0 ones) and Bazel for what it compiles: the
# library sources of the target's smoke binary, listed by //tests/fuzz:<target>_fuzzer_sources
# from that binary's deps (building it also makes the generated sources and includes), and, for
# `shim`, the fake driver it runs over (//tests/fake_driver:cuda_$FUZZ_FAKE_VERSION/libcuda.so.1,
# default 12020); for `cudart`, that driver and the fake runtimes of its adapter mode
# (//tests/fuzz:cudart_adapter_fakes lists them: BUILD's CUDART_ADAPTER_FAKES).
# Environment: CLANGXX (default clang++-14), BAZEL (default bazel), FUZZ_CORPUS (a corpus
# directory to use and keep; default: a temporary one), FUZZ_ARGS (extra libFuzzer flags).
# Exit status: 0 when the time ran out without a finding; libFuzzer's non-zero status on a crash,
# leak, timeout or OOM, with the reproducer kept under the printed work directory (replay it with
# bazel-bin/tests/fuzz/<target>_fuzzer_smoke FILE).
set -euo pipefail
target="${1:?usage: run_fuzzer.sh env|shim|cudart [seconds]}"
seconds="${2:-60}"
case "$target" in env | shim | cudart) ;; *) echo "unknown target $target (env, shim, cudart)" >&2; exit 2 ;; esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CLANGXX="${CLANGXX:-clang++-14}"
BAZEL="${BAZEL:-bazel}"
cuda_include="${CUDA_PATH:-/usr/local/cuda}/include"
fake_version="${FUZZ_FAKE_VERSION:-12020}"
fake_target="//tests/fake_driver:cuda_${fake_version}/libcuda.so.1"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudyn_${target}_fuzzer.XXXXXX")"

build=()
[[ "$target" == shim || "$target" == cudart ]] && build+=("$fake_target")
[[ "$target" == cudart ]] && build+=("//tests/fuzz:cudart_adapter_fakes")
((${#build[@]} == 0)) || (cd "$root" && "$BAZEL" build "${build[@]}" >&2)

source "$here/libfuzzer.sh"
libfuzzer_sources "//tests/fuzz:${target}_fuzzer_sources"
bin=$LIBFUZZER_BIN
libfuzzer_build "$work/${target}_fuzzer" -DSPDLOG_HEADER_ONLY -DFMT_HEADER_ONLY \
  -I"$root" -I"$bin" -I"$root/version_tables/interop_shim" -isystem "$cuda_include" \
  "$here/${target}_fuzzer.cc" "${LIBFUZZER_SOURCES[@]}" -ldl -pthread

LIBFUZZER_ENV=(CUDYN_LOG=off)
if [[ "$target" == shim || "$target" == cudart ]]; then
  LIBFUZZER_ENV+=(CUDYN_DRIVER_PATH="$(readlink -f "$bin/tests/fake_driver/cuda_${fake_version}/libcuda.so.1")")
fi
if [[ "$target" == cudart ]]; then
  fake_paths=()
  while read -r f; do fake_paths+=("$(readlink -f "$bin/$f")"); done <"$bin/tests/fuzz/cudart_adapter_fakes.txt"
  ((${#fake_paths[@]})) || { echo "run_fuzzer.sh: no fake runtimes listed" >&2; exit 2; }
  LIBFUZZER_ENV+=(CUDYN_FUZZ_CUDART_FAKES="$(IFS=:; echo "${fake_paths[*]}")")
fi
# -close_fd_mask=2: the env and cudart targets make the loader log every rejected value to stderr.
libfuzzer_run "${target}_fuzzer" "$work/${target}_fuzzer" "$work" "$seconds" 4096 -close_fd_mask=2 \
  -- "$here/seeds/$target"
