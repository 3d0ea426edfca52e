#!/usr/bin/env python3
"""Small offline replacement for Bazel's CoverageOutputGenerator (written for cudyn).

Bazel 4.2.3 uses two tools from @remote_coverage_tools:

  lcov_merger (run inside each test action by tools/test/collect_coverage.sh):
      --coverage_dir=DIR --output_file=OUT [--filter_sources=REGEX]... [--source_file_manifest=FILE]
      [--sources_to_replace_file=FILE]
    Reads every coverage file found under DIR:
      *.dat / *.info          lcov tracefiles (e.g. from llvm-cov export, or other mergers)
      *.gcov.json.gz / .json  gcc >= 9 JSON intermediate format (gcov -i)
      *.gcov                  gcc < 9 text intermediate format (gcov -i)
    and writes a single lcov tracefile OUT.

  coverage_report_generator (run once by `bazel coverage --combined_report=lcov`):
      --reports_file=FILE --output_file=OUT [--filter_sources=REGEX]...
    FILE lists one lcov tracefile per line; they are merged into OUT.

Only the Python 3 standard library is used.  Unknown flags are reported on stderr and ignored.
"""

import gzip
import json
import os
import re
import sys


class FileCov:
    """Coverage for one source file."""

    def __init__(self):
        self.lines = {}  # line -> count
        self.functions = {}  # name -> [first line, count]
        self.branches = {}  # (line, block, branch) -> count or None ("-": never evaluated)

    def add_line(self, line, count):
        self.lines[line] = self.lines.get(line, 0) + count

    def add_function(self, name, line=None, count=None):
        entry = self.functions.setdefault(name, [line, 0])
        if entry[0] is None and line is not None:
            entry[0] = line
        if count:
            entry[1] += count

    def add_branch(self, key, count):
        old = self.branches.get(key)
        if count is None:
            self.branches.setdefault(key, None)
        else:
            self.branches[key] = (old or 0) + count


