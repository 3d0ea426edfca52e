#!/bin/bash
# Driver emulation (CUDYN_CLAMP_MODE=emulate) on the GPU machine. NOT YET RUN on a GPU.
#
#   tests/gpu/run_emulate.sh DROPIN_DIR OUT_DIR
#
# DROPIN_DIR holds cudyn's shared drop-in as libcuda.so.1 (lib/cudyn of the install tree). With the
# machine's nvcc this builds tests/gpu/emulate_probe.cc and the images of //tests/emulate
# (tests/emulate/nvcc_images.sh: SASS-only sm_90, PTX-only compute_80, sm_100-only, sm_90 + its
# PTX, bare PTX and cubins) and runs the probe directly, through cudyn, and through cudyn clamped
# to 13.0 / 12.8 / 12.2 / 11.8 / 11.4 with and without emulation. What to look for: the filtered
# fatbins the emulation hands the real driver load and run (out=0123); direct, the real driver
# answers 209 for sm_100 on an sm_90 GPU, as the rule does; emulated at 12.x the PTX-only images
# give 222; at 11.4 cuInit gives 100 on an sm_90 GPU. Logs: OUT_DIR/emulate/*.log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dropin=$(cd "$1" && pwd) || exit 2
mkdir -p "$2/emulate" && out=$(cd "$2/emulate" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-emulate.XXXXXX")
trap 'rm -rf "$work"' EXIT
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# The images //tests/emulate builds with nvcc 13.0 (its BUILD's IMAGES).
"$repo/tests/emulate/nvcc_images.sh" "$nvcc" "$repo/tools/fatbin/testdata/kernel.cu" "$work/img" 90 \
  $(sed -n '/^IMAGES = \[/,/^]/p' "$repo/tests/emulate/BUILD" | grep -o '"[^"]*"' | tr -d '"') || exit 2
"$nvcc" -std=c++17 -o "$work/probe" "$here/emulate_probe.cc" -lcuda || exit 2
imgs=$(ls "$work"/img/*)
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$out/gpu.log"
"$work/probe" $imgs > "$out/direct.log" 2>&1
LD_LIBRARY_PATH=$dropin "$work/probe" $imgs > "$out/cudyn.log" 2>&1
for v in 13.0 12.8 12.2 11.8 11.4; do
  LD_LIBRARY_PATH=$dropin CUDYN_MAX_CUDA_VERSION=$v "$work/probe" $imgs > "$out/clamp_$v.log" 2>&1
  LD_LIBRARY_PATH=$dropin CUDYN_MAX_CUDA_VERSION=$v CUDYN_CLAMP_MODE=emulate CUDYN_LOG=info \
    "$work/probe" $imgs > "$out/emulate_$v.log" 2>&1
done
head -n 100 "$out"/*.log
