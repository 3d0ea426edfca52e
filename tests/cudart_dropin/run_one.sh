#!/usr/bin/env bash
# Runs one test binary with its arguments (a wrapper so one cc_binary serves several tests).
exec "$@"
