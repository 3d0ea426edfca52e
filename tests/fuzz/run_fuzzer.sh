#!/usr/bin/env bash
# Builds one of cudyn's libFuzzer targets with clang++-14 (-fsanitize=fuzzer,address,undefined)
# outside Bazel and runs it from the checked-in seeds.
#
#   tests/fuzz/run_fuzzer.sh env|shim [seconds]       (default 60)
#
# Needs clang-14 + libclang-rt-14-dev, the CUDA headers (CUDA_PATH, default /usr/local/cuda) and
# Bazel for the generated inputs: the trampolines (//stubs:trampolines) and, for `shim`, the fake
# driver it runs over (//tests/fake_driver:cuda_$FUZZ_FAKE_VERSION/libcuda.so.1, default 12020).
# Environment: CLANGXX (default clang++-14), BAZEL (default bazel), FUZZ_CORPUS (a corpus
# directory to use and keep; default: a temporary one), FUZZ_ARGS (extra libFuzzer flags).
# Exit status: 0 when the time ran out without a finding; libFuzzer's non-zero status on a crash,
# leak, timeout or OOM, with the reproducer kept under the printed work directory (replay it with
# bazel-bin/tests/fuzz/<target>_fuzzer_smoke FILE).
set -euo pipefail
target="${1:?usage: run_fuzzer.sh env|shim [seconds]}"
seconds="${2:-60}"
case "$target" in env | shim) ;; *) echo "unknown target $target (env, shim)" >&2; exit 2 ;; esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CLANGXX="${CLANGXX:-clang++-14}"
BAZEL="${BAZEL:-bazel}"
cuda_include="${CUDA_PATH:-/usr/local/cuda}/include"
fake_version="${FUZZ_FAKE_VERSION:-12020}"
fake_target="//tests/fake_driver:cuda_${fake_version}/libcuda.so.1"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudyn_${target}_fuzzer.XXXXXX")"

(cd "$root" && "$BAZEL" build //stubs:trampolines "$fake_target" >&2)
bin="$(cd "$root" && "$BAZEL" info bazel-bin 2>/dev/null)"

sources=("$root"/loader/{adapters,cudyn_c,driver,log,results}.cc "$root/version_tables/api_table.cc")
if [[ "$target" == shim ]]; then
  sources+=("$root/stubs/shim.cc" "$bin/stubs/trampolines.cc")
fi
"$CLANGXX" -std=c++17 -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -DSPDLOG_HEADER_ONLY -DFMT_HEADER_ONLY \
  -I"$root" -I"$bin" -I"$root/version_tables/interop_shim" -isystem "$cuda_include" \
  "$here/${target}_fuzzer.cc" "${sources[@]}" -ldl -pthread -o "$work/${target}_fuzzer"

corpus="$(realpath -m "${FUZZ_CORPUS:-$work/corpus}")"
mkdir -p "$corpus" "$work/artifacts"
env_args=(CUDYN_LOG=off)
if [[ "$target" == shim ]]; then
  env_args+=(CUDYN_DRIVER_PATH="$(readlink -f "$bin/tests/fake_driver/cuda_${fake_version}/libcuda.so.1")")
fi
set +e
cd "$work"
# -close_fd_mask=2: the env target makes the loader log every rejected value to stderr.
env "${env_args[@]}" "$work/${target}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
  -max_len=4096 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
  -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$corpus" "$here/seeds/$target"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "${target}_fuzzer FAILED (exit $rc); reproducers in $work/artifacts:" >&2
  ls -l "$work/artifacts" >&2 || true
  exit "$rc"
fi
echo "${target}_fuzzer: no findings in ${seconds}s"
rm -rf "$work"
