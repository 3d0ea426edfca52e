#!/usr/bin/env bash
# Every drop-in trampoline is exactly one instruction, `jmp *cudyn_stub_slots+8*index(%rip)`, in the
# shared drop-in, the static drop-in linked into a program and the embedding build, whatever the
# compilation mode (stubs/BUILD compiles them optimised) — the hot-path contract of
# stubs/trampoline.h. Args: ELF files to check. Fails if a trampoline has any other instruction
# (nop padding aside), jumps anywhere but the slot table, or if a file has too few trampolines.
# The runtime drop-in's trampolines are checked by the same script with
#   TRAMPOLINE_PREFIX=cuda  SLOT_TABLE=cudyn_cudart_stub_slots  SHIM_OWN=''
set -euo pipefail
prefix=${TRAMPOLINE_PREFIX:-cu}
slots=${SLOT_TABLE:-cudyn_stub_slots}
shim_own=${SHIM_OWN-cuDriverGetVersion|cuGetProcAddress|cuGetProcAddress_v2|cuGetErrorName|cuGetErrorString}
[[ -n $shim_own ]] || shim_own='^$'

status=0
for file in "$@"; do
  # objdump prints "<sym>:" then one line per instruction; functions are separated by blank lines.
  report=$(objdump -d --no-show-raw-insn "$file" | awk -v prefix="$prefix" -v slots="$slots" -v own="$shim_own" '
    $0 ~ "^[0-9a-f]+ <" prefix "[A-Z][A-Za-z0-9_]*>:$" {
      name = $2; gsub(/[<>:]/, "", name); cur = name; n[cur] = 0; ok[cur] = 1; next
    }
    /^$/ { cur = ""; next }
    cur != "" {
      line = $0; sub(/^ *[0-9a-f]+:[ \t]*/, "", line)
      sub(/^[ \t]+/, "", line)
      # Padding: nops, and zero bytes after the last trampoline of a section ("..." where objdump
      # elides a run of them, "add %al,(%rax)" where it decodes a pair).
      if (line ~ /^(nop|xchg +%ax,%ax|cs nop|data16|\.\.\.$|add +%al,\(%rax\)$)/) next
      n[cur]++
      if (line !~ ("^jmp +\\*(0x[0-9a-f]+)?\\(%rip\\) +# [0-9a-f]+ <" slots "(\\+0x[0-9a-f]+)?>$")) {
        ok[cur] = 0; bad[cur] = line
      }
    }
    END {
      for (f in n) {
        total++
        if (n[f] == 1 && ok[f]) { good++; continue }
        # The shim answers these itself (stubs/shim.cc); they are not trampolines.
        if (f ~ ("^(" own ")$")) continue
        printf "BAD %s: %d instructions, e.g. %s\n", f, n[f], bad[f]
      }
      printf "GOOD %d\n", good
    }')
  good=$(sed -n 's/^GOOD //p' <<<"$report")
  if grep -q '^BAD' <<<"$report"; then
    echo "FAIL $file: trampolines that are not a single jmp through $slots:"
    grep '^BAD' <<<"$report" | head -20
    status=1
  elif ((good < ${MIN_TRAMPOLINES:-100})); then
    echo "FAIL $file: only $good single-jmp trampolines found (symbols stripped or renamed?)"
    status=1
  else
    echo "ok   $file: $good trampolines, each one jmp *$slots(%rip)"
  fi
done
exit $status
