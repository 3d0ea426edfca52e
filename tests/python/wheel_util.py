"""Helpers for the tests of the wheel: unpacking it, reading its ELF files."""

import os
import re
import subprocess
import zipfile
from typing import Dict, List, Tuple


def unpack(wheel: str, dest: str) -> str:
    """Unpacks `wheel` into `dest` as pip would (modes kept); returns dest."""
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            path = z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o7777
            if mode:
                os.chmod(path, mode)
    return dest


def wheel_tags(wheel: str) -> Tuple[str, str, str, str, str]:
    """name, version, python tag, abi tag, platform tag from the file name."""
    m = re.fullmatch(r"([^-]+)-([^-]+)-([^-]+)-([^-]+)-([^-]+)\.whl", os.path.basename(wheel))
    assert m, "not a wheel file name: " + wheel
    return m.groups()


def elf_files(root: str) -> List[str]:
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(p)
    return sorted(out)


def glibc_versions_from_dynsyms(path: str) -> Dict[Tuple[int, ...], List[str]]:
    """GLIBC_x.y[.z] -> symbols, from the undefined symbols of `path`'s .dynsym
    (`readelf --dyn-syms`: foo@GLIBC_2.34). Independent of build_wheel.py's reading of the
    version-needs section."""
    text = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True,
                          stdout=subprocess.PIPE, universal_newlines=True).stdout
    found: Dict[Tuple[int, ...], List[str]] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[6] != "UND":
            continue
        m = re.search(r"@@?GLIBC_(\d+(?:\.\d+)+)\b", fields[7])
        if m:
            found.setdefault(tuple(int(x) for x in m.group(1).split(".")), []).append(fields[7])
    return found
