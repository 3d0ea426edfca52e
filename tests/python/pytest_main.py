"""Runs a test file under pytest from a Bazel py_test (its closing line, "N passed in ...", ends
the test log). The test's own arguments stay in sys.argv for the module to read."""

import os
import sys


def main(test_file: str) -> None:
    sys.dont_write_bytecode = True  # nothing written beside the sources
    import pytest  # Debian's python3-pytest (third_party/fetch_deps.sh)

    args = [os.path.abspath(test_file), "-v", "-p", "no:cacheprovider", "-rfEs",
            "--rootdir", os.path.dirname(os.path.abspath(test_file))]
    sys.exit(pytest.main(args))


def abspath_arg(index: int) -> str:
    """sys.argv[index] (a runfiles path relative to the test's working directory), absolute."""
    return os.path.abspath(sys.argv[index])


def tmpdir() -> str:
    return os.environ.get("TEST_TMPDIR") or os.path.abspath("tmp")
