# Sourced by the run_fuzzer.sh scripts (tools/elf, tools/fatbin, tools/zip, tests/fuzz): the build
# flags and the run-and-report step every cudyn libFuzzer run shares.
#
#   libfuzzer_build OUT SOURCE_OR_FLAG...
#       clang++ (CLANGXX, default clang++-14) -std=c++17 with -fsanitize=fuzzer,address,undefined.
#   libfuzzer_run NAME BINARY WORK SECONDS MAX_LEN [libFuzzer flag...] -- [CORPUS_DIR...]
#       runs BINARY from WORK over FUZZ_CORPUS (default WORK/corpus) and the seed directories, with
#       FUZZ_ARGS appended and LIBFUZZER_ENV (an array, optional) in the environment. Exits with
#       libFuzzer's status on a finding (reproducers kept in WORK/artifacts); on success deletes WORK.

libfuzzer_build() {
  local out=$1
  shift
  "${CLANGXX:-clang++-14}" -std=c++17 -g -O1 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all "$@" -o "$out"
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
