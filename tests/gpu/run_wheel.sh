#!/bin/bash
# The wheel on a GPU machine, installed beside the machine's frameworks (into the venv that has
# PyTorch): the console scripts and `import cudyn` there, `cudyn.check_binary()` on that venv's
# site-packages equal to `cudyn-check binary --json` of it, the embedded loader from 16 threads,
# and a small PyTorch test run under `cudyn run --max-cuda-version 12.2 --emulate-driver` from the
# venv next to the same run natively.
# Usage (GPU machine, repository root): bash tests/gpu/run_wheel.sh CARRY OUT
#   CARRY: cudyn-*.whl (//dist/python:wheel)
set -u
C=$(cd "${1:?carry folder}" && pwd)
O=${2:?output folder}
mkdir -p "$O"
py=$(ls /opt/*/.venv/bin/python 2>/dev/null | head -1)
venv=$(dirname "$(dirname "$py")")
wheel=$(ls "$C"/cudyn-*.whl | head -1)
echo "venv: $venv ($("$py" --version))"
if "$py" -m pip --version >/dev/null 2>&1; then
  "$py" -m pip install --no-index --no-deps "$wheel" 2>&1 | tail -1
else
  # A venv without pip (uv's): the wheel unpacked into its site-packages, scripts by hand.
  site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  "$py" -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$wheel" "$site"
  chmod +x "$site"/cudyn/bin/* "$site"/cudyn/_native.so
  for s in cudyn cudyn-check; do
    printf '#!%s\nimport sys\nfrom cudyn._cli import %s\nsys.exit(%s())\n' "$py" \
      "$( [[ $s == cudyn ]] && echo run || echo check)" "$( [[ $s == cudyn ]] && echo run || echo check)" \
      >"$venv/bin/$s"
    chmod +x "$venv/bin/$s"
  done
  echo "installed by unpacking into $site (no pip in this venv)"
fi
export PATH=$venv/bin:$PATH
site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "=== cudyn-check report (console script)"
cudyn-check report | head -12
echo "=== import cudyn"
"$py" -c "import cudyn; r = cudyn.report(); print(cudyn.__file__); print('driver', cudyn.driver_version(), cudyn.effective_version(), cudyn.entry_status('cuMemAdvise_v2')); print('report', r['exit_code'], r['driver']['cuda_version'] if r.get('driver') else None, [d.get('name') for d in r['nvml']['devices']])"
echo "=== check_binary on $site (Python API vs CLI)"
/usr/bin/time -f "cli %es" cudyn-check binary "$site" --json >"$O/cli.json" 2>"$O/cli.err"; tail -1 "$O/cli.err"
"$py" - "$site" "$O/cli.json" <<'PY'
import json, sys, time, cudyn
t = time.time()
api = cudyn.check_binary(sys.argv[1])
print("api %.1fs" % (time.time() - t))
cli = json.load(open(sys.argv[2]))
files = api.get("files", [])
print("files judged:", len(files), "equal to the CLI's JSON:", api == cli)
if api != cli:
    for k in api:
        if api.get(k) != cli.get(k):
            print("differs:", k)
verdicts = {}
for f in files:
    verdicts[f.get("verdict")] = verdicts.get(f.get("verdict"), 0) + 1
print("verdicts:", verdicts, "exit", api.get("exit_code"))
PY
echo "=== 16 threads x every loader call"
"$py" - <<'PY'
import threading, cudyn
one = (cudyn.driver_version(), cudyn.effective_version(), cudyn.entry_status("cuInit"), cudyn.driver_path())
bad = []
def work():
    for _ in range(200):
        got = (cudyn.driver_version(), cudyn.effective_version(), cudyn.entry_status("cuInit"), cudyn.driver_path())
        if got != one:
            bad.append(got)
ts = [threading.Thread(target=work) for _ in range(16)]
[t.start() for t in ts]; [t.join() for t in ts]
print("one thread:", one, "16x200 calls differing:", len(bad))
PY
echo "=== a small PyTorch test, native and as a 12.2 driver (cudyn run from the venv)"
cat >"$O/test_small.py" <<'PY'
import torch
def test_cuda_matmul():
    assert torch.cuda.is_available()
    a = torch.arange(16.0, device="cuda").reshape(4, 4)
    assert torch.allclose((a @ a).cpu(), torch.arange(16.0).reshape(4, 4) @ torch.arange(16.0).reshape(4, 4))
PY
runner=("$py" -m pytest -q "$O/test_small.py")
"$py" -c "import pytest" 2>/dev/null || runner=("$py" -c "import sys; sys.path.insert(0, '$O'); import test_small; test_small.test_cuda_matmul(); print('1 passed')")
echo "--- native"; "${runner[@]}" 2>&1 | tail -3
echo "--- cudyn run --max-cuda-version 12.2 --emulate-driver"
cudyn run --max-cuda-version 12.2 --emulate-driver -- "${runner[@]}" 2>&1 | grep -v "^\s*$" | tail -6
echo "--- what torch says under that clamp"
cudyn run --max-cuda-version 12.2 --emulate-driver -- "$py" -c "import torch, warnings; warnings.simplefilter('always'); print('is_available', torch.cuda.is_available())" 2>&1 | tail -3
