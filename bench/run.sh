#!/usr/bin/env bash
# run.sh — runs every cudyn benchmark against one or more drivers and prints the ratio table.
#
#   In the repository:  bench/run.sh [options]
#       builds //bench:bundle with -c opt, unpacks it under the output directory and runs it
#       against the bundled fakes and, when Bazel's deps cache has it, the real 535 driver.
#   In an unpacked bundle (a machine without Bazel, e.g. the H100):  ./run.sh [options]
#       runs the bundle's binaries against the bundled fakes and the system's libcuda.so.1.
#
# Options:
#   --driver LABEL=PATH   a driver to measure (repeatable; replaces the defaults). PATH is an
#                         absolute path to a libcuda.so.1, or "system" for the default search.
#   --repetitions N       Google Benchmark repetitions per benchmark (default 10); the table
#                         uses the medians.
#   --min-time S          --benchmark_min_time per repetition (default 0.2).
#   --out DIR             where the JSON results and table.md go (default: a new temp dir).
#   --bundle DIR          an unpacked bundle to run (default: the one run.sh lives in, if any).
#
# Each driver gets its own processes: CUDYN_DRIVER_PATH=PATH for cudyn, LD_LIBRARY_PATH=dir(PATH)
# for the binary that links libcuda.so.1 directly. Results: DIR/<label>.<binary>[.gpu].json,
# DIR/footprint.json, DIR/table.md (also printed).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repetitions=10
min_time=0.2
out=""
bundle=""
drivers=()

while (($#)); do
  case $1 in
    --driver) drivers+=("$2"); shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bundle) bundle=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

[[ -n $out ]] || out=$(mktemp -d "${TMPDIR:-/tmp}/cudyn_bench_results.XXXXXX")
mkdir -p "$out"
out=$(cd "$out" && pwd)

in_repo=false
if [[ -z $bundle ]]; then
  if [[ -x $here/bin/percall_direct ]]; then
    bundle=$here
  else
    in_repo=true
    repo=$(cd "$here/.." && pwd)
    echo "=== building //bench:bundle (-c opt)" >&2
    # --symlink_prefix=/: leave the workspace's bazel-* symlinks (fastbuild) alone.
    (cd "$repo" && bazel build -c opt --symlink_prefix=/ //bench:bundle >&2)
    bin_dir=$(cd "$repo" && bazel info -c opt bazel-bin 2>/dev/null)
    rm -rf "$out/bundle" && mkdir -p "$out/bundle"
    tar -xf "$bin_dir/bench/cudyn_bench.tar" -C "$out/bundle"
    bundle=$out/bundle/cudyn_bench
  fi
fi
bundle=$(cd "$bundle" && pwd)

if ((${#drivers[@]} == 0)); then
  for fake in "$bundle"/drivers/fake_*/libcuda.so.1; do
    label=$(basename "$(dirname "$fake")")
    drivers+=("$label=$fake")
  done
  if $in_repo; then
    real535="$(cd "$repo" && bazel info output_base 2>/dev/null)/external/nvidia_drivers/535/libcuda.so.1"
    [[ -e $real535 ]] && drivers+=("real_535=$real535")
  elif { ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q "libcuda\.so\.1 "; then
    drivers+=("system=system")
  fi
fi

bench_flags=(
  "--benchmark_repetitions=$repetitions"
  "--benchmark_report_aggregates_only=true"
  "--benchmark_enable_random_interleaving=true"
  "--benchmark_min_time=$min_time"
  "--benchmark_out_format=json"
)

run_one() {  # label path binary [extra args]
  local label=$1 path=$2 binary=$3
  shift 3
  local suffix=""
  [[ " $* " == *" --gpu "* ]] && suffix=".gpu"
  local json="$out/$label.$binary$suffix.json"
  echo "=== $label: $binary $*" >&2
  if [[ $path == system ]]; then
    env -u CUDYN_DRIVER_PATH LD_LIBRARY_PATH="$bundle/lib" \
      "$bundle/bin/$binary" "$@" "${bench_flags[@]}" "--benchmark_out=$json" >&2
  else
    CUDYN_DRIVER_PATH=$path LD_LIBRARY_PATH="$(dirname "$path"):$bundle/lib" \
      "$bundle/bin/$binary" "$@" "${bench_flags[@]}" "--benchmark_out=$json" >&2
  fi
}

status=0
for entry in "${drivers[@]}"; do
  label=${entry%%=*}
  path=${entry#*=}
  if [[ $path != system && $path != /* ]]; then
    echo "run.sh: driver $label: $path is not an absolute path" >&2
    exit 2
  fi
  for binary in percall_direct percall_stub_static percall_stub_shared percall_embed open_bench; do
    run_one "$label" "$path" "$binary" || { echo "run.sh: $binary failed for $label" >&2; status=1; }
  done
  for binary in percall_direct percall_stub_static percall_stub_shared percall_embed; do
    run_one "$label" "$path" "$binary" --gpu || { echo "run.sh: $binary --gpu failed" >&2; status=1; }
  done
done

LD_LIBRARY_PATH="$bundle/lib" "$bundle/bin/footprint" >"$out/footprint.json" || status=1

{
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "Command: run.sh --repetitions $repetitions --min-time $min_time (drivers: $(printf '%s ' "${drivers[@]%%=*}"))"
  echo
  python3 "$bundle/ratios.py" "$out"
} | tee "$out/table.md"
echo "results: $out" >&2
exit $status
