#!/usr/bin/env bash
# The .deb as a user gets it: control fields, the file list (under /usr, the drop-in directory
# private), every shipped ELF needs only glibc/libstdc++ and names no path of the build machine,
# and the unpacked programs run (cudyn-check on the real 535 driver and a fake, cudyn run).
#   $1 cudyn_<version>_amd64.deb  $2 a fake driver (CUDA 11.4)  $3 the real 535 libcuda.so.1
#   $4... <library>=<13.0 SONAME>[+paths] for every library of TOOLKIT_LIBRARIES (each ships the
#         same files; +paths: its drop-in directory also has libcudyn_<library>_paths.so)
set -uo pipefail
abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
deb=$(abs "$1") fake=$(abs "$2") real535=$(abs "$3")
shift 3
libraries=("$@")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

name=$(basename "$deb")
[[ $name =~ ^cudyn_([0-9]+)\.([0-9]+)\.([0-9]+)_amd64\.deb$ ]] || { echo "FAIL: bad file name $name"; exit 1; }
version=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}
major=${BASH_REMATCH[1]}

# ---- control -----------------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == cudyn ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version: $(field Version), file name says $version"
[[ $(field Architecture) == amd64 ]] || fail "Architecture: $(field Architecture)"
[[ $(field Depends) == "libc6, libstdc++6" ]] || fail "Depends: '$(field Depends)' (only libc6 and libstdc++6 allowed)"
[[ -n $(field Maintainer) ]] || fail "no Maintainer"
[[ -n $(field Description) ]] || fail "no Description"
((failures == 0)) && ok "control: cudyn $version amd64, Depends: $(field Depends)"

