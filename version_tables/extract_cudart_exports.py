#!/usr/bin/env python3
"""Export list of a real CUDA runtime (libcudart), as version_tables/inputs/cudart_exports/<v>.txt.

  extract_cudart_exports.py LIBRARY SOURCE > inputs/cudart_exports/<version>.txt

SOURCE says where the file came from (e.g. "Debian libcudart12=12.4.127~12.4.1-2"). Reads
`readelf --dyn-syms --wide` (binutils) and keeps every defined GLOBAL/WEAK FUNC/OBJECT symbol as
"name@@version" (or "name@version" for a non-default version), sorted; the header records the
SONAME and the command. Facts about these lists are proven by cudart_exports_test.py."""
import subprocess
import sys


def soname(path):
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "(SONAME)" in line:
            return line.split("[", 1)[1].rstrip("]")
    return ""


def exports(path):
    out = subprocess.run(["readelf", "--dyn-syms", "--wide", path], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 8 or not fields[0].endswith(":") or not fields[0][:-1].isdigit():
            continue
        sym_type, bind, ndx, name = fields[3], fields[4], fields[6], fields[7]
        if ndx in ("UND", "ABS") or bind not in ("GLOBAL", "WEAK"):
            continue
        if sym_type not in ("FUNC", "OBJECT"):
            continue
        names.add(name)
    return sorted(names)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, source = sys.argv[1], sys.argv[2]
    print("# runtime: %s" % source)
    print("# soname: %s" % soname(path))
    print("# command: readelf --dyn-syms --wide <library>: defined GLOBAL/WEAK FUNC/OBJECT symbols")
    for name in exports(path):
        print(name)


if __name__ == "__main__":
    main()
