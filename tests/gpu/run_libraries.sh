#!/bin/bash
# The libraries cudyn chooses by the driver on a GPU: tests/gpu/libraries_probe.c (13.0 headers,
# NEEDED the 13.0 cuFFT, cuRAND, cuSPARSE, cuSOLVER, cuBLASLt, nvJitLink and runtime) built with the
# machine's toolkit, run directly and through `cudyn run --libraries --cudart` (every line must
# agree), then under a CUDA 12.8 clamp: through cudyn with whatever 12.x releases CARRY offers (the
# others answer their "no release" status: none is on the machine), and the program's own 13.0
# libraries under the clamped driver alone (what a real 12.8 driver does to them); and what
# `cudyn-check libraries` says of the machine's libraries, natively and at 12.8.
# Usage (GPU machine, repository root):
#   bash tests/gpu/run_libraries.sh CARRY OUT
#   CARRY: cudyn-*-linux-x86_64.tar.gz (//dist:tarball), libcudart.so.12 (12.5), and any real 12.x
#          library as <soname>.xz (unpacked into CARRY/lib and offered on LD_LIBRARY_PATH)
#   CLAMPS: the clamped versions to run (default 12.8)
set -u
C=$(cd "${1:?carry folder}" && pwd)
O=${2:?output folder}
cuda=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$O" "$C/tree" "$C/lib"
tar -xzf "$(ls "$C"/cudyn-*-linux-x86_64.tar.gz | head -1)" -C "$C/tree" --strip-components=1
for f in "$C"/*.xz; do [[ -e $f ]] && xz -dc "$f" > "$C/lib/$(basename "$f" .xz)"; done
cp "$C/libcudart.so.12" "$C/lib/"
gcc -O2 -Wno-deprecated-declarations -o "$O/libraries_probe" tests/gpu/libraries_probe.c \
  -I"$cuda/include" -L"$cuda/lib64" -lcufft -lcurand -lcusparse -lcusolver -lcublasLt \
  -lnvJitLink -lcudart -lcuda || exit 1
cudyn=$C/tree/bin/cudyn
check=$C/tree/bin/cudyn-check
run() { # run LABEL COMMAND...: stdout to OUT/LABEL.txt, mapped library files to OUT/LABEL.maps
  local label=$1
  shift
  echo "=== $label"
  "$@" >"$O/$label.txt" 2>"$O/$label.err"
  cat "$O/$label.txt"
}
run direct "$O/libraries_probe"
run cudyn "$cudyn" run --libraries --cudart -- "$O/libraries_probe"
if diff "$O/direct.txt" "$O/cudyn.txt" >/dev/null; then
  echo "AGREE: direct and through cudyn, $(wc -l <"$O/direct.txt") lines"
else
  echo "DIFFER: direct vs cudyn"; diff "$O/direct.txt" "$O/cudyn.txt"
fi
export LD_LIBRARY_PATH=$C/lib
for clamp in ${CLAMPS:-12.8}; do
  tag=${clamp//./}
  run clamp${tag}_cudyn "$cudyn" run --libraries --runtime "$C/lib/libcudart.so.12" \
    --max-cuda-version "$clamp" -- "$O/libraries_probe"
  run clamp${tag}_own "$cudyn" run --runtime "$C/lib/libcudart.so.12" --max-cuda-version "$clamp" \
    -- "$O/libraries_probe"
  # What a carried 12.x release computed must equal the direct run's (its hash lines).
  for key in curand_hash cufft_forward_hash cufft_roundtrip_ok cusparse_y cusolver_info \
             cublaslt_hash nvjitlink_kernel_ok; do
    got=$(grep "^$key=" "$O/clamp${tag}_cudyn.txt" | head -1)
    [[ -z $got ]] && continue
    if grep -qxF "$got" "$O/direct.txt"; then
      echo "AGREE at $clamp: $got"
    else
      echo "DIFFER at $clamp: $got (direct: $(grep "^$key=" "$O/direct.txt"))"
    fi
  done
done
unset LD_LIBRARY_PATH
"$check" libraries --json >"$O/check_native.json" 2>&1
LD_LIBRARY_PATH=$C/lib "$check" libraries --max-cuda-version 12.8 --json >"$O/check_128.json" 2>&1
python3 - "$O/check_native.json" "$O/check_128.json" <<'PY'
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
