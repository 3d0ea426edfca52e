#!/usr/bin/env bash
# fetch_deps.sh — prepare a Debian 12 machine for cudyn's offline Bazel build and fill the deps cache.
#
#   third_party/fetch_deps.sh            set up apt sources, install build deps, download + extract the cache
#   third_party/fetch_deps.sh --check    only verify the cache (no apt, no root needed); exit 1 if incomplete
#   third_party/fetch_deps.sh --update   like the default, but always run `apt-get update`
#
# Environment:
#   CUDYN_DEPS           cache directory (default /var/cache/cudyn-deps).  NOTE: the Bazel WORKSPACE always
#                        uses the default path; a different cache only serves scripts such as version_tables/regen.
#   CUDYN_DEBIAN_MIRROR  Debian mirror URI (default: the one apt already uses for bookworm, else
#                        http://deb.debian.org/debian).
#   CUDYN_KEEP_DEBS=1    keep the two large nvidia-cuda-dev .debs (~1.3 GB) after extracting their headers, and the
#                        nvidia-cuda-toolkit .deb (84 MB) after extracting nvcc 11.8.
#
# What it does (idempotent; each step is skipped when already done):
#   1. /etc/apt/sources.list.d/cudyn-nonfree.sources (deb822): `main contrib non-free` for bookworm,
#      bookworm-updates, bookworm-backports and bullseye on the Debian mirror — only the suite/component pairs
#      that no other apt source already configures (so apt prints no "configured multiple times" warnings).
#   2. apt-get update (only when something must be installed or downloaded, or the sources file changed).
#   3. apt-get install of the build dependencies (BUILD_DEPS below).
#   4. apt-get download (never install) of the real drivers and old CUDA headers, exact versions taken from
#      `apt-cache madison` for the right suite, then extraction into the cache:
#        <cache>/drivers/<major>/libcuda.so.<version>, libcuda.so.1 -> libcuda.so.<version>, and the extra
#                 libraries the driver needs (418: libnvidia-fatbinaryloader.so.418.226.00); the drivers,
#                 their packages and suites are listed once, in REAL_DRIVERS of third_party/nvidia_drivers.bzl
#        <cache>/cuda-<version>/usr/include/...   (nvidia-cuda-dev of each version, listed once, in
#                 CUDA_TOOLKIT_HEADERS of third_party/cuda_runtimes.bzl: 11.8 from bookworm, 11.2 bullseye)
#        <cache>/nvcc-11.8/bin/{nvcc,cicc,ptxas,fatbinary,cudafe++,nvcc.profile}, nvvm/libdevice/libdevice.10.bc
#                 (nvidia-cuda-toolkit 11.8.89, bookworm: only what device compilation and `nvcc -c` need,
#                 ~78 MB of the 84 MB package; the .deb is deleted after use). nvcc.profile is written here:
#                 paths relative to nvcc itself, headers from <cache>/cuda-11.8/usr/include. nvcc 11.8 runs
#                 the host preprocessor even for -ptx/-cubin/-fatbin and rejects gcc 12: use
#                 `-ccbin clang++-14` (clang-14 is a build dependency below and one nvcc 11.8 supports).
#        <cache>/debs/*.deb                  (downloaded packages; the nvidia-cuda-dev ones are deleted after use)
#        <cache>/cudart/<version>/<soname>   (real CUDA runtimes: third_party/fetch_runtimes.sh, private APT)
#        <cache>/nvrtc/<version>/<soname>    (real NVRTC libraries and their builtins: the same script)
#        <cache>/nvml/<branch>/libnvidia-ml.so.1, <cache>/nvml-headers/<cuda>/nvml.h  (real NVML libraries
#                 and headers: third_party/fetch_nvml.sh, private APT; REAL_NVML / NVML_HEADERS of nvidia_drivers.bzl)
#        <cache>/.stamps/<entry>             (package=version lines of what each entry was extracted from)
# Any failure prints which step / package failed and exits non-zero.
set -euo pipefail

