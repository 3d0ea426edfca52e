#!/bin/bash
# The clamp and driver emulation reach a runtime-only program's own driver calls (issue 23): on the
# real GPU, tests/gpu/clamp_probe.cu built runtime-only (-DCLAMP_PROBE_RUNTIME_ONLY, no -lcuda)
# and with -lcuda, run as
#   cudyn run --cudart --runtime <R> [--max-cuda-version V [--emulate-driver]] -- PROGRAM
# for the real runtimes R = 13.0 (the toolkit's), 12.5, 11.8 and V = none, 13.0, 12.8, 12.2, 11.8,
# 11.4. What a real driver of version V answers, from the family rule and the GPU table only:
#   35  (cudaErrorInsufficientDriver)  V is below R's major (a real V driver does not run R)
#   100 (cudaErrorNoDevice)            emulated, and V predates this GPU (gpu_arch.tsv, ptx_isa.tsv)
#   0   and the kernel runs            otherwise (the plain clamp offers the GPU)
# Both builds must answer the same; each run's output goes to <build>_<R>_<V>_<mode>.txt in
# OUT/runtime_only_results.tgz, the table to OUT/table.txt. Exit status 1 on any disagreement.
# Usage (GPU machine, repository root): bash tests/gpu/run_runtime_only.sh CARRY OUT
#   CARRY: the folder of tests/gpu/stage_cudart.sh (tree/, runtimes/)
set -u
carry=$(cd "${1:?carry folder}" && pwd)
mkdir -p "${2:?output folder}" && dest=$(cd "$2" && pwd)
cudyn=$carry/tree/bin/cudyn
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda=$(dirname "$(dirname "$nvcc")")
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-rtonly.XXXXXX")
mkdir -p "$work/res" && out=$work/res
trap 'cp "$out/table.txt" "$dest/" 2>/dev/null; tar czf "$dest/runtime_only_results.tgz" -C "$work" res; rm -rf "$work"' EXIT
"$nvcc" -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart shared -DCLAMP_PROBE_RUNTIME_ONLY \
  -o "$work/runtime_only" tests/gpu/clamp_probe.cu || exit 2
"$nvcc" -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart shared -o "$work/with_lcuda" \
  tests/gpu/clamp_probe.cu -L"$cuda/lib64/stubs" -Xlinker --no-as-needed -lcuda || exit 2
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$out/gpu.log"
# The first driver that knows this GPU: the first PTX ISA of its arch, and that ISA's first driver.
isa=$(awk -F'\t' -v a="sm_$cap" '$1 == a { print $2 }' version_tables/inputs/gpu_arch.tsv)
version_number() { echo $((${1%.*} * 1000 + ${1#*.} * 10)); }
first=$(awk -F'\t' -v i="$isa" '$1 == i { print $2 }' version_tables/inputs/ptx_isa.tsv)
[[ -n $first ]] || { echo "no first driver for sm_$cap in the tables"; exit 2; }
gpu_min=$(version_number "$first")
echo "sm_$cap: PTX ISA $isa first, first driver $first" | tee -a "$out/gpu.log"
failed=0
printf '%-11s %-5s %-5s %-8s %-9s %-9s %s\n' build rt clamp mode expected observed kernel |
  tee "$out/table.txt"
for rt in 13.0 12.5 11.8; do
  lib=$(ls "$carry"/runtimes/$rt/libcudart.so.* | head -1)
  needs=$(( $(version_number "$rt") / 1000 * 1000 ))
  for clamp in none 13.0 12.8 12.2 11.8 11.4; do
    for mode in plain emulate; do
      [[ $clamp == none && $mode == emulate ]] && continue
      opts=()
      expected=0
      if [[ $clamp != none ]]; then
        opts=(--max-cuda-version "$clamp")
        v=$(version_number "$clamp")
        if ((v < needs)); then expected=35
        elif [[ $mode == emulate ]] && ((v < gpu_min)); then expected=100
        fi
      fi
      [[ $mode == emulate ]] && opts+=(--emulate-driver)
      for build in runtime_only with_lcuda; do
        f=$out/${build}_${rt}_${clamp}_$mode.txt
        "$cudyn" run --cudart --runtime "$lib" "${opts[@]}" -- "$work/$build" >"$f" 2>&1
        echo "exit=$?" >>"$f"
        observed=$(sed -n 's/^cudaGetDeviceCount: \([0-9]*\).*/\1/p' "$f")
        kernel=$(sed -n 's/^kernel: \([0-9]*\) (sum \([0-9]*\)).*/\1:\2/p' "$f")
        verdict=ok
        if [[ $observed != "$expected" ]]; then verdict=DIFFERS; failed=1
        elif ((expected == 0)) && [[ $kernel != 0:524800 ]]; then verdict="KERNEL FAILED"; failed=1
        fi
        printf '%-11s %-5s %-5s %-8s %-9s %-9s %s %s\n' "$build" "$rt" "$clamp" "$mode" "$expected" \
          "${observed:-none}" "${kernel:--}" "$verdict" | tee -a "$out/table.txt"
      done
    done
  done
done
exit $failed
