"""Every package of the workspace's files (each package's :all_files, a glob of everything in it).

Bazel's glob stops at package boundaries, so each package exports its own files and this list names
every package once. Tests that read the whole source tree hermetically take it as data: the files
keep their repository paths in runfiles (//tests/docs:citations_test, //tests/version_lists). A new
package adds its :all_files here (`python3 tests/docs/check_citations.py --git .` reports one that is
missing).
"""

def all_files():
    """Declares :all_files, every file of the calling package, for the checks that read the tree."""
    native.filegroup(
        name = "all_files",
        srcs = native.glob(["**"]),
        visibility = ["//:__subpackages__"],
    )

ALL_SOURCE_FILES = [
    "//:all_files",
    "//bench:all_files",
    "//dist/python:all_files",
    "//dist:all_files",
    "//loader:all_files",
    "//stubs:all_files",
    "//tests/adapters:all_files",
    "//tests/cudart_dropin:all_files",
    "//tests/cudart_fake:all_files",
    "//tests/cudart_served:all_files",
    "//tests/dropin:all_files",
    "//tests/embed:all_files",
    "//tests/emulate:all_files",
    "//tests/error_strings:all_files",
    "//tests/fake_driver:all_files",
    "//tests/fake_nvml:all_files",
    "//tests/fake_runtime:all_files",
    "//tests/fake_toolkit:all_files",
    "//tests/fuzz:all_files",
    "//tests/hardening:all_files",
    "//tests/loader_fake:all_files",
    "//tests/packaging:all_files",
    "//tests/python:all_files",
    "//tests/real_cublas:all_files",
    "//tests/real_driver:all_files",
    "//tests/real_nvml:all_files",
    "//tests/real_nvrtc:all_files",
    "//tests/real_runtime:all_files",
    "//tests/real_toolkit:all_files",
    "//tests/shim_gpa:all_files",
    "//tests/shim_probe:all_files",
    "//tests/util:all_files",
    "//tests/version_lists:all_files",
    "//tests:all_files",
    "//third_party/cuda:all_files",
    "//third_party/python:all_files",
    "//third_party/tests:all_files",
    "//third_party:all_files",
    "//tools/deps:all_files",
    "//tools/elf/testdata:all_files",
    "//tools/elf:all_files",
    "//tools/fatbin:all_files",
    "//tools/layers:all_files",
    "//tools/run:all_files",
    "//tools/testing:all_files",
    "//tools/util:all_files",
    "//tools/version:all_files",
    "//tools/zip:all_files",
    "//tools:all_files",
    "//version_tables:all_files",
]
