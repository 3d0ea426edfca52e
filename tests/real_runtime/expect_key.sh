# Sourced by the shell tests of tests/real_runtime: probes print key=value lines, and
#   expect <output> <key> <value> <case>
# compares the first number after "<key>=" with <value>, prints "ok" or "FAIL" with the case, and
# sets fail=1 on a mismatch (the caller starts with fail=0 and exits with it).
fail=0
expect() {
  local got
  got=$(sed -n "s/^$2=\([0-9-]*\).*/\1/p" <<<"$1")
  if [[ $got != "$3" ]]; then
    echo "FAIL [$4]: $2=$got, expected $3"
    fail=1
  else
    echo "ok   [$4]: $2=$got"
  fi
}
