#!/usr/bin/env python3
"""Fails when a file outside the homes of the version lists spells one of those lists itself.

The homes (loader/DESIGN.md, "One fact, one file"; third_party/homes.py reads them for Python):
third_party/nvidia_drivers.bzl (real drivers, NVML branches and headers), third_party/cuda_runtimes.bzl
(real runtimes and libraries, the toolkit's release), tests/fake_driver/versions.bzl and
tests/fake_runtime/versions.bzl (the fakes), and the facts under version_tables/inputs/. Everything else
reads them (Starlark load, third_party/homes.py, the generated tests/util/homes.h, command-line
arguments), so adding a driver or a release reaches every generator, fetcher and test.

What counts as a copy: one bracketed list (`{...}`, `[...]`, `(...)`, across lines) or one quoted
string of words whose versions of one kind - driver majors or CUDA versions (`"11.8"`, `11080`) -,
counted directly or as the first item of each of its sub-lists (`{{418, ...}, {450, ...}}`), hold a
whole home list (of three or more). Some versions picked as cases are not a copy; all of them are. Comments and Python docstrings do not count.

Usage: version_lists_check.py ROOT [FILE...]   (no FILE: every source file under ROOT)
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "third_party"))
import homes  # noqa: E402

HOMES = {
    "third_party/nvidia_drivers.bzl",
    "third_party/cuda_runtimes.bzl",
    "tests/fake_driver/versions.bzl",
    "tests/fake_runtime/versions.bzl",
}
# The test that plants copies on purpose, to prove this check fails on them.
PLANTS = {"tests/version_lists/version_lists_test.py"}
SOURCE_SUFFIXES = (".cc", ".h", ".c", ".cu", ".py", ".sh", ".bzl", ".BUILD", ".lds")
SOURCE_NAMES = ("BUILD", "WORKSPACE", "run", "BUILD.bazel")
MIN_ITEMS = 3

CUDA_DOTTED = re.compile(r"^(?:9|1[0-3])\.[0-9]$")
CUDA_NUMBER = re.compile(r"^(?:9|1[0-3])0[0-9]0$")
TOKEN = re.compile(r"[A-Za-z_0-9.]+")


def dotted(cuda_version):
    return "%d.%d" % (int(cuda_version) // 1000, int(cuda_version) % 1000 // 10)


def home_lists(root):
    """(kind, home name, set of versions) for every list a home holds."""
    d, r = homes.drivers(root), homes.runtimes(root)
    fr, fd = homes.fake_runtimes(root), homes.fake_drivers(root)
    exports = os.path.join(root, "version_tables/inputs/exports")
    export_majors = {n[:-4] for n in os.listdir(exports) if re.match(r"^[0-9]{3}\.txt$", n)}
    lists = [
        ("driver major", "REAL_DRIVERS (third_party/nvidia_drivers.bzl)", set(d["REAL_DRIVER_MAJORS"])),
        ("driver major", "REAL_NVML (third_party/nvidia_drivers.bzl)", set(d["REAL_NVML_BRANCHES"])),
        ("driver major", "the driver export facts (version_tables/inputs/exports)", export_majors),
        ("CUDA version", "REAL_DRIVER_CUDA_VERSIONS (third_party/nvidia_drivers.bzl)",
         {dotted(v) for v in d["REAL_DRIVER_CUDA_VERSIONS"].values()}),
        ("CUDA version", "REAL_NVML_CUDA_VERSIONS (third_party/nvidia_drivers.bzl)",
         {dotted(v) for v in d["REAL_NVML_CUDA_VERSIONS"].values()}),
        ("CUDA version", "NVML_HEADERS (third_party/nvidia_drivers.bzl)", set(d["NVML_HEADERS"])),
        ("CUDA version", "CUDA_RUNTIME_VERSIONS (third_party/cuda_runtimes.bzl)", set(r["CUDA_RUNTIME_VERSIONS"])),
        ("CUDA version", "CUDA_RUNTIME_FACT_VERSIONS (third_party/cuda_runtimes.bzl)",
         set(r["CUDA_RUNTIME_FACT_VERSIONS"])),
        ("CUDA version", "FAKE_RUNTIME_VERSIONS (tests/fake_runtime/versions.bzl)", set(fr["FAKE_RUNTIME_VERSIONS"])),
        ("CUDA version", "FAKE_CUDA_VERSIONS (tests/fake_driver/versions.bzl)",
         {dotted(v) for v in fd["FAKE_CUDA_VERSIONS"]}),
    ]
    for lib in ["nvrtc", "cublas"] + sorted(r["CUDA_LIBS"]):
        lists.append(("CUDA version", "the %s releases (third_party/cuda_runtimes.bzl)" % lib,
                      set(homes.library_fact_versions(lib, root))))
    return [(k, n, v) for k, n, v in lists if len(v) >= MIN_ITEMS]


def driver_majors(lists):
    return set().union(*(v for k, _, v in lists if k == "driver major"))


def kind_of(token, majors):
    token = token.strip("\"'")
    if token in majors:
        return ("driver major", token)
    if CUDA_DOTTED.match(token):
        return ("CUDA version", token)
    if CUDA_NUMBER.match(token):
        return ("CUDA version", dotted(token))
    return None


def strip_comments(text, path):
    """Blanks comments and Python docstrings (keeps line numbers and other strings' contents)."""
    if path.endswith(".py"):
        text = re.sub(r'(?s)("""|\'\'\').*?\1', lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    hash_comments = path.endswith((".py", ".sh", ".bzl", ".BUILD")) or os.path.basename(path) in SOURCE_NAMES
    out = []
    i, n = 0, len(text)
    quote = None
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        # In C and C++ a ' opens only a character literal ('x', '\n'); elsewhere any string.
        char_literal = text.startswith("'", i + 2) or (text.startswith("\\", i + 1) and text.startswith("'", i + 3))
        if c == '"' or (c == "'" and (hash_comments or char_literal)):
            quote = c
            out.append(c)
            i += 1
            continue
        if hash_comments and c == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if not hash_comments and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if not hash_comments and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


FACTS_MARK = re.compile(r"version facts: checked against (\w+)")


def declared_facts(raw_lines, code, line):
    """Whether the list opening at line (1-based) is a declared facts table whose home the code uses."""
    for text in raw_lines[max(0, line - 2):line]:
        m = FACTS_MARK.search(text)
        if m and re.search(r"\b%s\b" % re.escape(m.group(1)), code):
            return True
    return False


def findings(path, text, lists):
    """(line, home, versions) for each copy of a home's list in text."""
    raw_lines = text.split("\n")
    text = strip_comments(text, path)
    majors = driver_majors(lists)
    found = []

    def judge(line, items, marked=False):
        by_kind = {}
        for item in items:
            k = kind_of(item, majors)
            if k:
                by_kind.setdefault(k[0], set()).add(k[1])
        # The largest home list it holds whole names what it copied.
        copied = [len(versions) for kind, _, versions in lists if versions <= by_kind.get(kind, set())]
        if copied and not marked and not declared_facts(raw_lines, text, line):
            size = max(copied)
            largest = [v for kind, _, v in lists if len(v) == size and v <= by_kind.get(kind, set())][0]
            names = sorted(h for _, h, v in lists if v == largest)
            found.append((line, " = ".join(names), sorted(largest)))

    # Quoted strings of words ("native 12020 11040 10010").
    for m in re.finditer(r'"([^"\n]*)"', text):
        words = m.group(1).split()
        if len(words) >= MIN_ITEMS:
            judge(text.count("\n", 0, m.start()) + 1, words)

    # Bracketed lists: direct items plus the first item of each sub-list. A list inside a declared
    # facts table is part of it.
    # [opening line, direct tokens, first token of each sub-list, inside a facts table, a call's parens]
    stack = []
    line = 1
    i, n = 0, len(text)
    pairs = {"(": ")", "[": "]", "{": "}"}
    closers = set(pairs.values())
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        if c in pairs:
            marked = bool(stack and stack[-1][3]) or declared_facts(raw_lines, text, line)
            before = text[:i].rstrip()[-1:]
            call = c == "(" and (before.isalnum() or before == "_")  # f("13.0") is no sub-list
            stack.append([line, [], [], marked, call])
            i += 1
            continue
        if c in closers and stack:
            start, direct, firsts, marked, call = stack.pop()
            judge(start, direct + firsts, marked)
            if stack and not call:
                stack[-1][2].append(direct[0] if direct else "")
            i += 1
            continue
        m = TOKEN.match(text, i) if (c.isalnum() or c in "_.") else None
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.")):
            if stack:
                stack[-1][1].append(m.group(0))  # a quoted version ("11.8") is one item too
            i = m.end()
            continue
        i += 1
    return found


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "bazel-")) and
                       not (rel_dir == "version_tables" and d == "inputs") and d != "__pycache__"]
        for name in filenames:
            if name.endswith(SOURCE_SUFFIXES) or name in SOURCE_NAMES:
                rel = os.path.normpath(os.path.join(rel_dir, name))
                if rel not in HOMES and rel not in PLANTS:
                    yield rel


def main(argv):
    root = argv[1]
    files = argv[2:] or sorted(source_files(root))
    lists = home_lists(root)
    bad = 0
    for rel in files:
        path = os.path.join(root, rel)
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for line, home, values in findings(rel, text, lists):
            print("%s:%d: spells a home's list itself (%s), read it from its home: %s" %
                  (rel, line, ", ".join(values), home))
            bad += 1
    print("%d file(s) checked, %d copied version list(s)" % (len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