readonly CACHE="${CUDYN_DEPS:-/var/cache/cudyn-deps}"
readonly SOURCES_FILE=/etc/apt/sources.list.d/cudyn-nonfree.sources
readonly SUITES=(bookworm bookworm-updates bookworm-backports bullseye)
readonly COMPONENTS=(main contrib non-free)
readonly KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# Build dependencies.  gcc-multilib builds the 32-bit ELF test inputs of the CLI's ELF reader.
# Sanitizer runtimes: gcc-12's -fsanitize=address/thread/undefined link against
# libasan8 / libtsan2 / libubsan1 (+ liblsan0) through the libasan.so/libtsan.so/... links that
# libgcc-12-dev ships; they are listed explicitly so a minimal install cannot miss them.
readonly BUILD_DEPS=(
  bazel-bootstrap g++ python3 binutils file
  libgtest-dev libgmock-dev libbenchmark-dev libspdlog-dev libfmt-dev nlohmann-json3-dev liblz4-dev libzstd-dev zlib1g-dev
  clang-14 libclang-rt-14-dev
  libgcc-12-dev libasan8 liblsan0 libtsan2 libubsan1
  gcc-multilib
  cmake make pkgconf
  python3-dev python3-venv python3-pytest
)

log() { printf 'fetch_deps: %s\n' "$*"; }
warn() { printf 'fetch_deps: WARNING: %s\n' "$*" >&2; }
die() {
  printf 'fetch_deps: ERROR: %s\n' "$*" >&2
  exit 1
}

