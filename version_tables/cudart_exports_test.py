#!/usr/bin/env python3
"""The real CUDA runtimes' export lists: the checked-in inputs/cudart_exports/<v>.txt equal a fresh
extraction from the real libraries, and the facts the runtime-API table rests on hold on them.

  cudart_exports_test.py VERSION=LIBRARY...   (11.2, 11.8, 12.4, 12.5 from @cuda_runtimes; 13.0 is
                                               $CUDA_PATH/lib64/libcudart.so.13, default 13.0 toolkit)
Facts (runtime-dispatch issue): SONAMEs libcudart.so.11.0 (11.x), .12, .13; every export versioned
name@@<soname>; 13.0 exports no _vN names; 12.x exports cudaGetDeviceProperties_v2,
cudaMemAdvise_v2, cudaMemPrefetchAsync_v2, cudaStreamGetCaptureInfo_v3 and the graph edge-data
_v2s, 11.x none of them, and 13.0 the plain names."""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_cudart_exports  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "third_party"))
import homes  # noqa: E402

CUDA_RUNTIME_FACT_VERSIONS = homes.runtimes()["CUDA_RUNTIME_FACT_VERSIONS"]

LIBRARIES = {}
V2_12X = ["cudaGetDeviceProperties_v2", "cudaMemAdvise_v2", "cudaMemPrefetchAsync_v2",
          "cudaStreamGetCaptureInfo_v3", "cudaGraphAddDependencies_v2", "cudaGraphGetEdges_v2",
          "cudaGraphNodeGetDependencies_v2", "cudaGraphNodeGetDependentNodes_v2",
          "cudaGraphRemoveDependencies_v2", "cudaStreamUpdateCaptureDependencies_v2"]


def checked_in(version):
    with open(os.path.join(HERE, "inputs", "cudart_exports", version + ".txt")) as f:
        lines = f.read().splitlines()
    header = {l[2:].split(":", 1)[0]: l[2:].split(":", 1)[1].strip() for l in lines if l.startswith("# ")}
    return header, [l for l in lines if l and not l.startswith("#")]


def names(version):
    return {e.split("@", 1)[0] for e in checked_in(version)[1]}


class CudartExports(unittest.TestCase):
    def test_all_five_runtimes(self):
        self.assertEqual(sorted(LIBRARIES), sorted(CUDA_RUNTIME_FACT_VERSIONS))

    def test_checked_in_lists_equal_the_real_libraries(self):
        for version, path in LIBRARIES.items():
            with self.subTest(version=version):
                header, entries = checked_in(version)
                self.assertEqual(entries, extract_cudart_exports.exports(path))
                self.assertEqual(header["soname"], extract_cudart_exports.soname(path))

    def test_sonames(self):
        # version facts: checked against CUDA_RUNTIME_FACT_VERSIONS (test_all_five_runtimes)
        want = {"11.2": "libcudart.so.11.0", "11.8": "libcudart.so.11.0", "12.4": "libcudart.so.12",
                "12.5": "libcudart.so.12", "13.0": "libcudart.so.13"}
        for version, path in LIBRARIES.items():
            self.assertEqual(extract_cudart_exports.soname(path), want[version], version)

    def test_every_export_is_versioned_by_the_soname(self):
        for version in LIBRARIES:
            header, entries = checked_in(version)
            self.assertGreater(len(entries), 300, version)
            for e in entries:
                self.assertTrue(e.endswith("@@" + header["soname"]), "%s: %s" % (version, e))

    def test_13_0_removed_every_vN_name_and_kept_the_plain_ones(self):
        n13 = names("13.0")
        self.assertEqual([n for n in n13 if re.search(r"_v\d+$", n)], [])
        for v2 in V2_12X:
            self.assertIn(re.sub(r"_v\d+$", "", v2), n13)

    def test_12_x_exports_the_v2_v3_variants_and_11_x_does_not(self):
        for version in ("12.4", "12.5"):
            for v2 in V2_12X:
                self.assertIn(v2, names(version), version)
        for version in ("11.2", "11.8"):
            self.assertEqual(sorted(set(V2_12X) & names(version)), [], version)

    def test_newer_runtimes_keep_older_names_within_a_family(self):
        self.assertLessEqual(names("11.2"), names("11.8"))
        self.assertLessEqual(names("12.4"), names("12.5"))


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        version, path = arg.split("=", 1)
        LIBRARIES[version] = path
    cuda = os.environ.get("CUDA_PATH") or "/usr/local/cuda-13.0"
    LIBRARIES["13.0"] = os.path.join(cuda, "lib64", "libcudart.so.13")
    unittest.main(argv=sys.argv[:1], verbosity=2)
