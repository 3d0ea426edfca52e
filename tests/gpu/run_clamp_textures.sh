#!/bin/bash
# The clamp with real runtimes, textures/surfaces on every real runtime, and PyTorch through
# `cudyn run --cudart` (unclamped and under clamps). Needs the carry folder of
# tests/gpu/stage_cudart.sh and, in PROGRAMS, the nvcc-13 builds of tests/gpu/clamp_probe.cu
# and tests/gpu/texture_surface.cu:
#   nvcc -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart shared -o PROGRAMS/clamp_probe \
#        tests/gpu/clamp_probe.cu -L$CUDA/lib64/stubs -Xlinker --no-as-needed -lcuda
#   nvcc ... -DCLAMP_PROBE_RUNTIME_ONLY -o PROGRAMS/clamp_probe_rt tests/gpu/clamp_probe.cu
#   nvcc ... -o PROGRAMS/texture_surface tests/gpu/texture_surface.cu
# Usage (on the GPU machine, repository root): bash tests/gpu/run_clamp_textures.sh CARRY PROGRAMS
# Prints every run's output; exit status 1 if any run that should pass did not.
set -u
C=${1:?carry folder}
P=${2:?programs folder}
cudyn=$C/tree/bin/cudyn
failed=0
check() { # check <label> <rc>
  if [[ $2 != 0 ]]; then echo "FAILED: $1 (exit $2)"; failed=1; fi
}

echo "=== texture_surface, the 13.0 runtime directly"
LD_LIBRARY_PATH=$C/runtimes/13.0 "$P/texture_surface"; check "texture direct" $?
for rt in 13.0 12.5 12.4 11.8 11.2; do
  echo "=== texture_surface, cudyn run --runtime $rt"
  "$cudyn" run --runtime "$(ls "$C"/runtimes/$rt/libcudart.so.*)" -- "$P/texture_surface"
  check "texture $rt" $?
done

# Clamps each runtime's family can run under (a 12.x runtime needs a 12.0 driver).
for spec in 12.5:13.0 12.5:12.8 12.5:12.2 11.8:12.8 11.8:12.2 11.8:11.8; do
  rt=${spec%%:*} clamp=${spec##*:}
  for prog in clamp_probe_rt clamp_probe "clamp_probe mixed"; do
    echo "=== runtime $rt, clamp $clamp: $prog"
    # shellcheck disable=SC2086
    "$cudyn" run --runtime "$(ls "$C"/runtimes/$rt/libcudart.so.*)" --max-cuda-version "$clamp" \
      -- "$P"/$prog
    check "$prog, runtime $rt, clamp $clamp" $?
  done
done

cat >"$P/torch_probe.py" <<'PY'
import torch
torch.manual_seed(0)
a = torch.randn(512, 512, device="cuda"); b = torch.randn(512, 512, device="cuda")
mm = (a @ b).double().sum().item()
conv = torch.nn.Conv2d(3, 8, 3).cuda()
cv = conv(torch.randn(4, 3, 32, 32, device="cuda")).double().sum().item()
g = torch.cuda.CUDAGraph(); s = torch.randn(1024, device="cuda")
with torch.cuda.graph(g):
    out = s * 2 + 1
g.replay(); torch.cuda.synchronize()
maps = open("/proc/self/maps").read()
cud = sorted({l.split()[-1].rsplit("/", 1)[-1] for l in maps.splitlines() if "cudart" in l})
print("torch %s matmul %.6f conv %.6f graph %.6f" % (torch.__version__, mm, cv, out.double().sum().item()))
print("mapped:", cud)
PY
if python3 -c "import torch" 2>/dev/null; then
  echo "=== torch directly"
  python3 "$P/torch_probe.py"
  for spec in 12.5:none 12.5:12.8 12.5:12.2 11.8:none 11.8:12.8 11.8:11.8; do
    rt=${spec%%:*} clamp=${spec##*:}
    opt=()
    [[ $clamp == none ]] || opt=(--max-cuda-version "$clamp")
    # cudyn run preloads its runtime drop-in itself (tools/run/run.cc): torch's RPATH'd
    # libcudart.so.13 and its own preload then resolve to cudyn.
    echo "=== torch, cudyn run --cudart --runtime $rt, clamp $clamp"
    "$cudyn" run --cudart --runtime "$(ls "$C"/runtimes/$rt/libcudart.so.*)" \
      "${opt[@]}" -- python3 "$P/torch_probe.py" 2>&1 | tail -4
  done
fi
exit $failed
