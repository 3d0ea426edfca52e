"""`cudyn-check report --json`'s "nvml" part on every real NVML (the real 535 driver, no GPU here).

  check_report_nvml_test.py CUDYN_CHECK DRIVER BRANCH=NVML... --cuda BRANCH=CUDA...

Each NVML, named by CUDYN_NVML_PATH: found, its version the real file's own name's, its branch,
nvmlInit answered as the library answers it directly (ctypes, no cudyn in that process); a clamp to
an older branch's CUDA version reports the same entry counts as that branch's real NVML; no NVML
is reported as none found.
"""
import json
import os
import subprocess
import sys
import unittest

# CUDYN_CHECK DRIVER BRANCH=NVML... --cuda BRANCH=CUDA...
CHECK, DRIVER = sys.argv[1], sys.argv[2]
_AT = sys.argv.index("--cuda")
NVMLS = [(int(p.split("=", 1)[0]), os.path.realpath(p.split("=", 1)[1])) for p in sys.argv[3:_AT]]
CUDA_OF = {int(p.split("=")[0]): p.split("=")[1] for p in sys.argv[_AT + 1:]}  # 470 -> "11.4"


def report(nvml, clamp=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDYN_")}
    env["CUDYN_NVML_PATH"] = nvml
    cmd = [CHECK, "report", "--driver", os.path.realpath(DRIVER), "--json"]
    if clamp:
        cmd += ["--max-cuda-version", clamp]
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return json.loads(out.stdout)["nvml"]


def direct_init(nvml):
    """What the library answers to nvmlInit_v2 in a process of its own."""
    code = ("import ctypes; l = ctypes.CDLL(%r); l.nvmlErrorString.restype = ctypes.c_char_p; "
            "r = l.nvmlInit_v2(); print(r); print(l.nvmlErrorString(r).decode())" % nvml)
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, check=True)
    result, text = out.stdout.decode().splitlines()[:2]
    return int(result), text


class ReportNvml(unittest.TestCase):
    def test_every_real_nvml(self):
        self.assertEqual(len(NVMLS), 8)
        for branch, nvml in NVMLS:
            with self.subTest(branch=branch):
                j = report(nvml)
                self.assertTrue(j["found"], j)
                self.assertEqual(os.path.realpath(j["path"]), nvml)
                own = nvml.rsplit(".so.", 1)[1]
                self.assertEqual(j["version"][: len(own)], own)
                self.assertEqual(j["branch"], branch)
                self.assertEqual(j["answers_as_branch"], branch)
                e = j["entries"]
                self.assertEqual(e["native"] + e["adapter"] + e["missing"], e["total"])
                result, text = direct_init(nvml)
                self.assertEqual(j["init"], {"result": result, "text": text})
                self.assertEqual(j["devices"], [])

    def test_a_clamp_reports_as_the_older_branch(self):
        newest = NVMLS[-1][1]
        for branch, nvml in NVMLS[:-1]:
            with self.subTest(branch=branch):
                clamp = CUDA_OF[branch]
                j = report(newest, clamp)
                self.assertEqual(j["branch"], NVMLS[-1][0])
                self.assertEqual(j["answers_as_branch"], branch)
                self.assertEqual(j["entries"], report(nvml)["entries"])

    def test_no_nvml(self):
        j = report("/nonexistent/libnvidia-ml.so.1")
        self.assertFalse(j["found"])
        self.assertIn("/nonexistent/libnvidia-ml.so.1", j["error"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
