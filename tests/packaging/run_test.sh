#!/usr/bin/env bash
# `cudyn run` from the installed tree (bin/cudyn finds lib/cudyn/ beside itself) and from Bazel
# (its runfiles): a program linked with plain -lcuda runs with cudyn as its libcuda.so.1, sees the
# clamped version and adapters; exit status, signals and arguments pass through; the real driver
# stays reachable (the loader refuses itself as the driver); clear errors. AT_SECURE: run_setuid_test.sh.
# With --cudart / --runtime: a program linked against libcudart.so.13 runs on the runtime given or
# picked for the driver, through the runtime drop-in (preloaded; run_interpose_test.sh covers
# libraries with an RPATH to their own runtime).
#   $1 install.sh  $2 tarball  $3 plain_lcuda  $4 fake 11040  $5 fake 13000  $6 //tools/run:cudyn
#   $7 plain_lcudart  $8 fake runtime 11.8  $9 fake runtime 12.4
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
install_sh=$(abs "$1") tarball=$(abs "$2") prog=$(abs "$3") fake11040=$(abs "$4") fake13000=$(abs "$5")
bazel_cudyn=$(abs "$6") prog_rt=$(abs "$7") runtime118=$(abs "$8") runtime124=$(abs "$9")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

CUDYN_DIST_TARBALL=$tarball "$install_sh" "$tmp/prefix" > /dev/null || { echo "FAIL: install"; exit 1; }
cudyn=$tmp/prefix/bin/cudyn
dropin=$tmp/prefix/lib/cudyn
unset CUDYN_DRIVER_PATH CUDYN_MAX_CUDA_VERSION CUDYN_PER_THREAD_DEFAULT_STREAM CUDYN_DROPIN_DIR LD_LIBRARY_PATH \
  CUDYN_CUDART_PATH LD_PRELOAD

# check NAME WANT_STATUS OUTPUT_FILE PATTERN...: the last command's status and output.
check() {
  local name=$1 want=$2 got=$3 file=$4
  shift 4
  if [[ $got != "$want" ]]; then
    fail "$name: exit status $got, expected $want; output:"$'\n'"$(cat "$file")"
    return
  fi
  for pattern in "$@"; do
    grep -qE -- "$pattern" "$file" || { fail "$name: no /$pattern/ in:"$'\n'"$(cat "$file")"; return; }
  done
  ok "$name"
}
out=$tmp/out

# ---- version ---------------------------------------------------------------------------------------
version=$(sed -n 's/^#define CUDYN_VERSION_STRING "\(.*\)"/\1/p' "$tmp/prefix/include/cudyn/cudyn_version.h")
"$cudyn" --version > "$out" 2>&1
check "--version" 0 $? "$out" "^cudyn ${version//./\\.}\$"
"$tmp/prefix/bin/cudyn-check" --version > "$out" 2>&1
check "cudyn-check --version" 0 $? "$out" "^cudyn-check ${version//./\\.}\$"

# ---- the program without cudyn ----------------------------------------------------------------------
LD_LIBRARY_PATH=$(dirname "$fake13000") "$prog" > "$out" 2>&1
check "plain -lcuda program on the 13.0 fake, no cudyn" 0 $? "$out" "version=13000" "cudyn: absent"
# On an 11.4 driver the same binary does not even start: cuMemAdvise_v2 is not exported there.
LD_LIBRARY_PATH=$(dirname "$fake11040") "$prog" > "$out" 2>&1
st=$?
if ((st == 0)); then fail "plain -lcuda program started on the 11.4 fake without cudyn"; else
  grep -q "cuMemAdvise_v2" "$out" && ok "plain -lcuda program fails on the 11.4 fake without cudyn (exit $st)" ||
    fail "without cudyn on 11.4: unexpected failure: $(cat "$out")"
fi

# ---- the program under cudyn run ------------------------------------------------------------------
"$cudyn" run --driver "$fake11040" -- "$prog" > "$out" 2>&1
check "cudyn run --driver <11.4 fake>" 0 $? "$out" "cuDriverGetVersion: rc=0 version=11040" \
  "cudyn: present; driver=$fake11040 cuMemAdvise_v2=adapter"
"$cudyn" run --max-cuda-version 11.4 --driver "$fake13000" -- "$prog" > "$out" 2>&1
check "cudyn run --max-cuda-version 11.4 --driver <13.0 fake>" 0 $? "$out" \
  "cuDriverGetVersion: rc=0 version=11040" "cuMemAdvise_v2=adapter"
"$cudyn" run --max-cuda-version=11040 --driver="$fake13000" "$prog" > "$out" 2>&1
check "cudyn run --opt=value forms, no --" 0 $? "$out" "version=11040" "cuMemAdvise_v2=adapter"
"$cudyn" run --driver "$fake13000" -- "$prog" > "$out" 2>&1
check "cudyn run on the 13.0 fake, no clamp" 0 $? "$out" "version=13000" "cuMemAdvise_v2=native"

