"""The wheel's platform tag is true: manylinux_<x>_<y>_x86_64 where x.y is the newest GLIBC_
symbol version any ELF file inside needs (computed here from `readelf --dyn-syms`, independently
of build_wheel.py's reading of the version-needs section), and this machine's glibc runs it.

  wheel_platform_tag_test.py WHEEL BUILD_WHEEL_PY
"""

import os
import platform
import subprocess
import sys
import zipfile

import pytest

import pytest_main
import wheel_util

WHEEL = pytest_main.abspath_arg(1)
BUILD_WHEEL = pytest_main.abspath_arg(2)


@pytest.fixture(scope="module")
def unpacked():
    return wheel_util.unpack(WHEEL, os.path.join(pytest_main.tmpdir(), "unpacked"))


def newest_glibc(paths):
    needs = {}
    for p in paths:
        for version, symbols in wheel_util.glibc_versions_from_dynsyms(p).items():
            needs.setdefault(version, []).extend("%s: %s" % (os.path.basename(p), s) for s in symbols)
    assert needs, "no ELF file needs a GLIBC_ symbol version"
    newest = max(needs)
    return newest[:2], needs[newest]


def test_tag_is_the_newest_glibc_needed(unpacked):
    elfs = wheel_util.elf_files(unpacked)
    # _native.so, bin/cudyn-check, bin/cudyn and the drop-ins.
    assert len(elfs) >= 4, elfs
    (major, minor), why = newest_glibc(elfs)
    _, _, _, _, tag = wheel_util.wheel_tags(WHEEL)
    assert tag == "manylinux_%d_%d_x86_64" % (major, minor), why


def test_wheel_file_states_the_same_tag(unpacked):
    name, version, py, abi, plat = wheel_util.wheel_tags(WHEEL)
    with open(os.path.join(unpacked, "%s-%s.dist-info" % (name, version), "WHEEL")) as f:
        wheel = f.read()
    assert "Tag: %s-%s-%s\n" % (py, abi, plat) in wheel
    assert "Root-Is-Purelib: false\n" in wheel
    # The extension module is built for CPython's stable ABI of 3.11 (Py_LIMITED_API): it loads in
    # this interpreter and every later one.
    assert abi == "abi3"
    assert py == "cp311" and sys.version_info[:2] >= (3, 11)
    with open(os.path.join(unpacked, "%s-%s.dist-info" % (name, version), "METADATA")) as f:
        assert "Requires-Python: >=3.11\n" in f.read()


def test_this_machine_runs_it(unpacked):
    _, _, _, _, tag = wheel_util.wheel_tags(WHEEL)
    parts = tag.split("_")
    need = (int(parts[1]), int(parts[2]))
    libc, version = platform.libc_ver()
    assert libc == "glibc", libc
    have = tuple(int(x) for x in version.split(".")[:2])
    assert need <= have, "the wheel needs glibc %s, this machine has %s" % (need, version)
    assert platform.machine() == "x86_64"


def test_build_wheel_derives_the_same_tag(unpacked):
    elfs = wheel_util.elf_files(unpacked)
    r = subprocess.run(["/usr/bin/python3", BUILD_WHEEL, "--derive-platform"] + elfs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == wheel_util.wheel_tags(WHEEL)[4]


def test_build_wheel_derives_from_each_file():
    # The derivation follows its input: a file needing less gives a smaller tag (the newest of a
    # set is the maximum, not a constant).
    sh = "/bin/sh"
    (major, minor), _ = newest_glibc([sh])
    r = subprocess.run(["/usr/bin/python3", BUILD_WHEEL, "--derive-platform", sh],
                       stdout=subprocess.PIPE, universal_newlines=True, check=True)
    assert r.stdout.strip() == "manylinux_%d_%d_x86_64" % (major, minor)


def test_build_wheel_refuses_a_false_tag(unpacked):
    out = os.path.join(pytest_main.tmpdir(), "cudyn-0.0.0-cp311-abi3-manylinux_2_17_x86_64.whl")
    elf = os.path.join(unpacked, "cudyn", "_native.so")
    patchlevel = os.path.join(pytest_main.tmpdir(), "patchlevel.h")
    with open(patchlevel, "w") as f:
        f.write("#define PY_MAJOR_VERSION 3\n#define PY_MINOR_VERSION 11\n")
    r = subprocess.run(["/usr/bin/python3", BUILD_WHEEL, "--out", out, "--version", "0.0.0",
                        "--python-headers", patchlevel, "--platform", "manylinux_2_17_x86_64",
                        "--summary", "s", "--description", patchlevel,
                        "--file", "cudyn/_native.so", elf, "0755"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode != 0
    assert "WHEEL_PLATFORM" in r.stderr
    assert not os.path.exists(out)


def test_record_hashes(unpacked):
    import base64
    import hashlib
    name, version, _, _, _ = wheel_util.wheel_tags(WHEEL)
    record = os.path.join(unpacked, "%s-%s.dist-info" % (name, version), "RECORD")
    with zipfile.ZipFile(WHEEL) as z:
        members = set(z.namelist())
    listed = set()
    with open(record) as f:
        for line in f:
            path, digest, size = line.rstrip("\n").rsplit(",", 2)
            listed.add(path)
            if path.endswith("/RECORD"):
                assert digest == "" and size == ""
                continue
            with open(os.path.join(unpacked, path), "rb") as fh:
                data = fh.read()
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == want, path
            assert int(size) == len(data), path
    assert listed == members


if __name__ == "__main__":
    pytest_main.main(__file__)
