"""The wheel installed the way users install it: a fresh venv, `pip install --no-index WHEEL`
(offline), then the console scripts, the Python API and `cudyn run` from that venv.

  wheel_venv_test.py WHEEL DRIVER_535
"""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

import pytest_main
import wheel_util

WHEEL = pytest_main.abspath_arg(1)
DRIVER = pytest_main.abspath_arg(2)


def run(argv, **kwargs):
    kwargs.setdefault("cwd", pytest_main.tmpdir())  # never import cudyn from the source tree
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, **kwargs)


class Venv:
    def __init__(self, root):
        self.root = root
        self.bin = os.path.join(root, "bin")
        self.python = os.path.join(self.bin, "python")
        purelib = run([self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"])
        assert purelib.returncode == 0, purelib.stderr
        self.package = os.path.join(purelib.stdout.strip(), "cudyn")

    def py(self, code, *args, **kwargs):
        return run([self.python, "-c", code] + list(args), **kwargs)


@pytest.fixture(scope="module")
def venv():
    root = os.path.join(pytest_main.tmpdir(), "venv")
    shutil.rmtree(root, ignore_errors=True)
    made = run(["/usr/bin/python3", "-m", "venv", root])
    assert made.returncode == 0, made.stdout + made.stderr
    v = Venv(root)
    installed = run([v.python, "-m", "pip", "install", "--no-index", "--no-cache-dir",
                     "--disable-pip-version-check", WHEEL])
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return v


def test_wheel_installs_every_file(venv):
    _, version, _, _, _ = wheel_util.wheel_tags(WHEEL)
    for rel in ["__init__.py", "_cli.py", "py.typed", "_native.so", "bin/cudyn-check", "bin/cudyn",
                "lib/cudyn/libcuda.so.1", "lib/cudyn/cudart/libcudart.so.13"]:
        assert os.path.isfile(os.path.join(venv.package, rel)), rel
    for rel in ["_native.so", "bin/cudyn-check", "bin/cudyn", "lib/cudyn/libcuda.so.1"]:
        mode = os.stat(os.path.join(venv.package, rel)).st_mode
        assert mode & stat.S_IXUSR, "%s is not executable (%o)" % (rel, mode)
    for script in ["cudyn", "cudyn-check"]:
        assert os.access(os.path.join(venv.bin, script), os.X_OK), script
    shown = run([venv.python, "-m", "pip", "show", "cudyn", "--disable-pip-version-check"])
    assert "Version: " + version in shown.stdout, shown.stdout + shown.stderr


def test_console_script_report_json(venv):
    r = run([os.path.join(venv.bin, "cudyn-check"), "report", "--json"])
    assert r.returncode in (0, 1, 3), r.stderr
    report = json.loads(r.stdout)
    assert report["command"] == "report"
    assert report["exit_code"] == r.returncode


def test_console_script_version(venv):
    _, version, _, _, _ = wheel_util.wheel_tags(WHEEL)
    for script, name in [("cudyn-check", "cudyn-check"), ("cudyn", "cudyn")]:
        r = run([os.path.join(venv.bin, script), "--version"])
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "%s %s" % (name, version)


def test_import_from_venv_report(venv):
    r = venv.py("import cudyn; print(cudyn.report()['command']); print(cudyn.__file__)")
    assert r.returncode == 0, r.stderr
    command, where = r.stdout.split("\n")[:2]
    assert command == "report"
    assert where.startswith(venv.package), where  # the installed package, not a source tree


def test_report_matches_cli(venv):
    env = dict(os.environ, CUDYN_DRIVER_PATH=DRIVER)
    r = venv.py("import cudyn, json; print(json.dumps(cudyn.report()))", env=env)
    assert r.returncode == 0, r.stderr
    cli = run([os.path.join(venv.bin, "cudyn-check"), "report", "--json"], env=env)
    assert json.loads(r.stdout) == json.loads(cli.stdout)
    assert json.loads(r.stdout)["exit_code"] == cli.returncode


@pytest.mark.parametrize("options", [
    {},
    {"target_version": "12.2", "gpu": "sm_90"},
    {"target_version": 11040},
    {"gpu": "none"},
])
def test_check_binary_matches_cli(venv, options):
    target = os.path.join(venv.package, "bin", "cudyn-check")  # a real ELF file
    argv = ["binary", target, "--json"]
    if "target_version" in options:
        argv += ["--target-version", str(options["target_version"])]
    if "gpu" in options:
        argv += ["--gpu", options["gpu"]]
    cli = run([os.path.join(venv.bin, "cudyn-check")] + argv)
    assert cli.returncode in (0, 1, 3), cli.stderr
    expected = json.loads(cli.stdout)
    r = venv.py("import cudyn, json, sys; "
                "print(json.dumps(cudyn.check_binary(sys.argv[1], **json.loads(sys.argv[2]))))",
                target, json.dumps(options))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got == expected
    assert got["exit_code"] == cli.returncode


def test_check_binary_non_elf_raises_cli_message(venv):
    path = os.path.join(pytest_main.tmpdir(), "not_an_elf.txt")
    with open(path, "w") as f:
        f.write("just text\n")
    cli = run([os.path.join(venv.bin, "cudyn-check"), "binary", path, "--json"])
    assert cli.returncode == 2
    assert cli.stderr.strip(), "the CLI says why on stderr"
    r = venv.py("import cudyn, sys\n"
                "try:\n"
                "    cudyn.check_binary(sys.argv[1])\n"
                "except cudyn.CudynError as e:\n"
                "    assert isinstance(e, RuntimeError)\n"
                "    sys.stdout.write(str(e))\n"
                "else:\n"
                "    sys.exit('no CudynError')\n", path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == cli.stderr.rstrip("\n")


def test_usage_error_raises(venv):
    r = venv.py("import cudyn\n"
                "try:\n"
                "    cudyn.check_binary('/bin/sh', gpu='sm_9x')\n"
                "except cudyn.CudynError as e:\n"
                "    print(e)\n")
    assert r.returncode == 0, r.stderr
    cli = run([os.path.join(venv.bin, "cudyn-check"), "binary", "--json", "--gpu", "sm_9x", "--",
               "/bin/sh"])
    assert cli.returncode == 2
    assert r.stdout.rstrip("\n") == cli.stderr.rstrip("\n")


def test_run_check_is_the_cli(venv):
    r = venv.py("import cudyn, json; print(json.dumps(cudyn.run_check(['help', 'binary'])))")
    assert r.returncode == 0, r.stderr
    code, out, err = json.loads(r.stdout)
    cli = run([os.path.join(venv.bin, "cudyn-check"), "help", "binary"])
    assert (code, out, err) == (cli.returncode, cli.stdout, cli.stderr)


def test_cudyn_run_help(venv):
    r = run([os.path.join(venv.bin, "cudyn"), "run", "--help"])
    assert r.returncode == 0, r.stderr
    assert "usage: cudyn run" in r.stdout


def test_cudyn_run_finds_packaged_dropins(venv):
    # `cudyn run` preloads its drop-ins from ../lib/cudyn beside its binary: the venv's copy.
    env = dict(os.environ)
    env.pop("CUDYN_DROPIN_DIR", None)
    r = run([os.path.join(venv.bin, "cudyn"), "run", "--driver", DRIVER, "--libraries", "--",
             "/usr/bin/env"], env=env)
    assert r.returncode == 0, r.stderr
    lines = dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
    dropin_dir = os.path.join(venv.package, "lib", "cudyn")
    preload = lines.get("LD_PRELOAD", "").split(":")
    assert os.path.join(dropin_dir, "libcuda.so.1") in preload, lines.get("LD_PRELOAD")
    for p in preload:
        assert p.startswith(dropin_dir + os.sep) and os.path.isfile(p), p
    assert lines.get("LD_LIBRARY_PATH", "").split(":")[-1] == dropin_dir


if __name__ == "__main__":
    pytest_main.main(__file__)
