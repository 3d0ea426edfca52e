"""The wheel's drop-in directory (cudyn/lib/cudyn/) is the install tree's lib/cudyn/ (//dist's
TREE_FILES): the same files, byte for byte, so `cudyn run` from the wheel preloads what it
preloads from an installed tree. And bin/ holds the tree's cudyn-check and cudyn.

  wheel_dropins_match_tree_test.py WHEEL TARBALL
"""

import hashlib
import os
import tarfile
import zipfile

import pytest_main

WHEEL = pytest_main.abspath_arg(1)
TARBALL = pytest_main.abspath_arg(2)


def tree_files(prefix):
    """path below `prefix` in the tree -> sha256 (regular files; links are not expected there)."""
    out = {}
    with tarfile.open(TARBALL) as t:
        for m in t.getmembers():
            top, _, rest = m.name.partition("/")
            if not rest.startswith(prefix) or m.isdir():
                continue
            assert m.isfile(), "%s is not a regular file in the tree" % m.name
            out[rest[len(prefix):]] = hashlib.sha256(t.extractfile(m).read()).hexdigest()
    return out


def wheel_files(prefix):
    out = {}
    with zipfile.ZipFile(WHEEL) as z:
        for name in z.namelist():
            if name.startswith(prefix) and not name.endswith("/"):
                out[name[len(prefix):]] = hashlib.sha256(z.read(name)).hexdigest()
    return out


def test_dropin_directory_is_the_trees():
    tree = tree_files("lib/cudyn/")
    assert "libcuda.so.1" in tree and "cudart/libcudart.so.13" in tree, sorted(tree)
    assert wheel_files("cudyn/lib/cudyn/") == tree


def test_programs_are_the_trees():
    tree = tree_files("bin/")
    assert sorted(tree) == ["cudyn", "cudyn-check"]
    assert wheel_files("cudyn/bin/") == tree


def test_dropins_are_executable_in_the_wheel():
    with zipfile.ZipFile(WHEEL) as z:
        for info in z.infolist():
            if info.filename.startswith(("cudyn/lib/", "cudyn/bin/")) or info.filename.endswith(".so"):
                assert (info.external_attr >> 16) & 0o111, info.filename


if __name__ == "__main__":
    pytest_main.main(__file__)
