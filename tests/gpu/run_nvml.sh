#!/bin/bash
# NVML through cudyn on a GPU: tests/real_nvml/nvml_program.c built against the machine's newest
# nvml.h (the toolkit's), linked with -lnvidia-ml (direct) and with cudyn's NVML (-lcudyn_nvml), run
# while a CUDA process holds GPU memory; through cudyn natively and clamped to older driver
# branches (CUDYN_MAX_CUDA_VERSION: the adapters and the branch rules exercised), each compared
# line by line with the direct run; and NVIDIA's own nvidia-smi, unchanged, through
# `cudyn run --nvml` (natively and clamped) against itself.
# Usage (GPU machine, repository root): bash tests/gpu/run_nvml.sh CARRY OUT
#   CARRY: cudyn-*-linux-x86_64.tar.gz (//dist:tarball)
#   CLAMPS: the clamped versions (default "12.2 11.4 11.0 10.1 9.1": NVML 535, 470, 450, 418, 390)
set -u
C=$(cd "${1:?carry folder}" && pwd)
O=${2:?output folder}
cuda=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$O" "$C/tree"
tar -xzf "$(ls "$C"/cudyn-*-linux-x86_64.tar.gz | head -1)" -C "$C/tree" --strip-components=1
tree=$C/tree
real_dir=$(dirname "$(ldconfig -p | awk '/libnvidia-ml.so.1 /{print $NF; exit}')")
echo "real NVML: $(readlink -f "$real_dir/libnvidia-ml.so.1")"
gcc -O2 -o "$O/nvml_direct" tests/real_nvml/nvml_program.c -I"$cuda/include" -L"$real_dir" \
  -l:libnvidia-ml.so.1 || exit 1
gcc -O2 -o "$O/nvml_cudyn" tests/real_nvml/nvml_program.c -I"$cuda/include" -L"$tree/lib" \
  -lcudyn_nvml -Wl,-rpath,"$tree/lib" || exit 1
echo "nvml_cudyn NEEDED: $(readelf -d "$O/nvml_cudyn" | grep -o 'NEEDED.*' | tr '\n' ' ')"

