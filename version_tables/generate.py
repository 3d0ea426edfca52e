#!/usr/bin/env python3
"""Merges the checked-in facts under inputs/ into the cudyn API table and its generated includes.

Inputs (all checked in; see loader/DESIGN.md, "One fact, one file"):
  inputs/exports/<major>.txt    cu* functions exported by each real driver + its cuDriverGetVersion
  inputs/headers/cuda-*.json    facts extracted from CUDA headers by extract_headers.py
  inputs/special_symbols.tsv    exported symbols with no PFN typedef / prototype, and their treatment
  inputs/adapters.tsv           signature-changing variants: the older variant an adapter serves
                                them with, or why no faithful adapter exists
Outputs:
  cuda_api_table.tsv            one row per exported symbol (ABI variant): the facts, checked in,
                                rebuilt by `regen`, compared with a fresh run by
                                //version_tables:regen_test (--out DIR)
  generated/*.inc, *.h          X-macro lists included by loader/, stubs/, tests/, tools/, and
  generated/cudyn_prototypes.json   each entry's parameter types for Python generators: made at
                                build time by //version_tables:generated_files (--incs DIR), never
                                checked in
(The CUresult names/strings are not made here: gen_error_strings.py turns inputs/error_strings/,
the real drivers' own cuGetErrorName/cuGetErrorString answers, into an include at build time.)

Usage: generate.py [--inputs DIR] [--out DIR] [--incs DIR]
  (--out defaults to this directory when --incs is not given)
"""
import argparse
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def cuda_version_number(version):
    """"11.8" -> 11080, as CUDA_VERSION spells it."""
    major, minor = version.split(".")
    return int(major) * 1000 + int(minor) * 10


# The driver API headers with facts: one inputs/headers/cuda-<version>.json each (extract_headers.py),
# oldest first.
HEADER_VERSIONS = sorted((n[len("cuda-"):-len(".json")] for n in os.listdir(os.path.join(HERE, "inputs", "headers"))
                          if re.match(r"^cuda-\d+\.\d+\.json$", n)), key=cuda_version_number)
FLOOR_CUDA_VERSION = 10000  # the oldest driver generation cudyn supports
C_TYPE_WORDS = {"int", "char", "long", "short", "float", "double", "unsigned", "signed", "void",
                "const", "volatile", "struct", "enum", "size_t"}


class TableError(Exception):
    pass


def read_exports(directory):
    """{major: (cuda_version, driver_version, set(symbols))}."""
    drivers = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".txt"):
            continue
        major = int(name[:-4])
        cuda_version, driver_version, symbols = None, None, set()
        for line in open(os.path.join(directory, name)):
            line = line.strip()
            if line.startswith("# cuDriverGetVersion:"):
                cuda_version = int(line.split(":")[1])
            elif line.startswith("# driver:"):
                driver_version = line.split()[2]
            elif line and not line.startswith("#"):
                symbols.add(line)
        if cuda_version is None or driver_version is None:
            raise TableError("%s: missing '# driver:' or '# cuDriverGetVersion:' header" % name)
        drivers[major] = (cuda_version, driver_version, symbols)
    return drivers


def read_tsv(path):
    rows = []
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            rows.append(line.rstrip("\n").split("\t"))
    return rows


def split_symbol(symbol):
    """cuMemcpyHtoD_v2_ptds -> ('cuMemcpyHtoD', 'ptds', 2)."""
    stream = "legacy"
    m = re.match(r"(.*)_(ptds|ptsz)$", symbol)
    if m:
        symbol, stream = m.group(1), m.group(2)
    number = 1
    m = re.match(r"(.*)_v(\d+)$", symbol)
    if m:
        symbol, number = m.group(1), int(m.group(2))
    return symbol, stream, number


def split_params(params):
    """'CUcontext *pctx, unsigned int flags' -> [('CUcontext *', 'pctx'), ('unsigned int', 'flags')]."""
    if params.strip() in ("", "void"):
        return []
    if "(" in params:
        raise TableError("function-pointer parameter not supported: " + params)
    out = []
    for raw in params.split(","):
        raw = raw.strip()
        m = re.match(r"^(.*?[\s*])([A-Za-z_]\w*)$", raw)
        if m and m.group(2) not in C_TYPE_WORDS and m.group(1).strip() not in ("const", "struct",
                                                                               "enum"):
            out.append((re.sub(r"\s+", " ", m.group(1)).strip(), m.group(2)))
        else:
            out.append((raw, ""))
    return out


def type_key(params):
    return tuple(re.sub(r"\s*\*\s*", "*", t) for t, _ in split_params(params))


