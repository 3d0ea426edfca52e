"""cudyn's Python API from 64 threads at once on the real 535 driver: no crash, and every answer
equals the single-thread answer. Each call releases the GIL, so the C++ code (loader,
trampolines, cudyn-check) really runs concurrently.

  native_threads_test.py WHEEL DRIVER_535
The wheel is unpacked (what pip would install) and imported from there; CUDYN_DRIVER_PATH points
the process-wide driver at the 535 driver before the first call.
"""

import json
import os
import sys
import threading

import pytest

import pytest_main
import wheel_util

WHEEL = pytest_main.abspath_arg(1)
DRIVER = pytest_main.abspath_arg(2)
THREADS = 64
ROUNDS = 6
SYMBOLS = ["cuInit", "cuMemAdvise", "cuMemAdvise_v2", "cuCtxCreate_v4", "cuStreamSynchronize_ptsz",
           "cuGraphAddNode_v2", "cuLibraryLoadData"]


@pytest.fixture(scope="module")
def cudyn():
    os.environ["CUDYN_DRIVER_PATH"] = DRIVER  # read by the loader at its first use
    os.environ.pop("CUDYN_MAX_CUDA_VERSION", None)
    root = wheel_util.unpack(WHEEL, os.path.join(pytest_main.tmpdir(), "site"))
    sys.path.insert(0, root)
    import cudyn as module
    assert module.__file__.startswith(root), module.__file__
    return module


# In one process every check that opens a driver used to keep that Driver, and one of the loader's
# 16 adapter instances, for good: from the ~16th check on the answers changed ("more than 16
# drivers open at once"). tools/check_common.cc KeepDriverLoaded now keeps one per loaded libcuda;
# these tests would see that warning again.
OUT_OF_ADAPTERS = "more than 16 drivers open at once"


def loader_answers(cudyn, binary):
    """One round of every call that opens no driver of its own: a dict of the answers."""
    return {
        "driver_version": cudyn.driver_version(),
        "effective_version": cudyn.effective_version(),
        "max_cuda_version": cudyn.max_cuda_version(),
        "driver_path": cudyn.driver_path(),
        "entry_status": {s: cudyn.entry_status(s) for s in SYMBOLS},
        # With a target version, `binary` judges against that version (no driver kept).
        "check_binary_target": cudyn.check_binary(binary, target_version="11.4", gpu="sm_80"),
        "run_check": cudyn.run_check(["help", "binary"]),
    }


def driver_check_answers(cudyn, binary):
    """The checks that open (and keep) a driver."""
    return {
        "report": cudyn.report(),
        "check_binary": cudyn.check_binary(binary),
    }


def packaged_binary(cudyn):
    return os.path.join(os.path.dirname(cudyn.__file__), "bin", "cudyn-check")


def in_threads(fn, rounds):
    """fn() in THREADS threads started together, `rounds` times each: the lists of answers."""
    start = threading.Barrier(THREADS)
    results = [None] * THREADS
    errors = []

    def worker(i):
        try:
            start.wait()
            results[i] = [fn() for _ in range(rounds)]
        except BaseException as e:  # noqa: B902 - reported below
            errors.append("thread %d: %r" % (i, e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def assert_all_equal(results, expected, rounds):
    compared = 0
    for i, mine in enumerate(results):
        assert mine is not None and len(mine) == rounds, i
        for r, got in enumerate(mine):
            for key in expected:
                assert got[key] == expected[key], "thread %d round %d: %s differs" % (i, r, key)
                compared += 1
    assert compared == THREADS * rounds * len(expected)


def test_single_thread_answers_are_the_535_drivers(cudyn):
    binary = packaged_binary(cudyn)
    a = loader_answers(cudyn, binary)
    assert a["driver_version"] == 12020  # 535 is a CUDA 12.2 driver
    assert a["effective_version"] == 12020
    assert a["max_cuda_version"] is None
    assert a["driver_path"] == DRIVER
    assert a["entry_status"]["cuInit"] == "native"
    assert a["entry_status"]["cuMemAdvise_v2"] == "native"
    assert set(a["entry_status"].values()) <= {"native", "adapter", "missing"}
    assert a["check_binary_target"]["command"] == "binary"
    assert a["check_binary_target"]["target"] is not None
    assert a["run_check"][0] == 0 and "binary" in a["run_check"][1]
    assert loader_answers(cudyn, binary) == a
    d = driver_check_answers(cudyn, binary)
    assert d["report"]["command"] == "report" and d["report"]["exit_code"] in (0, 1)
    assert d["check_binary"]["command"] == "binary"


def test_64_threads_agree(cudyn):
    binary = packaged_binary(cudyn)
    expected = loader_answers(cudyn, binary)
    results = in_threads(lambda: loader_answers(cudyn, binary), ROUNDS)
    assert_all_equal(results, expected, ROUNDS)


def test_64_threads_agree_on_checks_that_open_a_driver(cudyn):
    binary = packaged_binary(cudyn)
    expected = driver_check_answers(cudyn, binary)
    results = in_threads(lambda: driver_check_answers(cudyn, binary), 2)
    assert_all_equal(results, expected, 2)
    assert OUT_OF_ADAPTERS not in json.dumps(results)


def test_repeated_reports_keep_their_answer(cudyn):
    # Without threads: 20 reports in a row.
    first = cudyn.report()
    for i in range(20):
        again = cudyn.report()
        assert OUT_OF_ADAPTERS not in json.dumps(again), "report %d" % (i + 1)
        assert again == first, "report %d differs" % (i + 1)


def test_bad_arguments_raise(cudyn):
    with pytest.raises(ValueError):
        cudyn.entry_status("cuNoSuchFunction")
    with pytest.raises(TypeError):
        cudyn.entry_status(42)
    with pytest.raises(TypeError):
        cudyn.run_check(["report", 3])
    with pytest.raises(ValueError):
        cudyn.run_check(["binary", "a\0b"])
    assert issubclass(cudyn.CudynError, RuntimeError)


if __name__ == "__main__":
    pytest_main.main(__file__)
