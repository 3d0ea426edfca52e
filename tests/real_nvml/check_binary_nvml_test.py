"""`cudyn-check binary --json`'s NVML verdict against the real NVMLs (no GPU needed).

  check_binary_nvml_test.py CUDYN_CHECK DIRECT SHARED BRANCH=CUDA=NVML...

DIRECT is nvml_program.c linked with -lnvidia-ml, SHARED the same linked with libcudyn_nvml.so. For
each branch's CUDA version as the target: the NVML functions DIRECT imports that the real NVML of
that branch does not export (read here with readelf and ctypes, not through cudyn) are what
cudyn-check says it lacks, and DIRECT is incompatible exactly when there are some; SHARED never is.
The minimum driver of DIRECT is the oldest branch whose real NVML exports them all.
"""
import json
import os
import subprocess
import sys
import unittest

CHECK, DIRECT, SHARED = sys.argv[1:4]
BRANCHES = []  # (branch, "11.4", real file)
for arg in sys.argv[4:]:
    b, cuda, path = arg.split("=", 2)
    BRANCHES.append((int(b), cuda, os.path.realpath(path)))


def nvml_imports(program):
    out = subprocess.run(["readelf", "-W", "--dyn-syms", program], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] == "UND" and f[7].startswith("nvml") and f[4] != "WEAK":
            names.add(f[7].split("@")[0])
    return sorted(names)


def exported(real, names):
    """The names the real library exports (ctypes in a process of its own)."""
    code = ("import ctypes, sys; l = ctypes.CDLL(%r); "
            "print('\\n'.join(n for n in sys.argv[1:] if hasattr(l, n)))" % real)
    out = subprocess.run([sys.executable, "-c", code] + names, stdout=subprocess.PIPE, check=True)
    return set(out.stdout.decode().split())


def judge(program, cuda):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDYN_")}
    out = subprocess.run([CHECK, "binary", program, "--target-version", cuda, "--json"], env=env,
                         stdout=subprocess.PIPE, check=False)
    j = json.loads(out.stdout)
    return j["files"][0] if "files" in j else j


class BinaryNvml(unittest.TestCase):
    def test_lacking_is_what_the_real_nvml_does_not_export(self):
        imports = nvml_imports(DIRECT)
        self.assertIn("nvmlInit_v2", imports)
        oldest_complete = None
        for branch, cuda, real in BRANCHES:
            with self.subTest(branch=branch):
                want = sorted(set(imports) - exported(real, imports))
                f = judge(DIRECT, cuda)
                self.assertEqual(f["nvml"]["branch"], branch)
                self.assertEqual(sorted(f["nvml"]["lacking"]), want)
                self.assertEqual(f["nvml"]["imports"], len(imports))
                self.assertFalse(f["nvml"]["through_cudyn"])
                self.assertEqual(f["verdict"], "incompatible" if want else "compatible", f["reason"])
                if not want and oldest_complete is None:
                    oldest_complete = cuda
                s = judge(SHARED, cuda)
                self.assertTrue(s["nvml"]["through_cudyn"])
                self.assertEqual(sorted(s["nvml"]["lacking"]), want)
                self.assertNotEqual(s["verdict"], "incompatible", s["reason"])
        self.assertIsNotNone(oldest_complete)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUDYN_")}
        out = subprocess.run([CHECK, "binary", DIRECT, "--target-version", BRANCHES[0][1]],
                             env=env, stdout=subprocess.PIPE, check=False).stdout.decode()
        self.assertIn("minimum driver: CUDA %s" % oldest_complete, out)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
