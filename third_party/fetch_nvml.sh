#!/usr/bin/env bash
# fetch_nvml.sh — the real NVML libraries (libnvidia-ml.so.1) and NVML headers (nvml.h) of REAL_NVML /
# NVML_HEADERS in third_party/nvidia_drivers.bzl (the one list) into the deps cache.
#
#   third_party/fetch_nvml.sh           download (if missing) and extract every library and header
#   third_party/fetch_nvml.sh --check   only verify the cache (no apt, no network); exit 1 if incomplete
#
# The packages live in bullseye, bookworm, trixie and experimental (non-free): they are fetched with a
# private APT configuration under <cache>/apt-nvml (its own sources list, lists and archive cache; the
# system's keyring verifies them), so the machine's sources are never touched and nothing is installed.
# Only the non-free Packages indexes of the suites still needed are downloaded. Result:
#   <cache>/nvml/<branch>/libnvidia-ml.so.<version>      the real library (a regular file)
#   <cache>/nvml/<branch>/libnvidia-ml.so.1              -> libnvidia-ml.so.<version>, as the driver
#                                                        installs it (the loader reads the version
#                                                        off the file's real name)
#   <cache>/nvml-headers/<cuda version>/nvml.h           (libnvidia-ml-dev's usr/include/nvml.h)
#   <cache>/.stamps/nvml_<branch>, nvml-headers_<cuda version>   (package=version extracted from)
# Environment: CUDYN_DEPS (cache, default /var/cache/cudyn-deps), CUDYN_DEBIAN_MIRROR.
set -euo pipefail

readonly CACHE="${CUDYN_DEPS:-/var/cache/cudyn-deps}"
readonly MIRROR="${CUDYN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DRIVERS_BZL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/nvidia_drivers.bzl"
readonly DRIVERS_BZL
readonly APT_DIR="$CACHE/apt-nvml"

log() { printf 'fetch_nvml: %s\n' "$*"; }
die() {
  printf 'fetch_nvml: ERROR: %s\n' "$*" >&2
  exit 1
}

# dict_lines <NAME>: the entry lines of `NAME = {` ... `}` in nvidia_drivers.bzl, comments and blanks dropped.
dict_lines() {
  sed -n "/^$1 = {\$/,/^}\$/p" "$DRIVERS_BZL" | sed '1d;$d; s/#.*//; s/^ *//; s/ *$//' | grep -v '^$' || true
}

