#!/usr/bin/env python3
"""The facts and table of one library of CUDA_LIBS are what the real libraries and headers say today.

  library_facts_test.py --library NAME --headers V=CUDA_H... --libs V=LIBRARY... --release V FILE...
      (the Debian-packaged versions from @cuda_libs / @cuda_cublas and the @cuda_1x_y headers; 13.0
      from the toolkit, $CUDA_PATH/lib64; --release: every library file of release V, whose
      directories make its LD_LIBRARY_PATH)

Proves: inputs/<name>_exports/<v>.txt equal a fresh extraction from each real library (symbols,
SONAME, and the library_version / needed / cuda_runtime header: what the library's version call
answers when loaded with LD_LIBRARY_PATH the directories of its release, its CUDA DT_NEEDED, whether
it carries the CUDA runtime); inputs/<name>_headers/<name>-<v>.json equal a fresh extraction from each
header set; <name>_api_table.tsv equals a fresh generate_runtime.py --library run and its
generated_<name>/<name>_versions.inc rows carry those facts. Independent facts (below): the SONAMEs
and the CUDA libraries each release needs."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_cudart_exports  # noqa: E402
import generate_runtime  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "third_party"))
import homes  # noqa: E402

LIBRARY = None
HEADERS, LIBS, RELEASE = {}, {}, {}

# SONAME per version (NVIDIA's: a SONAME spans releases, e.g. libcurand.so.10 from 10.x to 13.0).
# version facts: checked against library_fact_versions (test_every_version)
SONAMES = {
    "curand": {"11.8": "libcurand.so.10", "12.4": "libcurand.so.10", "12.5": "libcurand.so.10",
               "13.0": "libcurand.so.10"},
    "cufft": {"11.8": "libcufft.so.10", "12.4": "libcufft.so.11", "12.5": "libcufft.so.11",
              "13.0": "libcufft.so.12"},
    "nvjitlink": {"12.4": "libnvJitLink.so.12", "12.5": "libnvJitLink.so.12",
                  "13.0": "libnvJitLink.so.13"},
    "cusparse": {"11.8": "libcusparse.so.11", "12.4": "libcusparse.so.12", "12.5": "libcusparse.so.12",
                 "13.0": "libcusparse.so.12"},
    "cusolver": {"11.8": "libcusolver.so.11", "12.4": "libcusolver.so.11", "12.5": "libcusolver.so.11",
                 "13.0": "libcusolver.so.12"},
    "cublaslt": {"11.8": "libcublasLt.so.11", "12.4": "libcublasLt.so.12", "12.5": "libcublasLt.so.12",
                 "13.0": "libcublasLt.so.13"},
}
MAJOR = {v: v.split(".")[0] for lib in SONAMES for v in homes.library_fact_versions(lib)}


def needs(lib, v):
    """The CUDA libraries (by bare name) a release needs: cuSPARSE 12+ nvJitLink; cuSOLVER cuBLAS and
    cuBLASLt (11.8), plus nvJitLink and cuSPARSE from 12 on. None of them needs libcudart."""
    m = MAJOR[v]
    if lib == "cusparse" and m != "11":
        return {"libnvJitLink.so." + m}
    if lib == "cusolver":
        out = {"libcublas.so." + m, "libcublasLt.so." + m}
        if m != "11":
            out |= {"libnvJitLink.so." + m, SONAMES["cusparse"][v]}
        return out
    return set()


def checked_in(version):
    with open(os.path.join(HERE, "inputs", LIBRARY + "_exports", version + ".txt")) as f:
        lines = f.read().splitlines()
    header = {l[2:].split(":", 1)[0]: l[2:].split(":", 1)[1].strip() for l in lines
              if l.startswith("# ")}
    return header, [l for l in lines if l and not l.startswith("#")]


class LibraryFacts(unittest.TestCase):
    def test_every_version(self):
        versions = generate_runtime.LIBRARIES[LIBRARY]["versions"]
        self.assertEqual(sorted(HEADERS), versions)
        self.assertEqual(sorted(LIBS), versions)
        self.assertEqual(sorted(SONAMES[LIBRARY]), versions)
        self.assertEqual(versions, homes.library_fact_versions(LIBRARY))
        # The home's SONAME of each packaged release (what fetch_runtimes.sh names the file) agrees.
        packaged = homes.runtimes()["CUDA_LIBS"][LIBRARY]
        for v in packaged:
            self.assertEqual(packaged[v][3], SONAMES[LIBRARY][v], v)

    def test_sonames(self):
        for v, path in LIBS.items():
            self.assertEqual(extract_cudart_exports.soname(path), SONAMES[LIBRARY][v], v)
            self.assertEqual(checked_in(v)[0]["soname"], SONAMES[LIBRARY][v], v)

    def test_exports_equal_the_real_libraries(self):
        for v, path in LIBS.items():
            with self.subTest(version=v):
                header, entries = checked_in(v)
                self.assertEqual(entries, extract_cudart_exports.exports(path))
                self.assertEqual(header["needed"], " ".join(extract_cudart_exports.needed(path)))
                self.assertEqual(header["cuda_runtime"], extract_cudart_exports.cuda_runtime(path))

    def test_library_version_is_what_the_library_answers(self):
        for v, path in LIBS.items():
            with self.subTest(version=v):
                answer = extract_cudart_exports.library_version(LIBRARY, path, RELEASE[v])
                self.assertEqual(int(checked_in(v)[0]["library_version"]), answer)
                self.assertEqual(generate_runtime.library_version(
                    os.path.join(HERE, "inputs"), LIBRARY, v), answer)
                # The library's own major is the SONAME's (cuSOLVER 11.x / 12.x, cuFFT 10/11/12, ...);
                # nvJitLink answers its CUDA release.
                so_major = int(SONAMES[LIBRARY][v].rsplit(".", 1)[1])
                if LIBRARY == "nvjitlink":
                    self.assertEqual(answer, generate_runtime.version_number(v))
                elif LIBRARY == "cublaslt":
                    self.assertEqual(answer // 10000, so_major)
                else:
                    self.assertEqual(answer // 1000, so_major)

    def test_needed(self):
        for v, path in LIBS.items():
            with self.subTest(version=v):
                got = extract_cudart_exports.needed(path)
                self.assertEqual(set(got), needs(LIBRARY, v))
                self.assertFalse([n for n in got if n.startswith("libcudart")])
                self.assertNotEqual(checked_in(v)[0]["cuda_runtime"][:10], "libcudart.")
                for n in got:  # each one is in a directory of the release
                    self.assertTrue(any(os.path.isfile(os.path.join(d, n))
                                        for d in RELEASE[v].split(":")), (v, n))

    def test_headers_equal_a_fresh_extraction(self):
        with tempfile.TemporaryDirectory() as tmp:
            for v, inc in HEADERS.items():
                with self.subTest(version=v):
                    out = os.path.join(tmp, "%s-%s.json" % (LIBRARY, v))
                    subprocess.run([sys.executable, os.path.join(HERE, "extract_runtime_headers.py"),
                                    "--library", LIBRARY, inc, out], check=True)
                    with open(out) as a, open(os.path.join(HERE, "inputs", LIBRARY + "_headers",
                                                           "%s-%s.json" % (LIBRARY, v))) as b:
                        self.assertEqual(a.read(), b.read(),
                                         "stale: run version_tables/regen --headers")

    def test_table_and_versions_equal_a_fresh_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, os.path.join(HERE, "generate_runtime.py"), "--library",
                            LIBRARY, "--inputs", os.path.join(HERE, "inputs"), "--out", tmp,
                            "--incs", tmp], check=True, capture_output=True)
            with open(os.path.join(tmp, LIBRARY + "_api_table.tsv")) as a, open(
                    os.path.join(HERE, LIBRARY + "_api_table.tsv")) as b:
                self.assertEqual(a.read(), b.read(), "stale: run version_tables/regen")
            with open(os.path.join(tmp, "generated_" + LIBRARY, LIBRARY + "_versions.inc")) as f:
                rows = re.findall(r'^CUDYN_\w+_VERSION\((\d+), "([^"]+)", (\d+), "(\w[\w.]*)", "([^"]*)"\)$',
                                  f.read(), re.M)
        versions = generate_runtime.LIBRARIES[LIBRARY]["versions"]
        self.assertEqual([r[0] for r in rows], [str(generate_runtime.version_number(v))
                                                for v in versions])
        for v, row in zip(versions, rows):
            header = checked_in(v)[0]
            self.assertEqual(row[1:], (SONAMES[LIBRARY][v], header["library_version"],
                                       header["cuda_runtime"],
                                       "".join(n + "\\0" for n in header["needed"].split())), v)

    def test_every_version_binds_something(self):
        with open(os.path.join(HERE, LIBRARY + "_api_table.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
        head, rows = rows[0], rows[1:]
        self.assertTrue(rows)
        for v in generate_runtime.LIBRARIES[LIBRARY]["versions"]:
            col = head.index("bind_" + v)
            self.assertTrue(any(r[col].startswith("native:") for r in rows), v)
        if LIBRARY == "nvjitlink":
            # The 13.0 program's release-named call binds the release's own name, then the plain one.
            by = {r[0]: dict(zip(head, r)) for r in rows}
            self.assertEqual(by["__nvJitLinkCreate_13_0"]["bind_12.4"],
                             "native:__nvJitLinkCreate_12_4|nvJitLinkCreate")
            self.assertEqual(by["__nvJitLinkCreate_13_0"]["bind_13.0"],
                             "native:__nvJitLinkCreate_13_0|nvJitLinkCreate")


def main():
    global LIBRARY
    args, mode, v, rest, files = sys.argv[1:], None, None, [], {}
    it = iter(args)
    for a in it:
        if a == "--library":
            LIBRARY = next(it)
        elif a in ("--headers", "--libs"):
            mode = a
        elif a == "--release":
            mode, v = a, next(it)
        elif mode == "--headers" and "=" in a:  # V=<cuda.h>: the library's headers sit beside it
            v, path = a.split("=", 1)
            HEADERS[v] = os.path.dirname(os.path.abspath(path))
        elif mode == "--libs" and "=" in a:
            v, path = a.split("=", 1)
            LIBS[v] = os.path.abspath(path)
        elif mode == "--release":
            files.setdefault(v, []).append(os.path.abspath(a))
        else:
            rest.append(a)
    if LIBRARY not in SONAMES:
        sys.exit("--library: one of " + ", ".join(sorted(SONAMES)))
    lib64 = os.path.join(os.environ.get("CUDA_PATH") or "/usr/local/cuda-13.0", "lib64")
    LIBS.setdefault("13.0", os.path.join(lib64, SONAMES[LIBRARY]["13.0"]))
    RELEASE["13.0"] = lib64
    for v, fs in files.items():
        RELEASE[v] = ":".join(sorted({os.path.dirname(f) for f in fs}))
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
