#!/usr/bin/env bash
# `cudyn run --nvml` on every real NVML (no GPU here): an unchanged program linked with
# -lnvidia-ml against the newest NVML (nvml_program_direct) does not start on an NVML that lacks
# what the newest header upgraded it to; through cudyn run it starts on every one and answers
# nvmlInit as that NVML does directly; and Python's ctypes, which dlopens libnvidia-ml.so.1 by name
# as the NVML bindings do, gets cudyn's drop-in, which maps the real NVML of LD_LIBRARY_PATH.
#   run_nvml_test.sh CUDYN PROGRAM NVML...   (each NVML: a real libnvidia-ml.so.1)
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
cudyn=$(abs "$1") program=$(abs "$2")
shift 2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
clean=(env -u LD_PRELOAD -u CUDYN_NVML_PATH -u CUDYN_MAX_CUDA_VERSION -u LD_BIND_NOW)
if readelf -d "$program" | grep -q 'NEEDED.*\[libasan'; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
fi
probe='import ctypes
l = ctypes.CDLL("libnvidia-ml.so.1")
l.nvmlErrorString.restype = ctypes.c_char_p
r = l.nvmlInit_v2()
print("init %d %s" % (r, l.nvmlErrorString(r).decode()))
print("has_v3=%d" % hasattr(l, "nvmlDeviceGetComputeRunningProcesses_v3"))
print(open("/proc/self/maps").read())'
started=0 refused=0
for nvml in "$@"; do
  real=$(readlink -f "$nvml")
  dir=$(dirname "$real")
  # What the library answers itself (ctypes on its path: no cudyn in the process).
  want=$("${clean[@]}" python3 -c "${probe//libnvidia-ml.so.1/$real}" 2>&1 | head -1)
  [[ $want == "init "* ]] || { fail "$real: its own nvmlInit_v2 did not answer: $want"; continue; }
  direct=$("${clean[@]}" LD_LIBRARY_PATH="$dir" LD_BIND_NOW=1 "$program" 2>&1)
  if [[ $? -eq 0 ]]; then
    started=$((started + 1))
    [[ $(head -1 <<<"$direct") == "$want" ]] || fail "$real direct: '$(head -1 <<<"$direct")', want '$want'"
  else
    refused=$((refused + 1))
    grep -q "undefined symbol: nvml" <<<"$direct" || fail "$real direct failed otherwise: $direct"
  fi
  # (cudyn run warns on stderr that this machine has no CUDA driver.)
  err=${TEST_TMPDIR:-/tmp}/stderr
  out=$("${clean[@]}" LD_LIBRARY_PATH="$dir" "$cudyn" run --nvml -- "$program" 2>"$err") ||
    fail "$real: cudyn run failed: $out $(cat "$err")"
  [[ $(head -1 <<<"$out") == "$want" ]] || fail "$real cudyn run: '$(head -1 <<<"$out")', want '$want'"
  out=$("${clean[@]}" LD_LIBRARY_PATH="$dir" "$cudyn" run --nvml -- python3 -c "$probe" 2>"$err") ||
    fail "$real: cudyn run python failed: $out $(cat "$err")"
  [[ $(head -1 <<<"$out") == "$want" ]] || fail "$real python: '$(head -1 <<<"$out")', want '$want'"
  grep -qx "has_v3=1" <<<"$out" || fail "$real python: the drop-in lacks the _v3 process list"
  grep -q " $real\$" <<<"$out" || fail "$real python: the real NVML is not mapped:"$'\n'"$out"
  grep -q "/cudyn/nvml/libnvidia-ml.so.1\$\|/dropin/nvml/libnvidia-ml.so.1\$" <<<"$out" ||
    fail "$real python: cudyn's drop-in is not mapped:"$'\n'"$out"
  # By its absolute path, as some tools open NVML: directly the real file (no _v3 before 535),
  # through cudyn run cudyn's drop-in (the path redirect), which serves it from that very file.
  by_path=${probe//libnvidia-ml.so.1/$real}
  out=$("${clean[@]}" python3 -c "$by_path" 2>"$err")
  [[ $(head -1 <<<"$out") == "$want" ]] || fail "$real by path, direct: '$(head -1 <<<"$out")'"
  direct_v3=$(sed -n 's/^has_v3=//p' <<<"$out")
  out=$("${clean[@]}" LD_LIBRARY_PATH="$dir" "$cudyn" run --nvml -- python3 -c "$by_path" 2>"$err") ||
    fail "$real: cudyn run python by path failed: $out $(cat "$err")"
  [[ $(head -1 <<<"$out") == "$want" ]] || fail "$real by path: '$(head -1 <<<"$out")', want '$want'"
  grep -qx "has_v3=1" <<<"$out" || fail "$real by path: not cudyn's drop-in (no _v3):"$'\n'"$out"
  grep -q "/libcudyn_nvml_paths.so\$" <<<"$out" || fail "$real by path: no path redirect mapped"
  version=${real##*.so.}
  if ((${version%%.*} < 535)); then
    [[ $direct_v3 == 0 ]] || fail "$real by path, direct: the real file has the _v3 list?"
  fi
done
# 390-470 lack nvmlDeviceGetMemoryInfo_v2 and the _v3 process lists (the facts: nvml_api_table.tsv).
((refused == 5 && started == 3)) || fail "linked directly: $started started, $refused refused (want 3 and 5)"
((failures == 0)) && echo "ok: through cudyn run on all $# NVMLs; directly on $started"
exit $((failures > 0))
