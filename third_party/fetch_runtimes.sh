#!/usr/bin/env bash
# fetch_runtimes.sh — the real CUDA libraries of third_party/cuda_runtimes.bzl (runtimes, NVRTC and
# its builtins, cuBLAS and its libcublasLt, cuRAND, cuFFT, nvJitLink, cuSPARSE, cuSOLVER) and the runtime
# headers of CUDA_RUNTIME_HEADERS into the deps cache.
#
#   third_party/fetch_runtimes.sh           download (if missing) and extract every library and header set
#   third_party/fetch_runtimes.sh --check   only verify the cache; exit 1 if incomplete
#
# The packages live in suites this machine does not use (bullseye, trixie, experimental): they are
# fetched with a private APT configuration under <cache>/apt (its own sources list, lists and
# archive cache; the system's keyring verifies them), so the machine's sources, pins and upgrades
# are never touched and nothing is installed. Every library list (LIBRARY_LISTS below: the .bzl
# dictionary, its cache directory, its stamp prefix) is fetched the same way; each library ends up as
#   <cache>/<dir>/<version>/<soname>         (the library file itself, named by its SONAME)
#   <cache>/.stamps/<prefix>_<version>       (package=version it was extracted from)
# i.e. <cache>/cudart/<version>/ for CUDA_RUNTIMES and <cache>/nvrtc/<version>/ for NVRTC_LIBRARIES
# and NVRTC_BUILTINS (one directory: NVRTC dlopens its builtins from its own directory), and
# <cache>/cublas/<version>/ for CUBLAS_LIBRARIES and CUBLAS_LT (libcublas needs its libcublasLt), and
# <cache>/cuda-libs/<version>/ for cuRAND, cuFFT, nvJitLink, cuSPARSE and cuSOLVER (one directory per
# release: cuSOLVER and cuSPARSE need the others of their release);
# and each header set (CUDA_RUNTIME_HEADERS: nvidia-cuda-dev, ./usr/include only) as
#   <cache>/cuda-<version>/usr/include       (cuda_runtime_api.h must say CUDART_VERSION of <version>)
#   <cache>/.stamps/cuda-<version>           (package=version)
# A .deb already in <cache>/apt/archives is used instead of downloading it; every .deb is deleted
# once extracted.
# Environment: CUDYN_DEPS (cache, default /var/cache/cudyn-deps), CUDYN_DEBIAN_MIRROR.
set -euo pipefail

readonly CACHE="${CUDYN_DEPS:-/var/cache/cudyn-deps}"
readonly MIRROR="${CUDYN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
readonly RUNTIMES_BZL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cuda_runtimes.bzl"
readonly APT_DIR="$CACHE/apt"

log() { printf 'fetch_runtimes: %s\n' "$*"; }
die() {
  printf 'fetch_runtimes: ERROR: %s\n' "$*" >&2
  exit 1
}

# The library lists: <dictionary in cuda_runtimes.bzl>|<cache directory>|<stamp prefix>.
readonly LIBRARY_LISTS=(
  "CUDA_RUNTIMES|cudart|cudart"
  "NVRTC_LIBRARIES|nvrtc|nvrtc"
  "NVRTC_BUILTINS|nvrtc|nvrtc-builtins"
  "CUBLAS_LIBRARIES|cublas|cublas"
  "CUBLAS_LT|cublas|cublaslt"
  "CURAND_LIBRARIES|cuda-libs|curand"
  "CUFFT_LIBRARIES|cuda-libs|cufft"
  "NVJITLINK_LIBRARIES|cuda-libs|nvjitlink"
  "CUSPARSE_LIBRARIES|cuda-libs|cusparse"
  "CUSOLVER_LIBRARIES|cuda-libs|cusolver"
)

# Entries of every list, as dir|stamp|version|package|debversion|suite|soname. Lines such as
#   "11.2": ("libcudart11.0", "11.2.152~11.2.2-3+deb11u3", "bullseye", "libcudart.so.11.0"),
LIBRARIES=()
read_libraries() {
  local re='^"([0-9.]+)": \("([^"]+)", "([^"]+)", "([a-z-]+)", "([^"]+)"\),$' line list dict dir stamp n
  [[ -f $RUNTIMES_BZL ]] || die "$RUNTIMES_BZL not found"
  for list in "${LIBRARY_LISTS[@]}"; do
    IFS='|' read -r dict dir stamp <<<"$list"
    n=0
    while IFS= read -r line; do
      line=$(echo "$line" | sed 's/^ *//')
      [[ -z $line || $line == "$dict = {" || $line == "}" ]] && continue
      [[ $line =~ $re ]] || die "$RUNTIMES_BZL: cannot read the $dict entry '$line'"
      LIBRARIES+=("$dir|$stamp|${BASH_REMATCH[1]}|${BASH_REMATCH[2]}|${BASH_REMATCH[3]}|${BASH_REMATCH[4]}|${BASH_REMATCH[5]}")
      n=$((n + 1))
    done < <(sed -n "/^$dict = {\$/,/^}\$/p" "$RUNTIMES_BZL")
    ((n)) || die "$RUNTIMES_BZL lists nothing in $dict"
  done
}

