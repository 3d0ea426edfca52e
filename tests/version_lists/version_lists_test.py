"""The version-list check over this repository, and over a planted copy to prove it can fail.

The test reads the whole source tree from its runfiles (tests/source_files.bzl: every package's files,
at their repository paths), so it is hermetic.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "version_lists_check.py")
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def run(root, *files):
    return subprocess.run([sys.executable, CHECK, root, *files], capture_output=True, text=True)


class VersionLists(unittest.TestCase):
    def test_the_repository_spells_no_list_of_its_own(self):
        r = run(ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"[1-9]\d{2,} file\(s\) checked, 0 copied")

    def test_a_planted_copy_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            for rel in ("third_party/nvidia_drivers.bzl", "third_party/cuda_runtimes.bzl",
                        "tests/fake_driver/versions.bzl", "tests/fake_runtime/versions.bzl",
                        "version_tables/inputs/exports"):
                src, dst = os.path.join(ROOT, rel), os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
            os.makedirs(os.path.join(tmp, "tests/planted"))
            with open(os.path.join(tmp, "tests/planted/planted_test.cc"), "w") as f:
                f.write('#include <map>\n'
                        '// {418, 450, 460, 470, 535} in a comment is no list\n'
                        'int Sum() {\n'
                        '  int s = 0;\n'
                        '  for (int major : {418, 450, 460,\n'
                        '                    470, 535}) s += major;\n'
                        '  return s;\n'
                        '}\n'
                        '// version facts: checked against kDrivers\n'
                        'const std::map<int, int> kFacts = {{418, 1}, {450, 2}, {460, 3}, {470, 4}, {535, 5}};\n'
                        'const int kDrivers[] = {0};\n'
                        'const char* kPicked[] = {"11.2", "12.5"};\n')
            with open(os.path.join(tmp, "tests/planted/BUILD"), "w") as f:
                f.write('VERSIONS = ["11.2", "11.8", "12.4", "12.5", "13.0"]\n')
            r = run(tmp, "tests/planted/planted_test.cc", "tests/planted/BUILD")
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("tests/planted/planted_test.cc:5: spells a home's list itself "
                          "(418, 450, 460, 470, 535)", r.stdout)
            self.assertIn("REAL_DRIVERS (third_party/nvidia_drivers.bzl)", r.stdout)
            self.assertIn("tests/planted/BUILD:1: spells a home's list itself "
                          "(11.2, 11.8, 12.4, 12.5, 13.0)", r.stdout)
            self.assertIn("2 file(s) checked, 2 copied version list(s)", r.stdout)


if __name__ == "__main__":
    unittest.main()
