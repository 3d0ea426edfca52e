#!/bin/bash
# The runtime drop-in on a real GPU with every real CUDA runtime.
#
#   tests/gpu/run_cudart.sh CARRY_DIR OUT_DIR
#
# CARRY_DIR holds cudart_smoke and libcudyn_cudart.so (//tests/cudart_dropin:nvcc_programs: an
# nvcc-13 program built with -cudart none, linked with cudyn), runtimes/<version>/<soname> (the
# real runtimes 11.2, 11.8, 12.4, 12.5 of third_party/cuda_runtimes.bzl and 13.0 of the toolkit)
# and cudart_smoke_native (the same source built the ordinary way, runtime linked statically: the
# reference). Runs: each runtime chosen by CUDYN_CUDART_PATH; cudyn's own choice natively and
# with CUDYN_MAX_CUDA_VERSION 12020 / 11040 (the runtimes' directories on LD_LIBRARY_PATH, as a
# site would install them). Every run must print "ok", report the runtime it was meant to get,
# and print exactly the reference's lines (results and device properties), "info:" lines aside.
# Then the same source built with `-cudart shared` (CARRY_DIR/cudart_smoke_shared:
# //tests/cudart_dropin:nvcc_shared_programs, NEEDED libcudart.so.13, knows nothing of cudyn): on its
# own 13.0 runtime, and under `cudyn run --runtime <each runtime>` / `cudyn run --cudart
# [--max-cuda-version]` from the install tree unpacked in CARRY_DIR/tree (//dist:tarball). Last,
# CARRY_DIR/forward_probe (tests/gpu/forward_probe.c, gcc against the toolkit's libcudart.so.13)
# compares the forwarded graphics-interop functions through cudyn with each runtime's own.
# Logs: OUT_DIR/cudart/*. Exit 0 when every expectation holds.
set -u
carry=$(cd "$1" && pwd) || exit 2
mkdir -p "$2/cudart" && out=$(cd "$2/cudart" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
smoke=$carry/cudart_smoke
"$carry/cudart_smoke_native" >"$out/native_reference.txt" 2>&1 || fail "reference run: $(tail -3 "$out/native_reference.txt")"
grep -v '^info:' "$out/native_reference.txt" >"$out/reference.txt"
# run NAME EXPECTED_RUNTIME_VERSION ENV...: the cudyn-linked program.
run() {
  local name=$1 want=$2
  shift 2
  run_cmd "$name" "$want" env "$@" CUDYN_LOG=info "$smoke"
}
# run_cmd NAME EXPECTED_RUNTIME_VERSION COMMAND...
run_cmd() {
  local name=$1 want=$2
  shift 2
  "$@" >"$out/$name.txt" 2>"$out/$name.log"
  local rc=$?
  ((rc == 0)) || fail "$name: exit $rc: $(tail -2 "$out/$name.txt")"
  grep -q "^info: runtime=$want " "$out/$name.txt" || fail "$name: not runtime $want: $(grep '^info:' "$out/$name.txt")"
  if ! diff <(grep -v '^info:' "$out/$name.txt") "$out/reference.txt" >"$out/$name.diff"; then
    fail "$name: output differs from the reference (see $name.diff)"
  fi
  echo "$name: $(grep '^info:' "$out/$name.txt") -> $(grep -c . "$out/$name.txt") lines, $(wc -l <"$out/$name.diff") differing"
}
for dir in "$carry"/runtimes/*/; do
  v=$(basename "$dir")
  lib=$(ls "$dir"libcudart.so.* | head -1)
  run "runtime_$v" "$((${v%%.*} * 1000 + ${v#*.} * 10))" CUDYN_CUDART_PATH="$lib"
done
paths="$carry/runtimes/12.5:$carry/runtimes/11.8"
run native_choice 13000 LD_LIBRARY_PATH="$carry/runtimes/13.0:$paths"
run clamp_12020 12050 LD_LIBRARY_PATH="$paths" CUDYN_MAX_CUDA_VERSION=12020
run clamp_11040 11080 LD_LIBRARY_PATH="$paths" CUDYN_MAX_CUDA_VERSION=11040

# The -cudart shared program: its own runtime, then cudyn through `cudyn run`.
shared=$carry/cudart_smoke_shared
cudyn=$carry/tree/bin/cudyn
run_cmd shared_own_13.0 13000 env LD_LIBRARY_PATH="$carry/runtimes/13.0" "$shared"
for dir in "$carry"/runtimes/*/; do
  v=$(basename "$dir")
  lib=$(ls "$dir"libcudart.so.* | head -1)
  run_cmd "shared_runtime_$v" "$((${v%%.*} * 1000 + ${v#*.} * 10))" "$cudyn" run --runtime "$lib" -- "$shared"
done
run_cmd shared_choice 13000 env LD_LIBRARY_PATH="$carry/runtimes/13.0:$paths" "$cudyn" run --cudart -- "$shared"
run_cmd shared_clamp_12020 12050 env LD_LIBRARY_PATH="$paths" "$cudyn" run --cudart --max-cuda-version 12.2 -- "$shared"
run_cmd shared_clamp_11040 11080 env LD_LIBRARY_PATH="$paths" "$cudyn" run --cudart --max-cuda-version 11.4 -- "$shared"

# The graphics-interop functions cudyn forwards untyped (forward_probe, tests/gpu/forward_probe.c):
# through cudyn's drop-in they must answer exactly what each real runtime answers when called
# directly (no GL context or VDPAU device here: the runtimes' own errors).
for dir in "$carry"/runtimes/*/; do
  v=$(basename "$dir")
  lib=$(ls "$dir"libcudart.so.* | head -1)
  "$carry/forward_probe" direct "$lib" >"$out/forward_direct_$v.txt" 2>&1 || fail "forward_probe direct $v: exit $?"
  "$cudyn" run --runtime "$lib" -- "$carry/forward_probe" linked >"$out/forward_cudyn_$v.txt" 2>"$out/forward_cudyn_$v.log" ||
    fail "forward_probe through cudyn on $v: exit $?"
  if diff "$out/forward_direct_$v.txt" "$out/forward_cudyn_$v.txt" >/dev/null; then
    echo "forward_$v: $(tr '\n' ' ' <"$out/forward_cudyn_$v.txt")(identical)"
  else
    fail "forward_$v: through cudyn $(tr '\n' ' ' <"$out/forward_cudyn_$v.txt") vs direct $(tr '\n' ' ' <"$out/forward_direct_$v.txt")"
  fi
done
echo "cudart: $failures failure(s)"
((failures == 0))
