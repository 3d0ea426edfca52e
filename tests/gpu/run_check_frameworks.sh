#!/bin/bash
# `cudyn-check binary` (whole installs) and `report --nfd` on the GPU machine's real frameworks,
# each verdict set against what actually happens when the framework runs there.
#
#   tests/gpu/run_check_frameworks.sh CARRY_DIR OUT_DIR
#
# CARRY_DIR holds cudyn-check and cudyn-<version>-linux-x86_64.tar.gz (tests/gpu/stage.sh).
# For every framework found among the machine's Python packages (torch, cupy, jax's CUDA plugin):
#   * `binary --deps --json FILE` (target: the driver; GPUs: the driver's) must say compatible;
#   * `binary --deps --json --target-version 12.8 FILE` must say incompatible with a set minimum
#     of 13.0 when the framework is a CUDA 13 build (its files need libcudart.so.13 / embed 13.0);
#   * the truth: the framework's own GPU smoke (tests/gpu/cudyn_run_python.py) run under
#     `cudyn run` natively must pass, and under `cudyn run --max-cuda-version 12.8` must fail —
#     exactly when the verdict at 12.8 is incompatible.
# Also `binary DIR` on the framework's lib directory and `report --nfd` (native and clamped).
# JAX's CUDA plugin loads its CUDA libraries from Python (not DT_NEEDED): it is judged together
# with the nvidia wheels' lib directory (see below).
# Logs: OUT_DIR/frameworks/*. Exit 0 when every expectation holds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
carry=$(cd "$1" && pwd) || exit 2
mkdir -p "$2/frameworks" && out=$(cd "$2/frameworks" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-fw.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check=$carry/cudyn-check
mkdir -p "$work/prefix"
tar -C "$work/prefix" --strip-components=1 -xzf "$carry"/cudyn-*-linux-x86_64.tar.gz || exit 2
cudyn=$work/prefix/bin/cudyn

# ---- report --nfd ---------------------------------------------------------------------------
"$check" report --nfd >"$out/nfd.txt" 2>&1; echo "report --nfd: exit $?"
"$check" report --nfd --max-cuda-version 12.8 >"$out/nfd_12080.txt" 2>&1
cat "$out/nfd.txt"
grep -q '^feature.node.kubernetes.io/cudyn.gpu.sm_90=true$' "$out/nfd.txt" || fail "nfd: no sm_90 label"
grep -q '^feature.node.kubernetes.io/cudyn.cuda-driver-version=13000$' "$out/nfd.txt" ||
  fail "nfd: driver version is not 13000"
grep -q '^feature.node.kubernetes.io/cudyn.cuda-driver-version=12080$' "$out/nfd_12080.txt" ||
  fail "nfd --max-cuda-version 12.8: version is not 12080"
grep -q 'cudyn.cudart.13=true' "$out/nfd_12080.txt" && fail "nfd at 12.8 claims libcudart.so.13"

# ---- frameworks ------------------------------------------------------------------------------
# summarize JSON -> "exit=N min=V file=F files=N unresolved=N"
summarize() {
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
s = j["set"]
m = s["minimum_driver"]
print("exit=%s min=%s file=%s layer=%s files=%d unresolved=%d" % (j["exit_code"], m["version"],
      m.get("file"), m.get("layer"), s["files"], len(s["unresolved"])))
' "$1"
}
field() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<<"$1"; }

