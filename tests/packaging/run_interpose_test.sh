#!/usr/bin/env bash
# `cudyn run --runtime` against a library that carries its own runtime, as PyTorch's do: a
# "framework" (framework/fw.c) with NEEDED libcudart.so.13 and a DT_RPATH to fwlib/ beside it holding
# a 13.0 runtime (the fake one), opened with dlopen by framework_host.c. Without cudyn it runs on its
# own copy (13000); under `cudyn run --runtime <real 12.5>` its calls reach 12.5 through cudyn's
# preloaded runtime drop-in, mapped under a name containing "libcudart.so" -- also when the program
# first does torch/__init__.py's preload check. A second runtime called directly is reported once.
#   $1 install.sh  $2 tarball  $3 framework_host  $4 framework/libfw.so  $5 fake runtime 13.0
#   $6 real runtime 12.5  $7 real runtime 12.4  $8 fake driver 13000
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
install_sh=$(abs "$1") tarball=$(abs "$2") host=$(abs "$3") fw_built=$(abs "$4") fake130=$(abs "$5")
rt125=$(readlink -f "$6") rt124=$(readlink -f "$7") fake13000=$(abs "$8")
tmp=$(readlink -f "${TEST_TMPDIR:-$(mktemp -d)}")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
unset CUDYN_DRIVER_PATH CUDYN_MAX_CUDA_VERSION CUDYN_PER_THREAD_DEFAULT_STREAM CUDYN_DROPIN_DIR LD_LIBRARY_PATH \
  CUDYN_CUDART_PATH LD_PRELOAD CUDYN_LOG

CUDYN_DIST_TARBALL=$tarball "$install_sh" "$tmp/prefix" > /dev/null || { echo "FAIL: install"; exit 1; }
cudyn=$tmp/prefix/bin/cudyn
dropin_runtime=$tmp/prefix/lib/cudyn/cudart/libcudart.so.13
dropin_driver=$tmp/prefix/lib/cudyn/libcuda.so.1

# The framework as it is installed: fw/libfw.so, its own runtime in fw/fwlib/.
mkdir -p "$tmp/fw/fwlib"
cp "$fw_built" "$tmp/fw/libfw.so"
cp "$fake130" "$tmp/fw/fwlib/libcudart.so.13"
fw=$tmp/fw/libfw.so own=$tmp/fw/fwlib/libcudart.so.13
dyn=$(readelf -d "$fw")
grep -q '(RPATH).*\$ORIGIN/fwlib' <<<"$dyn" && ! grep -q '(RUNPATH)' <<<"$dyn" &&
  grep -q '(NEEDED).*\[libcudart\.so\.13\]' <<<"$dyn" &&
  ok "the framework needs libcudart.so.13 through DT_RPATH \$ORIGIN/fwlib" ||
  fail "the framework is not linked as PyTorch's libraries are:"$'\n'"$dyn"

out=$tmp/out
# expect NAME STATUS FILE [+PATTERN | -PATTERN]...: the exit status, lines present (+) and absent (-).
expect() {
  local name=$1 want=$2 got=$3 file=$4
  shift 4
  if [[ $got != "$want" ]]; then
    fail "$name: exit status $got, expected $want; output:"$'\n'"$(cat "$file")"
    return
  fi
  for p in "$@"; do
    if [[ $p == +* ]] && ! grep -qF -- "${p:1}" "$file"; then
      fail "$name: no '${p:1}' in:"$'\n'"$(cat "$file")"
      return
    elif [[ $p == -* ]] && grep -qF -- "${p:1}" "$file"; then
      fail "$name: '${p:1}' in:"$'\n'"$(cat "$file")"
      return
    fi
  done
  ok "$name"
}

# ---- without cudyn: the framework's own runtime ------------------------------------------------------
"$host" "$fw" > "$out" 2>&1
expect "no cudyn: the framework runs on its own 13.0 runtime" 0 $? "$out" \
  "+framework cudaRuntimeGetVersion: rc=0 version=13000" "+mapped: $own"