# No --driver: the driver the user's environment makes reachable (here LD_LIBRARY_PATH) is found
# by cudyn run and handed on, although inside the program libcuda.so.1 is cudyn.
LD_LIBRARY_PATH=$(dirname "$fake13000") "$cudyn" run --max-cuda-version 11.4 -- "$prog" > "$out" 2>&1
check "cudyn run without --driver keeps the driver on LD_LIBRARY_PATH reachable" 0 $? "$out" \
  "version=11040" "cudyn: present; driver=$(dirname "$fake13000")/libcuda.so.1 cuMemAdvise_v2=adapter"

# The loader never takes itself for the driver: with only the drop-in directory first on
# LD_LIBRARY_PATH (what cudyn run does, minus the driver path), libcuda.so.1 is cudyn both in the
# already-loaded and in the default-search step; both are rejected as "is cudyn itself" and the
# search goes on (on this CPU machine to nothing: 303; on a GPU host to the system driver).
LD_LIBRARY_PATH=$dropin:$(dirname "$fake13000") "$prog" > "$out" 2>&1
st=$?
if ((st != 0)); then fail "drop-in only: exit $st: $(cat "$out")"
elif grep -q "cuDriverGetVersion: rc=303" "$out"; then
  grep -q "is cudyn itself" "$out" && [[ $(grep -c "is cudyn itself" <<<"$(tr ';' '\n' < "$out" | grep -o 'is cudyn itself' )") -ge 1 ]] &&
    ok "drop-in as libcuda.so.1 without a driver path: cudyn rejects itself (303, 'is cudyn itself')" ||
    fail "drop-in only: 303 without 'is cudyn itself': $(cat "$out")"
elif grep -q "cuDriverGetVersion: rc=0" "$out" && ! grep -q "driver=$dropin" "$out"; then
  ok "drop-in as libcuda.so.1: cudyn skipped itself and found a system driver: $(grep 'driver=' "$out")"
else
  fail "drop-in only: unexpected: $(cat "$out")"
fi

# Options become the CUDYN_* environment; the drop-in directory comes first on LD_LIBRARY_PATH.
LD_LIBRARY_PATH=/some/where "$cudyn" run --per-thread-default-stream --max-cuda-version 12.2 --driver "$fake13000" -- \
  sh -c 'echo "ptds=$CUDYN_PER_THREAD_DEFAULT_STREAM max=$CUDYN_MAX_CUDA_VERSION driver=$CUDYN_DRIVER_PATH ld=$LD_LIBRARY_PATH"' > "$out" 2>&1
check "environment passed to the program" 0 $? "$out" \
  "^ptds=1 max=12020 driver=$fake13000 ld=$dropin:/some/where\$"

"$cudyn" run --emulate-driver --max-cuda-version 12.2 --driver "$fake13000" -- \
  sh -c 'echo "mode=$CUDYN_CLAMP_MODE max=$CUDYN_MAX_CUDA_VERSION"' > "$out" 2>&1
check "--emulate-driver becomes CUDYN_CLAMP_MODE=emulate" 0 $? "$out" "^mode=emulate max=12020\$"
"$cudyn" run --max-cuda-version 12.2 --driver "$fake13000" -- \
  sh -c 'echo "mode=${CUDYN_CLAMP_MODE-unset}"' > "$out" 2>&1
check "without --emulate-driver CUDYN_CLAMP_MODE stays unset" 0 $? "$out" "^mode=unset\$"

# No driver anywhere (this CPU machine): one warning from cudyn run, not the loader's log as well;
# the user's CUDYN_LOG still reaches the program.
CUDYN_LOG=info "$cudyn" run -- sh -c 'echo "log=${CUDYN_LOG-unset} driver=${CUDYN_DRIVER_PATH-unset}"' > "$out" 2>&1
check "CUDYN_LOG passes through; the driver probe does not log" 0 $? "$out" "^log=info driver="
grep -q '^\[cudyn\]' "$out" && fail "the driver probe of cudyn run logged: $(cat "$out")"
"$cudyn" run -- sh -c 'echo "log=${CUDYN_LOG-unset}"' > "$out" 2>&1
check "CUDYN_LOG stays unset when it was" 0 $? "$out" "^log=unset\$"

# ---- the runtime: --cudart, --runtime --------------------------------------------------------------------
"$cudyn" run --runtime "$runtime118" --driver "$fake13000" -- "$prog_rt" > "$out" 2>&1
check "cudyn run --runtime <11.8 fake>: a libcudart.so.13 program on 11.8" 0 $? "$out" \
  "cudaRuntimeGetVersion: rc=0 version=11080" "cudaRuntimeGetVersion from $dropin/cudart/libcudart.so.13" \
  "cudyn runtime: $runtime118"
# No --runtime: the runtime the driver (clamped to 12.4) can run, reachable here through
# LD_LIBRARY_PATH, is found by cudyn run and handed on.
LD_LIBRARY_PATH=$(dirname "$runtime124") "$cudyn" run --cudart --max-cuda-version 12.4 --driver "$fake13000" \
  -- "$prog_rt" > "$out" 2>&1
