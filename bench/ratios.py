#!/usr/bin/env python3
"""ratios.py RESULTS_DIR — the ratio table of a bench/run.sh run, as Markdown, from its Google
Benchmark JSON files (<label>.<binary>[.gpu].json, aggregates only) and footprint.json.

Every number is the median over the repetitions of the CPU time per iteration (CPU time, not wall
time: the latter also counts time the process was preempted, which on a shared machine is noise).
Ratios are ratios of those medians, all measured in the same run.
Targets (from the issue): stub call <= 1.05x the direct PLT call; open + bind-all <= 1.15x bare
dlopen + cuDriverGetVersion; lazy open + first call <= 1.02x; tables + slots <= 64 KiB.
Stdlib only.
"""
import glob
import json
import os
import sys

PER_CALL_TARGET = 1.05
BIND_ALL_TARGET = 1.15
LAZY_TARGET = 1.02
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(results_dir):
    """{label: {binary(+'.gpu'): {"medians": {name: ns}, "counters": {name: {..}}, "context": {}}}}"""
    runs = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*.json"))):
        base = os.path.basename(path)[:-len(".json")]
        if base == "footprint" or "." not in base:
            continue
        label, binary = base.split(".", 1)
        with open(path) as f:
            data = json.load(f)
        medians, counters, errors = {}, {}, {}
        for b in data.get("benchmarks", []):
            name = b.get("run_name", b["name"])
            if b.get("error_occurred"):
                errors[name] = b.get("error_message", "error")
                continue
            if b.get("aggregate_name") != "median":
                continue
            medians[name] = b["cpu_time"] * UNIT_NS[b.get("time_unit", "ns")]
            counters[name] = {k: v for k, v in b.items() if k in ("entries", "missing", "lookups")}
        runs.setdefault(label, {})[binary] = {"medians": medians, "counters": counters,
                                              "errors": errors, "context": data.get("context", {})}
    return runs


def fmt_ns(ns):
    if ns is None:
        return "n/a"
    if ns >= 1e6:
        return "%.3f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f µs" % (ns / 1e3)
    return "%.2f ns" % ns


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_ratio(r):
    return "n/a" if r is None else "%.3f×" % r


def verdict(r, target):
    if r is None:
        return "n/a"
    return "meets ≤ %.2f×" % target if r <= target else "**misses** ≤ %.2f×" % target


def get(runs, label, binary, name):
    return runs.get(label, {}).get(binary, {}).get("medians", {}).get(name)


def per_call_table(runs, label, out):
    direct = get(runs, label, "percall_direct", "PerCall/direct_plt")
    direct_ref = get(runs, label, "percall_direct", "PerCall/raw_pointer")
    if direct is None:
        return
    out.append("Per call of cuCtxGetCurrent (median CPU time; in-process reference = a dlsym'd "
               "pointer in the same binary):\n")
    out.append("| way | per call | × direct PLT | in-process reference | × direct, normalised "
               "by reference | target |")
    out.append("|---|---|---|---|---|---|")
    rows = [
        ("direct `-l` link (PLT)", "percall_direct", "PerCall/direct_plt", None),
        ("raw dlsym'd pointer", "percall_direct", "PerCall/raw_pointer", None),
        ("function-local-static lazy pointer", "percall_direct", "PerCall/lazy_static", None),
        ("dlsym on every call", "percall_direct", "PerCall/dlsym_every_call", None),
        ("cudyn drop-in stub, static", "percall_stub_static", "PerCall/stub_static", PER_CALL_TARGET),
        ("cudyn drop-in stub, shared", "percall_stub_shared", "PerCall/stub_shared", PER_CALL_TARGET),
        ("cudyn embedding mode", "percall_embed", "PerCall/embed", PER_CALL_TARGET),
    ]
    for title, binary, name, target in rows:
        ns = get(runs, label, binary, name)
        ref = get(runs, label, binary, "PerCall/raw_pointer")
        r = ratio(ns, direct)
        norm = ratio(ratio(ns, ref), ratio(direct, direct_ref))
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            title, fmt_ns(ns), fmt_ratio(r), fmt_ns(ref), fmt_ratio(norm),
            verdict(r, target) if target else ""))
    out.append("")