def abi_type_key(params):
    """Like type_key, with versioned type aliases (CUdevice_v1, CUdeviceptr_v2) folded."""
    return tuple(re.sub(r"\b(CU\w+?)_v\d+\b", r"\1", t) for t in type_key(params))


def build(inputs):
    drivers = read_exports(os.path.join(inputs, "exports"))
    headers = {v: json.load(open(os.path.join(inputs, "headers", "cuda-%s.json" % v)))
               for v in HEADER_VERSIONS}
    special = {r[0]: {"abi_version": int(r[1]), "treatment": r[2], "reason": r[3]}
               for r in read_tsv(os.path.join(inputs, "special_symbols.tsv"))}
    adapters = {r[0]: {"fallback": r[1], "kind": r[2], "note": r[3]}
                for r in read_tsv(os.path.join(inputs, "adapters.tsv"))}

    # Export monotonicity: a symbol, once exported, stays exported by every later driver. The
    # fake drivers and the "first driver" column rely on it.
    majors = sorted(drivers)
    for older, newer in zip(majors, majors[1:]):
        lost = drivers[older][2] - drivers[newer][2]
        if lost:
            raise TableError("driver %d drops %s exported by %d" % (newer, sorted(lost), older))
    symbols = set().union(*(d[2] for d in drivers.values()))

    # PFN typedefs (ABI variants with their CUDA version); 13.0 wins over 11.8 on conflicts.
    pfns = {}
    for v in ("11.8", "13.0"):
        for p in headers[v]["pfn"].values():
            pfns[(p["base"], p["stream"], p["version"])] = p

    # ABI version of each symbol: within one (base, stream class), the driver's _vN suffixes and
    # the PFN versions are both increasing, so the k-th exported symbol is the k-th PFN.
    by_group = collections.defaultdict(list)
    for s in symbols:
        if s in special:
            continue
        base, stream, number = split_symbol(s)
        by_group[(base, stream)].append((number, s))
    pfn_group = collections.defaultdict(list)
    for (base, stream, version) in pfns:
        pfn_group[(base, stream)].append(version)
    abi = {}
    for key, members in by_group.items():
        versions = sorted(pfn_group.get(key, []))
        members.sort()
        if len(versions) != len(members):
            raise TableError("%s/%s: exported %s but PFN versions %s; list it in special_symbols.tsv"
                             % (key[0], key[1], [m[1] for m in members], versions))
        for (_, s), v in zip(members, versions):
            abi[s] = v

    rows = []
    for s in sorted(symbols):
        base, stream, _ = split_symbol(s)
        if s in special:
            version, gpa = special[s]["abi_version"], False
        else:
            version, gpa = abi[s], True
        declared = [v for v in HEADER_VERSIONS if s in headers[v]["decls"]]
        proto = None
        for v in reversed(declared):
            proto = headers[v]["decls"][s]
            break
        pfn = pfns.get((base, stream, version))
        if proto is None and pfn is not None:
            proto = pfn["params"]
        if pfn is not None and proto is not None and \
                abi_type_key(proto) != abi_type_key(pfn["params"]):
            # The ordering rule paired this symbol with a PFN of another signature.
            raise TableError("%s: prototype (%s) differs from PFN_%s_v%d (%s)"
                             % (s, proto, base, version, pfn["params"]))
        first = min(m for m in majors if s in drivers[m][2])
        default_in, public_names = [], set()
        for v in HEADER_VERSIONS:
            for mode in ("default", "ptds"):
                names = sorted(p for p, t in headers[v]["map"][mode].items() if t == s)
                if names:
                    default_in.append(v + ("" if mode == "default" else "+ptds"))
                    public_names.update(names)
        rows.append({
            "symbol": s, "base": base, "stream": stream, "abi_version": version,
            "first_driver": first, "first_driver_cuda": drivers[first][0],
            "gpa": gpa, "declared_in": declared, "default_in": default_in,
            "prototype": proto, "adapter": "", "fallback": "", "reason": "",
            # A public name of another base that headers redirect here (cuGraphInstantiate ->
            # cuGraphInstantiateWithFlags in 12.x+ headers).
            "redirected_from": sorted(public_names - {base}),
        })

    # Graph redirect: 12.x+ headers map cuGraphInstantiate to a different base name.
    by_symbol = {r["symbol"]: r for r in rows}
    for r in rows:
        if r["symbol"] in special:
            r["reason"] = special[r["symbol"]]["reason"]
    # Adapters: same-signature successors are computed; signature changes come from adapters.tsv.
    group_rows = collections.defaultdict(list)
    for r in rows:
        group_rows[(r["base"], r["stream"])].append(r)
    unlisted = []
    for members in group_rows.values():
        members.sort(key=lambda r: r["abi_version"])
        for older, newer in zip(members, members[1:]):
            if newer["symbol"] in adapters:
                continue
            if older["prototype"] is not None and newer["prototype"] is not None and \
                    type_key(older["prototype"]) == type_key(newer["prototype"]):
                newer["adapter"], newer["fallback"] = "same_signature", older["symbol"]
            elif newer["abi_version"] <= FLOOR_CUDA_VERSION:
                # Every supported driver (CUDA 10.0 and later) exports it: never adapted.
                newer["adapter"], newer["reason"] = "always_present", \
                    "ABI %d predates the oldest supported driver" % newer["abi_version"]
            elif newer["symbol"] not in special:
                unlisted.append("%s changes the signature of %s" % (newer["symbol"], older["symbol"]))
    if unlisted:
        raise TableError("list these in adapters.tsv:\n  " + "\n  ".join(unlisted))
    for s, a in adapters.items():
        if s not in by_symbol:
            raise TableError("adapters.tsv names unknown symbol " + s)
        if a["fallback"] != "-" and a["fallback"] not in by_symbol:
            raise TableError("adapters.tsv: %s falls back to unknown %s" % (s, a["fallback"]))
        r = by_symbol[s]
        r["adapter"], r["fallback"], r["reason"] = a["kind"], "" if a["fallback"] == "-" else \
            a["fallback"], a["note"]
    return rows, drivers


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def version_guard(declared):
    """Preprocessor condition under which the compiling CUDA headers declare the prototype."""
    if not declared:
        return "0"
    last_known = declared[-1]
    lo = cuda_version_number(declared[0])
    cond = "CUDA_VERSION >= %d" % lo
    if last_known != HEADER_VERSIONS[-1]:
        # Removed from later headers: only present up to the next known header version.
        nxt = HEADER_VERSIONS[HEADER_VERSIONS.index(last_known) + 1]
        cond += " && CUDA_VERSION < %d" % cuda_version_number(nxt)
    return cond


