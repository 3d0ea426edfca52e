#!/bin/bash
# NVRTC through cudyn on a GPU. NOT YET RUN on a GPU. Needs the carry folder of
# tests/gpu/stage_nvrtc.sh and the machine's CUDA 13.0 toolkit (nvcc / g++, nvrtc.h, cuda.h,
# libnvrtc.so.13 and its builtins).
#
#   tests/gpu/run_nvrtc.sh CARRY OUT_DIR
#
# Builds tests/gpu/nvrtc_probe.cc linked directly against the toolkit's libnvrtc.so.13 and
# libcuda.so.1 (knowing nothing of cudyn) and runs it:
#   direct              the real driver, the 13.0 NVRTC (PTX 9.0)
#   direct, clamp V     cudyn's driver drop-in with CUDYN_MAX_CUDA_VERSION=V and driver emulation
#                       (CUDYN_CLAMP_MODE=emulate), the 13.0 NVRTC still: at 12.8 / 12.2 / 11.8 the
#                       emulated driver refuses PTX 9.0 at load: load_rc=222
#   cudyn, clamp V      the same with cudyn's NVRTC drop-in as libnvrtc.so.13 (lib/cudyn/nvrtc first
#                       on LD_LIBRARY_PATH) and the real NVRTCs 13.0 (toolkit), 12.5, 12.4, 11.8
#                       offered: cudyn picks the newest whose PTX the (clamped) driver loads
#                       (13.0 -> 13.0 / 9.0, 12.8 -> 12.5 / 8.5, 12.2 -> 11.8 / 7.8, 11.8 -> 11.8 / 7.8)
# Expected: every run succeeds (result=ok) except direct under a clamp below 13.0 (load_rc=222).
# Also through `cudyn run --nvrtc` where the tree's cudyn has it. Logs: OUT_DIR/nvrtc/*.log.
# Exit status 1 when a run that should pass did not, or a run expected to fail with 222 did not.
set -u
C=$(cd "${1:?carry folder}" && pwd) || exit 2
mkdir -p "${2:?out dir}/nvrtc" && out=$(cd "$2/nvrtc" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-nvrtc.XXXXXX")
trap 'rm -rf "$work"' EXIT
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda=${CUDA_PATH:-$(dirname "$(dirname "$nvcc")")}
[[ -f $cuda/lib64/libnvrtc.so.13 ]] || { echo "run_nvrtc: no $cuda/lib64/libnvrtc.so.13" >&2; exit 2; }
tar -xJf "$C/nvrtc.tar.xz" -C "$work" || exit 2
g++ -std=c++17 -O2 -I "$cuda/include" -o "$work/nvrtc_probe" "$C/nvrtc_probe.cc" \
  -L "$cuda/lib64" -l:libnvrtc.so.13 -L "$cuda/lib64/stubs" -lcuda \
  -Wl,--enable-new-dtags,-rpath,"$cuda/lib64" || exit 2
# RUNPATH (not RPATH): searched after LD_LIBRARY_PATH, so lib/cudyn/nvrtc first there wins.
dropin=$C/tree/lib/cudyn
nvrtc_dirs="$cuda/lib64:$work/nvrtc/12.5:$work/nvrtc/12.4:$work/nvrtc/11.8"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$out/gpu.log"
failed=0
# run LABEL EXPECT(ok|222) ENV... : the probe with those variables; checks its result.
run() {
  local label=$1 expect=$2
  shift 2
  env -u LD_LIBRARY_PATH -u CUDYN_MAX_CUDA_VERSION -u CUDYN_CLAMP_MODE "$@" "$work/nvrtc_probe" \
    >"$out/$label.log" 2>&1
  local rc=$? got
  got=$(grep -E '^(nvrtc|ptx_version|load_rc|result)=' "$out/$label.log" | tr '\n' ' ')
  local pass=0
  if [[ $expect == ok ]]; then
    [[ $rc == 0 ]] && pass=1
  elif [[ $rc != 0 ]] && grep -q '^load_rc=222$' "$out/$label.log"; then
    pass=1
  fi
  if ((pass)); then
    echo "ok:     $label ($got)"
  else
    echo "FAILED: $label, expected $expect (exit $rc: $got)"
    failed=1
  fi
}
run direct ok
run direct_through_driver_dropin ok LD_LIBRARY_PATH="$dropin"
run cudyn ok LD_LIBRARY_PATH="$dropin/nvrtc:$dropin:$nvrtc_dirs"
for v in 13.0 12.8 12.2 11.8; do
  expect=222
  [[ $v == 13.0 ]] && expect=ok
  run "direct_clamp_$v" $expect LD_LIBRARY_PATH="$dropin" CUDYN_MAX_CUDA_VERSION=$v \
    CUDYN_CLAMP_MODE=emulate
  run "cudyn_clamp_$v" ok LD_LIBRARY_PATH="$dropin/nvrtc:$dropin:$nvrtc_dirs" \
    CUDYN_MAX_CUDA_VERSION=$v CUDYN_CLAMP_MODE=emulate
done
# `cudyn run --nvrtc` (preloads lib/cudyn/nvrtc/libnvrtc.so.13), where this tree's cudyn has it.
if "$C/tree/bin/cudyn" run --help 2>&1 | grep -q -- --nvrtc; then
  for v in none 12.2; do
    opt=()
    [[ $v == none ]] || opt=(--max-cuda-version "$v" --emulate-driver)
    run "cudyn_run_nvrtc_$v" ok LD_LIBRARY_PATH="$nvrtc_dirs" "$C/tree/bin/cudyn" run --nvrtc \
      "${opt[@]}" --
  done
else
  echo "skipped: cudyn run --nvrtc (not in this tree's cudyn)"
fi
grep -H -E '^(nvrtc|ptx_version|driver_version|load_rc|result)=' "$out"/*.log
exit $failed
