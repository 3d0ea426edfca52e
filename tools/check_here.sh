#!/usr/bin/env bash
# tools/check_here.sh [cudyn-check arguments] — README's first command: installs what the build needs
# (third_party/fetch_deps.sh, idempotent), builds //tools:cudyn-check and runs it on this machine
# (default: `report`). Exits with cudyn-check's own code (0 ok, 1 incompatible, 2 usage, 3 no driver).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
third_party/fetch_deps.sh >&2
bazel build //tools:cudyn-check >&2
bin=$(bazel info bazel-bin 2>/dev/null)/tools/cudyn-check
exec "$bin" "$@"
