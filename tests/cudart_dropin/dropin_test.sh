#!/usr/bin/env bash
# nvcc's host-stub ABI through libcudyn_cudart.so on fake runtimes of every family: the
# nvcc-13 program launch_probe (built with -cudart none, linked with cudyn) registers its fat
# binary with the runtime cudyn chose and its <<<grid, block, shared>>> launch arrives there —
# as __cudaLaunchKernel on 12.x/13.0, and as cudaLaunchKernel with the host stub as the kernel
# on 10.x/11.x, which have no __cudaLaunchKernel; there cudaFuncGetName answers the device name
# the registration passed through the drop-in.
# A probe built with `-cudart shared` (beside it libcudart.so.13, cudyn's drop-in under that name)
# runs with its directory on LD_LIBRARY_PATH, as the install tree's lib/cudyn/cudart is used.
#   dropin_test.sh LAUNCH_PROBE FAKE_RUNTIME...
set -euo pipefail
probe="$(realpath "$1")"
shift
dir="$(dirname "$probe")"
cudyn_lib="$dir/libcudyn_cudart.so" library_path=""
if [[ -e $dir/libcudart.so.13 ]]; then
  cudyn_lib="$dir/libcudart.so.13" library_path="$dir"
  readelf -d "$probe" | grep -q 'NEEDED.*\[libcudart\.so\.13\]' ||
    { echo "FAIL: $probe does not need libcudart.so.13"; exit 1; }
  readelf -d "$probe" | grep -q 'RPATH\|RUNPATH' && { echo "FAIL: $probe has a RUNPATH"; exit 1; }
fi
# Sanitizer builds (--config=asan/tsan): libcudyn_cudart.so then needs the sanitizer runtime, which
# must come first in a process whose program (nvcc-built, uninstrumented) does not link it.
preload=""
for rt in $(readelf -d "$cudyn_lib" | sed -n 's/.*(NEEDED).*\[\(lib[a-z]*san\)\.so.*\]/\1/p'); do
  case $rt in libasan | libtsan) preload="$(gcc -print-file-name="$rt.so")" ;; esac
done
fails=0
for fake in "$@"; do
  fake="$(realpath "$fake")"
  version="$(basename "$(dirname "$fake")")"
  out="$(CUDYN_CUDART_PATH="$fake" LD_PRELOAD="$preload" LD_LIBRARY_PATH="$library_path" "$probe" 2>&1)" || { echo "FAIL $version: exit $?: $out"; fails=$((fails + 1)); continue; }
  want=("register_fatbin=1 register_function=1" "grid=3,2,1 block=64,1,1 shared=128")
  case $version in
    10.* | 11.*) want+=("launch_via=cudaLaunchKernel" "func_is_host_stub=1"
                        "func_name_rc=0 func_name=_Z5ProbePii") ;;
    *) want+=("launch_via=__cudaLaunchKernel") ;;
  esac
  major=${version%%.*} minor=${version#*.}
  want+=("runtime_rc=0 runtime=$((major * 1000 + minor * 10)) fake_loaded=1")
  for line in "${want[@]}"; do
    if ! grep -qxF "$line" <<<"$out"; then
      echo "FAIL $version: missing '$line' in:"
      echo "$out"
      fails=$((fails + 1))
    fi
  done
  echo "ok $version"
done
((fails == 0))
