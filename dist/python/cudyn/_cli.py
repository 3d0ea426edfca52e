"""Console entry points: ``cudyn-check`` and ``cudyn`` run the packaged binaries.

pip writes a small ``bin/cudyn-check`` / ``bin/cudyn`` script for each; they replace the Python
process with the real program (``os.execv``) under ``cudyn/bin/``, so exit codes, signals, stdin and
the terminal are the program's own. ``cudyn run`` finds its drop-ins beside its binary
(``cudyn/lib/cudyn``), as in the install tree.
"""

import os
import sys
from typing import NoReturn

_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def _exec(name: str) -> NoReturn:
    path = os.path.join(_BIN, name)
    try:
        os.execv(path, [name] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write("%s: cannot run %s: %s\n" % (name, path, e.strerror or e))
        sys.exit(127)


def cudyn_check() -> NoReturn:
    """``cudyn-check``: the compat-check CLI (tools/README.md)."""
    _exec("cudyn-check")


def cudyn() -> NoReturn:
    """``cudyn``: ``cudyn run`` and friends (dist/README.md)."""
    _exec("cudyn")
