#!/usr/bin/env bash
# make_bundle.sh OUT.tar DEST=SRC... — copies each SRC (following symlinks) to cudyn_bench/DEST and
# writes a reproducible tar of cudyn_bench/. Used by the //bench:bundle genrule.
set -euo pipefail
out=$1
shift
stage=$(mktemp -d "${TMPDIR:-/tmp}/cudyn_bench.XXXXXX")
trap 'rm -rf "$stage"' EXIT
for pair in "$@"; do
  dest=${pair%%=*}
  src=${pair#*=}
  mkdir -p "$stage/cudyn_bench/$(dirname "$dest")"
  cp -L "$src" "$stage/cudyn_bench/$dest"
  chmod u+w "$stage/cudyn_bench/$dest"
done
chmod +x "$stage/cudyn_bench/run.sh" "$stage/cudyn_bench/ratios.py" "$stage"/cudyn_bench/bin/*
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" -cf "$out" cudyn_bench
