#!/bin/bash
# The libraries cudyn chooses by the driver on a GPU: tests/gpu/libraries_probe.c (13.0 headers,
# NEEDED the 13.0 cuFFT, cuRAND, cuSPARSE, cuSOLVER, cuBLASLt, nvJitLink and runtime) built with the
# machine's toolkit, run directly and through `cudyn run --libraries --cudart` (every line must
# agree), then under each clamp (12.8, 12.2, 11.8; plain and --emulate-driver): through cudyn with
# the real releases CARRY offers (the newest the clamped driver runs must be chosen, and compute what
# the direct run computed; a library with no such release answers its "no release" status), and the
# program's own 13.0 libraries under the clamped driver alone (what a real driver of that version does
# to them); and what `cudyn-check libraries` says of the machine's libraries, natively, at 12.8 and 11.8.
# Usage (GPU machine, repository root):
#   bash tests/gpu/run_libraries.sh CARRY OUT
#   CARRY: cudyn-*-linux-x86_64.tar.gz (//dist:tarball) and real libraries as <soname>.xz, one folder
#          per release: lib125/ (12.5: libcudart.so.12 and any of its cuFFT, cuRAND, cuSPARSE,
#          cuSOLVER, cuBLAS, cuBLASLt, nvJitLink, NVRTC with its builtins) and lib118/ (11.8: libcudart.so.11.0 and any of its
#          libraries). Both folders are offered on LD_LIBRARY_PATH at every clamp: cudyn must pick the
#          newest release the clamped driver runs.
#   CLAMPS: the clamped versions to run (default "12.8 12.2 11.8"; 11.x clamps use the 11.8 runtime)
# Each probe run writes the library files it mapped (/proc/self/maps) to OUT/<label>.err as
# "mapped=" lines; the summary names the release folder each came from.
set -u
C=$(cd "${1:?carry folder}" && pwd)
O=${2:?output folder}
cuda=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$O" "$C/tree"
tar -xzf "$(ls "$C"/cudyn-*-linux-x86_64.tar.gz | head -1)" -C "$C/tree" --strip-components=1
for rel in lib125 lib118; do
  mkdir -p "$C/unpacked/$rel"
  for f in "$C/$rel"/*.xz; do
    [[ -e $f ]] && xz -dc "$f" >"$C/unpacked/$rel/$(basename "$f" .xz)"
  done
done
gcc -O2 -Wno-deprecated-declarations -o "$O/libraries_probe" tests/gpu/libraries_probe.c \
  -I"$cuda/include" -L"$cuda/lib64" -lcufft -lcurand -lcusparse -lcusolver -lcublasLt \
  -lnvJitLink -lnvrtc -lcudart -lcuda -lm || exit 1
cudyn=$C/tree/bin/cudyn
check=$C/tree/bin/cudyn-check
run() { # run LABEL COMMAND...: stdout to OUT/LABEL.txt, stderr (with the mapped files) to OUT/LABEL.err
  local label=$1
  shift
  echo "=== $label"
  "$@" >"$O/$label.txt" 2>"$O/$label.err"
  cat "$O/$label.txt"
  # The library files that did the work, by the folder they came from.
  sed -n 's/^mapped=//p' "$O/$label.err" | grep -E 'lib(cufft|curand|cusparse|cusolver|cublas|nvJitLink|nvrtc|cudart)' |
    sed -E "s|^$C/unpacked/||; s|^$C/tree/.*/|cudyn/|" | sort | tr '\n' ' ' |
    sed 's/^/  maps: /; s/$/\n/'
}
run direct "$O/libraries_probe"
run cudyn "$cudyn" run --libraries --cudart -- "$O/libraries_probe"
if diff "$O/direct.txt" "$O/cudyn.txt" >/dev/null; then
  echo "AGREE: direct and through cudyn, $(wc -l <"$O/direct.txt") lines"
else
  echo "DIFFER: direct vs cudyn"; diff "$O/direct.txt" "$O/cudyn.txt"
fi
compare() { # compare LABEL: each result the run computed against the direct run's
  local key got
  for key in curand_hash cufft_forward_hash cufft_forward_ok cufft_roundtrip_ok cusparse_y \
             cusolver_info cublaslt_hash nvjitlink_kernel_ok lto_kernel_ok; do
    got=$(grep "^$key=" "$O/$1.txt" | head -1)
    [[ -z $got ]] && continue
    if grep -qxF "$got" "$O/direct.txt"; then
      echo "AGREE $1: $got"
    else
      echo "DIFFER $1: $got (direct: $(grep "^$key=" "$O/direct.txt"))"
    fi
  done
}
export LD_LIBRARY_PATH=$C/unpacked/lib125:$C/unpacked/lib118
for clamp in ${CLAMPS:-12.8 12.2 11.8}; do
  tag=${clamp//./}
  if [[ $clamp == 11.* ]]; then rt=$C/unpacked/lib118/libcudart.so.11.0; else rt=$C/unpacked/lib125/libcudart.so.12; fi
  run clamp${tag}_cudyn "$cudyn" run --libraries --runtime "$rt" --max-cuda-version "$clamp" -- "$O/libraries_probe"
  compare clamp${tag}_cudyn
  run clamp${tag}_emulate_cudyn "$cudyn" run --libraries --runtime "$rt" --max-cuda-version "$clamp" \
    --emulate-driver -- "$O/libraries_probe"
  compare clamp${tag}_emulate_cudyn
  # The program's own 13.0 libraries under the clamped driver: what a real driver of that version does.
  run clamp${tag}_own "$cudyn" run --runtime "$rt" --max-cuda-version "$clamp" -- "$O/libraries_probe"
  run clamp${tag}_emulate_own "$cudyn" run --runtime "$rt" --max-cuda-version "$clamp" --emulate-driver \
    -- "$O/libraries_probe"
done
unset LD_LIBRARY_PATH
"$check" libraries --json >"$O/check_native.json" 2>&1
for clamp in 12.8 11.8; do
  LD_LIBRARY_PATH=$C/unpacked/lib125:$C/unpacked/lib118 "$check" libraries --max-cuda-version "$clamp" --json \
    >"$O/check_${clamp//./}.json" 2>&1
done
python3 - "$O/check_native.json" "$O/check_128.json" "$O/check_118.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    j = json.load(open(path))
    print("== cudyn-check libraries", path.rsplit("/", 1)[-1], "driver", j["driver_cuda_version"])
    for lib, l in j["libraries"].items():
        p = l["picked"]
        print("  %-10s %s" % (lib, "%s (release %s)" % (p["path"], p["release"]) if p else
                                  "none: " + "; ".join("%s %s" % (c["path"].rsplit("/", 1)[-1], c["rejection"])
                                                       for c in l["candidates"][:3])))
PY
