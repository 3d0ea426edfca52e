#!/usr/bin/env python3
"""cudyn-check's layers point one way: a file of tools/ includes only files of its own layer or below.

    readers  -> analysis -> verdict -> printers -> commands -> dispatch

(tools/BUILD says what each layer holds.) Every source file of tools/ (tests and test helpers aside)
has a layer, by the longest prefix of its path in LAYERS; a file with none is an error too, so a new
file is placed on purpose. An include of a tools/ file of a higher layer is reported with both
layers.

Usage: layering_check.py ROOT     (exit 1 when an arrow points up or a file has no layer)
"""

import os
import re
import sys

# (path prefix, layer); the longest matching prefix wins.
LAYERS = [
    ("tools/elf/", "readers"),
    ("tools/fatbin/", "readers"),
    ("tools/zip/", "readers"),
    ("tools/deps/", "readers"),
    ("tools/util/", "readers"),
    ("tools/version/", "readers"),
    ("tools/args.h", "readers"),  # the parsed command line: plain data
    ("tools/layers/", "analysis"),
    ("tools/binary_analysis.", "analysis"),
    ("tools/binary_nvml.", "analysis"),
    ("tools/check_common.", "analysis"),
    ("tools/check_inputs.", "analysis"),
    ("tools/check_nvml.", "analysis"),
    ("tools/layers/verdict.", "verdict"),
    ("tools/binary_verdict.", "verdict"),
    ("tools/check_binary_print.", "printers"),
    ("tools/check_nfd.", "printers"),
    ("tools/commands.h", "commands"),
    ("tools/check_apis.cc", "commands"),
    ("tools/check_binary.cc", "commands"),
    ("tools/check_drivers.cc", "commands"),
    ("tools/check_report.cc", "commands"),
    ("tools/check_runtimes.cc", "commands"),
    ("tools/check_toolkit.cc", "commands"),
    ("tools/subcommands.", "dispatch"),
    ("tools/cli_args.", "dispatch"),
    ("tools/check.", "dispatch"),
    ("tools/cudyn_check.cc", "dispatch"),
    ("tools/run/", "dispatch"),  # `cudyn run`, a program of its own
]
ORDER = ["readers", "analysis", "verdict", "printers", "commands", "dispatch"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(tools/[^"]+)"', re.M)


def layer_of(path):
    best = None
    for prefix, layer in LAYERS:
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, layer)
    return best[1] if best else None


def is_test_code(path):
    name = os.path.basename(path)
    return (name.endswith(("_test.cc", "_test_main.cc")) or "/testing/" in path or
            "/testdata/" in path)


def sources(root):
    for dirpath, _, names in os.walk(os.path.join(root, "tools")):
        for name in names:
            if name.endswith((".cc", ".h")):
                path = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if not is_test_code(path):
                    yield path


def problems(root):
    out = []
    for path in sorted(sources(root)):
        layer = layer_of(path)
        if layer is None:
            out.append("%s: has no layer (add it to LAYERS in tools/layering_check.py)" % path)
            continue
        text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            target = m.group(1)
            target_layer = layer_of(target)
            if target_layer is None or is_test_code(target):
                continue
            if ORDER.index(target_layer) > ORDER.index(layer):
                line = text.count("\n", 0, m.start()) + 1
                out.append("%s:%d: %s (%s) includes %s (%s): an arrow pointing up" %
                           (path, line, path, layer, target, target_layer))
    return out


def main(argv):
    found = problems(argv[1])
    for p in found:
        print(p)
    print("layering: %d problem(s)" % len(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