# ITEMS: kind|name|suite family|package ... where kind is lib (name = branch) or header (name = CUDA version).
ITEMS=()
read_lists() {
  local line re_lib re_hdr pkgs p item n=0
  re_lib='^"([0-9]+)": \(([0-9]+), "([a-z]+)", \[([^]]+)\]\),$'
  re_hdr='^"([0-9]+\.[0-9]+)": \("([a-z]+)", "([^"]+)"\),$'
  [[ -f $DRIVERS_BZL ]] || die "$DRIVERS_BZL not found (it lists the real NVML libraries)"
  while IFS= read -r line; do
    [[ $line =~ $re_lib ]] || die "$DRIVERS_BZL: cannot read the REAL_NVML entry '$line'"
    item="lib|${BASH_REMATCH[1]}|${BASH_REMATCH[3]}"
    pkgs=${BASH_REMATCH[4]//[\" ]/}
    IFS=, read -r -a pkgs <<<"${pkgs%,}"
    for p in "${pkgs[@]}"; do item+="|$p"; done
    ITEMS+=("$item")
    n=$((n + 1))
  done < <(dict_lines REAL_NVML)
  ((n)) || die "$DRIVERS_BZL lists nothing in REAL_NVML"
  n=0
  while IFS= read -r line; do
    [[ $line =~ $re_hdr ]] || die "$DRIVERS_BZL: cannot read the NVML_HEADERS entry '$line'"
    ITEMS+=("header|${BASH_REMATCH[1]}|${BASH_REMATCH[2]}|${BASH_REMATCH[3]}")
    n=$((n + 1))
  done < <(dict_lines NVML_HEADERS)
  ((n)) || die "$DRIVERS_BZL lists nothing in NVML_HEADERS"
}

is_elf() { [[ -f "$1" ]] && [[ "$(head -c4 "$1" | od -An -c | tr -d ' ')" == '177ELF' ]]; }

stamp_of() { if [[ $1 == lib ]]; then echo "$CACHE/.stamps/nvml_$2"; else echo "$CACHE/.stamps/nvml-headers_$2"; fi; }

# check_item <kind> <name> <packages...>: prints problems; 0 when the cache entry is complete.
check_item() {
  local kind=$1 name=$2 stamp problems=() p
  shift 2
  stamp=$(stamp_of "$kind" "$name")
  if [[ ! -s $stamp ]]; then
    problems+=("no stamp $stamp")
  else
    for p in "$@"; do
      grep -Eq "^$p=$name\\." "$stamp" || problems+=("$stamp does not name $p=$name.*")
    done
  fi
  if [[ $kind == lib ]]; then
    local dir="$CACHE/nvml/$name" versioned
    versioned=("$dir/libnvidia-ml.so.$name."*)
    if ! is_elf "${versioned[0]}" || [[ -L ${versioned[0]} ]]; then
      problems+=("$dir/libnvidia-ml.so.$name.* is missing or not an ELF file")
    else
      readelf -d "${versioned[0]}" 2>/dev/null | grep -q 'Library soname: \[libnvidia-ml.so.1\]' ||
        problems+=("${versioned[0]} has not the SONAME libnvidia-ml.so.1")
      [[ -L $dir/libnvidia-ml.so.1 && $(readlink "$dir/libnvidia-ml.so.1") == "$(basename "${versioned[0]}")" ]] ||
        problems+=("$dir/libnvidia-ml.so.1 -> $(basename "${versioned[0]}") missing")
    fi
  else
    local h="$CACHE/nvml-headers/$name/nvml.h"
    [[ -s $h ]] && grep -q 'nvmlInit_v2' "$h" || problems+=("$h missing or not an NVML header")
  fi
  if ((${#problems[@]})); then
    printf '  %s: %s\n' "$kind $name" "${problems[@]}"
    return 1
  fi
  return 0
}

APT_OPTS=()
private_apt() {
  local s
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial" "$APT_DIR/etc/none"
  : >"$APT_DIR/etc/sources.list"
  for s in "$@"; do echo "deb $MIRROR $s non-free" >>"$APT_DIR/etc/sources.list"; done
  APT_OPTS=(
    -o "Dir::Etc::SourceList=$APT_DIR/etc/sources.list" -o "Dir::Etc::SourceParts=$APT_DIR/etc/none"
    -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR" -o "Dir::Cache::archives=$APT_DIR/archives"
    -o "Dir::Etc::Preferences=$APT_DIR/etc/none" -o "Dir::Etc::PreferencesParts=$APT_DIR/etc/none"
    -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1"
  )
  log "apt-get update (private configuration: $* non-free)"
  apt-get "${APT_OPTS[@]}" update -q >/dev/null || die "apt-get update with the private configuration failed"
}

# best_version <package> <suite family> <version prefix>: the highest matching version apt knows.
best_version() {
  local pkg=$1 family=$2 prefix=$3 best="" v src suite
  while IFS='|' read -r _ v src; do
    v=$(echo "$v" | xargs)
    suite=$(echo "$src" | awk '{print $2}')
    suite=${suite%%/*}
    [[ $suite =~ ^$family(-updates|-security)?$ ]] || continue
    [[ $v == "$prefix".* ]] || continue
    if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
  done < <(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null)
  echo "$best"
}

# fetch_item <kind> <name> <family> <packages...>
fetch_item() {
  local kind=$1 name=$2 family=$3 stage pkg ver deb stamp="" f
  shift 3
  log "fetching NVML $kind $name ($family: $*)"
  stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
  mkdir -p "$stage/x" "$stage/out"
  for pkg in "$@"; do
    ver=$(best_version "$pkg" "$family" "$name")
    [[ -n $ver ]] || die "package $pkg: no version $name.* in suite $family (see apt-cache madison $pkg)"
    log "  apt-get download $pkg=$ver"
    (cd "$stage" && apt-get "${APT_OPTS[@]}" download -q "$pkg=$ver" >/dev/null) || die "download of $pkg=$ver failed"
    deb=$(find "$stage" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
    [[ -n $deb && "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" == "Package: $pkg Version: $ver " ]] ||
      die "the .deb for $pkg=$ver ($deb) is not that package"
    dpkg-deb -x "$deb" "$stage/x" || die "dpkg-deb -x failed for $(basename "$deb")"
    rm -f "$deb"
    stamp+="$pkg=$ver"$'\n'
  done
  if [[ $kind == lib ]]; then
    mapfile -t f < <(find "$stage/x" -type f -name "libnvidia-ml.so.$name.*")
    ((${#f[@]} == 1)) || die "expected one libnvidia-ml.so.$name.* in $*, found ${#f[@]}"
    cp -p "${f[0]}" "$stage/out/$(basename "${f[0]}")"
    ln -s "$(basename "${f[0]}")" "$stage/out/libnvidia-ml.so.1"
    rm -rf "$CACHE/nvml/$name"
    mkdir -p "$CACHE/nvml"
    mv "$stage/out" "$CACHE/nvml/$name"
  else
    [[ -f $stage/x/usr/include/nvml.h ]] || die "$* has no usr/include/nvml.h"
    cp -p "$stage/x/usr/include/nvml.h" "$stage/out/nvml.h"
    rm -rf "$CACHE/nvml-headers/$name"
    mkdir -p "$CACHE/nvml-headers"
    mv "$stage/out" "$CACHE/nvml-headers/$name"
  fi
  rm -rf "$stage"
  printf '%s' "$stamp" >"$(stamp_of "$kind" "$name")"
  check_item "$kind" "$name" "$@" >&2 || die "NVML $kind $name is invalid right after extraction"
}

main() {
  local e kind name family rest pkgs todo=() suites=()
  read_lists
  for e in "${ITEMS[@]}"; do
    IFS='|' read -r kind name family rest <<<"$e"
    IFS='|' read -r -a pkgs <<<"$rest"
    if check_item "$kind" "$name" "${pkgs[@]}" >/dev/null; then
      log "  nvml $kind $name ok ($(tr '\n' ' ' <"$(stamp_of "$kind" "$name")"))"
    else
      if [[ ${1:-} == --check ]]; then check_item "$kind" "$name" "${pkgs[@]}" >&2 || true; fi
      todo+=("$e")
      [[ " ${suites[*]} " == *" $family "* ]] || suites+=("$family")
    fi
  done
  if [[ ${1:-} == --check ]]; then
    ((${#todo[@]} == 0)) || die "${#todo[@]} NVML librar(y/ies)/header(s) missing: run third_party/fetch_nvml.sh"
    return 0
  fi
  ((${#todo[@]})) || return 0
  mkdir -p "$CACHE/.stamps"
  rm -rf "$CACHE"/.stage.*
  # Each family's own suite plus its -updates / -security (bullseye-security is another archive: not used).
  local all=() s
  for s in "${suites[@]}"; do
    all+=("$s")
    [[ $s == bookworm || $s == bullseye || $s == trixie ]] && all+=("$s-updates")
  done
  private_apt "${all[@]}"
  for e in "${todo[@]}"; do
    IFS='|' read -r kind name family rest <<<"$e"
    IFS='|' read -r -a pkgs <<<"$rest"
    fetch_item "$kind" "$name" "$family" "${pkgs[@]}"
  done
}

main "$@"