# A process using the GPU (its memory shows in the process lists).
py=$(ls /opt/*/.venv/bin/python 2>/dev/null | head -1)
"${py:-python3}" -c "import torch,time; x=torch.ones(1<<28, device='cuda'); print('holder', flush=True); time.sleep(120)" \
  >"$O/holder.txt" 2>&1 &
holder=$!
for _ in $(seq 60); do grep -q holder "$O/holder.txt" 2>/dev/null && break; sleep 1; done
echo "holder pid $holder: $(cat "$O/holder.txt" | tail -1)"

compare() { # compare LABEL: OUT/LABEL.txt against OUT/direct.txt
  if diff "$O/direct.txt" "$O/$1.txt" >"$O/$1.diff"; then
    echo "AGREE $1: $(wc -l <"$O/direct.txt") lines"
  else
    echo "DIFFER $1:"; cat "$O/$1.diff"
  fi
}
"$O/nvml_direct" >"$O/direct.txt" 2>"$O/direct.err"
echo "=== direct"; cat "$O/direct.txt"
CUDYN_LOG=info "$O/nvml_cudyn" >"$O/cudyn.txt" 2>"$O/cudyn.err"
grep -i nvml "$O/cudyn.err" | head -3
compare cudyn
for clamp in ${CLAMPS:-12.2 11.4 11.0 10.1 9.1}; do
  tag=clamp${clamp//./}
  CUDYN_LOG=info CUDYN_MAX_CUDA_VERSION=$clamp "$O/nvml_cudyn" >"$O/$tag.txt" 2>"$O/$tag.err"
  grep -ih "nvml" "$O/$tag.err" | head -2
  grep -h "adapter" "$O/$tag.err" | head -8
  compare "$tag"
done

# nvidia-smi unchanged: how it finds NVML, then the same queries direct and through cudyn run.
smi=$(command -v nvidia-smi)
LD_DEBUG=libs "$smi" -L 2>&1 | grep -E "find library=libnvidia-ml|calling init: .*nvidia-ml|trying file=.*nvidia-ml" | head -5
q=(--query-gpu=name,uuid,driver_version,pci.bus_id,memory.total,mig.mode.current --format=csv)
"$smi" "${q[@]}" >"$O/smi_direct.txt" 2>&1
"$tree/bin/cudyn" run --nvml -- "$smi" "${q[@]}" >"$O/smi_cudyn.txt" 2>"$O/smi_cudyn.err"
LD_DEBUG=files "$tree/bin/cudyn" run --nvml -- "$smi" -L 2>&1 | grep -E "file=.*nvidia-ml.*\[0\];  (needed|dynamically)" | head -4
"$tree/bin/cudyn" run --nvml --max-cuda-version 11.4 -- "$smi" "${q[@]}" >"$O/smi_clamp114.txt" 2>&1
"$smi" --query-compute-apps=pid,used_memory --format=csv >"$O/smi_apps_direct.txt" 2>&1
"$tree/bin/cudyn" run --nvml -- "$smi" --query-compute-apps=pid,used_memory --format=csv \
  >"$O/smi_apps_cudyn.txt" 2>&1
"$tree/bin/cudyn" run --nvml --max-cuda-version 10.1 -- "$smi" --query-compute-apps=pid,used_memory \
  --format=csv >"$O/smi_apps_clamp101.txt" 2>&1
for f in smi_direct smi_cudyn smi_clamp114 smi_apps_direct smi_apps_cudyn smi_apps_clamp101; do
  echo "=== $f"; cat "$O/$f.txt"
done
cat "$O/smi_cudyn.err" | head -5
# Python's NVML binding, if the machine has one.
if "${py:-python3}" -c "import pynvml" 2>/dev/null; then
  code='import pynvml as n; n.nvmlInit(); h=n.nvmlDeviceGetHandleByIndex(0); print(n.nvmlDeviceGetName(h), n.nvmlDeviceGetMemoryInfo(h).total, [(p.pid, p.usedGpuMemory) for p in n.nvmlDeviceGetComputeRunningProcesses(h)])'
  "${py:-python3}" -c "$code" >"$O/pynvml_direct.txt" 2>&1
  "$tree/bin/cudyn" run --nvml -- "${py:-python3}" -c "$code" >"$O/pynvml_cudyn.txt" 2>&1
  "$tree/bin/cudyn" run --nvml --max-cuda-version 10.1 -- "${py:-python3}" -c "$code" >"$O/pynvml_clamp101.txt" 2>&1
  for f in pynvml_direct pynvml_cudyn pynvml_clamp101; do echo "=== $f"; cat "$O/$f.txt"; done
else
  echo "no pynvml here"
fi
# ctypes by the real file's absolute path (as some tools open NVML): direct, and through cudyn
# run (the path redirect hands it cudyn's drop-in), natively and clamped to 10.1.
real=$(readlink -f "$real_dir/libnvidia-ml.so.1")
code="import ctypes, sys; l = ctypes.CDLL('$real'); print(l.nvmlInit_v2()); c = ctypes.c_uint(0); print(l.nvmlDeviceGetCount_v2(ctypes.byref(c)), c.value); print([x.split()[-1] for x in open('/proc/self/maps') if 'nvidia-ml' in x or 'cudyn_nvml' in x][::3])"
echo "=== ctypes by path, direct"; "${py:-python3}" -c "$code" 2>&1
echo "=== ctypes by path, cudyn run --nvml"; "$tree/bin/cudyn" run --nvml -- "${py:-python3}" -c "$code" 2>&1
# cudyn-check report: NVML's view beside CUDA's (branch, GPUs, MIG), natively and at 11.4.
"$tree/bin/cudyn-check" report | sed -n '/^NVML:/,/^findings:/p' | grep -v '^findings:'
"$tree/bin/cudyn-check" report --max-cuda-version 11.4 --json | "${py:-python3}" -c \
  "import json,sys; n=json.load(sys.stdin)['nvml']; print('report at 11.4:', n['version'], n['branch'], n['answers_as_branch'], n['entries'], [d['name'] for d in n['devices']])"
kill "$holder" 2>/dev/null
wait 2>/dev/null
true
