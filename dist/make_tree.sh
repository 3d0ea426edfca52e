#!/usr/bin/env bash
# make_tree.sh OUT.tar.gz TOPDIR (file DEST SRC | link NAME TARGET)...
# Assembles cudyn's install tree under TOPDIR/ and writes it as a reproducible tarball (sorted,
# owner root, mtime 0). Executables and shared libraries get mode 755, everything else 644.
set -euo pipefail
out=$1 top=$2
shift 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$top"
mkdir -p "$root"
while (($#)); do
  kind=$1 name=$2 value=$3
  shift 3
  mkdir -p "$(dirname "$root/$name")"
  case $kind in
    file)
      cp -L "$value" "$root/$name"
      case $name in
        bin/* | *.so | *.so.*) chmod 755 "$root/$name" ;;
        *) chmod 644 "$root/$name" ;;
      esac
      ;;
    link) ln -s "$value" "$root/$name" ;;
    *) echo "make_tree.sh: unknown kind '$kind'" >&2; exit 2 ;;
  esac
done
find "$root" -type d -exec chmod 755 {} +
tar -C "$stage" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - "$top" | gzip -n > "$out"
