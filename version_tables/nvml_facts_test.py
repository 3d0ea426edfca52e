#!/usr/bin/env python3
"""The NVML facts are the real libraries' and headers' (//version_tables:nvml_facts_test).

Re-reads every real libnvidia-ml.so.1 of REAL_NVML (its exports with readelf, its nvmlErrorString
answers through ctypes) and every nvml.h of NVML_HEADERS (third_party/nvidia_drivers.bzl) exactly as
extract_nvml.py does, and fails when a checked-in input (inputs/nvml_exports/, inputs/nvml_headers/,
inputs/nvml_error_strings/) or nvml_api_table.tsv differs from them (rewrite them all with
`python3 version_tables/extract_nvml.py regen`). Then checks facts a person can verify by hand.

  nvml_facts_test.py --inputs DIR --tsv FILE --newest-header 12.5
                     --branch 390=9010 ... --lib 390=PATH ... --header 11.8=PATH ...
"""
import argparse
import difflib
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_nvml  # noqa: E402
import generate_nvml  # noqa: E402

ARGS = None


def pairs(values):
    return dict(v.split("=", 1) for v in values)


def diff(want, got, name):
    return "%s is stale (python3 version_tables/extract_nvml.py regen):\n%s" % (name, "".join(
        list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "checked in", "real"))[:40]))


