#!/usr/bin/python3
"""Writes cudyn's wheel (//dist/python:wheel) with the standard library only.

  build_wheel.py --out WHL --version V --python-headers PATCHLEVEL_H --platform PLATFORM
                 --summary TEXT --description FILE [--file DEST SRC MODE]...

Every --file becomes DEST in the wheel (mode 0644 or 0755); the .dist-info files (METADATA,
WHEEL, entry_points.txt, RECORD with sha256) are written here.

The tags are derived, never assumed:
  * python/abi: cpXY from PY_MAJOR_VERSION / PY_MINOR_VERSION of the headers the extension module
    was compiled with (patchlevel.h), and abi3: it is built for CPython's stable ABI of that
    version (Py_LIMITED_API, dist/python/BUILD), so it loads in every CPython from it on;
  * platform: manylinux_<x>_<y>_<arch> where x.y is the newest GLIBC_x.y symbol version that any
    ELF file of the wheel needs (its .gnu.version_r, read with `readelf -V`) and arch its machine.
The wheel's file name carries the platform tag, and Bazel must know a file name before building,
so BUILD states the platform it expects (--platform): when the derived tag differs, nothing is
written and the build fails naming the derived tag (update WHEEL_PLATFORM in dist/python/BUILD).
`build_wheel.py --derive-platform FILE...` prints the tag of a set of files.
"""

import argparse
import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile

# e_machine -> the wheel's architecture name.
_MACHINES = {62: "x86_64", 183: "aarch64"}

# One "Name: GLIBC_2.34" line of `readelf -V`'s .gnu.version_r (version needs) section.
_NEED_RE = re.compile(r"Name:\s+GLIBC_(\d+)\.(\d+)(?:\.(\d+))?\b")


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def elf_machine(path):
    with open(path, "rb") as f:
        header = f.read(20)
    if len(header) < 20 or header[4] != 2:  # ELFCLASS64 only
        raise SystemExit("build_wheel: %s is not a 64-bit ELF file" % path)
    order = "little" if header[5] == 1 else "big"
    return int.from_bytes(header[18:20], order)


def glibc_needs(path):
    """The GLIBC_x.y[.z] versions `path` needs, as tuples, from its version-needs section."""
    text = subprocess.run(["readelf", "-V", "-W", path], check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout
    needs = set()
    in_needs = False
    for line in text.splitlines():
        if line.startswith("Version needs section") or line.startswith("Version definition section") \
                or line.startswith("Version symbols section"):
            in_needs = line.startswith("Version needs section")
            continue
        if in_needs:
            m = _NEED_RE.search(line)
            if m:
                needs.add(tuple(int(g) for g in m.groups() if g is not None))
    return needs


def derive_platform(paths):
    """manylinux_<x>_<y>_<arch> for the ELF files among `paths`: the newest GLIBC_x.y needed."""
    elfs = [p for p in paths if is_elf(p)]
    if not elfs:
        raise SystemExit("build_wheel: no ELF file to derive the platform tag from")
    machines = {elf_machine(p) for p in elfs}
    if len(machines) != 1 or next(iter(machines)) not in _MACHINES:
        raise SystemExit("build_wheel: ELF machines %s: need exactly one of %s" % (machines, _MACHINES))
    needs = set()
    for p in elfs:
        needs |= glibc_needs(p)
    if not needs:
        raise SystemExit("build_wheel: no ELF file needs a GLIBC_ version (not dynamic?)")
    newest = max(needs)
    return "manylinux_%d_%d_%s" % (newest[0], newest[1], _MACHINES[next(iter(machines))])


def python_tag(patchlevel_h):
    text = open(patchlevel_h).read()
    major = re.search(r"#define\s+PY_MAJOR_VERSION\s+(\d+)", text)
    minor = re.search(r"#define\s+PY_MINOR_VERSION\s+(\d+)", text)
    if not major or not minor:
        raise SystemExit("build_wheel: no PY_MAJOR_VERSION / PY_MINOR_VERSION in " + patchlevel_h)
    return "cp%s%s" % (major.group(1), minor.group(1))


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--derive-platform":
        print(derive_platform(sys.argv[2:]))
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--python-headers", required=True, help="patchlevel.h of the headers")
    parser.add_argument("--platform", required=True, help="the platform tag BUILD expects")
    parser.add_argument("--summary", required=True)
    parser.add_argument("--description", required=True)
    parser.add_argument("--file", nargs=3, action="append", default=[],
                        metavar=("DEST", "SRC", "MODE"))
    args = parser.parse_args()

    name = "cudyn"
    py = python_tag(args.python_headers)
    platform = derive_platform([src for _, src, _ in args.file])
    if platform != args.platform:
        sys.stderr.write(
            "build_wheel: the shipped ELF files need %s (newest GLIBC_ symbol version), but BUILD "
            "expects %s: set WHEEL_PLATFORM = \"%s\" in dist/python/BUILD\n"
            % (platform, args.platform, platform))
        return 1
    tag = "%s-abi3-%s" % (py, platform)
    expected = "%s-%s-%s.whl" % (name, args.version, tag)
    if os.path.basename(args.out) != expected:
        sys.stderr.write("build_wheel: output %s, expected the name %s\n" % (args.out, expected))
        return 1

    dist_info = "%s-%s.dist-info" % (name, args.version)
    description = open(args.description).read()
    metadata = "".join([
        "Metadata-Version: 2.1\n",
        "Name: %s\n" % name,
        "Version: %s\n" % args.version,
        "Summary: %s\n" % args.summary,
        "License: UNKNOWN\n",
        "Requires-Python: >=%s.%s\n" % (py[2], py[3:]),  # abi3: this CPython and later
        "Classifier: Operating System :: POSIX :: Linux\n",
        "Classifier: Programming Language :: C++\n",
        "Classifier: Programming Language :: Python :: 3\n",
        "Classifier: Typing :: Typed\n",
        "Description-Content-Type: text/markdown\n",
        "\n",
        description,
    ])
    wheel = "".join([
        "Wheel-Version: 1.0\n",
        "Generator: cudyn dist/python/build_wheel.py\n",
        "Root-Is-Purelib: false\n",
        "Tag: %s\n" % tag,
    ])
    entry_points = "".join([
        "[console_scripts]\n",
        "cudyn = cudyn._cli:cudyn\n",
        "cudyn-check = cudyn._cli:cudyn_check\n",
    ])

    members = []  # (name, bytes, mode)
    for dest, src, mode in sorted(args.file):
        with open(src, "rb") as f:
            members.append((dest, f.read(), int(mode, 8)))
    for meta_name, text in [("METADATA", metadata), ("WHEEL", wheel),
                            ("entry_points.txt", entry_points)]:
        members.append(("%s/%s" % (dist_info, meta_name), text.encode("utf-8"), 0o644))
    record_name = dist_info + "/RECORD"
    record = "".join("%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, d, _ in members)
    record += "%s,,\n" % record_name
    members.append((record_name, record.encode("utf-8"), 0o644))

    names = [n for n, _, _ in members]
    if len(set(names)) != len(names):
        raise SystemExit("build_wheel: duplicate members")
    tmp = args.out + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for member, data, mode in members:
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix: the mode below is honoured by pip
            info.external_attr = ((0o100000 | mode) & 0xFFFF) << 16
            z.writestr(info, data)
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
