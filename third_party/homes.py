"""The version lists' homes, read from Python: one definition, no copy.

The homes are Starlark files Bazel loads (third_party/nvidia_drivers.bzl, third_party/cuda_runtimes.bzl,
tests/fake_driver/versions.bzl, tests/fake_runtime/versions.bzl). They use only the part of Starlark that
is also Python (dicts, lists, comprehensions, def) plus struct(), so this module executes them as
Python with a struct stand-in and hands out their top-level names. Generators, facts tests and the
version-list check import it instead of spelling a list.

    import homes
    homes.drivers()["REAL_DRIVER_MAJORS"]       # ["418", "450", ...]
    homes.runtimes()["CUDA_RUNTIME_FACT_VERSIONS"]

The files are found beside this one (the repository layout, which Bazel's runfiles keep): a py_binary
or py_test that imports it depends on //third_party:homes.
"""

import os
import sys
import types

_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

HOME_FILES = {
    "drivers": "third_party/nvidia_drivers.bzl",
    "runtimes": "third_party/cuda_runtimes.bzl",
    "fake_drivers": "tests/fake_driver/versions.bzl",
    "fake_runtimes": "tests/fake_runtime/versions.bzl",
}

_cache = {}


def _struct(**fields):
    return types.SimpleNamespace(**fields)


def load(name, root=None):
    """The top-level names of one home (a key of HOME_FILES), as a dict."""
    path = os.path.join(root or _ROOT, HOME_FILES[name])
    if path not in _cache:
        scope = {"struct": _struct}
        with open(path, encoding="utf-8") as f:
            exec(compile(f.read(), path, "exec"), scope)  # noqa: S102 - our own checked-in Starlark
        _cache[path] = {k: v for k, v in scope.items() if not k.startswith("_") and k != "struct"}
    return _cache[path]


def drivers(root=None):
    return load("drivers", root)


def runtimes(root=None):
    return load("runtimes", root)


def fake_drivers(root=None):
    return load("fake_drivers", root)


def fake_runtimes(root=None):
    return load("fake_runtimes", root)


def library_fact_versions(lib, root=None):
    """The releases whose facts a library's table has, oldest first: the packaged ones and the
    toolkit's (lib: "nvrtc", "cublas" or a key of CUDA_LIBS)."""
    r = runtimes(root)
    packaged = {"nvrtc": r["NVRTC_LIBRARIES"], "cublas": r["CUBLAS_LIBRARIES"]}.get(lib)
    if packaged is None:
        packaged = r["CUDA_LIBS"][lib]
    return list(packaged) + [r["CUDA_TOOLKIT_VERSION"]]


def _main(argv):
    """For shell scripts (version_tables/regen), which cannot load Starlark:
        homes.py keys LIST          the keys of a list of cuda_runtimes.bzl, one per line
        homes.py entries LIST       "<version> <package>=<Debian version> <SONAME>" per entry
        homes.py libraries          the libraries of CUDA_LIBS, "<name> <its list's name>" per line
        homes.py toolkit-soname LIB the toolkit's SONAME of a library of CUDA_LIBS
    """
    r = runtimes()
    if len(argv) == 2 and argv[0] == "keys":
        print("\n".join(r[argv[1]]))
    elif len(argv) == 2 and argv[0] == "entries":
        for version, (package, debian_version, _, soname) in r[argv[1]].items():
            print("%s %s=%s %s" % (version, package, debian_version, soname))
    elif argv == ["libraries"]:
        names = {id(v): k for k, v in r.items() if isinstance(v, dict) and k != "CUDA_LIBS"}
        for lib, entries in r["CUDA_LIBS"].items():
            print("%s %s" % (lib, names[id(entries)]))
    elif len(argv) == 2 and argv[0] == "toolkit-soname":
        print(r["CUDA_LIBS_13_0"][argv[1]])
    else:
        print(_main.__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
