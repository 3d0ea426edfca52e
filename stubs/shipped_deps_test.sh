#!/usr/bin/env bash
# What cudyn ships needs only glibc and libstdc++ at run time (readelf -d): no libcuda, no
# libcudart, no spdlog/fmt shared library. libgcc_s is allowed: libstdc++.so.6 itself needs it.
#   $@: shipped shared libraries and executables linked with cudyn (a program linked with the
#       shared drop-in may also need libcudyn_cuda.so itself).
set -euo pipefail
allowed='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcudyn_cuda\.so|libcudyn_cudart\.so)$'
# Under --config=asan/tsan/ubsan the same objects also need the sanitizer runtime; the plain build
# (the one that ships) is checked without that allowance.
sanitizer_runtime='^lib(asan|tsan|ubsan|lsan)\.so\.[0-9]+$'
status=0
for file in "$@"; do
  needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [[ -n $needed ]] || { echo "FAIL: $file has no DT_NEEDED at all (not a dynamic ELF?)"; status=1; continue; }
  bad=$(grep -Ev "$allowed" <<<"$needed" | grep -Ev "$sanitizer_runtime" || true)
  if [[ -n $bad ]]; then
    echo "FAIL: $(basename "$file") needs: ${bad//$'\n'/ }"
    status=1
  else
    echo "ok: $(basename "$file") needs only: ${needed//$'\n'/ }"
  fi
  # The shared drop-in is what a plain C program loads as its libcuda: it carries its own
  # (hidden) libstdc++, so such a program does not load and relocate libstdc++ because of cudyn.
  # Sanitizer builds (a sanitizer runtime in NEEDED) link libstdc++ dynamically: see stubs/BUILD.
  if [[ $(basename "$file") == libcudyn_cuda*.so* ]] && ! grep -Eq "$sanitizer_runtime" <<<"$needed" &&
    grep -Eq '^(libstdc\+\+|libgcc_s)' <<<"$needed"; then
    echo "FAIL: $(basename "$file") must not need libstdc++/libgcc_s (start-up cost of C programs)"
    status=1
  fi
done
exit $status
