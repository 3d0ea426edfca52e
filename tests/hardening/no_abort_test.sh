#!/usr/bin/env bash
# No abort, exit, std::terminate or exception-raising call in cudyn's library objects outside the
# documented allow-list (no_abort_allowlist.txt, with the reason each reference cannot end the
# host process). Reads the undefined symbols of every member of the given archives and of the
# given shared libraries with nm.
#
#   no_abort_test.sh ALLOWLIST FILE...   (FILE: .a/.lo archives and .so libraries; others ignored)
set -euo pipefail
allowlist="$1"
shift

# Functions that end the process, or raise/re-raise an exception, by their mangled names.
forbidden='^(abort|exit|_exit|_Exit|quick_exit|__assert_fail|__assert_perror_fail|_ZSt9terminatev|__cxa_call_terminate|__cxa_call_unexpected|__cxa_throw|__cxa_rethrow|_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE|_ZSt[0-9]+__throw_[A-Za-z_]+.*|__cxa_bad_cast|__cxa_bad_typeid|__cxa_pure_virtual|__cxa_deleted_virtual|__stack_chk_fail|__fortify_fail|__chk_fail|pthread_exit|raise|kill|longjmp|_longjmp|siglongjmp|__longjmp_chk)$'

declare -a patterns=()
while IFS=$'\t' read -r object symbol reason; do
  [[ -z "$object" || "$object" == \#* ]] && continue
  [[ -n "$reason" ]] || { echo "allow-list line without a reason: $object $symbol" >&2; exit 1; }
  patterns+=("$object"$'\t'"$symbol")
done <"$allowlist"
declare -A used=()

allowed() {  # allowed OBJECT SYMBOL
  local p
  for p in "${patterns[@]}"; do
    # shellcheck disable=SC2053
    if [[ "$1" == ${p%%$'\t'*} && "$2" == ${p#*$'\t'} ]]; then
      used["$p"]=1
      return 0
    fi
  done
  return 1
}

checked=0
violations=0
report() {  # report OBJECT SYMBOL
  if allowed "$1" "$2"; then
    return
  fi
  echo "NOT ALLOWED: $1 references $2 ($(echo "$2" | c++filt))"
  violations=$((violations + 1))
}

symbols="$(mktemp "${TEST_TMPDIR:-/tmp}/symbols.XXXXXX")"
archives=0
for file in "$@"; do
  base="$(basename "$file")"
  case "$base" in
    *.a | *.lo)
      nm -A -u "$file" >"$symbols" || { echo "FAIL: nm cannot read $file" >&2; exit 1; }
      archives=$((archives + 1))
      # nm -A: "archive:member: U symbol"
      while read -r where kind symbol; do
        [[ "$kind" == U || "$kind" == w ]] || continue
        member="${where%:}"
        member="${member##*:}"
        [[ "$symbol" =~ $forbidden ]] && report "$base:$member" "$symbol"
      done <"$symbols"
      checked=$((checked + 1))
      ;;
    *.so)
      # A cc_library's own .so (Bazel builds one next to its archive, for tests; never shipped)
      # holds the same objects as the archive, which is checked per object instead.
      stem="${file%.so}"
      [[ -e "$stem.a" || -e "$stem.lo" ]] && continue
      nm -D -u "$file" >"$symbols" || { echo "FAIL: nm cannot read $file" >&2; exit 1; }
      while read -r kind symbol; do
        symbol="${symbol%%@*}"
        [[ "$symbol" =~ $forbidden ]] && report "$base" "$symbol"
      done < <(awk '{print $(NF-1), $NF}' "$symbols")
      checked=$((checked + 1))
      ;;
  esac
done

[[ $archives -gt 0 ]] || { echo "FAIL: no archive was given" >&2; exit 1; }
for p in "${patterns[@]}"; do
  [[ -n "${used[$p]:-}" ]] || echo "note: allow-list entry matched nothing here: ${p/$'\t'/ }"
done
if [[ $violations -gt 0 ]]; then
  echo "FAIL: $violations reference(s) to process-ending or throwing functions outside $allowlist"
  exit 1
fi
echo "PASS: $checked files checked; every reference is allow-listed with a reason"
