#!/usr/bin/env bash
# The installed lib<name>.so.<version> (//dist) is //stubs:lib<name>.so (libcudyn_cuda,
# libcudyn_cudart) linked again with a versioned SONAME: same exported symbols, same DT_NEEDED and
# flags, different SONAME only.
#   $1: //stubs:lib<name>.so   $2: the installed copy   $3: its expected SONAME
#   $4: exported_symbols.sh
set -euo pipefail
bazel_so=$1 installed=$2 soname=$3 extract=$4
status=0
exports() { "$extract" "$1"; }
dyn() { readelf -d "$1" | sed -n 's/.*(\(NEEDED\|FLAGS\|FLAGS_1\|BIND_NOW\|SYMBOLIC\))[[:space:]]*\(.*\)/\1 \2/p'; }
if ! diff -u <(exports "$bazel_so") <(exports "$installed"); then
  echo "FAIL: the installed library exports other symbols than //stubs:$(basename "$bazel_so")"
  echo "  (dist/BUILD's linkopts for it must follow stubs/BUILD's)"
  status=1
fi
if ! diff -u <(dyn "$bazel_so") <(dyn "$installed"); then
  echo "FAIL: the installed library's NEEDED/FLAGS differ from //stubs:$(basename "$bazel_so")"
  status=1
fi
got=$(readelf -d "$installed" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [[ $got != "$soname" ]]; then
  echo "FAIL: SONAME is '$got', expected '$soname'"
  status=1
fi
((status == 0)) && echo "ok: $(basename "$installed") = //stubs:$(basename "$bazel_so") with SONAME $soname"
exit $status
