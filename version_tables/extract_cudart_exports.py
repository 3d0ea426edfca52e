#!/usr/bin/env python3
"""Export list of a real CUDA runtime (libcudart), as version_tables/inputs/cudart_exports/<v>.txt.

  extract_cudart_exports.py LIBRARY SOURCE > inputs/cudart_exports/<version>.txt

SOURCE says where the file came from (e.g. "Debian libcudart12=12.4.127~12.4.1-2"). Reads
`readelf --dyn-syms --wide` (binutils) and keeps every defined GLOBAL/WEAK FUNC/OBJECT symbol as
"name@@version" (or "name@version" for a non-default version), sorted; the header records the
SONAME and the command. Facts about these lists are proven by cudart_exports_test.py.

  extract_cudart_exports.py --library NAME [--path DIR:DIR] LIBRARY SOURCE

also records, for a library of LIBRARY_VERSION_CALLS (inputs/<name>_exports/<v>.txt):
  # library_version: what the release's own version call answers (the library loaded with ctypes in
                     a child process, LD_LIBRARY_PATH=DIR:DIR: the directories of its release)
  # needed: its CUDA DT_NEEDED entries (libcu*/libnv*), in order
  # cuda_runtime: libcudart.so.N (DT_NEEDED), static (carries the runtime: its error strings, as
                  cudyn-check's runtime layer finds them) or none"""
import mmap
import os
import re
import subprocess
import sys

# name -> Python code calling the version function of `lib` (a ctypes.CDLL) and printing one
# number, in the encoding of the library's own version macro (CURAND_VERSION 10305, CUFFT_VERSION
# 11203, CUSPARSE_VERSION / CUSOLVER_VER_* 12301, CUBLASLT_VERSION 120405); nvJitLink:
# major * 1000 + minor * 10 (12040). None of these needs a GPU.
LIBRARY_VERSION_CALLS = {
    "curand": "v = ctypes.c_int(); assert lib.curandGetVersion(ctypes.byref(v)) == 0; print(v.value)",
    "cufft": "v = ctypes.c_int(); assert lib.cufftGetVersion(ctypes.byref(v)) == 0; print(v.value)",
    "nvjitlink": "a, b = ctypes.c_uint(), ctypes.c_uint(); "
                 "assert lib.nvJitLinkVersion(ctypes.byref(a), ctypes.byref(b)) == 0; "
                 "print(a.value * 1000 + b.value * 10)",
    "cusparse": "p = [ctypes.c_int() for _ in range(3)]; "
                "assert all(lib.cusparseGetProperty(i, ctypes.byref(p[i])) == 0 for i in range(3)); "
                "print(p[0].value * 1000 + p[1].value * 100 + p[2].value)",
    "cusolver": "p = [ctypes.c_int() for _ in range(3)]; "
                "assert all(lib.cusolverGetProperty(i, ctypes.byref(p[i])) == 0 for i in range(3)); "
                "print(p[0].value * 1000 + p[1].value * 100 + p[2].value)",
    "cublaslt": "lib.cublasLtGetVersion.restype = ctypes.c_size_t; print(lib.cublasLtGetVersion())",
}
# The strings cudyn-check's runtime layer takes for a statically linked CUDA runtime (both).
STATIC_RUNTIME_MARKERS = [b"CUDA driver version is insufficient for CUDA runtime version",
                          b"cudaErrorInsufficientDriver"]


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


def needed(path):
    """The CUDA libraries (libcu*, libnv*) of its DT_NEEDED, in order."""
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return [n for n in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
            if n.startswith(("libcu", "libnv"))]


def cuda_runtime(path):
    """libcudart.so.N (DT_NEEDED), "static" (the runtime's strings are in the file) or "none"."""
    dynamic = [n for n in needed(path) if n.startswith("libcudart.so")]
    if dynamic:
        return dynamic[0]
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return "static" if all(m.find(s) >= 0 for s in STATIC_RUNTIME_MARKERS) else "none"


def library_version(name, path, lib_path=""):
    """What the version call of LIBRARY_VERSION_CALLS[name] answers for the library at `path`."""
    env = dict(os.environ, LD_LIBRARY_PATH=lib_path)
    code = "import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); " + LIBRARY_VERSION_CALLS[name]
    out = subprocess.run([sys.executable, "-c", code, os.path.abspath(path)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return int(out.strip())


def main():
    args = sys.argv[1:]
    library, lib_path = None, ""
    while args and args[0] in ("--library", "--path") and len(args) > 1:
        if args[0] == "--library":
            library = args[1]
        else:
            lib_path = args[1]
        args = args[2:]
    if len(args) != 2 or (library and library not in LIBRARY_VERSION_CALLS):
        sys.exit(__doc__)
    path, source = args
    print("# runtime: %s" % source)
    print("# soname: %s" % soname(path))
    if library:
        print("# library_version: %d" % library_version(library, path, lib_path))
        print("# needed: %s" % " ".join(needed(path)))
        print("# cuda_runtime: %s" % cuda_runtime(path))
    print("# command: readelf --dyn-syms --wide <library>: defined GLOBAL/WEAK FUNC/OBJECT symbols")
    for name in exports(path):
        print(name)


if __name__ == "__main__":
    main()
