#!/usr/bin/env python3
"""The NVRTC facts and table are what the real libraries and headers say today.

  nvrtc_facts_test.py --headers V=INCLUDE_DIR... --libs V=LIBRARY...
      (11.2, 11.8, 12.4, 12.5 from @cuda_nvrtc and the @cuda_1x_y headers; 13.0 from the toolkit)

Proves: inputs/nvrtc_exports/<v>.txt equal a fresh extraction from each real libnvrtc;
inputs/nvrtc_headers/nvrtc-<v>.json equal a fresh extraction from each nvrtc.h; nvrtc_api_table.tsv
equals a fresh generate_runtime.py --library nvrtc run. Facts (NVRTC issue): SONAMEs
libnvrtc.so.11.2 (11.2 and 11.8), libnvrtc.so.12, libnvrtc.so.13; no NVRTC exports a version-named
(_vN) variant, so every entry binds by its own name; entries new in 12.x/13.0 are missing on
older NVRTCs (nvrtcGetLTOIR from 12.x here, the PCH functions and nvrtcSetFlowCallback from 13.0)."""
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
VERSIONS = homes.library_fact_versions("nvrtc")


def checked_in(version):
    with open(os.path.join(HERE, "inputs", "nvrtc_exports", version + ".txt")) as f:
        lines = f.read().splitlines()
    header = {l[2:].split(":", 1)[0]: l[2:].split(":", 1)[1].strip() for l in lines
              if l.startswith("# ")}
    return header, [l for l in lines if l and not l.startswith("#")]


class NvrtcFacts(unittest.TestCase):
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
        # version facts: checked against VERSIONS (test_every_version)
        want = {"11.2": "libnvrtc.so.11.2", "11.8": "libnvrtc.so.11.2", "12.4": "libnvrtc.so.12",
                "12.5": "libnvrtc.so.12", "13.0": "libnvrtc.so.13"}
        for v, path in LIBS.items():
            self.assertEqual(extract_cudart_exports.soname(path), want[v], v)

    def test_no_version_named_variants(self):
        for v in VERSIONS:
            for e in checked_in(v)[1]:
                self.assertIsNone(re.search(r"_v\d+@", e), "%s: %s" % (v, e))

    def test_headers_equal_a_fresh_extraction(self):
        with tempfile.TemporaryDirectory() as tmp:
            for v, inc in HEADERS.items():
                with self.subTest(version=v):
                    out = os.path.join(tmp, "nvrtc-%s.json" % v)
                    subprocess.run([sys.executable, os.path.join(HERE, "extract_runtime_headers.py"),
                                    "--library", "nvrtc", inc, out], check=True)
                    with open(out) as a, open(os.path.join(HERE, "inputs", "nvrtc_headers",
                                                           "nvrtc-%s.json" % v)) as b:
                        self.assertEqual(a.read(), b.read(),
                                         "stale: run version_tables/regen --headers")

    def test_table_equals_a_fresh_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, os.path.join(HERE, "generate_runtime.py"), "--library",
                            "nvrtc", "--inputs", os.path.join(HERE, "inputs"), "--out", tmp],
                           check=True, capture_output=True)
            with open(os.path.join(tmp, "nvrtc_api_table.tsv")) as a, open(
                    os.path.join(HERE, "nvrtc_api_table.tsv")) as b:
                self.assertEqual(a.read(), b.read(), "stale: run version_tables/regen")

    def test_rules(self):
        with open(os.path.join(HERE, "nvrtc_api_table.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
        head = rows[0]
        rows = {r[0]: dict(zip(head, r)) for r in rows[1:]}
        self.assertEqual(len(rows), 24)
        for sym in ("nvrtcVersion", "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetPTX",
                    "nvrtcGetCUBIN", "nvrtcGetLoweredName"):
            for v in VERSIONS:
                self.assertEqual(rows[sym]["bind_" + v], "native:" + sym)
        self.assertTrue(rows["nvrtcGetLTOIR"]["bind_11.8"].startswith("missing:not exported"))
        self.assertEqual(rows["nvrtcGetLTOIR"]["bind_12.4"], "native:nvrtcGetLTOIR")
        for sym in ("nvrtcSetFlowCallback", "nvrtcGetPCHHeapSize", "nvrtcSetPCHHeapSize"):
            self.assertEqual(rows[sym]["exported_in"], "13.0")
            self.assertTrue(rows[sym]["bind_12.5"].startswith("missing:"))


def main():
    args, mode = sys.argv[1:], None
    rest = []
    for a in args:
        if a in ("--headers", "--libs"):
            mode = a
        elif mode == "--headers" and "=" in a:  # V=<cuda.h>: nvrtc.h sits beside it
            v, path = a.split("=", 1)
            HEADERS[v] = os.path.dirname(os.path.abspath(path))
        elif mode == "--libs" and "=" in a:  # V=<library or builtins>: the libnvrtc.so.* one
            v, path = a.split("=", 1)
            if re.match(r"libnvrtc\.so", os.path.basename(path)):
                LIBS[v] = os.path.abspath(path)
        elif mode == "--libs" and re.match(r"libnvrtc\.so", os.path.basename(a)):
            LIBS[v] = os.path.abspath(a)  # $(rootpaths) gives the files space-separated
        else:
            rest.append(a)
    LIBS.setdefault("13.0", os.path.join(os.environ.get("CUDA_PATH") or "/usr/local/cuda-13.0",
                                         "lib64", "libnvrtc.so.13"))
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
