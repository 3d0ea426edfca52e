#!/usr/bin/env bash
# fetch_runtimes.sh — the real CUDA runtimes of third_party/cuda_runtimes.bzl into the deps cache.
#
#   third_party/fetch_runtimes.sh           download (if missing) and extract every runtime
#   third_party/fetch_runtimes.sh --check   only verify the cache; exit 1 if incomplete
#
# The packages live in suites this machine does not use (bullseye, trixie, experimental): they are
# fetched with a private APT configuration under <cache>/apt (its own sources list, lists and
# archive cache; the system's keyring verifies them), so the machine's sources, pins and upgrades
# are never touched and nothing is installed. Each runtime ends up as
#   <cache>/cudart/<version>/<soname>        (the library file itself, named by its SONAME)
#   <cache>/.stamps/cudart_<version>         (package=version it was extracted from)
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
  local e version pkg ver suite soname todo=() suites=()
  for e in "${RUNTIMES[@]}"; do
    IFS='|' read -r version pkg ver suite soname <<<"$e"
    if check_runtime "$version" "$soname" "$pkg" "$ver"; then
      log "  cudart $version ok ($pkg=$ver)"
    else
      todo+=("$e")
      [[ " ${suites[*]} " == *" $suite "* ]] || suites+=("$suite")
    fi
  done
  if [[ ${1:-} == --check ]]; then
    ((${#todo[@]} == 0)) || die "${#todo[@]} runtime(s) missing: run third_party/fetch_runtimes.sh"
    return 0
  fi
  ((${#todo[@]})) || return 0
  mkdir -p "$CACHE/cudart" "$CACHE/.stamps"
  private_apt "${suites[@]}"
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
}

main "$@"
