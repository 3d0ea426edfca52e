#!/usr/bin/env bash
# The exported surface of a shipped library (libcudyn_cuda.so: every cu* driver-API symbol and the
# cudyn* C API; libcudyn_cudart.so: every cuda* runtime-API symbol, nvcc's __cuda* host-stub ABI
# and the cudynCudart* C API) must equal its reviewed list dist/abi/<library>.symbols. A program or binding linked against
# an older cudyn breaks when a symbol disappears; an added one is a new promise. Either is a
# deliberate change: update the list in the same commit (the command is printed below).
#   $1: exported_symbols.sh  $2: the committed list  $3...: built libraries (the Bazel target and
#   the installed copy)
set -euo pipefail
extract=$1 list=$2
shift 2
name=$(basename "$list" .symbols)
status=0
for lib in "$@"; do
  actual=$("$extract" "$lib")
  if diff_text=$(diff -u --label "dist/abi/$name.symbols (committed)" \
      --label "$(basename "$lib") (built)" "$list" - <<<"$actual"); then
    echo "ok: $(basename "$lib") exports exactly the $(wc -l < "$list") symbols of dist/abi/$name.symbols"
  else
    echo "$diff_text"
    echo "FAIL: $(basename "$lib") exports a different set of symbols than dist/abi/$name.symbols"
    echo "  ('-' lines: no longer exported, which breaks programs and bindings linked against the"
    echo "   older cudyn; '+' lines: newly exported, a new promise). If the change is intended,"
    echo "   update the list, bump version.bzl (MAJOR for a removal, MINOR for an addition) and"
    echo "   have the diff reviewed:"
    echo "    bazel build //stubs:$name.so &&"
    echo "      dist/abi/exported_symbols.sh bazel-bin/stubs/$name.so > dist/abi/$name.symbols"
    status=1
  fi
done
exit $status