class NvmlFacts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        a = ARGS
        cls.branches = generate_nvml.parse_branches(a.branch)
        cls.names = [b for b, _ in cls.branches]
        cls.libs = pairs(a.lib)
        cls.headers = pairs(a.header)
        cls.table = generate_nvml.build(a.inputs, cls.branches, a.newest_header)
        cls.exports = cls.table["exports"]
        cls.entries = {e["symbol"]: e for e in cls.table["entries"]}

    def read(self, *path):
        with open(os.path.join(ARGS.inputs, *path)) as f:
            return f.read()

    def test_lists_match(self):
        self.assertEqual(sorted(self.libs), sorted(self.names))
        for d, names, fmt in [("nvml_exports", self.names, "%s.txt"),
                              ("nvml_error_strings", self.names, "%s.tsv"),
                              ("nvml_headers", list(self.headers), "nvml-%s.json")]:
            self.assertEqual(sorted(os.listdir(os.path.join(ARGS.inputs, d))),
                             sorted(fmt % n for n in names), "inputs/%s vs REAL_NVML/NVML_HEADERS" % d)

    def test_exports_are_the_real_ones(self):
        for b in self.names:
            got = extract_nvml.exports_text(self.libs[b])
            want = self.read("nvml_exports", b + ".txt")
            self.assertTrue(got == want, diff(want, got, "inputs/nvml_exports/%s.txt" % b))

    def test_headers_are_the_real_ones(self):
        for v, h in self.headers.items():
            got = extract_nvml.header_text(h)
            want = self.read("nvml_headers", "nvml-%s.json" % v)
            self.assertTrue(got == want, diff(want, got, "inputs/nvml_headers/nvml-%s.json" % v))

    def test_error_strings_are_the_real_ones(self):
        codes = extract_nvml.probe_codes(extract_nvml.header_facts(self.headers[ARGS.newest_header]))
        for b in self.names:
            got = extract_nvml.error_strings_text(self.libs[b], codes)
            want = self.read("nvml_error_strings", b + ".tsv")
            self.assertTrue(got == want, diff(want, got, "inputs/nvml_error_strings/%s.tsv" % b))

    def test_tsv_is_current(self):
        with open(ARGS.tsv) as f:
            want = f.read()
        got = generate_nvml.tsv_text(self.table)
        self.assertTrue(got == want, diff(want, got, "version_tables/nvml_api_table.tsv"))

    # --- facts a person can check ---------------------------------------------------------------
    def test_init_everywhere(self):
        for b in self.names:
            self.assertIn("nvmlInit_v2", self.exports[b], b)
            self.assertIn("nvmlInit", self.exports[b], b)
            self.assertIn("nvmlErrorString", self.exports[b], b)
            self.assertEqual(self.entries["nvmlInit_v2"]["rules"][b]["candidates"][0], "nvmlInit_v2")

    def test_running_processes_v3(self):
        for b in self.names:
            has = "nvmlDeviceGetComputeRunningProcesses_v3" in self.exports[b]
            self.assertEqual(has, int(b) >= 535, b)
        # 450-470 bind _v3 to _v2 (same struct: nvmlProcessInfo_t is nvmlProcessInfo_v2_t), 390/418 to nothing.
        rules = self.entries["nvmlDeviceGetComputeRunningProcesses_v3"]["rules"]
        self.assertEqual(rules["470"]["candidates"], ["nvmlDeviceGetComputeRunningProcesses_v2"])
        self.assertEqual(rules["418"]["candidates"], [])
        self.assertEqual(rules["555"]["candidates"][0], "nvmlDeviceGetComputeRunningProcesses_v3")

    def test_memory_info_v2(self):
        self.assertNotIn("nvmlDeviceGetMemoryInfo_v2", self.exports["470"])
        self.assertIn("nvmlDeviceGetMemoryInfo_v2", self.exports["535"])
        r = self.entries["nvmlDeviceGetMemoryInfo_v2"]["rules"]["470"]
        self.assertEqual(r["candidates"], [])
        self.assertIn("nvmlMemory_v2_t vs nvmlMemory_t", r["reason"])

    def test_adapters(self):
        rows = {(s, o) for _, _, s, o, _ in self.table["adapters"]}
        self.assertIn(("nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses"), rows)
        self.assertIn(("nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo"), rows)
        self.assertNotIn(("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"), rows)
        self.assertNotIn(("nvmlInit_v2", "nvmlInit"), rows)

    def test_older_layouts_from_the_11_2_header(self):
        # 450/460 export _v3 / the unversioned placements only: the 11.2 header, where those are the
        # newest variants, declares what they fill.
        h = self.table["header"]
        old = json.loads(self.read("nvml_headers", "nvml-11.2.json"))
        self.assertEqual([f["name"] for f in old["structs"]["nvmlGridLicensableFeature_t"]["fields"]],
                         ["featureCode", "featureState", "licenseInfo", "productName", "featureEnabled"])
        self.assertIn("licenseExpiry", [f["name"] for f in h["structs"]["nvmlGridLicensableFeature_t"]["fields"]])
        for b in ["450", "460"]:
            grid = self.entries["nvmlDeviceGetGridLicensableFeatures_v4"]["rules"][b]
            self.assertEqual(grid["candidates"], [], b)
            self.assertEqual(grid["adapter"][0], "nvmlDeviceGetGridLicensableFeatures_v3", b)
            self.assertIn("NVML 11.2 header", grid["adapter"][1])
            self.assertIn("nvmlGridLicensableFeature_t adds licenseExpiry", grid["adapter"][1])
            placements = self.entries["nvmlDeviceGetGpuInstancePossiblePlacements_v2"]["rules"][b]
            self.assertEqual(placements["candidates"], [], b)
            self.assertEqual(placements["adapter"][0], "nvmlDeviceGetGpuInstancePossiblePlacements", b)
            self.assertIn("same fields", placements["adapter"][1])
        # 390/418's older variants fill layouts no header of the facts declares: no adapter.
        for b in ["390", "418"]:
            r = self.entries["nvmlDeviceGetGridLicensableFeatures_v4"]["rules"][b]
            self.assertIsNone(r["adapter"], b)
            self.assertIn("as it was then", r["reason"])
        # nvmlDeviceRemoveGpu on 390 reads an nvmlPciInfo_t of its day: unknown, no adapter.
        r = self.entries["nvmlDeviceRemoveGpu_v2"]["rules"]["390"]
        self.assertIsNone(r["adapter"])
        self.assertIn("nvmlPciInfo_t as it was then", r["reason"])
        # A prototype change over structs the facts know is an adapter: the v1 process lists.
        self.assertEqual(self.entries["nvmlDeviceGetComputeRunningProcesses_v3"]["rules"]["418"]["adapter"][0],
                         "nvmlDeviceGetComputeRunningProcesses")

    def test_newest_binds_every_entry(self):
        newest = self.names[-1]
        for s, e in self.entries.items():
            self.assertEqual(e["rules"][newest]["candidates"][:1], [s], s)

    def test_markers(self):
        self.assertEqual(self.table["markers"][self.names[0]], "")
        for i, b in enumerate(self.names[1:], 1):
            m = self.table["markers"][b]
            self.assertTrue(m, b)
            self.assertTrue(all(m not in self.exports[o] for o in self.names[:i]), (b, m))
            self.assertTrue(all(m in self.exports[n] for n in self.names[i:]), (b, m))

    def test_error_strings(self):
        newest = dict(self.table["error_strings"])
        self.assertEqual(newest[0], "Success")
        self.assertEqual(newest[9], "Driver Not Loaded")
        self.assertEqual(newest[999], "Unknown Error")
        self.assertEqual(newest[0xFFFFFFFF], "Unknown Error")
        old = dict(self.table["all_errors"]["390"])
        self.assertEqual(old[19], "Unknown Error")  # NVML_ERROR_IN_USE came after 390
        self.assertEqual(newest[19], "In use by another client")

    def test_unversioned_map(self):
        m = self.table["header"]["unversioned_map"]
        self.assertEqual(m["nvmlInit"], "nvmlInit_v2")
        self.assertEqual(m["nvmlDeviceGetComputeRunningProcesses"], "nvmlDeviceGetComputeRunningProcesses_v3")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--tsv", required=True)
    ap.add_argument("--newest-header", required=True)
    ap.add_argument("--branch", action="append", required=True)
    ap.add_argument("--lib", action="append", required=True)
    ap.add_argument("--header", action="append", required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
