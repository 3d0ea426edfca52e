#!/usr/bin/env bash
# fetch_runtimes.sh — the real CUDA runtimes of third_party/cuda_runtimes.bzl (and the runtime
# headers of CUDA_RUNTIME_HEADERS) into the deps cache.
#
#   third_party/fetch_runtimes.sh           download (if missing) and extract every runtime and header set
#   third_party/fetch_runtimes.sh --check   only verify the cache; exit 1 if incomplete
#
# The packages live in suites this machine does not use (bullseye, trixie, experimental): they are
# fetched with a private APT configuration under <cache>/apt (its own sources list, lists and
# archive cache; the system's keyring verifies them), so the machine's sources, pins and upgrades
# are never touched and nothing is installed. Each runtime ends up as
#   <cache>/cudart/<version>/<soname>        (the library file itself, named by its SONAME)
#   <cache>/.stamps/cudart_<version>         (package=version it was extracted from)
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

# CUDA_RUNTIMES lines:  "11.2": ("libcudart11.0", "11.2.152~11.2.2-3+deb11u3", "bullseye", "libcudart.so.11.0"),
RUNTIMES=()
read_runtimes() {
  local re='^"([0-9.]+)": \("([^"]+)", "([^"]+)", "([a-z-]+)", "([^"]+)"\),$' line
  [[ -f $RUNTIMES_BZL ]] || die "$RUNTIMES_BZL not found"
  while IFS= read -r line; do
    line=$(echo "$line" | sed 's/^ *//')
    [[ -z $line || $line == "CUDA_RUNTIMES = {" || $line == "}" ]] && continue
    [[ $line =~ $re ]] || die "$RUNTIMES_BZL: cannot read the CUDA_RUNTIMES entry '$line'"
    RUNTIMES+=("${BASH_REMATCH[1]}|${BASH_REMATCH[2]}|${BASH_REMATCH[3]}|${BASH_REMATCH[4]}|${BASH_REMATCH[5]}")
  done < <(sed -n '/^CUDA_RUNTIMES = {$/,/^}$/p' "$RUNTIMES_BZL")
  ((${#RUNTIMES[@]})) || die "$RUNTIMES_BZL lists no runtime"
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

# check_runtime <version> <soname> <package> <debversion>: 0 when the cache entry is complete.
check_runtime() {
  local dir="$CACHE/cudart/$1" stamp="$CACHE/.stamps/cudart_$1"
  [[ -f $dir/$2 ]] || return 1
  [[ "$(head -c4 "$dir/$2" | od -An -c | tr -d ' ')" == '177ELF' ]] || return 1
  readelf -d "$dir/$2" 2>/dev/null | grep -q "Library soname: \[$2\]" || return 1
  [[ "$(cat "$stamp" 2>/dev/null)" == "$3=$4" ]]
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
  read_runtimes
  read_headers
  local e version pkg ver suite soname todo=() htodo=() suites=() need_apt=0
  for e in "${RUNTIMES[@]}"; do
    IFS='|' read -r version pkg ver suite soname <<<"$e"
    if check_runtime "$version" "$soname" "$pkg" "$ver"; then
      log "  cudart $version ok ($pkg=$ver)"
    else
      todo+=("$e")
      [[ " ${suites[*]} " == *" $suite "* ]] || suites+=("$suite")
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
    ((${#todo[@]} == 0)) || die "${#todo[@]} runtime(s) missing: run third_party/fetch_runtimes.sh"
    ((${#htodo[@]} == 0)) || die "${#htodo[@]} runtime header set(s) missing: run third_party/fetch_runtimes.sh"
    return 0
  fi
  ((${#todo[@]} + ${#htodo[@]})) || return 0
  mkdir -p "$CACHE/cudart" "$CACHE/.stamps"
  if ((${#todo[@]} || need_apt)); then private_apt "${suites[@]}"; fi
  for e in "${todo[@]}"; do
    IFS='|' read -r version pkg ver suite soname <<<"$e"
    local stage deb lib
    stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
    log "  apt-get download $pkg=$ver ($suite)"
    (cd "$stage" && apt-get "${APT_OPTS[@]}" download -q "$pkg=$ver" >/dev/null) ||
      die "download of $pkg=$ver from $suite failed"
    deb=$(find "$stage" -maxdepth 1 -name '*.deb' | head -n1)
    [[ -n $deb && "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" == "Package: $pkg Version: $ver " ]] ||
      die "the download of $pkg=$ver is not that package"
    dpkg-deb -x "$deb" "$stage/x"
    lib=$(find "$stage/x" -name "$soname" | head -n1)
    [[ -n $lib ]] || die "$pkg=$ver has no $soname"
    rm -rf "$CACHE/cudart/$version"
    mkdir -p "$CACHE/cudart/$version"
    cp -L "$lib" "$CACHE/cudart/$version/$soname"
    printf '%s' "$pkg=$ver" >"$CACHE/.stamps/cudart_$version"
    rm -rf "$stage"
    check_runtime "$version" "$soname" "$pkg" "$ver" || die "cudart $version is invalid right after extraction"
    log "  cudart $version: $CACHE/cudart/$version/$soname"
  done
  for e in "${htodo[@]}"; do
    IFS='|' read -r version pkg ver suite <<<"$e"
    install_headers "$version" "$pkg" "$ver" "$suite"
  done
}

main "$@"
