#!/bin/bash
# Builds what tests/gpu/run_cudart.sh needs and lays it out in one folder to carry to a GPU machine
# (which has no Bazel). Needs the real runtimes of third_party/fetch_runtimes.sh (run
# third_party/fetch_deps.sh once) and the CUDA 13.0 toolkit (nvcc, libcudart.so.13).
#
#   tests/gpu/stage_cudart.sh [DEST]        default DEST: <repo>/.gpu_carry_cudart
#
# DEST gets (the layout run_cudart.sh reads):
#   cudart_smoke, libcudyn_cudart.so   nvcc 13, -cudart none, linked with cudyn (-c opt)
#   cudart_smoke_shared                nvcc 13, -cudart shared (NEEDED libcudart.so.13, no cudyn)
#   cudart_smoke_native                nvcc 13, the runtime linked statically: the reference
#   forward_probe                      tests/gpu/forward_probe.c, gcc, against libcudart.so.13
#   runtimes/<version>/<soname>        11.2, 11.8, 12.4, 12.5 (Debian) and 13.0 (the toolkit)
#   tree/                              the install tree (//dist:tarball unpacked): bin/cudyn run
# Then, on the GPU machine:  bash tests/gpu/run_cudart.sh DEST OUT_DIR
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$repo/.gpu_carry_cudart}
cuda=${CUDA_PATH:-/usr/local/cuda-13.0}
cache=${CUDYN_DEPS:-/var/cache/cudyn-deps}
nvcc=$cuda/bin/nvcc
[[ -x $nvcc ]] || { echo "stage_cudart: no nvcc at $nvcc (set CUDA_PATH)" >&2; exit 1; }

cd "$repo"
bazel build -c opt //tests/cudart_dropin:nvcc_programs //tests/cudart_dropin:nvcc_shared_programs \
  //dist:tarball
bin=$(bazel info -c opt bazel-bin 2>/dev/null)

rm -rf "$dest"
mkdir -p "$dest/runtimes" "$dest/tree"
cp "$bin/tests/cudart_dropin/nvcc/cudart_smoke" "$bin/tests/cudart_dropin/nvcc/libcudyn_cudart.so" "$dest/"
cp "$bin/tests/cudart_dropin/nvcc_shared/cudart_smoke" "$dest/cudart_smoke_shared"
# The reference: the same source as the toolkit builds it by default (static runtime), same arch.
"$nvcc" -std=c++17 -I "$repo" -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
  -Xcompiler -Wno-deprecated-declarations -o "$dest/cudart_smoke_native" \
  tests/cudart_dropin/cudart_smoke.cu
gcc -O2 -o "$dest/forward_probe" tests/gpu/forward_probe.c -L "$cuda/lib64" -l:libcudart.so.13 -ldl

# The runtimes, one file each under its SONAME (the one list: third_party/cuda_runtimes.bzl).
python3 - "$repo/third_party/cuda_runtimes.bzl" <<'EOF' >"$dest/runtimes/list"
import sys
scope = {}
exec(open(sys.argv[1]).read(), scope)
for version, (_, _, _, soname) in scope["CUDA_RUNTIMES"].items():
    print(version, soname)
EOF
while read -r version soname; do
  src=$cache/cudart/$version/$soname
  [[ -f $src ]] || { echo "stage_cudart: $src missing (run third_party/fetch_deps.sh)" >&2; exit 1; }
  mkdir -p "$dest/runtimes/$version"
  cp -L "$src" "$dest/runtimes/$version/$soname"
done <"$dest/runtimes/list"
rm "$dest/runtimes/list"
mkdir -p "$dest/runtimes/13.0"
cp -L "$cuda/lib64/libcudart.so.13" "$dest/runtimes/13.0/libcudart.so.13"

tar -xzf "$(ls "$bin"/dist/cudyn-*-linux-x86_64.tar.gz | head -1)" -C "$dest/tree" --strip-components=1
# The static drop-ins (20 MiB) are for linking, which the GPU machine's runs do not do: the carry
# stays under its limit without them.
rm -f "$dest"/tree/lib/*.a
chmod -R u+w "$dest"

total=$(du -sb "$dest" | cut -f1)
find "$dest" -maxdepth 2 -type f | sort
echo "stage_cudart: $((total / 1024)) KiB in $dest"
if [ "$total" -gt $((60 * 1024 * 1024)) ]; then
  echo "stage_cudart: more than 60 MiB: too big to carry (64 MiB limit with the working tree)" >&2
  exit 1
fi