HEADER_NOTE = ("/* Generated by version_tables/generate.py from version_tables/inputs/. "
               "Do not edit. */\n")


def write_table(rows, out):
    os.makedirs(out, exist_ok=True)
    cols = ["symbol", "base", "stream", "abi_version", "first_driver", "first_driver_cuda", "gpa",
            "default_in", "redirected_from", "declared_in", "adapter", "fallback", "prototype", "reason"]
    with open(os.path.join(out, "cuda_api_table.tsv"), "w") as f:
        f.write("# cudyn API table: one row per exported driver symbol (ABI variant). Generated by "
                "generate.py; do not edit.\n")
        f.write("\t".join(cols) + "\n")
        for r in rows:
            vals = []
            for c in cols:
                v = r[c]
                if isinstance(v, bool):
                    v = "yes" if v else "no"
                elif isinstance(v, list):
                    v = ",".join(v) or "-"
                elif v is None or v == "":
                    v = "-"
                vals.append(str(v))
            f.write("\t".join(vals) + "\n")


def version_range(declared):
    """(first, below): the CUDA_VERSION range in which the headers declare the prototype; below is
    None when the newest known headers still declare it; (None, None) when none does."""
    if not declared:
        return None, None
    below = None
    if declared[-1] != HEADER_VERSIONS[-1]:
        below = cuda_version_number(HEADER_VERSIONS[HEADER_VERSIONS.index(declared[-1]) + 1])
    return cuda_version_number(declared[0]), below