# framework NAME PYTHON_MODULE FILE...: judge FILEs (files or directories), then run the smoke.
framework() {
  local name=$1 module=$2
  shift 2
  echo "== $name: $*"
  "$check" binary --deps --json "$@" >"$out/${name}_driver.json" 2>"$out/${name}_driver.err"
  local native=$(summarize "$out/${name}_driver.json")
  "$check" binary --deps --json --target-version 12.8 "$@" >"$out/${name}_12080.json" \
    2>"$out/${name}_12080.err"
  local clamped=$(summarize "$out/${name}_12080.json")
  "$check" binary --deps --target-version 12.8 "$@" >"$out/${name}_12080.txt" 2>&1
  echo "  verdict on the driver:   $native"
  echo "  verdict at 12.8:         $clamped"
  [[ $(field "$native" exit) == 0 ]] || fail "$name: not compatible with the driver it runs on"
  # The truth: the framework on the GPU, natively and clamped.
  CUDYN_LOG=warning timeout -k 5 300 "$cudyn" run -- python3 "$here/cudyn_run_python.py" "$module" \
    >"$out/${name}_run_native.log" 2>&1
  local rn=$?
  CUDYN_LOG=warning timeout -k 5 300 "$cudyn" run --max-cuda-version 12.8 -- \
    python3 "$here/cudyn_run_python.py" "$module" >"$out/${name}_run_12080.log" 2>&1
  local rc=$?
  echo "  runs under cudyn: native exit $rn, at 12.8 exit $rc"
  [[ $rn == 0 ]] || fail "$name: does not run natively under cudyn (see ${name}_run_native.log)"
  if [[ $(field "$clamped" exit) == 1 ]]; then
    [[ $rc != 0 ]] || fail "$name: cudyn-check says incompatible at 12.8, but it ran"
  else
    [[ $rc == 0 ]] || fail "$name: cudyn-check says it runs at 12.8, but it failed"
  fi
}

pydir() { python3 -c "import $1, os; print(os.path.dirname($1.__file__))" 2>/dev/null; }

torch_dir=$(pydir torch)
if [[ -n $torch_dir ]]; then
  framework torch torch "$torch_dir/lib/libtorch_cuda.so" "$torch_dir/lib/libc10_cuda.so"
  "$check" binary --target-version 12.8 --json "$torch_dir/lib" >"$out/torch_libdir.json" 2>"$out/torch_libdir.stderr"
  echo "  torch/lib as a directory at 12.8: $(summarize "$out/torch_libdir.json")"
else
  echo "no torch on this machine"
fi
cupy_dir=$(pydir cupy)
if [[ -n $cupy_dir ]]; then
  framework cupy cupy "$cupy_dir"
else
  echo "no cupy on this machine"
fi
jax_plugins=$(python3 -c 'import jax_plugins; print(list(jax_plugins.__path__)[0])' 2>/dev/null)
if [[ -n $jax_plugins ]]; then
  # The plugin's ELF files need nothing CUDA (DT_NEEDED); its Python code loads the nvidia wheels'
  # libraries (nvidia/cu13/lib/libcudart.so.13 is mapped once jax runs), which cudyn-check cannot
  # see: judge the plugin together with them, as an operator judging the environment would.
  site=$(dirname "$jax_plugins")
  "$check" binary --deps --json --target-version 12.8 "$jax_plugins" \
    $(ls -d "$site"/jax_cuda*_plugin 2>/dev/null) >"$out/jax_alone_12080.json" 2>"$out/jax_alone_12080.stderr"
  echo "== jax plugin alone (what DT_NEEDED shows) at 12.8: $(summarize "$out/jax_alone_12080.json")"
  framework jax jax "$jax_plugins" $(ls -d "$site"/jax_cuda*_plugin "$site"/nvidia/cu*/lib 2>/dev/null)
  # The whole environment as one directory (every framework and every nvidia/* library).
  "$check" binary --deps --json "$(dirname "$jax_plugins")" >"$out/site_packages.json" 2>"$out/site_packages.stderr"
  echo "== all of site-packages on the driver: $(summarize "$out/site_packages.json")"
else
  echo "no jax CUDA plugin on this machine"
fi
wheel=$(find / -xdev -name '*.whl' -size +1M 2>/dev/null | head -n 1)
if [[ -n $wheel ]]; then
  "$check" binary --deps --json --target-version 12.8 "$wheel" >"$out/wheel.json" 2>"$out/wheel.stderr"
  echo "== a wheel on this machine, $wheel, at 12.8: $(summarize "$out/wheel.json")"
else
  echo "no wheel files on this machine"
fi

echo "$failures failure(s)"
((failures == 0))
