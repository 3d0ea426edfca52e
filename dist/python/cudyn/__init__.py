"""cudyn for Python: which NVIDIA driver this process gets, and whether a binary runs on it.

Everything here runs in this process, on the same C++ code as the ``cudyn-check`` CLI and the
cudyn loader, linked into the extension module :mod:`cudyn._native` (nothing is spawned, every
call releases the GIL):

* :func:`report`, :func:`runtimes`, :func:`libraries`, :func:`check_binary` return the JSON
  ``cudyn-check ... --json`` prints, as a dict (its ``exit_code`` key included);
* :func:`driver_version`, :func:`effective_version`, :func:`max_cuda_version`,
  :func:`driver_path`, :func:`entry_status` ask the process-wide driver that cudyn's driver-API
  trampolines use (configured from ``CUDYN_DRIVER_PATH``, ``CUDYN_MAX_CUDA_VERSION``, ... at its
  first use).

Exit codes 1 (incompatible) and 3 (no driver) are answers and come back in the dict; exit code 2
(usage error, unreadable input) raises :class:`CudynError` with the CLI's own message.

Like ``cudyn-check``, the first check sets ``CUDYN_LOG=off`` in the process environment unless
``CUDYN_LOG`` is already set (the report says what the loader would log).

The wheel also installs the programs: ``cudyn-check`` and ``cudyn`` (``cudyn run``).
"""

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import CudynError

__all__ = [
    "CudynError",
    "EXIT_OK",
    "EXIT_INCOMPATIBLE",
    "EXIT_USAGE",
    "EXIT_NO_DRIVER",
    "run_check",
    "report",
    "runtimes",
    "libraries",
    "check_binary",
    "driver_version",
    "effective_version",
    "max_cuda_version",
    "driver_path",
    "entry_status",
]

EXIT_OK = 0
EXIT_INCOMPATIBLE = 1  #: an answer: the binary (or driver) does not fit
EXIT_USAGE = 2  #: raised as CudynError by the dict-returning functions
EXIT_NO_DRIVER = 3  #: an answer: no usable driver (and no target version)

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def run_check(argv: Sequence[PathLike]) -> Tuple[int, str, str]:
    """Runs ``cudyn-check`` in-process: ``run_check(["report", "--json"])``.

    Args:
      argv: the arguments, without the program name (str, bytes or path-like).

    Returns:
      ``(exit_code, stdout, stderr)`` exactly as the CLI would print them.
    """
    return _native.run_check([os.fspath(a) for a in argv])


def _json(argv: List[str]) -> Dict[str, Any]:
    # --json right after the subcommand: before any `--` that ends the options.
    code, out, err = run_check(argv[:1] + ["--json"] + argv[1:])
    if code == EXIT_USAGE and not out.strip():
        raise CudynError(err.rstrip("\n") or "cudyn-check %s: exit code 2" % " ".join(argv))
    if code == EXIT_USAGE:
        # `binary` prints its JSON (files[].error_kind) and exits 2 for an unreadable file: an
        # incomplete answer, raised with the CLI's own message.
        raise CudynError(err.rstrip("\n") or _first_error(out) or "cudyn-check: exit code 2")
    try:
        return json.loads(out)
    except ValueError as e:
        raise CudynError("cudyn-check %s printed no JSON (exit code %d): %s%s"
                         % (" ".join(argv), code, e, ("; " + err.strip()) if err.strip() else ""))


def _first_error(out: str) -> Optional[str]:
    try:
        for f in json.loads(out).get("files", []):
            if f.get("error"):
                return str(f["error"])
    except (ValueError, AttributeError):
        pass
    return None


def _driver_options(driver: Optional[PathLike], max_cuda_version: Union[str, int, None]) -> List[str]:
    argv: List[str] = []
    if driver is not None:
        argv += ["--driver", os.fsdecode(os.fspath(driver))]
    if max_cuda_version is not None:
        argv += ["--max-cuda-version", str(max_cuda_version)]
    return argv