def open_table(runs, label, out):
    m = runs.get(label, {}).get("open_bench")
    if m is None:
        return
    med = m["medians"]
    bare = med.get("Open/bare_dlopen_version")
    opened = med.get("Open/cudyn_open")
    bind_all = med.get("Open/cudyn_open_bind_all")
    first_bare = med.get("FirstCall/bare_dlopen_version_dlsym_call")
    first_lazy = med.get("FirstCall/cudyn_open_lazy_resolve_call")
    first_gpa = med.get("FirstCall/bare_dlopen_version_procaddress_call")
    floor = med.get("BindFloor/driver_lookups")
    counters = m["counters"].get("Open/cudyn_open_bind_all", {})
    lookups = m["counters"].get("BindFloor/driver_lookups", {}).get("lookups")
    out.append("Start-up (each iteration: open, work, dlclose; median CPU time):\n")
    out.append("| what | time | × baseline | target |")
    out.append("|---|---|---|---|")
    out.append("| bare dlopen + cuDriverGetVersion + dlclose (baseline) | %s | 1.000× | |" % fmt_ns(bare))
    out.append("| cudyn Driver::Open (no binding) | %s | %s | |" % (fmt_ns(opened), fmt_ratio(ratio(opened, bare))))
    out.append("| cudyn Driver::Open + BindAll (%s entries, %s missing on this driver) | %s | %s | %s |" % (
        int(counters.get("entries", 0)), int(counters.get("missing", 0)), fmt_ns(bind_all),
        fmt_ratio(ratio(bind_all, bare)), verdict(ratio(bind_all, bare), BIND_ALL_TARGET)))
    if bind_all is not None and opened is not None:
        out.append("| … of which BindAll (difference) | %s | | |" % fmt_ns(bind_all - opened))
    out.append("| driver's own lookups bind-all cannot avoid (%s lookups, driver already open) | %s | | |" % (
        int(lookups) if lookups else "?", fmt_ns(floor)))
    out.append("| bare dlopen + version + dlsym + first call + dlclose (baseline) | %s | 1.000× | |" % fmt_ns(first_bare))
    out.append("| cudyn lazy: Driver::Open + Resolve + first call | %s | %s | %s |" % (
        fmt_ns(first_lazy), fmt_ratio(ratio(first_lazy, first_bare)),
        verdict(ratio(first_lazy, first_bare), LAZY_TARGET)))
    out.append("| bare dlopen + version + cuGetProcAddress(_v2) as the binding rules ask + first call + dlclose | %s | %s | |" % (
        fmt_ns(first_gpa), fmt_ratio(ratio(first_gpa, first_bare))))
    out.append("| cudyn lazy against that rule-following floor | | %s | |" % fmt_ratio(ratio(first_lazy, first_gpa)))
    out.append("")


def gpu_table(runs, label, out):
    rows = []
    skipped = []
    for api in ("cuCtxGetCurrent", "cuStreamQuery"):
        direct = get(runs, label, "percall_direct.gpu", "GpuLoop/%s/direct_plt" % api)
        for binary, way in (("percall_direct.gpu", "direct_plt"), ("percall_stub_static.gpu", "stub_static"),
                            ("percall_stub_shared.gpu", "stub_shared"), ("percall_embed.gpu", "embed")):
            ns = get(runs, label, binary, "GpuLoop/%s/%s" % (api, way))
            ref = get(runs, label, binary, "GpuLoop/%s/raw_pointer" % api)
            if ns is not None:
                rows.append("| %s | %s | %s | %s | %s |" % (api, way, fmt_ns(ns), fmt_ratio(ratio(ns, direct)), fmt_ns(ref)))
    for binary, run in runs.get(label, {}).items():
        if binary.endswith(".gpu") and run["errors"]:
            skipped.append(binary)
    if rows:
        out.append("GPU loops (cuInit + primary context + a non-blocking stream; median CPU time):\n")
        out.append("| call | way | per call | × direct PLT | in-process reference |")
        out.append("|---|---|---|---|---|")
        out.extend(rows)
        out.append("")
    elif skipped:
        out.append("GPU loops: skipped (no usable GPU: cuInit failed).\n")


def footprint_table(results_dir, out):
    path = os.path.join(results_dir, "footprint.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        fp = json.load(f)
    out.append("### Memory: tables + slots (%d entries)\n" % fp["entries"])
    out.append("| object | bytes | what |")
    out.append("|---|---|---|")
    for item in fp["items"]:
        out.append("| %s | %d | %s%s |" % (item["name"], item["bytes"], item["what"],
                                          " (per Driver)" if item["per_driver"] else ""))
    total = fp["total_bytes"]
    out.append("| **total** | **%d** (%.1f KiB) | %s |" % (
        total, total / 1024.0, "meets ≤ 64 KiB" if total <= fp["budget_bytes"] else "**misses** ≤ 64 KiB"))
    for item in fp.get("not_counted", []):
        out.append("| (not counted) %s | %d | %s |" % (item["name"], item["bytes"], item["what"]))
    out.append("")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results_dir = sys.argv[1]
    runs = load(results_dir)
    out = []
    for label in sorted(runs):
        contexts = [r["context"] for r in runs[label].values()]
        versions = sorted({c.get("driver_version", "?") for c in contexts})
        out.append("### Driver %s (CUDA %s)\n" % (label, ", ".join(versions)))
        if any(c.get("optimized") == "no" for c in contexts):
            out.append("**Warning: built without optimisation (use `bazel build -c opt`); "
                       "these numbers are meaningless.**\n")
        per_call_table(runs, label, out)
        open_table(runs, label, out)
        gpu_table(runs, label, out)
    footprint_table(results_dir, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