"$host" "$fw" --torch-preload > "$out" 2>&1
expect "no cudyn: the torch-style preload loads the framework's runtime" 0 $? "$out" \
  "+preload: loaded $own" "+version=13000"

# ---- under cudyn run --runtime <real 12.5> -----------------------------------------------------------
run() { "$cudyn" run --runtime "$rt125" --driver "$fake13000" -- "$host" "$fw" "$@"; }
run > "$out" 2>&1
expect "cudyn run: the framework's calls reach 12.5 through cudyn" 0 $? "$out" \
  "+framework cudaRuntimeGetVersion: rc=0 version=12050" \
  "+framework binds cudaRuntimeGetVersion to $dropin_runtime" \
  "+mapped: $dropin_runtime" "+mapped: $rt125" "-mapped: $own" "-bypass cudyn"
run --torch-preload > "$out" 2>&1
expect "cudyn run: the torch-style preload sees libcudart.so mapped and skips its own runtime" 0 $? "$out" \
  "+preload: skipped (mapped: $dropin_runtime)" "+version=12050" "-mapped: $own"
# The framework's runtime opened by absolute path first (RTLD_GLOBAL): it is mapped, but the
# framework's libcudart.so.13 is still cudyn's (loaded first under that SONAME).
run --preload-absolute > "$out" 2>&1
expect "cudyn run: a runtime dlopened by absolute path first does not take the framework" 0 $? "$out" \
  "+preload: loaded $own" "+version=12050" "+framework binds cudaRuntimeGetVersion to $dropin_runtime"
# The user's LD_PRELOAD stays, after cudyn's.
LD_PRELOAD=/nonexistent/libuser.so "$cudyn" run --runtime "$rt125" --driver "$fake13000" -- \
  sh -c 'echo "preload=$LD_PRELOAD"' > "$out" 2>&1
expect "cudyn run keeps the user's LD_PRELOAD after the driver and runtime drop-ins" 0 $? "$out" \
  "+preload=$dropin_driver:$dropin_runtime:/nonexistent/libuser.so"

# ---- another runtime called directly: one warning --------------------------------------------------
# The other runtime (the real 12.4 one, SONAME libcudart.so.12, which cudyn's drop-in does not
# stand in for) is called before anything else, so its libcuda.so.1 is cudyn's driver drop-in (which
# cudyn run preloads); then cudyn's own runtime (12.5) calls the driver too, and is not reported.
run --other-runtime "$rt124" > "$out" 2>&1
st=$?
warnings=$(grep -c "bypass cudyn" "$out")
if ((st != 0)); then fail "other runtime: exit $st:"$'\n'"$(cat "$out")"
elif ((warnings != 1)); then fail "other runtime: $warnings warnings, expected 1:"$'\n'"$(cat "$out")"
elif ! grep -q "warn.*another CUDA runtime is loaded and calls the driver: $rt124 (not cudyn's runtime $rt125); its calls bypass cudyn" "$out"; then
  fail "other runtime: the warning does not name both files:"$'\n'"$(cat "$out")"
elif ! grep -q "other runtime cudaGetDeviceCount" "$out" || ! grep -q "framework cudaGetDeviceCount" "$out"; then
  fail "other runtime: the calls did not all run:"$'\n'"$(cat "$out")"
else
  ok "another runtime that calls the driver is reported once: $(grep 'bypass cudyn' "$out")"
fi
# Without cudyn run (no CUDYN_CUDART_PATH) cudyn does not guess which runtime is its own.
LD_LIBRARY_PATH=$tmp/prefix/lib/cudyn CUDYN_DRIVER_PATH=$fake13000 "$host" "$fw" --other-runtime "$rt124" > "$out" 2>&1
expect "driver drop-in without cudyn run: no warning" 0 $? "$out" "+other runtime cudaGetDeviceCount" "-bypass cudyn"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all interposition cases passed"
