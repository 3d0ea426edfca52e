#!/usr/bin/env bash
# make_deb.sh OUT.deb TREE.tar.gz VERSION MAINTAINER
# The install tree (//dist:tarball) under /usr as a Debian package. Layout: /usr/lib (not the
# multiarch directory) so the tree is byte-for-byte the tarball's; the drop-in directory
# /usr/lib/cudyn (and its cudart/, nvrtc/, cublas/) is not on the dynamic linker's search path, so
# the package never shadows the system's real libcuda.so.1, libcudart.so.13, libnvrtc.so.13 or
# libcublas.so.13.
set -euo pipefail
out=$1 tarball=$2 version=$3 maintainer=$4
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/usr" "$stage/DEBIAN"
tar -C "$stage/usr" --strip-components=1 --no-same-owner -xzf "$tarball"
installed_size=$(du -sk --apparent-size "$stage/usr" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: cudyn
Version: $version
Architecture: amd64
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: libc6, libstdc++6
Section: libs
Priority: optional
Description: run one CUDA binary on every NVIDIA driver (CUDA 10.0 to 13.x)
 cudyn replaces -lcuda, -lcudart and the CUDA libraries' -l flags: it loads
 the real NVIDIA driver (and the CUDA runtime and libraries the driver
 supports) at run time and binds every entry point to the ABI variant that
 library has, with adapters where it lacks one. Ships a libcudyn_<name>
 (shared and static) for the driver, the runtime and each CUDA library it
 covers, headers, pkg-config and CMake files, cudyn-check and "cudyn run".
 The drop-in directories under /usr/lib/cudyn (libcuda.so.1, and one per
 library holding it under the real library's SONAME) are private: used only
 by "cudyn run" or an explicit LD_LIBRARY_PATH.
CONTROL
echo "activate-noawait ldconfig" > "$stage/DEBIAN/triggers"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/triggers" "$stage/DEBIAN/md5sums"
chmod 755 "$stage" "$stage/DEBIAN"
find "$stage/usr" -exec touch -h -d @0 {} +
# xz level 3: 4.5 MB in 4.7 s where the default level 6 took 25.9 s for 3.7 MB (this payload, one core).
SOURCE_DATE_EPOCH=0 dpkg-deb --root-owner-group -Zxz -z3 --build "$stage" "$out" > /dev/null