# CUDA_RUNTIME_HEADERS lines:  "12.4": ("nvidia-cuda-dev", "12.4.127~12.4.1-2", "trixie"),
HEADERS=()
read_headers() {
  local re='^"([0-9]+\.[0-9]+)": \("([^"]+)", "([^"]+)", "([a-z-]+)"\),$' line
  while IFS= read -r line; do
    line=$(echo "$line" | sed 's/^ *//')
    [[ -z $line || $line == "CUDA_RUNTIME_HEADERS = {" || $line == "}" ]] && continue
    [[ $line =~ $re ]] || die "$RUNTIMES_BZL: cannot read the CUDA_RUNTIME_HEADERS entry '$line'"
    HEADERS+=("${BASH_REMATCH[1]}|${BASH_REMATCH[2]}|${BASH_REMATCH[3]}|${BASH_REMATCH[4]}")
  done < <(sed -n '/^CUDA_RUNTIME_HEADERS = {$/,/^}$/p' "$RUNTIMES_BZL")
}

# cudart_version <version>: 12.4 -> 12040 (CUDART_VERSION).
cudart_version() { echo $((${1%%.*} * 1000 + ${1#*.} * 10)); }

# check_headers <version> <package> <debversion>: 0 when the cache's header set is complete.
check_headers() {
  local inc="$CACHE/cuda-$1/usr/include"
  [[ -f $inc/cuda_runtime_api.h && -f $inc/cuda.h ]] || return 1
  grep -Eq "^#define[[:space:]]+CUDART_VERSION[[:space:]]+$(cudart_version "$1")\b" "$inc/cuda_runtime_api.h" ||
    return 1
  [[ "$(cat "$CACHE/.stamps/cuda-$1" 2>/dev/null)" == "$2=$3" ]]
}

# fetch_deb <stage> <package> <debversion> <suite>: prints the path of the verified .deb, taken from
# <cache>/apt/archives when it is there, else downloaded into <stage>.
fetch_deb() {
  local stage=$1 pkg=$2 ver=$3 suite=$4 deb
  deb=$(find "$APT_DIR/archives" -maxdepth 1 -name "${pkg}_${ver#*:}_*.deb" 2>/dev/null | head -n1)
  if [[ -z $deb ]]; then
    log "  apt-get download $pkg=$ver ($suite)" >&2
    (cd "$stage" && apt-get "${APT_OPTS[@]}" download -q "$pkg=$ver" >/dev/null) ||
      die "download of $pkg=$ver from $suite failed"
    deb=$(find "$stage" -maxdepth 1 -name '*.deb' | head -n1)
  else
    log "  $pkg=$ver from $deb" >&2
  fi
  [[ -n $deb && "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" == "Package: $pkg Version: $ver " ]] ||
    die "the .deb for $pkg=$ver ($deb) is not that package"
  echo "$deb"
}

# install_headers <version> <package> <debversion> <suite>
install_headers() {
  local version=$1 pkg=$2 ver=$3 suite=$4 stage deb
  stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
  deb=$(fetch_deb "$stage" "$pkg" "$ver" "$suite")
  mkdir -p "$stage/cuda-$version"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage/cuda-$version" --wildcards './usr/include/*' ||
    die "$pkg=$ver: extracting ./usr/include failed"
  [[ -f $stage/cuda-$version/usr/include/cuda_runtime_api.h ]] || die "$pkg=$ver has no usr/include/cuda_runtime_api.h"
  rm -f "$deb"
  # Swap the new tree in with one rename; the old one (if any) goes after.
  if [[ -e $CACHE/cuda-$version ]]; then mv "$CACHE/cuda-$version" "$stage/old"; fi
  mv "$stage/cuda-$version" "$CACHE/cuda-$version"
  printf '%s' "$pkg=$ver" >"$CACHE/.stamps/cuda-$version"
  rm -rf "$stage"
  check_headers "$version" "$pkg" "$ver" ||
    die "cuda-$version headers are invalid right after extraction (CUDART_VERSION is not $(cudart_version "$version"))"
  log "  cuda-$version headers: $CACHE/cuda-$version/usr/include"
}

# check_library <dir> <stamp> <version> <soname> <package> <debversion>: 0 when the cache entry is
# complete.
check_library() {
  local file="$CACHE/$1/$3/$4" stamp="$CACHE/.stamps/$2_$3"
  [[ -f $file ]] || return 1
  [[ "$(head -c4 "$file" | od -An -c | tr -d ' ')" == '177ELF' ]] || return 1
  readelf -d "$file" 2>/dev/null | grep -q "Library soname: \[$4\]" || return 1
  [[ "$(cat "$stamp" 2>/dev/null)" == "$5=$6" ]]
}

APT_OPTS=()
private_apt() {
  local suites=("$@") s
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial" "$APT_DIR/etc/none"
  : >"$APT_DIR/etc/sources.list"
  for s in "${suites[@]}"; do echo "deb $MIRROR $s non-free" >>"$APT_DIR/etc/sources.list"; done
  APT_OPTS=(
    -o "Dir::Etc::SourceList=$APT_DIR/etc/sources.list" -o "Dir::Etc::SourceParts=$APT_DIR/etc/none"
    -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR" -o "Dir::Cache::archives=$APT_DIR/archives"
    -o "Dir::Etc::Preferences=$APT_DIR/etc/none" -o "Dir::Etc::PreferencesParts=$APT_DIR/etc/none"
    -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1"
  )
  log "apt-get update (private configuration: ${suites[*]})"
  apt-get "${APT_OPTS[@]}" update -q >/dev/null || die "apt-get update with the private configuration failed"
}

main() {
  read_libraries
  read_headers
  local e dir stamp version pkg ver suite soname todo=() htodo=() suites=() need_apt=0
  for e in "${LIBRARIES[@]}"; do
    IFS='|' read -r dir stamp version pkg ver suite soname <<<"$e"
    if check_library "$dir" "$stamp" "$version" "$soname" "$pkg" "$ver"; then
      log "  $stamp $version ok ($pkg=$ver)"
    else
      todo+=("$e")
      [[ " ${suites[*]} " == *" $suite "* ]] || suites+=("$suite")
      [[ -n $(find "$APT_DIR/archives" -maxdepth 1 -name "${pkg}_${ver#*:}_*.deb" 2>/dev/null) ]] || need_apt=1
    fi
  done
  for e in "${HEADERS[@]}"; do
    IFS='|' read -r version pkg ver suite <<<"$e"
    if check_headers "$version" "$pkg" "$ver"; then
      log "  cuda-$version headers ok ($pkg=$ver)"
    else
      htodo+=("$e")
      [[ " ${suites[*]} " == *" $suite "* ]] || suites+=("$suite")
      [[ -n $(find "$APT_DIR/archives" -maxdepth 1 -name "${pkg}_${ver#*:}_*.deb" 2>/dev/null) ]] || need_apt=1
    fi
  done
  if [[ ${1:-} == --check ]]; then
    ((${#todo[@]} == 0)) || die "${#todo[@]} librar(y/ies) missing: run third_party/fetch_runtimes.sh"
    ((${#htodo[@]} == 0)) || die "${#htodo[@]} runtime header set(s) missing: run third_party/fetch_runtimes.sh"
    return 0
  fi
  ((${#todo[@]} + ${#htodo[@]})) || return 0
  mkdir -p "$CACHE/.stamps"
  if ((need_apt)); then private_apt "${suites[@]}"; fi
  for e in "${todo[@]}"; do
    IFS='|' read -r dir stamp version pkg ver suite soname <<<"$e"
    local stage deb lib
    stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
    deb=$(fetch_deb "$stage" "$pkg" "$ver" "$suite")
    dpkg-deb -x "$deb" "$stage/x"
    rm -f "$deb"
    lib=$(find "$stage/x" -name "$soname" | head -n1)
    [[ -n $lib ]] || die "$pkg=$ver has no $soname"
    # Only this file is replaced: a directory may hold several lists' files (NVRTC + builtins).
    mkdir -p "$CACHE/$dir/$version"
    rm -f "$CACHE/$dir/$version/$soname"
    cp -L "$lib" "$CACHE/$dir/$version/$soname"
    printf '%s' "$pkg=$ver" >"$CACHE/.stamps/${stamp}_$version"
    rm -rf "$stage"
    check_library "$dir" "$stamp" "$version" "$soname" "$pkg" "$ver" ||
      die "$stamp $version is invalid right after extraction"
    log "  $stamp $version: $CACHE/$dir/$version/$soname"
  done
  for e in "${htodo[@]}"; do
    IFS='|' read -r version pkg ver suite <<<"$e"
    install_headers "$version" "$pkg" "$ver" "$suite"
  done
}

main "$@"
