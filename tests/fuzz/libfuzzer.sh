# Sourced by the run_fuzzer.sh scripts (tools/elf, tools/fatbin, tools/zip, tests/fuzz): the build
# flags and the run-and-report step every cudyn libFuzzer run shares.
#
#   libfuzzer_build OUT SOURCE_OR_FLAG...
#       clang++ (CLANGXX, default clang++-14) -std=c++17 with -fsanitize=fuzzer,address,undefined.
#       With FUZZ_OBJ_CACHE (a directory) each source is compiled once into it and shared by every
#       build and every later run with the same inputs: an object is keyed by the compiler, the
#       flags and the content of the source and of every file it includes (clang's -M list), so
#       the three loader targets share the loader's objects and CI's next run recompiles only
#       what changed. Objects unused for 14 days are removed.
#   libfuzzer_sources LABEL
#       builds LABEL, a fuzz_sources target (fuzz_sources.bzl: the library sources of a fuzz
#       target's smoke binary, read from its Bazel deps) with BAZEL (default bazel) and sets
#       LIBFUZZER_SOURCES (an array) to each source's path: what a libFuzzer build compiles
#       besides the target itself; and LIBFUZZER_BIN to bazel-bin (for -I of generated headers).
#       Fails when the list is empty.
#   libfuzzer_run NAME BINARY WORK SECONDS MAX_LEN [libFuzzer flag...] -- [CORPUS_DIR...]
#       runs BINARY from WORK over FUZZ_CORPUS (default WORK/corpus) and the seed directories, with
#       FUZZ_ARGS appended and LIBFUZZER_ENV (an array, optional) in the environment. Exits with
#       libFuzzer's status on a finding (reproducers kept in WORK/artifacts); on success deletes WORK.

_LIBFUZZER_FLAGS=(-std=c++17 -gline-tables-only -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all)

libfuzzer_build() {
  local out=$1 src key obj sources=() compile=() link=() objects=()
  shift
  local clang=${CLANGXX:-clang++-14}
  if [[ -z ${FUZZ_OBJ_CACHE:-} ]]; then
    "$clang" "${_LIBFUZZER_FLAGS[@]}" -fsanitize=fuzzer,address,undefined "$@" -o "$out"
    return
  fi
  while (($#)); do
    case "$1" in
      -l* | -pthread) link+=("$1") ;;
      -isystem | -iquote | -include | -I | -D) compile+=("$1" "$2") && shift ;;  # flag + its value
      -*) compile+=("$1") ;;
      *) sources+=("$1") ;;
    esac
    shift
  done
  mkdir -p "$FUZZ_OBJ_CACHE"
  find "$FUZZ_OBJ_CACHE" -type f -atime +14 -delete 2>/dev/null || true
  local deps
  for src in "${sources[@]}"; do
    # Every file the compile reads (the source first), as the preprocessor finds them.
    deps=$("$clang" "${_LIBFUZZER_FLAGS[@]}" "${compile[@]}" -M "$src" |
      sed -e 's/^[^:]*://' -e 's/\\$//' | tr -s ' ' '\n' | sed '/^$/d') || return 1
    key=$({ printf '%s\0' "$clang" "$("$clang" --version | head -1)" "${_LIBFUZZER_FLAGS[@]}" \
      "${compile[@]}"; xargs -d '\n' sha256sum -- <<<"$deps" | cut -c1-64; } |
      sha256sum | cut -c1-32)
    obj="$FUZZ_OBJ_CACHE/$key.o"
    # One compile per object even when two builds want it at once: the second waits for the lock.
    (
      flock 9
      [[ -f $obj ]] || {
        "$clang" "${_LIBFUZZER_FLAGS[@]}" -fsanitize=fuzzer-no-link,address,undefined \
          "${compile[@]}" -c "$src" -o "$obj.tmp" && mv "$obj.tmp" "$obj"
      }
    ) 9>"$obj.lock"
    objects+=("$obj")
  done
  "$clang" "${_LIBFUZZER_FLAGS[@]}" -fsanitize=fuzzer,address,undefined "${objects[@]}" \
    "${link[@]}" -o "$out"
}

libfuzzer_sources() {
  local label=$1 root bazel=${BAZEL:-bazel} kind path list
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  (cd "$root" && "$bazel" build "$label" >&2) || return 1
  LIBFUZZER_BIN="$(cd "$root" && "$bazel" info bazel-bin 2>/dev/null)"
  LIBFUZZER_SOURCES=()
  list="$LIBFUZZER_BIN/${label#//}"
  list="${list/://}.txt"
  while read -r kind path; do
    case "$kind" in
      src) LIBFUZZER_SOURCES+=("$root/$path") ;;
      gen) LIBFUZZER_SOURCES+=("$LIBFUZZER_BIN/$path") ;;
      *) echo "libfuzzer_sources: bad line '$kind $path' in $list" >&2; return 1 ;;
    esac
  done <"$list"
  ((${#LIBFUZZER_SOURCES[@]})) || { echo "libfuzzer_sources: $list lists no source" >&2; return 1; }
}

libfuzzer_run() {
  local name=$1 binary=$2 work=$3 seconds=$4 max_len=$5 flags=() corpus rc
  shift 5
  while (($#)) && [[ $1 != -- ]]; do
    flags+=("$1")
    shift
  done
  [[ ${1:-} == -- ]] && shift
  corpus="$(realpath -m "${FUZZ_CORPUS:-$work/corpus}")"
  mkdir -p "$corpus" "$work/artifacts"
  set +e
  # From the work directory: with -jobs=N libFuzzer writes fuzz-N.log files into the cwd.
  (cd "$work" && env ${LIBFUZZER_ENV[@]+"${LIBFUZZER_ENV[@]}"} "$binary" \
    -max_total_time="$seconds" -print_final_stats=1 -max_len="$max_len" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" ${flags[@]+"${flags[@]}"} \
    ${FUZZ_ARGS:-} "$corpus" "$@")
  rc=$?
  set -e
  if [[ $rc -ne 0 ]]; then
    echo "$name FAILED (exit $rc); reproducers in $work/artifacts:" >&2
    ls -l "$work/artifacts" >&2 || true
    exit "$rc"
  fi
  echo "$name: no findings in ${seconds}s"
  rm -rf "$work"
}
