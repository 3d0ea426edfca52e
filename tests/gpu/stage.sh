#!/bin/bash
# Builds what tests/gpu/run_gpu.sh needs and copies it into one folder to carry to a GPU machine
# (which has no Bazel).
#
#   tests/gpu/stage.sh [DEST]        default DEST: <repo>/.gpu_carry
#
# Main workspace:      bazel build //tools:cudyn-check //stubs:libcudyn_cuda.so //dist:tarball
# examples workspace:  bazel build //...   (vector_add managed_memory graph context events vmm shim_client)
# Then, on the GPU machine, from the repository root:  bash tests/gpu/run_gpu.sh DEST OUT_DIR
# and bash tests/gpu/run_cudyn_run.sh DEST OUT_DIR
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$repo/.gpu_carry}
EXAMPLES="vector_add managed_memory graph context events vmm shim_client"

cd "$repo"
bazel build //tools:cudyn-check //stubs:libcudyn_cuda.so //dist:tarball
main_bin=$(bazel info bazel-bin 2>/dev/null)

cd "$repo/examples"
bazel build //...
examples_bin=$(bazel info bazel-bin 2>/dev/null)

mkdir -p "$dest"
rm -f "$dest"/*
cp "$main_bin/tools/cudyn-check" "$main_bin/stubs/libcudyn_cuda.so" "$dest/"
cp "$main_bin"/dist/cudyn-*-linux-x86_64.tar.gz "$dest/"  # for run_cudyn_run.sh
for name in $EXAMPLES; do
  cp "$examples_bin/$name/$name" "$dest/"
done
gcc -O2 -o "$dest/probe_silence" "$repo/tests/gpu/probe_silence.c" -ldl
chmod 755 "$dest"/*

total=$(du -cb "$dest"/* | tail -n 1 | cut -f1)
ls -l "$dest"
echo "stage.sh: $(ls "$dest" | wc -l) files, $((total / 1024)) KiB in $dest"
if [ "$total" -gt $((60 * 1024 * 1024)) ]; then
  echo "stage.sh: more than 60 MiB: too big to carry (64 MiB limit with the working tree)" >&2
  exit 1
fi
