"""tools/layering_check.py over the tools/ sources in runfiles, and over a planted upward arrow."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
CHECK = os.path.join(HERE, "layering_check.py")


def run(root):
    return subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)


class Layering(unittest.TestCase):
    def test_tools_point_downwards(self):
        r = run(ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("layering: 0 problem(s)", r.stdout)

    def test_a_planted_upward_arrow_and_an_unplaced_file_fail(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(tmp, "tools"))
            with open(os.path.join(tmp, "tools/elf/elf_reader.cc"), "a") as f:
                f.write('\n#include "tools/check_binary_print.h"\n')
            with open(os.path.join(tmp, "tools/new_thing.cc"), "w") as f:
                f.write("int x;\n")
            r = run(tmp)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertRegex(r.stdout, r"tools/elf/elf_reader\.cc:\d+: tools/elf/elf_reader\.cc \(readers\) "
                                       r"includes tools/check_binary_print\.h \(printers\)")
            self.assertIn("tools/new_thing.cc: has no layer", r.stdout)
            self.assertIn("layering: 2 problem(s)", r.stdout)


if __name__ == "__main__":
    unittest.main()