# The real drivers come from REAL_DRIVERS in nvidia_drivers.bzl (the one list; Bazel reads it too):
#   "<major>": (<cuda version>, "<suite family>", ["<package>", ...], ["<extra library>", ...]),
# read_real_drivers appends one cache entry per driver to ENTRIES and fills DRIVER_EXTRA_LIBS.
DRIVERS_BZL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/nvidia_drivers.bzl"
readonly DRIVERS_BZL
declare -A DRIVER_EXTRA_LIBS=()
ENTRIES=()
read_real_drivers() {
  local text item major family pkgs extras entry p
  local re='^"([0-9]+)":\(([0-9]+),"([a-z]+)",\[([^]]*)\],\[([^]]*)\]$'
  [[ -f $DRIVERS_BZL ]] || die "$DRIVERS_BZL not found (it lists the real drivers)"
  # The dict's text without comments and blanks: "418":(10010,"bullseye",["a","b"],["c"]),"450":(...),
  text=$(sed -n '/^REAL_DRIVERS = {$/,/^}$/p' "$DRIVERS_BZL" | sed 's/#.*//' | tr -d ' \t\n')
  text=${text#REAL_DRIVERS=\{}
  text=${text%\}}
  text=${text//,]/]}
  text=${text//,)/)}
  [[ -n $text ]] || die "no REAL_DRIVERS = { ... } block in $DRIVERS_BZL"
  while [[ -n $text ]]; do
    item=${text%%)*}
    text=${text#*)}
    text=${text#,}
    [[ $item =~ $re ]] || die "$DRIVERS_BZL: cannot read the REAL_DRIVERS entry '$item)'"
    major=${BASH_REMATCH[1]} family=${BASH_REMATCH[3]} pkgs=${BASH_REMATCH[4]} extras=${BASH_REMATCH[5]}
    entry="drivers/$major|driver|$family"
    IFS=, read -r -a pkgs <<<"${pkgs//\"/}"
    ((${#pkgs[@]})) || die "$DRIVERS_BZL: driver $major lists no package"
    for p in "${pkgs[@]}"; do entry+="|$p:$major\\."; done
    ENTRIES+=("$entry")
    DRIVER_EXTRA_LIBS[$major]=${extras//[\",]/ }
  done
  ((${#ENTRIES[@]})) || die "$DRIVERS_BZL lists no driver"
}
read_real_drivers

# The toolkit headers come from CUDA_TOOLKIT_HEADERS in cuda_runtimes.bzl (the one list; WORKSPACE
# declares them), one entry per line:   "<version>": ("<suite family>", "<package>"),
# read_toolkit_headers appends one cache entry per version to ENTRIES.
RUNTIMES_BZL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cuda_runtimes.bzl"
readonly RUNTIMES_BZL
read_toolkit_headers() {
  local line major minor count=0
  local re='^ *"([0-9]+)\.([0-9]+)": \("([a-z]+)", "([a-z0-9.+-]+)"\),$'
  [[ -f $RUNTIMES_BZL ]] || die "$RUNTIMES_BZL not found (it lists the CUDA headers)"
  while IFS= read -r line; do
    [[ $line =~ ^CUDA_TOOLKIT_HEADERS\ =\ \{$ || $line == "}" || -z $line ]] && continue
    [[ $line =~ $re ]] || die "$RUNTIMES_BZL: cannot read the CUDA_TOOLKIT_HEADERS entry '$line'"
    major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
    ENTRIES+=("cuda-$major.$minor|headers|${BASH_REMATCH[3]}|${BASH_REMATCH[4]}:$major\\.$minor\\.")
    count=$((count + 1))
  done < <(sed -n '/^CUDA_TOOLKIT_HEADERS = {$/,/^}$/p' "$RUNTIMES_BZL")
  ((count)) || die "no CUDA_TOOLKIT_HEADERS = { ... } block in $RUNTIMES_BZL"
}
read_toolkit_headers

# Cache entries: name | destination kind | suite family | package:version-regex ...
# Suite family "bookworm" accepts bookworm, bookworm-updates, bookworm-security (never backports);
# "bullseye" likewise.  The exact versions come from apt. The 11.8 nvcc builds test programs
# against the 11.8 headers (<cache>/cuda-11.8).
ENTRIES+=(
  "nvcc-11.8|nvcc|bookworm|nvidia-cuda-toolkit:11\.8\."
)
readonly ENTRIES DRIVER_EXTRA_LIBS
# shellcheck disable=SC2154  # rc is assigned inside the trap string
trap 'rc=$?; printf "fetch_deps: ERROR: command failed (exit %d) at line %d: %s\n" "$rc" "$LINENO" "$BASH_COMMAND" >&2' ERR

SUDO=()
need_root() {
  if [[ $EUID -ne 0 ]]; then
    command -v sudo >/dev/null || die "must run as root (or with sudo available) to $*"
    SUDO=(sudo)
  fi
}

# ---------------------------------------------------------------------------------------------------------
# Cache validation (used by --check and to decide what to fetch)
# ---------------------------------------------------------------------------------------------------------
is_elf() { [[ -f "$1" ]] && [[ "$(head -c4 "$1" | od -An -c | tr -d ' ')" == '177ELF' ]]; }

# The files of an nvcc entry (nvcc-<X.Y>): the programs nvcc runs for device code and `nvcc -c`
# (cudafe++: the host side), and libdevice; relative to <cache>/nvcc-<X.Y>.
readonly NVCC_PROGRAMS=(nvcc cicc ptxas fatbinary cudafe++)
readonly NVCC_LIBDEVICE=nvvm/libdevice/libdevice.10.bc
# Where the Debian package keeps them.
declare -A NVCC_DEB_PATHS=(
  [nvcc]=./usr/lib/nvidia-cuda-toolkit/bin/nvcc [cicc]=./usr/lib/nvidia-cuda-toolkit/bin/cicc
  [ptxas]=./usr/bin/ptxas [fatbinary]=./usr/bin/fatbinary [cudafe++]=./usr/bin/cudafe++
  [libdevice]=./usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc
)
readonly NVCC_DEB_PATHS

# check_nvcc <entry-name> <dir>: fills NVCC_PROBLEMS; 0 when the entry is complete and its nvcc says
# it is release X.Y (`nvcc --version` needs no host compiler and no headers).
NVCC_PROBLEMS=()
check_nvcc() {
  local dir=$2 want=${1#nvcc-} p
  NVCC_PROBLEMS=()
  for p in "${NVCC_PROGRAMS[@]}"; do
    is_elf "$dir/bin/$p" && [[ -x $dir/bin/$p ]] || NVCC_PROBLEMS+=("$dir/bin/$p missing or not an executable ELF")
  done
  [[ -s $dir/$NVCC_LIBDEVICE ]] || NVCC_PROBLEMS+=("$dir/$NVCC_LIBDEVICE missing")
  [[ -s $dir/bin/nvcc.profile ]] || NVCC_PROBLEMS+=("$dir/bin/nvcc.profile missing")
  [[ -f $CACHE/cuda-$want/usr/include/cuda_runtime.h ]] ||
    NVCC_PROBLEMS+=("$CACHE/cuda-$want/usr/include/cuda_runtime.h missing (the headers nvcc.profile names)")
  if ((${#NVCC_PROBLEMS[@]} == 0)); then
    local says
    says=$("$dir/bin/nvcc" --version 2>&1 || true)
    [[ $says == *"release $want,"* ]] || NVCC_PROBLEMS+=("$dir/bin/nvcc --version does not say release $want")
  fi
  ((${#NVCC_PROBLEMS[@]} == 0))
}

# check_entry <entry-name> <kind>: prints problems, returns 0 if valid.
check_entry() {
  local name=$1 kind=$2 dir="$CACHE/$1" problems=()
  [[ -s "$CACHE/.stamps/${name//\//_}" ]] || problems+=("no stamp $CACHE/.stamps/${name//\//_}")
  if [[ $kind == driver ]]; then
    local major=${name#drivers/} real
    if [[ ! -L "$dir/libcuda.so.1" ]]; then
      problems+=("$dir/libcuda.so.1 is not a symlink")
    else
      real=$(readlink "$dir/libcuda.so.1")
      [[ $real == libcuda.so.$major.* ]] || problems+=("$dir/libcuda.so.1 -> $real (expected libcuda.so.$major.*)")
      is_elf "$dir/$real" || problems+=("$dir/$real is missing or not an ELF file")
    fi
    local lib found
    for lib in ${DRIVER_EXTRA_LIBS[$major]}; do
      found=("$dir/$lib.so.$major."*)
      is_elf "${found[0]}" || problems+=("$dir/$lib.so.$major.* missing (libcuda $major needs it)")
    done
  elif [[ $kind == nvcc ]]; then
    check_nvcc "$name" "$dir" || problems+=("${NVCC_PROBLEMS[@]}")
  else
    local want=${name#cuda-} h="$dir/usr/include/cuda.h"
    want=$((${want%%.*} * 1000 + ${want#*.} * 10))
    if [[ ! -f $h ]]; then
      problems+=("$h missing")
    elif ! grep -Eq "^#define CUDA_VERSION $want\b" "$h"; then
      problems+=("$h is not CUDA_VERSION $want")
    fi
  fi
  if ((${#problems[@]})); then
    printf '  %s: %s\n' "$name" "${problems[@]}"
    return 1
  fi
  return 0
}

check_cache() {
  local bad=0 e name kind
  for e in "${ENTRIES[@]}"; do
    IFS='|' read -r name kind _ <<<"$e"
    if check_entry "$name" "$kind"; then
      printf '  %-12s ok   (%s)\n' "$name" "$(tr '\n' ' ' <"$CACHE/.stamps/${name//\//_}")"
    else
      bad=1
    fi
  done
  return $bad
}

if [[ ${1:-} == --check ]]; then
  log "checking cache $CACHE"
  if check_cache && CUDYN_DEPS=$CACHE "$(dirname "$DRIVERS_BZL")/fetch_runtimes.sh" --check &&
    CUDYN_DEPS=$CACHE "$(dirname "$DRIVERS_BZL")/fetch_nvml.sh" --check; then
    log "cache complete"
    exit 0
  fi
  die "cache $CACHE is incomplete: run third_party/fetch_deps.sh"
fi
force_update=0
case ${1:-} in
  "") ;;
  --update) force_update=1 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *) die "unknown argument '$1' (use --check, --update or --help)" ;;
esac

# ---------------------------------------------------------------------------------------------------------
# 1. apt sources
# ---------------------------------------------------------------------------------------------------------
norm_uri() { local u=$1; echo "${u%/}"; }

# Index targets (uri|suite|component) configured by every apt source except our own file.
other_targets() {
  local tmp f
  tmp=$(mktemp -d)
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -e $f && $f != "$SOURCES_FILE" ]] && ln -s "$f" "$tmp/"
  done
  # shellcheck disable=SC2016  # $(...) are apt's format fields, not shell expansions
  apt-get indextargets --no-release-info -o "Dir::Etc::SourceParts=$tmp" \
    --format '$(REPO_URI)|$(RELEASE)|$(COMPONENT)|$(IDENTIFIER)' |
    awk -F'|' '$4 == "Packages" { sub("/$", "", $1); print $1 "|" $2 "|" $3 }' | sort -u
  rm -rf "$tmp"
}

write_sources() {
  local targets mirror suite comp missing content="" key
  targets=$(other_targets)
  if [[ -n ${CUDYN_DEBIAN_MIRROR:-} ]]; then
    mirror=$(norm_uri "$CUDYN_DEBIAN_MIRROR")
  else
    mirror=$(awk -F'|' '$2 == "bookworm" { print $1; exit }' <<<"$targets")
    mirror=${mirror:-http://deb.debian.org/debian}
  fi
  # Group suites by the components they still need, one deb822 stanza per group.
  declare -A groups=()
  local order=()
  for suite in "${SUITES[@]}"; do
    missing=()
    for comp in "${COMPONENTS[@]}"; do
      grep -Fxq "$mirror|$suite|$comp" <<<"$targets" || missing+=("$comp")
    done
    ((${#missing[@]})) || continue
    key="${missing[*]}"
    [[ -n ${groups[$key]+x} ]] || order+=("$key")
    groups[$key]="${groups[$key]:+${groups[$key]} }$suite"
  done
  for key in "${order[@]}"; do
    content+="Types: deb
URIs: $mirror
Suites: ${groups[$key]}
Components: $key
Signed-By: $KEYRING

"
  done
  if [[ -z $content ]]; then
    if [[ -e $SOURCES_FILE ]]; then
      log "all needed suites/components already configured elsewhere: removing $SOURCES_FILE"
      "${SUDO[@]}" rm -f "$SOURCES_FILE"
      return 0
    fi
    log "apt sources already provide ${COMPONENTS[*]} for ${SUITES[*]}"
    return 1
  fi
  content="# Written by cudyn third_party/fetch_deps.sh: the suites/components cudyn needs that no other
# apt source configures (real NVIDIA drivers and nvidia-cuda-dev live in non-free of bookworm and bullseye).
$content"
  content=$(printf '%s' "$content") # drop trailing newlines, as $(cat) does below
  if [[ -f $SOURCES_FILE ]] && [[ "$(cat "$SOURCES_FILE")" == "$content" ]]; then
    log "apt sources up to date ($SOURCES_FILE)"
    return 1
  fi
  log "writing $SOURCES_FILE"
  printf '%s\n' "$content" | "${SUDO[@]}" tee "$SOURCES_FILE" >/dev/null
  return 0
}

# ---------------------------------------------------------------------------------------------------------
# 2./3. apt-get update, build deps
# ---------------------------------------------------------------------------------------------------------
missing_build_deps() {
  local p
  for p in "${BUILD_DEPS[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] || echo "$p"
  done
}

apt_update() {
  log "apt-get update"
  "${SUDO[@]}" apt-get update -q || die "apt-get update failed"
}

# ---------------------------------------------------------------------------------------------------------
# 4. downloads + extraction
# ---------------------------------------------------------------------------------------------------------
# best_version <package> <suite-family> <version-regex>: the highest matching version apt knows.
best_version() {
  local pkg=$1 family=$2 vre=$3 best="" v suite
  while IFS='|' read -r _ v src; do
    v=$(echo "$v" | xargs)
    suite=$(echo "$src" | awk '{print $2}')
    suite=${suite%%/*}
    [[ $suite =~ ^$family(-updates|-security)?$ ]] || continue
    [[ $v =~ ^$vre ]] || continue
    if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
  done < <(apt-cache madison "$pkg" 2>/dev/null)
  echo "$best"
}

# download <package> <version>: prints the path of the verified .deb in $CACHE/debs.
download() {
  local pkg=$1 ver=$2 deb tmp got
  deb="$CACHE/debs/${pkg}_${ver//:/%3a}_amd64.deb"
  if [[ -f $deb ]] && [[ "$(dpkg-deb -f "$deb" Package Version 2>/dev/null | tr '\n' ' ')" == "Package: $pkg Version: $ver " ]]; then
    log "  have $(basename "$deb")" >&2
    echo "$deb"
    return 0
  fi
  tmp=$(mktemp -d "$CACHE/debs/.download.XXXXXX")
  log "  apt-get download $pkg=$ver" >&2
  if ! (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$ver" >&2); then
    rm -rf "$tmp"
    die "download of package $pkg=$ver failed"
  fi
  got=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n1)
  [[ -n $got ]] || die "download of package $pkg=$ver produced no .deb"
  [[ "$(dpkg-deb -f "$got" Package Version | tr '\n' ' ')" == "Package: $pkg Version: $ver " ]] ||
    die "downloaded $got is not $pkg=$ver"
  mv -f "$got" "$deb"
  rmdir "$tmp"
  echo "$deb"
}

# extract_driver <dest-dir> <major> <deb>...
extract_driver() {
  local dest=$1 major=$2 stage deb x f lib
  shift 2
  stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
  x="$stage/x"
  mkdir -p "$x" "$stage/out"
  for deb in "$@"; do
    dpkg-deb -x "$deb" "$x" || die "dpkg-deb -x failed for $(basename "$deb")"
  done
  mapfile -t f < <(find "$x" -type f -name "libcuda.so.$major.*")
  ((${#f[@]} == 1)) || die "expected one libcuda.so.$major.* in $*, found ${#f[@]}"
  cp -p "${f[0]}" "$stage/out/"
  ln -s "$(basename "${f[0]}")" "$stage/out/libcuda.so.1"
  for lib in ${DRIVER_EXTRA_LIBS[$major]}; do
    mapfile -t f < <(find "$x" -type f -name "$lib.so.$major.*")
    ((${#f[@]} == 1)) || die "expected one $lib.so.$major.* in $*, found ${#f[@]}"
    cp -p "${f[0]}" "$stage/out/"
  done
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  mv "$stage/out" "$dest"
  rm -rf "$stage"
}

# extract_headers <dest-dir> <deb>: only ./usr/include (the packages are ~0.6-0.8 GB, mostly libraries).
extract_headers() {
  local dest=$1 deb=$2 stage
  stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
  mkdir -p "$stage/out"
  log "  extracting usr/include from $(basename "$deb") (takes a minute)"
  if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage/out" ./usr/include; then
    rm -rf "$stage"
    die "extracting usr/include from $(basename "$deb") failed"
  fi
  [[ -f $stage/out/usr/include/cuda.h ]] || die "$(basename "$deb") has no usr/include/cuda.h"
  rm -rf "$dest"
  mv "$stage/out" "$dest"
  rm -rf "$stage"
}

# extract_nvcc <dest-dir> <deb>: only the files of NVCC_DEB_PATHS, laid out as NVCC_PROGRAMS /
# NVCC_LIBDEVICE say, and an nvcc.profile of paths relative to nvcc (the package's is a link to
# /etc/nvcc.profile, which names /usr paths). The headers are the cache's cuda-<X.Y> entry.
extract_nvcc() {
  local dest=$1 deb=$2 version=${1##*/nvcc-} stage members=() k
  stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
  mkdir -p "$stage/x" "$stage/out/bin" "$stage/out/$(dirname "$NVCC_LIBDEVICE")"
  for k in "${!NVCC_DEB_PATHS[@]}"; do members+=("${NVCC_DEB_PATHS[$k]}"); done
  log "  extracting nvcc, cicc, ptxas, fatbinary, cudafe++ and libdevice from $(basename "$deb")"
  if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage/x" "${members[@]}"; then
    rm -rf "$stage"
    die "extracting nvcc from $(basename "$deb") failed"
  fi
  for k in "${NVCC_PROGRAMS[@]}"; do mv "$stage/x/${NVCC_DEB_PATHS[$k]}" "$stage/out/bin/$k"; done
  mv "$stage/x/${NVCC_DEB_PATHS[libdevice]}" "$stage/out/$NVCC_LIBDEVICE"
  # _HERE_ is nvcc's own directory; INCLUDES names the cache's cuda-<X.Y> headers beside this entry
  # (a build that cannot see them, e.g. a Bazel sandbox, passes -I itself).
  cat >"$stage/out/bin/nvcc.profile" <<NVCC_PROFILE
# Written by cudyn third_party/fetch_deps.sh: nvcc $version from nvidia-cuda-toolkit, outside /usr.
TOP = \$(_HERE_)/..
NVVMIR_LIBRARY_DIR = \$(TOP)/$(dirname "$NVCC_LIBDEVICE")
PATH += \$(_HERE_):
INCLUDES += "-I\$(TOP)/../cuda-$version/usr/include" \$(_SPACE_)
NVCC_PROFILE
  rm -rf "$dest"
  mv "$stage/out" "$dest"
  rm -rf "$stage"
}

fetch_entry() {
  local name=$1 kind=$2 family=$3 spec pkg vre ver debs=() stamp=""
  shift 3
  log "fetching $name"
  for spec in "$@"; do
    pkg=${spec%%:*}
    vre=${spec#*:}
    ver=$(best_version "$pkg" "$family" "$vre")
    [[ -n $ver ]] || die "package $pkg: no version matching '$vre' in suite $family (is non-free of $family configured? see 'apt-cache madison $pkg')"
    debs+=("$(download "$pkg" "$ver")") || die "package $pkg=$ver failed"
    stamp+="$pkg=$ver"$'\n'
  done
  if [[ $kind == driver ]]; then
    extract_driver "$CACHE/$name" "${name#drivers/}" "${debs[@]}"
  elif [[ $kind == nvcc ]]; then
    extract_nvcc "$CACHE/$name" "${debs[0]}"
    [[ ${CUDYN_KEEP_DEBS:-0} == 1 ]] || rm -f "${debs[0]}"
  else
    extract_headers "$CACHE/$name" "${debs[0]}"
    [[ ${CUDYN_KEEP_DEBS:-0} == 1 ]] || rm -f "${debs[0]}"
  fi
  printf '%s' "$stamp" >"$CACHE/.stamps/${name//\//_}"
  check_entry "$name" "$kind" >&2 || die "entry $name is invalid right after extraction"
}

# ---------------------------------------------------------------------------------------------------------
main() {
  local e name kind family todo=() missing need_update=$force_update
  need_root "configure apt and write $CACHE"

  write_sources && need_update=1
  mapfile -t missing < <(missing_build_deps)
  ((${#missing[@]} == 0)) || need_update=1

  "${SUDO[@]}" mkdir -p "$CACHE/debs" "$CACHE/.stamps"
  [[ -w $CACHE ]] || die "$CACHE is not writable (run as root)"
  exec 9>"$CACHE/.lock"
  flock 9 || die "cannot lock $CACHE/.lock"
  rm -rf "$CACHE"/.stage.* "$CACHE"/debs/.download.*

  for e in "${ENTRIES[@]}"; do
    IFS='|' read -r name kind _ <<<"$e"
    check_entry "$name" "$kind" >/dev/null || todo+=("$e")
  done
  ((${#todo[@]} == 0)) || need_update=1

  if ((need_update)); then apt_update; fi
  if ((${#missing[@]})); then
    log "installing build dependencies: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" ||
      die "apt-get install of build dependencies failed (${missing[*]})"
  else
    log "build dependencies installed"
  fi

  for e in "${todo[@]}"; do
    IFS='|' read -r name kind family rest <<<"$e"
    IFS='|' read -r -a specs <<<"$rest"
    fetch_entry "$name" "$kind" "$family" "${specs[@]}"
  done
  log "cache $CACHE:"
  check_cache || die "cache $CACHE is incomplete"
  # The real CUDA runtimes and NVRTC libraries (third_party/cuda_runtimes.bzl), from suites this machine does not use.
  CUDYN_DEPS=$CACHE "$(dirname "$DRIVERS_BZL")/fetch_runtimes.sh" || die "fetching the CUDA runtimes failed"
  # The real NVML libraries and headers (REAL_NVML / NVML_HEADERS in nvidia_drivers.bzl), private APT as well.
  CUDYN_DEPS=$CACHE "$(dirname "$DRIVERS_BZL")/fetch_nvml.sh" || die "fetching the NVML libraries failed"
  log "done"
}

main
