#!/usr/bin/env bash
# Runs the fuzz target over the test fatbins, their prefixes and byte-flipped copies.
set -euo pipefail
smoke="$1"
shift
"$smoke" "$@"