def write_includes(rows, drivers, out):
    os.makedirs(os.path.join(out, "generated"), exist_ok=True)
    index = {r["symbol"]: i for i, r in enumerate(rows)}
    stream_enum = {"legacy": "kLegacy", "ptds": "kPtds", "ptsz": "kPtsz"}
    adapter_enum = {"": "kNone", "always_present": "kNone", "same_signature": "kSameSignature", "custom": "kCustom",
                    "none": "kNoFaithfulAdapter"}
    majors = sorted(drivers)
    offsets, blob = [], []
    pos = 0
    for r in rows:
        offsets.append(pos)
        blob.append(r["symbol"])
        pos += len(r["symbol"]) + 1
    with open(os.path.join(out, "generated", "cudyn_names.inc"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("/* Every entry's symbol, NUL-separated; CUDYN_ENTRY's name_offset indexes it. */\n")
        for name in blob:
            f.write('"%s\\0"\n' % name)
    with open(os.path.join(out, "generated", "cudyn_entries.inc"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("/* CUDYN_ENTRY(index, symbol, base, stream, abi_version, first_driver_cuda,\n"
                " *             gpa_reachable, adapter, fallback_index, name_offset,\n"
                " *             real_driver_mask) -- bit k of the mask: exported by the k-th\n"
                " *             CUDYN_REAL_DRIVER (%s). */\n" % ", ".join(str(m) for m in majors))
        for i, r in enumerate(rows):
            fb = index[r["fallback"]] if r["fallback"] else -1
            mask = sum(1 << k for k, m in enumerate(majors) if r["symbol"] in drivers[m][2])
            f.write("CUDYN_ENTRY(%d, %s, %s, %s, %d, %d, %d, %s, %d, %d, 0x%x)\n" % (
                i, r["symbol"], r["base"], stream_enum[r["stream"]], r["abi_version"],
                r["first_driver_cuda"], 1 if r["gpa"] else 0, adapter_enum[r["adapter"]], fb,
                offsets[i], mask))
    with open(os.path.join(out, "generated", "cudyn_entry_count.h"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("#ifndef CUDYN_GENERATED_ENTRY_COUNT_H_\n#define CUDYN_GENERATED_ENTRY_COUNT_H_\n")
        f.write("#define CUDYN_ENTRY_COUNT %d\n" % len(rows))
        f.write("#define CUDYN_BASE_COUNT %d\n" % len({r["base"] for r in rows}))
        f.write("#endif\n")
    with open(os.path.join(out, "generated", "cudyn_prototypes.inc"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("/* CUDYN_PROTO(index, symbol, (typed parameters), (argument names)) for each entry\n"
                " * whose prototype the compiling CUDA headers declare. Entries without one are\n"
                " * listed as CUDYN_NO_PROTO(index, symbol). */\n")
        for i, r in enumerate(rows):
            guard = version_guard(r["declared_in"])
            if r["prototype"] is None:
                f.write("CUDYN_NO_PROTO(%d, %s)\n" % (i, r["symbol"]))
                continue
            params = split_params(r["prototype"])
            typed, names = [], []
            for k, (t, _) in enumerate(params):
                typed.append("%s a%d" % (t, k))
                names.append("a%d" % k)
            f.write("#if %s\nCUDYN_PROTO(%d, %s, (%s), (%s))\n#else\nCUDYN_NO_PROTO(%d, %s)\n"
                    "#endif\n" % (guard, i, r["symbol"], ", ".join(typed) or "void",
                                  ", ".join(names), i, r["symbol"]))
    with open(os.path.join(out, "generated", "cudyn_real_drivers.inc"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("/* CUDYN_REAL_DRIVER(major, \"driver version\", cuda_version, exported_count) */\n")
        for major in sorted(drivers):
            cv, dv, syms = drivers[major]
            f.write("CUDYN_REAL_DRIVER(%d, %s, %d, %d)\n" % (major, c_string(dv), cv, len(syms)))


def write_prototypes_json(rows, out):
    """generated/cudyn_prototypes.json: what cudyn_prototypes.inc says, for Python generators.

    One object per entry, in table order: index, symbol, params (the C parameter types, [] for
    none; null when no prototype is known: CUDYN_NO_PROTO), declared_since / declared_below (the
    CUDA_VERSION range whose headers declare it; null / null when none does, declared_below null
    when the newest known headers still do)."""
    entries = []
    for i, r in enumerate(rows):
        since, below = version_range(r["declared_in"])
        params = None if r["prototype"] is None else [t for t, _ in split_params(r["prototype"])]
        entries.append({"index": i, "symbol": r["symbol"], "params": params,
                        "declared_since": since, "declared_below": below})
    with open(os.path.join(out, "generated", "cudyn_prototypes.json"), "w") as f:
        json.dump({"generator": "version_tables/generate.py", "entries": entries}, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default=os.path.join(HERE, "inputs"))
    ap.add_argument("--out", help="write OUT/cuda_api_table.tsv")
    ap.add_argument("--incs", help="write INCS/generated/ (the includes and cudyn_prototypes.json)")
    args = ap.parse_args()
    if args.out is None and args.incs is None:
        args.out = HERE
    try:
        rows, drivers = build(args.inputs)
    except TableError as e:
        sys.exit("generate.py: " + str(e))
    if args.out is not None:
        write_table(rows, args.out)
    if args.incs is not None:
        write_includes(rows, drivers, args.incs)
        write_prototypes_json(rows, args.incs)
    print("generate.py: %d symbols over %d base names" % (len(rows), len({r["base"] for r in rows})))


if __name__ == "__main__":
    main()
