"""Offline stand-in for @rules_cc//cc:find_cc_toolchain.bzl: re-exports Bazel's own helper."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", _find_cpp_toolchain = "find_cpp_toolchain")

CC_TOOLCHAIN_TYPE = "@bazel_tools//tools/cpp:toolchain_type"

find_cc_toolchain = _find_cpp_toolchain
find_cpp_toolchain = _find_cpp_toolchain
