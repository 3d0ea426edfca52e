#!/usr/bin/env bash
# Runs the fuzz target over the real test ELF files and their prefixes (see elf_fuzzer_smoke_main.cc).
set -euo pipefail
smoke="$1"
shift
"$smoke" "$@"
