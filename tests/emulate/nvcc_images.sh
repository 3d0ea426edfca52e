#!/usr/bin/env bash
# Builds device-code images of //tests/emulate with a real nvcc (13.0, or Debian's CUDA 11.8:
# nvidia-cuda-toolkit 11.8.89, extracted into the deps cache by third_party/fetch_deps.sh):
#   nvcc_images.sh NVCC KERNEL_CU OUTDIR BOTH_ARCH IMAGE... [-- NVCC_FLAGS...]
# Each IMAGE's name says what nvcc is asked for (XY: an arch number such as 80 or 100):
#   smXY.fatbin   -fatbin, SASS sm_XY only       ptxXY.fatbin  -fatbin, PTX compute_XY only
#   both.fatbin   -fatbin, sm_B and compute_B     both.o        the same in an `nvcc -c` object
#   ptxXY.ptx     -ptx -arch=compute_XY          smXY.cubin    -cubin -arch=sm_XY
# where B is BOTH_ARCH. NVCC_FLAGS go to every nvcc call (nvcc 11.8 runs the host preprocessor
# even for -ptx/-cubin/-fatbin and refuses gcc 12: `-ccbin clang++-14 -I<the 11.8 headers>`).
# Fails (never skips) when nvcc is missing or an image name is none of these.
set -euo pipefail
nvcc="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cu="$(realpath "$2")"
out="$(realpath -m "$3")"
both="$4"
shift 4
images=()
while (($#)) && [[ $1 != -- ]]; do images+=("$1"); shift; done
(($#)) && shift
flags=("$@")
[[ -x "$nvcc" ]] || { echo "nvcc_images: no nvcc at $nvcc" >&2; exit 1; }
mkdir -p "$out"
export TMPDIR="$out/tmp"
mkdir -p "$TMPDIR"
for image in "${images[@]}"; do
  case "$image" in
    sm*.fatbin) a=${image#sm}; a=${a%.fatbin}; args=(-fatbin -gencode "arch=compute_$a,code=sm_$a") ;;
    ptx*.fatbin) a=${image#ptx}; a=${a%.fatbin}; args=(-fatbin -gencode "arch=compute_$a,code=compute_$a") ;;
    both.fatbin) args=(-fatbin -gencode "arch=compute_$both,code=[sm_$both,compute_$both]") ;;
    both.o) args=(-c -gencode "arch=compute_$both,code=[sm_$both,compute_$both]") ;;
    ptx*.ptx) a=${image#ptx}; a=${a%.ptx}; args=(-ptx "-arch=compute_$a") ;;
    sm*.cubin) a=${image#sm}; a=${a%.cubin}; args=(-cubin "-arch=sm_$a") ;;
    *) echo "nvcc_images: no rule for image '$image'" >&2; exit 1 ;;
  esac
  "$nvcc" "${flags[@]}" "${args[@]}" -o "$out/$image" "$cu"
done
rm -rf "$TMPDIR"
