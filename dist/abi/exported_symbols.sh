#!/usr/bin/env bash
# exported_symbols.sh LIB: the symbols LIB exports (defined, GLOBAL or WEAK, in .dynsym), one per
# line, sorted, without version suffixes. LOCAL entries (TLS symbols the linker keeps in .dynsym
# for its relocations) are not exported, nor are the ABS markers the linker adds for a version
# definition (libcudyn_cudart.so's node libcudart.so.13). To update the reviewed list:
#   bazel build //stubs:libcudyn_cuda.so &&
#     dist/abi/exported_symbols.sh bazel-bin/stubs/libcudyn_cuda.so > dist/abi/libcudyn_cuda.symbols
set -euo pipefail
readelf --dyn-syms -W "$1" |
  awk '$1 ~ /^[0-9]+:$/ && $5 != "LOCAL" && $7 != "UND" && $7 != "ABS" && $8 != "" { sub(/@.*/, "", $8); print $8 }' |
  LC_ALL=C sort -u
