#!/usr/bin/env bash
# Runs a test binary shared by several test targets (tests/per_driver_test.bzl): each target sets
# its own environment; the binary is its first argument, the rest is passed on.
set -euo pipefail
binary="$1"
shift
exec "$binary" "$@"
