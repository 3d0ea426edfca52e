#!/bin/bash
# The runtime, NVRTC and cuBLAS through cudyn in one program on a GPU (issue 20):
# tests/gpu/family_probe.cc, built here against the machine's CUDA 13.0 toolkit (NEEDED
# libcudart.so.13, libnvrtc.so.13, libcublas.so.13, libcuda.so.1), run
#   - directly (the toolkit's 13.0 libraries: the reference hash),
#   - through `cudyn run --cudart --nvrtc --cublas` unclamped and under the emulated drivers 12.8,
#     12.2 and 11.8 (--max-cuda-version V --emulate-driver), every real library on the search path,
#     so each library is chosen by cudyn's rule for that driver,
#   - under clamp 12.4 with the real 12.4 runtime and NVRTC named explicitly,
#   - under the emulated 12.2 without cudyn's runtime/NVRTC/cuBLAS (the program's own 13.x ones):
#     what the program gets on a real 12.2 driver without cudyn.
# Each cudyn run must answer result=ok with the direct run's hash (bit-identical outputs) and the
# versions the rules name (EXPECT below: the runtime whose family the driver runs, the NVRTC whose
# PTX ISA the driver JITs — ptx_isa.tsv: 12.8 → 8.7, 12.2 → 8.2, 11.8 → 7.8 — the cuBLAS whose
# major the driver runs).
# Usage (GPU machine, repository root):
#   bash tests/gpu/run_family.sh CARRY NVRTC_ROOT CUBLAS_12_5_DIR CUBLAS_11_8_DIR OUT [CUBLAS_12_4_DIR]
#   CARRY: tests/gpu/stage_cudart.sh's folder (tree/bin/cudyn, runtimes/<version>/)
#   NVRTC_ROOT: <version>/libnvrtc*.so* for 11.8, 12.4, 12.5 (tests/gpu/stage_nvrtc.sh's nvrtc/)
#   the cuBLAS folders: Debian's libcublas.so.N + libcublasLt.so.N; with CUBLAS_12_4_DIR the 12.4 row
#   names that cuBLAS too (CUDYN_CUBLAS_PATH) and checks its exact version (12.4.5: 120405)
set -u
C=${1:?carry folder}
NV=${2:?NVRTC root}
B125=${3:?cuBLAS 12.5 folder}
B118=${4:?cuBLAS 11.8 folder}
O=${5:?output folder}
B124=${6:-}
cuda=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$O"
g++ -std=c++17 -O2 -I"$cuda/include" -o "$O/family_probe" tests/gpu/family_probe.cc \
  -L"$cuda/lib64" -lcublas -lnvrtc -lcudart -L"$cuda/lib64/stubs" -lcuda \
  -Wl,--enable-new-dtags,-rpath,"$cuda/lib64" || exit 2
cudyn=$C/tree/bin/cudyn
rt() { ls "$C"/runtimes/"$1"/libcudart.so.*; }
libs="$C/runtimes/12.5:$C/runtimes/11.8:$NV/12.5:$NV/12.4:$NV/11.8:$B125:$B118"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$O/gpu.log"
failed=0
reference=
# run LABEL EXPECT COMMAND...: EXPECT is "ok RUNTIME NVRTC CUBLAS_MAJOR [CUBLAS_VERSION]" (checked
# against the probe's runtime_version, nvrtc, cublas_version / 10000 and, when given,
# cublas_version) or "fail" (the probe must not answer ok).
run() {
  local label=$1 expect=$2
  shift 2
  env -u CUDYN_MAX_CUDA_VERSION -u CUDYN_CLAMP_MODE "$@" "$O/family_probe" >"$O/$label.log" 2>&1
  local rc=$? got
  got=$(grep -E '^(runtime_version|driver_version|nvrtc|ptx_version|load_rc|cublas_version|hash|result)=' \
    "$O/$label.log" | tr '\n' ' ')
  local rt nv cb hash
  rt=$(sed -n 's/^runtime_version=//p' "$O/$label.log")
  nv=$(sed -n 's/^nvrtc=//p' "$O/$label.log")
  cb=$(sed -n 's/^cublas_version=//p' "$O/$label.log")
  hash=$(sed -n 's/^hash=//p' "$O/$label.log")
  local pass=0
  if [[ $expect == fail ]]; then
    [[ $rc != 0 ]] && pass=1
  elif [[ $rc == 0 ]]; then
    read -r _ want_rt want_nv want_cb want_exact <<<"$expect"
    [[ -z $reference ]] && reference=$hash
    [[ $rt == "$want_rt" && $nv == "$want_nv" && $((cb / 10000)) == "$want_cb" &&
      $hash == "$reference" && ( -z $want_exact || $cb == "$want_exact" ) ]] && pass=1
  fi
  if ((pass)); then
    echo "ok:     $label ($got)"
  else
    echo "FAILED: $label, expected $expect (exit $rc: $got)"
    failed=1
  fi
}
run direct "ok 13000 13.0 13"
run cudyn "ok 13000 13.0 13" env LD_LIBRARY_PATH="$libs" "$cudyn" run --cudart --nvrtc --cublas --
run cudyn_clamp_12.8 "ok 12050 12.5 12" env LD_LIBRARY_PATH="$libs" "$cudyn" run --cudart --nvrtc \
  --cublas --max-cuda-version 12.8 --emulate-driver --
run cudyn_clamp_12.2 "ok 12050 11.8 12" env LD_LIBRARY_PATH="$libs" "$cudyn" run --cudart --nvrtc \
  --cublas --max-cuda-version 12.2 --emulate-driver --
run cudyn_clamp_11.8 "ok 11080 11.8 11" env LD_LIBRARY_PATH="$libs" "$cudyn" run --cudart --nvrtc \
  --cublas --max-cuda-version 11.8 --emulate-driver --
cublas124=()
expect124="ok 12040 12.4 12"
if [[ -n $B124 ]]; then
  cublas124=(CUDYN_CUBLAS_PATH="$B124/libcublas.so.12")
  expect124="ok 12040 12.4 12 120405"
fi
run cudyn_clamp_12.4_explicit "$expect124" env LD_LIBRARY_PATH="$libs" "${cublas124[@]}" \
  CUDYN_NVRTC_PATH="$(ls "$NV"/12.4/libnvrtc.so.*)" "$cudyn" run --cudart --runtime "$(rt 12.4)" \
  --nvrtc --cublas --max-cuda-version 12.4 --emulate-driver --
run own_libraries_clamp_12.2 fail env LD_LIBRARY_PATH="$libs" "$cudyn" run --max-cuda-version 12.2 \
  --emulate-driver --
grep -H -E '^(runtime_version|nvrtc|ptx_version|cublas_version|mapped|hash|result)=' "$O"/*.log
exit $failed
