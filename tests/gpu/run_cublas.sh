#!/bin/bash
# cuBLAS through cudyn on a GPU: tests/gpu/cublas_probe.c (CUDA 13.0 headers, NEEDED
# libcublas.so.13) built with the machine's toolkit, run directly, through `cudyn run --cublas`
# (unclamped, and with the real cuBLAS 12.5 chosen by CUDYN_CUBLAS_PATH), and under an emulated
# CUDA 12.2 driver with and without cudyn's cuBLAS (the runtime swapped to the real 12.5 by --cudart).
# Usage (GPU machine, repository root):
#   bash tests/gpu/run_cublas.sh CARRY CUBLAS_12_5_DIR OUT [CUBLAS_11_8_DIR]
#   CARRY: the folder of tests/gpu/stage_cudart.sh (tree/bin/cudyn, runtimes/12.5, runtimes/11.8)
#   the cuBLAS folders: Debian's libcublas.so.N + libcublasLt.so.N (third_party/fetch_runtimes.sh)
set -u
C=${1:?carry folder}
B=${2:?folder with libcublas.so.12 and libcublasLt.so.12 (12.5)}
O=${3:?output folder}
B118=${4:-}
cuda=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$O"
gcc -O2 -o "$O/cublas_probe" tests/gpu/cublas_probe.c -I"$cuda/include" -L"$cuda/lib64" \
  -lcublas -lcudart -lm || exit 1
cudyn=$C/tree/bin/cudyn
rt125=$(ls "$C"/runtimes/12.5/libcudart.so.*)
failed=0
run() { # run <label> <expect: ok|fail> <command...>
  local label=$1 expect=$2
  shift 2
  echo "=== $label"
  "$@" >"$O/$label.txt" 2>"$O/$label.err"
  cat "$O/$label.txt"
  if [[ $expect == ok ]] && ! grep -q '^result=ok' "$O/$label.txt"; then
    echo "FAILED: $label"; tail -5 "$O/$label.err"; failed=1
  fi
}
run direct ok "$O/cublas_probe"
run cudyn_cublas ok "$cudyn" run --cublas -- "$O/cublas_probe"
run cudyn_cublas_12.5_explicit ok env CUDYN_CUBLAS_PATH="$B/libcublas.so.12" \
  "$cudyn" run --cublas -- "$O/cublas_probe"
# An emulated CUDA 12.2 driver (the runtime: the real 12.5 through --cudart): the program's own
# cuBLAS 13 cannot run there; cudyn's picks the 12.5 of the library path.
run clamp_12.2_own_cublas13 fail "$cudyn" run --cudart --runtime "$rt125" --max-cuda-version 12.2 \
  -- "$O/cublas_probe"
for clamp in 12.8 12.2; do
  run "clamp_${clamp}_cudyn_cublas" ok env LD_LIBRARY_PATH="$B" "$cudyn" run --cudart \
    --runtime "$rt125" --cublas --max-cuda-version "$clamp" -- "$O/cublas_probe"
done
rt118=$(ls "$C"/runtimes/11.8/libcudart.so.*)
if [[ -n $B118 ]]; then
  # 11.8: cudyn takes the 11.8 cuBLAS (12.5 and 13 refused: their runtimes need newer drivers).
  run clamp_11.8_cudyn_cublas ok env LD_LIBRARY_PATH="$B:$B118" "$cudyn" run --cudart \
    --runtime "$rt118" --cublas --max-cuda-version 11.8 -- "$O/cublas_probe"
else
  # Only 12.5 and 13 present: none runs on 11.8; cublasCreate answers CUBLAS_STATUS_NOT_INITIALIZED
  # (1) and cudyn says why.
  run clamp_11.8_cudyn_cublas_none fail env LD_LIBRARY_PATH="$B" "$cudyn" run --cudart \
    --runtime "$rt118" --cublas --max-cuda-version 11.8 -- "$O/cublas_probe"
fi
exit $failed
