#!/usr/bin/env python3
"""Compares the runs of tests/gpu/run_gpu.sh and writes OUT/summary.md and OUT/summary.json.

    summarize.py OUT --examples NAME... --modes native 12020 11040 10010

Python standard library only. Exit 0 when every check passed, 1 otherwise.

Per example and mode (OUT/runs/NAME__MODE.{log,rc}):
  * exit 0 and "result: PASS";
  * the driver line shows the clamp (CUDA 11.4 (11040) under CUDYN_MAX_CUDA_VERSION=11040);
  * exactly the expected parts ran; the others (only under a clamp, only where the driver version
    lacks the API) say "not available at this driver version";
  * every checksum equals the native run's; shared workloads agree across examples (shim_client's
    vector_add = vector_add's = context's ctx_vector_add; shim_client's managed_memory =
    managed_memory's).
cudyn-check (OUT/check/): report exit 0 with cuInit 0 and a device natively; effective version =
clamp; check_apis.py passed for every apis answer; `binary` calls every example portable.
"""
import argparse
import json
import os
import re
import sys

PARTS = {
    "vector_add": ["vector_add"],
    "managed_memory": ["managed_memory"],
    "graph": ["capture_dependencies", "capture", "graph_add_node", "graph_edit",
              "graph_instantiate_with_flags", "graph_launch"],
    "context": ["ctx_create", "ctx_vector_add", "ctx_explicit"],
    "events": ["event_timing", "event_fill"],
    "vmm": ["vmm"],
    "shim_client": ["vector_add", "managed_memory"],
}
CHECKSUMS = {
    "vector_add": ["vector_add"],
    "managed_memory": ["managed_memory"],
    "graph": ["graph_launch"],
    "context": ["ctx_vector_add"],
    "events": ["event_fill"],
    "vmm": ["vmm"],
    "shim_client": ["vector_add", "managed_memory"],
}
# Parts a driver of that CUDA version cannot run (the API is newer): the example must say
# "not available at this driver version" for exactly these.
UNAVAILABLE = {
    "12020": {},
    "11040": {"graph": {"graph_add_node"}},                      # cuGraphAddNode: 12.2
    "10010": {"graph": {"capture_dependencies",                  # cuStreamGetCaptureInfo_v2: 11.3
                        "graph_add_node",                        # cuGraphAddNode: 12.2
                        "graph_instantiate_with_flags"},         # cuGraphInstantiateWithFlags: 11.4
              "vmm": {"vmm"}},                                   # cuMemCreate & co: 10.2
}
# Checksums of the same workload in different programs.
SAME_WORKLOAD = [
    [("vector_add", "vector_add"), ("shim_client", "vector_add"), ("context", "ctx_vector_add")],
    [("managed_memory", "managed_memory"), ("shim_client", "managed_memory")],
]
# Rows of the "adapters in use" table.
SHOW_APIS = ["cuMemAdvise_v2", "cuMemPrefetchAsync_v2", "cuCtxCreate_v4", "cuCtxSynchronize_v2",
             "cuCtxGetDevice_v2", "cuStreamGetCaptureInfo_v3", "cuGraphAddNode_v2",
             "cuGraphAddDependencies_v2", "cuGraphInstantiateWithFlags", "cuEventElapsedTime_v2",
             "cuMemCreate", "cuGetProcAddress_v2"]


