#!/usr/bin/env python3
"""The cuBLAS facts and table are what the real libraries and headers say today.

  cublas_facts_test.py --headers V=CUDA_H... --libs V=LIBRARY...
      (11.8, 12.4, 12.5 from @cuda_cublas and the @cuda_1x_y headers; 13.0 from the toolkit)

Proves: inputs/cublas_exports/<v>.txt equal a fresh extraction from each real libcublas;
inputs/cublas_headers/cublas-<v>.json equal a fresh extraction from each cublas_v2.h;
cublas_api_table.tsv equals a fresh generate_runtime.py --library cublas run. Facts (cuBLAS issue):
SONAMEs libcublas.so.11 / .12 / .13; each libcublas needs exactly one CUDA library, the libcublasLt
of its own major by bare name, and finds it through RUNPATH $ORIGIN (its own directory); neither
needs libcudart (the runtime is linked in); the handle API is version-named (cublasCreate_v2 ...,
the cublasCreate macro of cublas_v2.h) and bound by that name on every version; the 64-bit-size
_64 variants are exported from 12.x on (missing on 11.8)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_cudart_exports  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "third_party"))
import homes  # noqa: E402

HEADERS, LIBS = {}, {}
VERSIONS = homes.library_fact_versions("cublas")
MAJOR = {v: v.split(".")[0] for v in VERSIONS}


def checked_in(version):
    with open(os.path.join(HERE, "inputs", "cublas_exports", version + ".txt")) as f:
        lines = f.read().splitlines()
    header = {l[2:].split(":", 1)[0]: l[2:].split(":", 1)[1].strip() for l in lines
              if l.startswith("# ")}
    return header, [l for l in lines if l and not l.startswith("#")]


def dynamic(path):
    """-> (NEEDED list, RUNPATH or None) from readelf -d."""
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    runpath = re.search(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]+)\]", out)
    return needed, runpath.group(1) if runpath else None


class CublasFacts(unittest.TestCase):
    def test_every_version(self):
        self.assertEqual(sorted(HEADERS), VERSIONS)
        self.assertEqual(sorted(LIBS), VERSIONS)

    def test_exports_equal_the_real_libraries(self):
        for v, path in LIBS.items():
            with self.subTest(version=v):
                header, entries = checked_in(v)
                self.assertEqual(entries, extract_cudart_exports.exports(path))
                self.assertEqual(header["soname"], extract_cudart_exports.soname(path))

    def test_sonames(self):
        for v, path in LIBS.items():
            self.assertEqual(extract_cudart_exports.soname(path), "libcublas.so." + MAJOR[v], v)

    def test_needs_its_cublaslt_by_bare_name_through_origin_and_no_runtime(self):
        for v, path in LIBS.items():
            with self.subTest(version=v):
                needed, runpath = dynamic(path)
                cuda = [n for n in needed if n.startswith(("libcu", "libnv"))]
                self.assertEqual(cuda, ["libcublasLt.so." + MAJOR[v]])
                self.assertEqual(runpath, "$ORIGIN")
                lt = os.path.join(os.path.dirname(path), "libcublasLt.so." + MAJOR[v])
                self.assertTrue(os.path.isfile(lt), lt)
                self.assertEqual(extract_cudart_exports.soname(lt), "libcublasLt.so." + MAJOR[v])
                lt_needed, _ = dynamic(lt)
                self.assertEqual([n for n in lt_needed if n.startswith(("libcu", "libnv"))], [])

    def test_headers_equal_a_fresh_extraction(self):
        with tempfile.TemporaryDirectory() as tmp:
            for v, inc in HEADERS.items():
                with self.subTest(version=v):
                    out = os.path.join(tmp, "cublas-%s.json" % v)
                    subprocess.run([sys.executable, os.path.join(HERE, "extract_runtime_headers.py"),
                                    "--library", "cublas", inc, out], check=True)
                    with open(out) as a, open(os.path.join(HERE, "inputs", "cublas_headers",
                                                           "cublas-%s.json" % v)) as b:
                        self.assertEqual(a.read(), b.read(),
                                         "stale: run version_tables/regen --headers")

    def test_table_equals_a_fresh_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, os.path.join(HERE, "generate_runtime.py"), "--library",
                            "cublas", "--inputs", os.path.join(HERE, "inputs"), "--out", tmp],
                           check=True, capture_output=True)
            with open(os.path.join(tmp, "cublas_api_table.tsv")) as a, open(
                    os.path.join(HERE, "cublas_api_table.tsv")) as b:
                self.assertEqual(a.read(), b.read(), "stale: run version_tables/regen")

    def test_rules(self):
        with open(os.path.join(HERE, "cublas_api_table.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
        head = rows[0]
        rows = {r[0]: dict(zip(head, r)) for r in rows[1:]}
        self.assertEqual(len(rows), 517)
        # The handle API by its version-named symbols; the unversioned names are the legacy API
        # (cublas.h, other prototypes) and are never entries.
        for sym in ("cublasCreate_v2", "cublasDestroy_v2", "cublasGetVersion_v2", "cublasSgemm_v2",
                    "cublasSetStream_v2", "cublasGetProperty", "cublasGetCudartVersion",
                    "cublasGetStatusString", "cublasGemmEx"):
            for v in VERSIONS:
                self.assertEqual(rows[sym]["bind_" + v], "native:" + sym, (sym, v))
        for sym in ("cublasCreate", "cublasSgemm", "cublasGetVersion"):
            self.assertNotIn(sym, rows)
        sixty_four = [s for s in rows if s.endswith("_64")]
        self.assertEqual(len(sixty_four), 221)
        for sym in sixty_four:
            self.assertTrue(rows[sym]["bind_11.8"].startswith("missing:not exported"), sym)
        self.assertEqual(rows["cublasSgemm_v2_64"]["bind_12.4"], "native:cublasSgemm_v2_64")
        self.assertEqual(rows["cublasSgemm_v2_64"]["exported_in"],
                         ",".join(v for v in VERSIONS if int(MAJOR[v]) >= 12))
        native = {v: sum(1 for r in rows.values() if r["bind_" + v].startswith("native:"))
                  for v in VERSIONS}
        # version facts: checked against VERSIONS (the keys of native)
        self.assertEqual(native, {"11.8": 281, "12.4": 503, "12.5": 505, "13.0": 517})


def main():
    args, mode, v = sys.argv[1:], None, None
    rest = []
    for a in args:
        if a in ("--headers", "--libs"):
            mode = a
        elif mode == "--headers" and "=" in a:  # V=<cuda.h>: cublas_v2.h sits beside it
            v, path = a.split("=", 1)
            HEADERS[v] = os.path.dirname(os.path.abspath(path))
        elif mode == "--libs" and "=" in a:  # V=<libcublas or libcublasLt>: the libcublas.so.* one
            v, path = a.split("=", 1)
            if re.match(r"libcublas\.so", os.path.basename(path)):
                LIBS[v] = os.path.abspath(path)
        elif mode == "--libs" and re.match(r"libcublas\.so", os.path.basename(a)):
            LIBS[v] = os.path.abspath(a)  # $(rootpaths) gives the files space-separated
        elif mode == "--libs" and re.match(r"libcublasLt\.so", os.path.basename(a)):
            pass
        else:
            rest.append(a)
    LIBS.setdefault("13.0", os.path.join(os.environ.get("CUDA_PATH") or "/usr/local/cuda-13.0",
                                         "lib64", "libcublas.so.13"))
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