class Report:
    def __init__(self):
        self.files = {}

    def get(self, path):
        path = normalize(path)
        if path not in self.files:
            self.files[path] = FileCov()
        return self.files[path]

    # --- readers -------------------------------------------------------------------------------------------
    def read_lcov(self, text):
        cur = None
        for raw in text.splitlines():
            line = raw.strip()
            if not line:
                continue
            key, _, value = line.partition(":")
            if key == "SF":
                cur = self.get(value)
            elif cur is None:
                continue
            elif key == "end_of_record":
                cur = None
            elif key == "DA":
                parts = value.split(",")
                cur.add_line(int(parts[0]), int(float(parts[1])))
            elif key == "FN":
                lineno, name = value.split(",", 1)
                cur.add_function(name, line=int(lineno))
            elif key == "FNDA":
                count, name = value.split(",", 1)
                cur.add_function(name, count=int(float(count)))
            elif key == "BRDA":
                lineno, block, branch, taken = value.split(",", 3)
                cur.add_branch(
                    (int(lineno), block, branch),
                    None if taken == "-" else int(float(taken)),
                )
            # FNF/FNH/LF/LH/BRF/BRH/TN are recomputed on output.

    def read_gcov_json(self, data):
        doc = json.loads(data)
        cwd = doc.get("current_working_directory", "")
        for f in doc.get("files", []):
            path = f["file"]
            if cwd and path.startswith(cwd.rstrip("/") + "/"):
                path = path[len(cwd.rstrip("/")) + 1:]
            cov = self.get(path)
            for fn in f.get("functions", []):
                name = fn.get("name") or fn.get("demangled_name")
                cov.add_function(name, line=fn.get("start_line"), count=fn.get("execution_count", 0))
            for ln in f.get("lines", []):
                lineno = ln["line_number"]
                cov.add_line(lineno, ln.get("count", 0))
                for i, br in enumerate(ln.get("branches", [])):
                    cov.add_branch((lineno, "0", str(i)), br.get("count", 0))

    def read_gcov_text(self, text):
        cur = None
        for raw in text.splitlines():
            key, _, value = raw.strip().partition(":")
            if key == "file":
                cur = self.get(value)
            elif cur is None:
                continue
            elif key == "function":
                parts = value.split(",")
                # gcc 8: start,end,count,name   gcc < 8: start,count,name
                name = parts[-1]
                count = int(parts[-2])
                cur.add_function(name, line=int(parts[0]), count=count)
            elif key == "lcount":
                parts = value.split(",")
                cur.add_line(int(parts[0]), int(parts[1]))
            elif key == "branch":
                lineno, kind = value.split(",")[:2]
                taken = {"taken": 1, "nottaken": 0}.get(kind)
                cur.add_branch((int(lineno), "0", str(len(cur.branches))), taken)

    def read_path(self, path):
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        else:
            with open(path, "r", encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        base = path[:-3] if path.endswith(".gz") else path
        if base.endswith(".json"):
            self.read_gcov_json(text)
        elif base.endswith(".gcov"):
            self.read_gcov_text(text)
        else:
            self.read_lcov(text)

    # --- filtering and output -----------------------------------------------------------------------------
    def filter(self, regexes, keep=None):
        for path in list(self.files):
            if any(r.match(path) for r in regexes):
                del self.files[path]
            elif keep is not None and path not in keep:
                del self.files[path]

    def write(self, out):
        with open(out, "w", encoding="utf-8") as fh:
            for path in sorted(self.files):
                cov = self.files[path]
                fh.write("SF:%s\n" % path)
                funcs = sorted(cov.functions.items(), key=lambda kv: (kv[1][0] or 0, kv[0]))
                for name, (line, _) in funcs:
                    fh.write("FN:%d,%s\n" % (line or 0, name))
                for name, (_, count) in funcs:
                    fh.write("FNDA:%d,%s\n" % (count, name))
                fh.write("FNF:%d\n" % len(funcs))
                fh.write("FNH:%d\n" % sum(1 for _, (_, c) in funcs if c > 0))
                for (line, block, branch), count in sorted(cov.branches.items()):
                    fh.write("BRDA:%d,%s,%s,%s\n" % (line, block, branch, "-" if count is None else count))
                fh.write("BRF:%d\n" % len(cov.branches))
                fh.write("BRH:%d\n" % sum(1 for c in cov.branches.values() if c))
                for line, count in sorted(cov.lines.items()):
                    fh.write("DA:%d,%d\n" % (line, count))
                fh.write("LH:%d\n" % sum(1 for c in cov.lines.values() if c > 0))
                fh.write("LF:%d\n" % len(cov.lines))
                fh.write("end_of_record\n")


def normalize(path):
    path = os.path.normpath(path)
    while path.startswith("./"):
        path = path[2:]
    return path


COVERAGE_SUFFIXES = (".dat", ".info", ".gcov", ".gcov.json", ".gcov.json.gz")


def main(argv):
    opts = {"filter_sources": []}
    for arg in argv:
        if not arg.startswith("--") or "=" not in arg:
            sys.stderr.write("lcov_merger: ignoring argument %r\n" % arg)
            continue
        key, value = arg[2:].split("=", 1)
        if key == "filter_sources":
            opts["filter_sources"].append(value)
        elif key in ("coverage_dir", "output_file", "source_file_manifest", "reports_file",
                     "sources_to_replace_file"):
            opts[key] = value
        else:
            sys.stderr.write("lcov_merger: ignoring unsupported flag --%s\n" % key)
    out = opts.get("output_file")
    if not out:
        sys.stderr.write("lcov_merger: --output_file is required\n")
        return 2

    report = Report()
    inputs = []
    if "reports_file" in opts:
        with open(opts["reports_file"], encoding="utf-8") as fh:
            inputs = [l.strip() for l in fh if l.strip()]
    elif "coverage_dir" in opts:
        for root, _, names in os.walk(opts["coverage_dir"]):
            for name in sorted(names):
                if name.endswith(COVERAGE_SUFFIXES):
                    inputs.append(os.path.join(root, name))
    for path in inputs:
        if os.path.abspath(path) == os.path.abspath(out) or not os.path.isfile(path):
            continue
        try:
            report.read_path(path)
        except (ValueError, KeyError, IndexError, OSError) as err:
            sys.stderr.write("lcov_merger: skipping unreadable %s: %s\n" % (path, err))

    keep = None
    manifest = opts.get("source_file_manifest")
    if manifest and os.path.isfile(manifest):
        with open(manifest, encoding="utf-8") as fh:
            listed = {normalize(l.strip()) for l in fh if l.strip()}
        sources = {p for p in listed if not p.endswith((".gcno", ".gcda"))}
        if sources:
            keep = sources
    report.filter([re.compile(r) for r in opts["filter_sources"]], keep)
    report.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
