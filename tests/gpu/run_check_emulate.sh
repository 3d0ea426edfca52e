#!/bin/bash
# cudyn-check's kernel verdict against the emulated driver on a real GPU (issue 23): for each
# device-code image — the nvcc 13.0 ones of tests/emulate/nvcc_images.sh, built here, and the
# nvcc 11.8 ones of //tests/emulate:nvcc118_images, carried — and each emulated driver version,
#   predicted: `cudyn-check binary IMAGE.o --target-version V --gpu <this GPU> --json` (the image
#              wrapped in an ELF object's .nv_fatbin section), its kernels layer's cuda_error
#              (0: it runs);
#   observed:  tests/gpu/emulate_probe.cc's cuModuleLoadData of the image under
#              CUDYN_MAX_CUDA_VERSION=V CUDYN_CLAMP_MODE=emulate (cudyn's drop-in as libcuda.so.1)
#              on the real driver, whose kernel then runs.
# Every pair must agree. Usage (GPU machine, repository root):
#   bash tests/gpu/run_check_emulate.sh TREE IMAGES_11_8_DIR OUT
#   TREE: the install tree (bin/cudyn-check, lib/cudyn/libcuda.so.1)
set -u
source "$(dirname "$0")/kernel_agree.sh"
tree=$(cd "${1:?install tree}" && pwd)
img118=$(cd "${2:?nvcc 11.8 images}" && pwd)
mkdir -p "${3:?output folder}" && out=$(cd "$3" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-check-emulate.XXXXXX")
trap 'rm -rf "$work"' EXIT
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# The images //tests/emulate builds with nvcc 13.0 (its BUILD's IMAGES).
tests/emulate/nvcc_images.sh "$nvcc" tools/fatbin/testdata/kernel.cu "$work/img130" 90 \
  $(sed -n '/^IMAGES = \[/,/^]/p' tests/emulate/BUILD | grep -o '"[^"]*"' | tr -d '"') || exit 2
"$nvcc" -std=c++17 -o "$work/probe" tests/gpu/emulate_probe.cc -lcuda || exit 2
gpu=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$out/gpu.log"
images=()
for f in "$work"/img130/*.fatbin "$img118"/*.fatbin; do
  tag=$(basename "$(dirname "$f")")
  [[ $tag == img130 ]] && tag=nvcc13.0 || tag=nvcc11.8
  name="$tag-$(basename "$f" .fatbin)"
  cp "$f" "$work/$name.fatbin"
  (cd "$work" && objcopy -I binary -O elf64-x86-64 -B i386:x86-64 \
    --rename-section .data=.nv_fatbin,alloc,load,readonly,data,contents \
    --set-section-alignment .data=8 "$name.fatbin" "$name.o") || exit 2
  images+=("$name")
done
failed=0
printf '%-22s %-8s %-10s %-10s %s\n' image version predicted observed agree | tee "$out/table.txt"
for v in 13.0 12.8 12.2 11.8; do
  (cd "$work" && LD_LIBRARY_PATH="$tree/lib/cudyn" CUDYN_MAX_CUDA_VERSION=$v CUDYN_CLAMP_MODE=emulate \
    ./probe "${images[@]/%/.fatbin}") >"$out/emulate_$v.log" 2>&1
  for name in "${images[@]}"; do
    observed=$(sed -n "s/^$name.fatbin *cuModuleLoadData=\([0-9]*\).*/\1/p" "$out/emulate_$v.log")
    agree "$tree/bin/cudyn-check" "$work/$name.o" "$v" "$gpu" "$name" "$observed" "$out/table.txt" ||
      failed=1
  done
done
exit $failed