def report(driver: Optional[PathLike] = None,
           max_cuda_version: Union[str, int, None] = None) -> Dict[str, Any]:
    """``cudyn-check report --json``: the driver cudyn finds here and whether CUDA runs on it.

    Args:
      driver: a libcuda.so.1 to use instead of discovery (``--driver``).
      max_cuda_version: behave as a driver of at most this CUDA version (``--max-cuda-version``,
        ``11040`` or ``"11.4"``).

    Returns:
      The report as a dict; ``exit_code`` 0 (ok), 1 (cuInit failed with a driver-compatibility
      error) or 3 (no driver).

    Raises:
      CudynError: a usage error (exit code 2), with the CLI's message.
    """
    return _json(["report"] + _driver_options(driver, max_cuda_version))


def runtimes(driver: Optional[PathLike] = None,
             max_cuda_version: Union[str, int, None] = None) -> Dict[str, Any]:
    """``cudyn-check runtimes --json``: the CUDA runtimes on this machine and the one cudyn takes.

    ``exit_code`` 1 means no runtime this driver runs (an answer, not an error).

    Raises:
      CudynError: a usage error (exit code 2), with the CLI's message.
    """
    return _json(["runtimes"] + _driver_options(driver, max_cuda_version))


def libraries(driver: Optional[PathLike] = None,
              max_cuda_version: Union[str, int, None] = None) -> Dict[str, Any]:
    """``cudyn-check libraries --json``: for each CUDA library cudyn serves, the release it picks.

    Raises:
      CudynError: a usage error (exit code 2), with the CLI's message.
    """
    return _json(["libraries"] + _driver_options(driver, max_cuda_version))


def check_binary(path: PathLike,
                 target_version: Union[str, int, None] = None,
                 gpu: Optional[str] = None) -> Dict[str, Any]:
    """``cudyn-check binary PATH --json``: does this binary (library, directory, wheel) run?

    Args:
      path: the file to judge.
      target_version: judge against a driver of this CUDA version (``--target-version``,
        ``12020`` or ``"12.2"``) instead of the driver found here.
      gpu: the GPUs to judge kernels for (``--gpu``: ``"sm_90"``, ``"sm_80,sm_90"``, ``"none"``).

    Returns:
      Exactly the structure the CLI prints; its ``exit_code`` is 0 (runs), 1 (incompatible) or 3
      (no driver and no target version).

    Raises:
      CudynError: exit code 2 (the file is unreadable, not ELF, malformed; a bad option), with
        the CLI's stderr message.
    """
    argv = ["binary"]
    if target_version is not None:
        argv += ["--target-version", str(target_version)]
    if gpu is not None:
        argv += ["--gpu", gpu]
    argv += ["--", os.fsdecode(os.fspath(path))]
    return _json(argv)


def driver_version() -> int:
    """``cuDriverGetVersion`` through cudyn's embedded trampolines (e.g. 12020).

    Raises:
      CudynError: when it fails (no driver: CUresult 303), with the loader's last error.
    """
    return _native.driver_version()


def effective_version() -> int:
    """The process-wide driver's CUDA version after ``CUDYN_MAX_CUDA_VERSION`` (0: no driver)."""
    return _native.effective_version()


def max_cuda_version() -> Optional[int]:
    """The clamp ``CUDYN_MAX_CUDA_VERSION`` as the process-wide driver read it, or None."""
    return _native.max_cuda_version()


def driver_path() -> str:
    """Path of the libcuda the process-wide driver opened ("" when none)."""
    return _native.driver_path()


def entry_status(symbol: str) -> str:
    """How the process-wide driver serves a driver-API symbol (binding it if needed).

    Args:
      symbol: an exported ABI variant, e.g. ``"cuMemAdvise_v2"``.

    Returns:
      ``"native"``, ``"adapter"`` or ``"missing"``.

    Raises:
      ValueError: cudyn knows no such symbol.
    """
    return _native.entry_status(symbol)