check "cudyn run --cudart finds the runtime for the clamped driver" 0 $? "$out" \
  "cudaRuntimeGetVersion: rc=0 version=12040" "cudyn runtime: $runtime124"
LD_LIBRARY_PATH=/some/where "$cudyn" run --runtime "$runtime118" --driver "$fake13000" -- \
  sh -c 'echo "runtime=$CUDYN_CUDART_PATH ld=$LD_LIBRARY_PATH preload=$LD_PRELOAD"' > "$out" 2>&1
check "--runtime: environment passed to the program" 0 $? "$out" \
  "^runtime=$runtime118 ld=$dropin/cudart:$dropin:/some/where preload=$dropin/libcuda.so.1:$dropin/cudart/libcudart.so.13\$"
"$cudyn" run --driver "$fake13000" -- sh -c 'echo "runtime=${CUDYN_CUDART_PATH-unset} ld=$LD_LIBRARY_PATH preload=${LD_PRELOAD-unset}"' > "$out" 2>&1
check "without --cudart the runtime is left alone (nothing preloaded)" 0 $? "$out" "^runtime=unset ld=$dropin preload=unset\$"
"$cudyn" run --runtime "$tmp/no/such/libcudart.so.12" -- true > "$out" 2>&1
check "missing runtime" 125 $? "$out" "--runtime $tmp/no/such/libcudart.so.12: no such file"
"$cudyn" run --runtime "$fake13000" -- true > "$out" 2>&1
check "a file that is not a runtime" 125 $? "$out" "is not a usable CUDA runtime"
"$bazel_cudyn" run --runtime "$runtime118" --driver "$fake11040" -- "$prog_rt" > "$out" 2>&1
check "bazel-built cudyn run --runtime" 0 $? "$out" "version=11080" "cudyn runtime: $runtime118"

# ---- exit status, signals, arguments ----------------------------------------------------------------
"$cudyn" run --driver "$fake13000" -- sh -c 'exit 7' > "$out" 2>&1
check "exit status 7 passes through" 7 $? "$out"
"$cudyn" run --driver "$fake13000" -- sh -c 'printf "[%s]" "$@"' zero 'a b' '' '--driver' > "$out" 2>&1
check "arguments pass through untouched" 0 $? "$out" '^\[a b\]\[\]\[--driver\]$'
for sig in TERM SEGV; do
  python3 - "$cudyn" "$fake13000" "$sig" > "$out" 2>&1 <<'PY'
import signal, subprocess, sys
cudyn, driver, sig = sys.argv[1:]
p = subprocess.run([cudyn, "run", "--driver", driver, "--", "sh", "-c", "kill -%s $$" % sig])
want = -getattr(signal, "SIG" + sig)
print("returncode", p.returncode, "want", want)
sys.exit(0 if p.returncode == want else 1)
PY
  check "killed by SIG$sig: the same signal reaches the parent" 0 $? "$out"
done

# ---- errors ------------------------------------------------------------------------------------------
"$cudyn" run --driver "$fake13000" -- "$tmp/no/such/program" > "$out" 2>&1
check "missing program" 127 $? "$out" "cannot execute '$tmp/no/such/program': No such file"
"$cudyn" run -- no-such-program-in-path-cudyn > "$out" 2>&1
check "program not on PATH" 127 $? "$out" "cannot execute 'no-such-program-in-path-cudyn'"
"$cudyn" run --driver "$tmp/no/such/libcuda.so.1" -- true > "$out" 2>&1
check "missing driver" 125 $? "$out" "--driver $tmp/no/such/libcuda.so.1: no such file"
"$cudyn" run --driver "$tarball" -- true > "$out" 2>&1
check "a file that is not a driver" 125 $? "$out" "is not a usable NVIDIA driver"
"$cudyn" run --max-cuda-version eleven -- true > "$out" 2>&1
check "bad version" 125 $? "$out" "--max-cuda-version 'eleven' is not a CUDA version"
"$cudyn" run --driver "$fake13000" > "$out" 2>&1
check "no program" 125 $? "$out" "no PROGRAM given"
"$cudyn" run --bogus -- true > "$out" 2>&1
check "unknown option" 125 $? "$out" "unknown option '--bogus'"
mkdir -p "$tmp/empty"
CUDYN_DROPIN_DIR=$tmp/empty "$cudyn" run --driver "$fake13000" -- true > "$out" 2>&1
check "no drop-in directory" 125 $? "$out" "drop-in directory was not found" "$tmp/empty/libcuda.so.1"

# ---- the Bazel binary (drop-in directory in its runfiles) ------------------------------------------
"$bazel_cudyn" run --driver "$fake11040" -- "$prog" > "$out" 2>&1
check "bazel-built cudyn run" 0 $? "$out" "version=11040" "cuMemAdvise_v2=adapter"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all cudyn run cases passed"