def read(path, default=None):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def read_json(path):
    text = read(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def parse_run(text):
    run = {"result": None, "driver_version": None, "ran": [], "unavailable": {}, "checksums": {},
           "fail_lines": []}
    for line in (text or "").splitlines():
        m = re.match(r"^result: (PASS|FAIL|NO DEVICE|NO DRIVER)", line)
        if m and run["result"] is None:
            run["result"] = m.group(1)
        m = re.match(r"^driver: CUDA \S+ \((\d+)\)", line)
        if m:
            run["driver_version"] = int(m.group(1))
        m = re.match(r"^part (\S+): ran$", line)
        if m:
            run["ran"].append(m.group(1))
        m = re.match(r"^part (\S+): not available at this driver version(.*)$", line)
        if m:
            run["unavailable"][m.group(1)] = m.group(2).strip(" ()")
        m = re.match(r"^checksum (\S+) ([0-9a-f]{16})$", line)
        if m:
            run["checksums"][m.group(1)] = m.group(2)
        if line.startswith("FAIL:"):
            run["fail_lines"].append(line)
    return run


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--examples", nargs="+", required=True)
    parser.add_argument("--modes", nargs="+", required=True)
    args = parser.parse_args(argv[1:])
    out = args.out
    failures = []
    runs = {}

    # --- examples ----------------------------------------------------------------------------------
    for name in args.examples:
        for mode in args.modes:
            base = os.path.join(out, "runs", "%s__%s" % (name, mode))
            rc_text = read(base + ".rc", "").strip()
            run = parse_run(read(base + ".log", ""))
            run["exit"] = int(rc_text) if rc_text.lstrip("-").isdigit() else None
            run["ms"] = (read(base + ".ms", "") or "").strip()
            runs[(name, mode)] = run
            where = "%s @ %s" % (name, mode)
            if run["exit"] != 0 or run["result"] != "PASS":
                failures.append("%s: exit %s, result %s %s" % (where, run["exit"], run["result"],
                                                               "; ".join(run["fail_lines"])))
            if mode != "native" and run["driver_version"] != int(mode):
                failures.append("%s: driver line reports %s, expected the clamp %s" % (where, run["driver_version"], mode))
            expected_unavailable = set() if mode == "native" else UNAVAILABLE.get(mode, {}).get(name, set())
            expected_ran = [p for p in PARTS.get(name, []) if p not in expected_unavailable]
            if sorted(run["ran"]) != sorted(expected_ran):
                failures.append("%s: parts ran %s, expected %s" % (where, run["ran"], expected_ran))
            if set(run["unavailable"]) != expected_unavailable:
                failures.append("%s: parts not available %s, expected %s" % (
                    where, sorted(run["unavailable"]), sorted(expected_unavailable)))
            expected_sums = [p for p in CHECKSUMS.get(name, []) if p not in expected_unavailable]
            if sorted(run["checksums"]) != sorted(expected_sums):
                failures.append("%s: checksums for %s, expected %s" % (where, sorted(run["checksums"]), expected_sums))

    native_versions = {r["driver_version"] for (n, m), r in runs.items() if m == "native"}
    checksum_table = {}
    for name in args.examples:
        native = runs.get((name, "native"), {}).get("checksums", {})
        for part in CHECKSUMS.get(name, []):
            values = {mode: runs[(name, mode)]["checksums"].get(part) for mode in args.modes}
            checksum_table["%s/%s" % (name, part)] = values
            present = {v for v in values.values() if v is not None}
            if len(present) > 1:
                failures.append("%s/%s: checksums differ between runs: %s" % (name, part, values))
            if native.get(part) is None:
                failures.append("%s/%s: no native checksum" % (name, part))
    for group in SAME_WORKLOAD:
        values = {"%s/%s" % (n, p): runs.get((n, "native"), {}).get("checksums", {}).get(p)
                  for n, p in group if n in args.examples}
        if len({v for v in values.values()}) > 1:
            failures.append("same workload, different checksums: %s" % values)

    # --- cudyn-check ---------------------------------------------------------------------------------
    check_rows = []
    apis_docs = {}
    for mode in args.modes:
        report = read_json(os.path.join(out, "check", "report__%s.json" % mode)) or {}
        apis = read_json(os.path.join(out, "check", "apis__%s.json" % mode)) or {}
        apis_docs[mode] = apis
        apis_check_rc = read(os.path.join(out, "check", "apis__%s.check.rc" % mode), "").strip()
        driver = report.get("driver") or {}
        cuinit = report.get("cuinit") or {}
        entries = report.get("entries") or {}
        row = {"mode": mode, "report_exit": report.get("exit_code"), "cuinit": cuinit.get("result"),
               "cuinit_name": cuinit.get("name"), "cuda_version": driver.get("cuda_version"),
               "effective_version": driver.get("effective_version"), "strategy": driver.get("strategy"),
               "native": entries.get("native"), "adapter": entries.get("adapter"),
               "missing": entries.get("missing"), "apis_check": "OK" if apis_check_rc == "0" else "FAILED",
               "devices": [d.get("name") for d in report.get("devices") or []]}
        check_rows.append(row)
        if report.get("exit_code") != 0 or cuinit.get("result") != 0 or not row["devices"]:
            failures.append("cudyn-check report @ %s: exit %s, cuInit %s, devices %s" % (
                mode, report.get("exit_code"), cuinit.get("result"), row["devices"]))
        if mode != "native" and driver.get("effective_version") != int(mode):
            failures.append("cudyn-check report @ %s: effective version %s" % (mode, driver.get("effective_version")))
        if apis_check_rc != "0":
            failures.append("check_apis.py @ %s failed (check/apis__%s.check.txt)" % (mode, mode))
    binary = read_json(os.path.join(out, "check", "binary.json")) or {}
    verdicts = {os.path.basename(f.get("path", "?")): f.get("verdict") for f in binary.get("files") or []}
    if not verdicts or any(v != "portable" for v in verdicts.values()):
        failures.append("cudyn-check binary: verdicts %s, expected portable" % verdicts)
    if len(native_versions) != 1 or (check_rows and check_rows[0]["mode"] == "native"
                                      and native_versions != {check_rows[0]["cuda_version"]}):
        failures.append("native runs report driver versions %s, cudyn-check %s" % (
            sorted(map(str, native_versions)), check_rows[0]["cuda_version"] if check_rows else None))

    apis_table = {}
    for symbol in SHOW_APIS:
        apis_table[symbol] = {}
        for mode in args.modes:
            rows = {r.get("symbol"): r for r in (apis_docs.get(mode) or {}).get("apis") or []}
            r = rows.get(symbol)
            if r is None:
                cell = "?"
            elif r.get("status") == "native":
                cell = "native"
            elif r.get("status") == "adapter":
                cell = "adapter -> %s" % r.get("driver_symbol")
            else:
                cell = "missing"
            apis_table[symbol][mode] = cell

    # --- write ----------------------------------------------------------------------------------------
    env = read(os.path.join(out, "environment.txt"), "")
    native_report = read_json(os.path.join(out, "check", "report__native.json")) or {}
    ndrv = native_report.get("driver") or {}
    devices = native_report.get("devices") or []
    md = ["# cudyn on a GPU: results", ""]
    md.append("- command: `bash tests/gpu/run_gpu.sh CARRY_DIR OUT_DIR` (binaries from `tests/gpu/stage.sh`)")
    for line in env.splitlines():
        if line.startswith(("date_utc:", "host:", "nvidia_smi:", "kernel_module:")):
            md.append("- " + line)
    for d in devices:
        md.append("- device %s: %s, compute capability %s, %s bytes" % (
            d.get("ordinal"), d.get("name"), d.get("compute_capability"), d.get("total_memory_bytes")))
    md.append("- driver: %s (real file %s, driver %s), CUDA %s (%s), found by %s, strategy %s" % (
        ndrv.get("path"), ndrv.get("realpath"), ndrv.get("library_version"), ndrv.get("cuda_version_text"),
        ndrv.get("cuda_version"), ndrv.get("found_by"), ndrv.get("strategy")))
    md.append("- outcome: **%s** (%d failure%s)" % ("PASS" if not failures else "FAIL", len(failures),
                                                    "" if len(failures) == 1 else "s"))
    md += ["", "## Examples (native and with CUDYN_MAX_CUDA_VERSION)", ""]
    md.append("| example | " + " | ".join(args.modes) + " |")
    md.append("|---|" + "---|" * len(args.modes))
    for name in args.examples:
        cells = []
        for mode in args.modes:
            r = runs[(name, mode)]
            total = len(PARTS.get(name, []))
            cell = "%s (exit %s) %d/%d parts" % (r["result"] or "?", r["exit"], len(r["ran"]), total)
            if r["unavailable"]:
                cell += "; n/a at this driver version: " + ", ".join(sorted(r["unavailable"]))
            cells.append(cell)
        md.append("| %s | %s |" % (name, " | ".join(cells)))
    md += ["", "## Checksums (identical in every run where the part ran)", ""]
    md.append("| example/part | " + " | ".join(args.modes) + " |")
    md.append("|---|" + "---|" * len(args.modes))
    for key, values in checksum_table.items():
        md.append("| %s | %s |" % (key, " | ".join(values[m] or "n/a" for m in args.modes)))
    md += ["", "## cudyn-check", ""]
    md.append("| mode | report exit | cuInit | CUDA | effective | strategy | native | adapter | missing | check_apis.py |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in check_rows:
        md.append("| %s | %s | %s %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["mode"], r["report_exit"], r["cuinit"], r["cuinit_name"], r["cuda_version"],
            r["effective_version"], r["strategy"], r["native"], r["adapter"], r["missing"], r["apis_check"]))
    md.append("")
    md.append("`cudyn-check binary` verdicts: " + ", ".join("%s %s" % kv for kv in sorted(verdicts.items())))
    for mode in args.modes:
        txt = read(os.path.join(out, "check", "apis__%s.check.txt" % mode), "")
        for line in txt.splitlines():
            if "driver exports" in line and "table symbols" in line and "do not export" not in line:
                md.append("")
                md.append("%s: %s" % (mode, line.strip().replace("note: ", "")))
    md += ["", "## The examples' driver entries at each version (`cudyn-check apis --json`)", ""]
    md.append("| symbol | " + " | ".join(args.modes) + " |")
    md.append("|---|" + "---|" * len(args.modes))
    for symbol, cells in apis_table.items():
        md.append("| %s | %s |" % (symbol, " | ".join(cells[m] for m in args.modes)))
    md += ["", "## Failures", ""]
    md += ["- " + f for f in failures] if failures else ["none"]
    md.append("")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md))
    summary = {"ok": not failures, "failures": failures,
               "runs": {"%s@%s" % k: v for k, v in runs.items()},
               "checksums": checksum_table, "cudyn_check": check_rows, "binary_verdicts": verdicts,
               "apis": apis_table}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
    print("\n".join(md))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