# ---- file list ---------------------------------------------------------------------------------------
root=$tmp/root
rm -rf "$root" && mkdir -p "$root"
dpkg-deb -x "$deb" "$root" || { echo "FAIL: dpkg-deb -x"; exit 1; }
expected=$(sort <<EOF2
./usr/bin/cudyn
./usr/bin/cudyn-check
./usr/include/cudyn/cudart.h
./usr/include/cudyn/cudart_c.h
./usr/include/cudyn/cudyn.h
./usr/include/cudyn/cudyn_c.h
./usr/include/cudyn/cudyn_version.h
./usr/include/cudyn/version_tables/api_table.h
./usr/include/cudyn/version_tables/cudart_table.h
./usr/include/cudyn/version_tables/generated_cudart/cudart_adapters.inc
./usr/include/cudyn/version_tables/generated_cudart/cudart_entries.inc
./usr/include/cudyn/version_tables/generated_cudart/cudart_entry_count.h
./usr/include/cudyn/version_tables/generated/cudyn_entries.inc
./usr/include/cudyn/version_tables/generated/cudyn_entry_count.h
./usr/lib/cmake/cudyn/cudynConfig.cmake
./usr/lib/cmake/cudyn/cudynConfigVersion.cmake
./usr/lib/cudyn/cudart/libcudart.so.13
./usr/lib/cudyn/libcuda.so.1
./usr/lib/libcudyn_cuda.a
./usr/lib/libcudyn_cuda.so -> libcudyn_cuda.so.$major
./usr/lib/libcudyn_cuda.so.$major -> libcudyn_cuda.so.$version
./usr/lib/libcudyn_cuda.so.$version
./usr/lib/libcudyn_cudart.a
./usr/lib/libcudyn_cudart.so -> libcudyn_cudart.so.$major
./usr/lib/libcudyn_cudart.so.$major -> libcudyn_cudart.so.$version
./usr/lib/libcudyn_cudart.so.$version
./usr/lib/pkgconfig/cudyn-cuda-static.pc
./usr/lib/pkgconfig/cudyn-cuda.pc
./usr/lib/pkgconfig/cudyn-cudart-static.pc
./usr/lib/pkgconfig/cudyn-cudart.pc
./usr/share/doc/cudyn/README.md
$(for entry in "${libraries[@]}"; do
  lib=${entry%%=*} soname=${entry#*=}
  [[ $soname == *+paths ]] && soname=${soname%+paths} && echo "./usr/lib/cudyn/$lib/libcudyn_${lib}_paths.so"
  echo "./usr/lib/cudyn/$lib/$soname"
  echo "./usr/lib/libcudyn_$lib.a"
  echo "./usr/lib/libcudyn_$lib.so -> libcudyn_$lib.so.$major"
  echo "./usr/lib/libcudyn_$lib.so.$major -> libcudyn_$lib.so.$version"
  echo "./usr/lib/libcudyn_$lib.so.$version"
  echo "./usr/lib/pkgconfig/cudyn-$lib-static.pc"
  echo "./usr/lib/pkgconfig/cudyn-$lib.pc"
done)
EOF2
)
actual=$(cd "$root" && find . \( -type f -printf '%p\n' \) -o \( -type l -printf '%p -> %l\n' \) | sort)
if [[ $actual != "$expected" ]]; then
  fail "file list differs (- expected, + shipped):"$'\n'"$(diff <(echo "$expected") <(echo "$actual"))"
else
  ok "file list ($(wc -l <<<"$actual") entries)"
fi
# Never shadow the real driver or runtime: the only libcuda* / libcudart* are in the private drop-in
# directories, which the dynamic linker does not search.
shadow=$(cd "$root" && find . \( -name 'libcuda.so*' -o -name 'libcudart.so*' -o -name 'libnvrtc.so*' -o -name 'libcublas.so*' \) ! -path './usr/lib/cudyn/*')
[[ -z $shadow ]] || fail "a libcuda.so*, libcudart.so*, libnvrtc.so* or libcublas.so* outside usr/lib/cudyn: $shadow"
[[ $(dpkg-deb -c "$deb" | awk '{print $2}' | sort -u) == "root/root" ]] || fail "files not owned by root/root"

# ---- ELF files: dependencies, build paths ------------------------------------------------------------
allowed='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$'
sanitizer_runtime='^lib(asan|tsan|ubsan|lsan)\.so\.[0-9]+$'
# This checkout and Bazel's output base (the sandbox and execroot paths contain it).
workspace=$(dirname "$(dirname "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")")")
output_base=${PWD%%/execroot/*}
output_base=${output_base%%/sandbox/*}
build_paths=(-e execroot -e bazel-out -e _bazel_ -e "$workspace/" -e "$output_base")
elves=0
while IFS= read -r f; do
  [[ $(head -c 4 "$f" | od -An -c | tr -d ' ') == 177ELF ]] || continue
  elves=$((elves + 1))
  rel=${f#"$root"/}
  dyn=$(readelf -d "$f")
  needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dyn")
  bad=$(grep -Ev "$allowed" <<<"$needed" | grep -Ev "$sanitizer_runtime" | grep -v '^$' || true)
  [[ -z $bad ]] || fail "$rel needs ${bad//$'\n'/ }"
  runpath=$(sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]/\2/p' <<<"$dyn")
  [[ -z $runpath ]] || fail "$rel has an RPATH/RUNPATH: $runpath"
  hits=$(strings -a "$f" | grep -F "${build_paths[@]}" | sort -u | head -5 || true)
  [[ -z $hits ]] || fail "$rel names build paths: ${hits//$'\n'/ | }"
done < <(find "$root" -type f)
for f in $(find "$root" -type f \( -name '*.a' -o -name '*.pc' -o -name '*.cmake' -o -name '*.h' -o -name '*.inc' \)); do
  hits=$(strings -a "$f" | grep -F "${build_paths[@]}" | sort -u | head -5 || true)
  [[ -z $hits ]] || fail "${f#"$root"/} names build paths: ${hits//$'\n'/ | }"
done
((elves >= 4)) || fail "only $elves ELF files found"
ok "$elves ELF files need only glibc/libstdc++; no build paths in any shipped file"

# ---- run from the unpacked tree ----------------------------------------------------------------------
out=$("$root/usr/bin/cudyn-check" report --driver "$real535" 2>&1)
st=$?
{ ((st == 0)) && grep -q "12020\|12\.2" <<<"$out"; } && ok "cudyn-check report on the real 535 driver" ||
  fail "cudyn-check report --driver 535 exited $st: $out"
out=$("$root/usr/bin/cudyn-check" report --driver "$fake" 2>&1)
st=$?
{ ((st == 0)) && grep -q "11040\|11\.4" <<<"$out"; } && ok "cudyn-check report on the 11.4 fake" ||
  fail "cudyn-check report --driver fake exited $st: $out"
out=$("$root/usr/bin/cudyn" run --driver "$real535" -- sh -c 'echo "$LD_LIBRARY_PATH|$CUDYN_DRIVER_PATH"' 2>&1)
[[ $out == "$root/usr/lib/cudyn|$real535" ]] && ok "cudyn run finds /usr/lib/cudyn beside /usr/bin" ||
  fail "cudyn run from the .deb: '$out'"
out=$(PKG_CONFIG_PATH=$root/usr/lib/pkgconfig pkg-config --cflags --libs cudyn-cuda 2>&1)
out=${out%"${out##*[![:space:]]}"}
[[ $out == "-I$root/usr/lib/pkgconfig/../../include -L$root/usr/lib/pkgconfig/../../lib -lcudyn_cuda" ]] &&
  ok "pkg-config paths follow the unpacked tree" || fail "pkg-config from the .deb: '$out'"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "the .deb is sound"
