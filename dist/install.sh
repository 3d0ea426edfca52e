#!/usr/bin/env bash
# Installs cudyn's tree (//dist:tarball) into PREFIX:
#   bazel run -c opt //dist:install -- PREFIX
# PREFIX may be relative (to the directory bazel was run from). Existing files are overwritten;
# nothing else in PREFIX is touched. CUDYN_DIST_TARBALL names the tarball explicitly.
set -euo pipefail
if (($# != 1)) || [[ $1 == -* ]]; then
  echo "usage: bazel run -c opt //dist:install -- PREFIX" >&2
  exit 2
fi
prefix=$1
if [[ $prefix != /* ]]; then prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"; fi

tarball=${CUDYN_DIST_TARBALL:-}
if [[ -z $tarball ]]; then
  for dir in "${RUNFILES_DIR:-}" "$0.runfiles" "${TEST_SRCDIR:-}"; do
    [[ -n $dir ]] || continue
    for f in "$dir"/cudyn/dist/cudyn-*-linux-x86_64.tar.gz; do
      [[ -f $f ]] && tarball=$f && break 2
    done
  done
fi
if [[ -z $tarball || ! -f $tarball ]]; then
  echo "install.sh: cannot find the cudyn tarball (run it with bazel run //dist:install)" >&2
  exit 1
fi
mkdir -p "$prefix"
tar -C "$prefix" --strip-components=1 --no-same-owner -xzf "$tarball"
echo "cudyn installed into $prefix ($(basename "$tarball"))"
