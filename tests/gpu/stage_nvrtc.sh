#!/bin/bash
# Builds what tests/gpu/run_nvrtc.sh needs and lays it out in one folder to carry to a GPU machine
# (which has no Bazel). Needs the real NVRTCs of third_party/fetch_runtimes.sh (run
# third_party/fetch_deps.sh once). The 13.0 NVRTC (109 MiB) is not carried: run_nvrtc.sh takes the
# GPU machine's toolkit's.
#
#   tests/gpu/stage_nvrtc.sh [DEST]        default DEST: <repo>/.gpu_carry_nvrtc
#
# DEST gets (the layout run_nvrtc.sh reads):
#   nvrtc_probe.cc                   tests/gpu/nvrtc_probe.cc (built there against its toolkit) and
#   axpb_nvrtc.h, probe_util.h       the headers it includes (tests/gpu)
#   tree/                            the install tree (//dist:tarball, -c opt, unpacked): the driver
#                                    drop-in lib/cudyn/libcuda.so.1, the NVRTC drop-in
#                                    lib/cudyn/nvrtc/libnvrtc.so.13, bin/cudyn
#   nvrtc.tar.xz                     nvrtc/<version>/<soname> and its builtins for 11.8, 12.4 and 12.5
#                                    (Debian), xz-compressed: 190 MiB unpacked, too big to carry as is;
#                                    about 36 MiB with xz -9 (about 6 minutes on 2 busy cores)
# Then, on the GPU machine:  bash tests/gpu/run_nvrtc.sh DEST OUT_DIR
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$repo/.gpu_carry_nvrtc}
cache=${CUDYN_DEPS:-/var/cache/cudyn-deps}
versions=(11.8 12.4 12.5)

cd "$repo"
bazel build -c opt //dist:tarball
bin=$(bazel info -c opt bazel-bin 2>/dev/null)

rm -rf "$dest"
mkdir -p "$dest/tree" "$dest/stage/nvrtc"
cp tests/gpu/nvrtc_probe.cc tests/gpu/axpb_nvrtc.h tests/gpu/probe_util.h "$dest/"
tar -xzf "$(ls "$bin"/dist/cudyn-*-linux-x86_64.tar.gz | head -1)" -C "$dest/tree" --strip-components=1
for f in lib/cudyn/libcuda.so.1 lib/cudyn/nvrtc/libnvrtc.so.13 bin/cudyn; do
  [[ -e $dest/tree/$f ]] || { echo "stage_nvrtc: the install tree lacks $f" >&2; exit 1; }
done

# The real NVRTCs and their builtins, each under its SONAME (the one list:
# third_party/cuda_runtimes.bzl NVRTC_LIBRARIES / NVRTC_BUILTINS).
python3 - "$repo/third_party/cuda_runtimes.bzl" "${versions[@]}" <<'PY' >"$dest/stage/list"
import sys
scope = {}
exec(open(sys.argv[1]).read(), scope)
for version in sys.argv[2:]:
    print(version, scope["NVRTC_LIBRARIES"][version][3], scope["NVRTC_BUILTINS"][version][3])
PY
while read -r version lib builtins; do
  mkdir -p "$dest/stage/nvrtc/$version"
  for f in "$lib" "$builtins"; do
    src=$cache/nvrtc/$version/$f
    [[ -f $src ]] || { echo "stage_nvrtc: $src missing (run third_party/fetch_deps.sh)" >&2; exit 1; }
    cp -L "$src" "$dest/stage/nvrtc/$version/$f"
  done
done <"$dest/stage/list"
XZ_OPT=${XZ_OPT:--9 -T0} tar -cJf "$dest/nvrtc.tar.xz" -C "$dest/stage" nvrtc
rm -rf "$dest/stage"
chmod -R u+w "$dest"

total=$(du -sb "$dest" | cut -f1)
find "$dest" -maxdepth 4 -type f | sort
echo "stage_nvrtc: $((total / 1024)) KiB in $dest"
if [ "$total" -gt $((60 * 1024 * 1024)) ]; then
  echo "stage_nvrtc: more than 60 MiB: too big to carry (64 MiB limit with the working tree)" >&2
  exit 1
fi
