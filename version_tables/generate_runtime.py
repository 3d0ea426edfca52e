#!/usr/bin/env python3
"""Merges the checked-in runtime-API (libcudart) facts under inputs/ into the cudart table.

Inputs (all checked in):
  inputs/cudart_exports/<version>.txt     what each real runtime exports (name@@soname lines,
                                          `# soname:` header); extract_cudart_exports.py
  inputs/runtime_headers/cudart-<v>.json  facts from that version's headers; extract_runtime_headers.py
  inputs/cudart_adapters.tsv              the hand-decided adapters
Outputs:
  cudart_api_table.tsv                    one row per entry, checked in, rebuilt by `regen`, compared
                                          with a fresh run by //version_tables:cudart_regen_test (--out)
  generated_cudart/*.inc, *.h, *.json     X-macro lists for loader/, stubs/, tests/ and the JSON twin for
                                          Python generators; made at build time by
                                          //version_tables:cudart_generated_files (--incs), never checked in

Rules. Entries: every cuda* function the 13.0 runtime exports that the 13.0 headers declare (the
default mode, or the per-thread mode for _ptds/_ptsz names), sorted by symbol. For every entry S and
family F (13 = 13.0; 12 = 12.4, 12.5; 11 = 11.2, 11.8; 10 = the facts of 11, no 10.x runtime being
obtainable): the candidates are the names base(S)[_vN](stream suffix of S), highest N first, that a
real runtime of F exports and declares with the parameter types of S's 13.0 prototype (names dropped,
whitespace and `*` spacing normalised, otherwise spelled exactly as written), every struct / union /
array type a parameter points to or takes by value having its 13.0 size there. Family 13: [S]. With
no candidate: the adapter of cudart_adapters.tsv where the row lists the family, else missing (why).
A listed adapter and candidates together keep both on family 12 (candidates first, the adapter for
the 12.0-12.3 minors that lack them: the facts start at 12.4); on 10/11 that is an error.

Usage: generate_runtime.py [--inputs DIR] [--out DIR] [--incs DIR]
  (--out defaults to this directory when --incs is not given)
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = ["11.2", "11.8", "12.4", "12.5", "13.0"]
FAMILIES = {10: ["11.2", "11.8"], 11: ["11.2", "11.8"], 12: ["12.4", "12.5"], 13: ["13.0"]}
FAMILY_ORDER = [10, 11, 12, 13]
# The layouts cudart_device_prop.inc describes, per family, and the version pairs that must agree.
DEVICE_PROP_VERSIONS = {13: "13.0", 12: "12.5", 11: "11.8"}
DEVICE_PROP_SIZES = {13: 1008, 12: 1032, 11: 728}
SAME_LAYOUT = [("12.4", "12.5"), ("11.2", "11.8")]
QUALIFIERS = {"const", "volatile", "struct", "enum", "union", "restrict", "__restrict"}
BUILTIN = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
           "_Bool", "bool"}


class TableError(Exception):
    pass


def version_number(v):
    major, minor = v.split(".")
    return int(major) * 1000 + int(minor) * 10


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


def split_symbol(symbol):
    """-> (base, vN number or 1, stream) for cudaMemPrefetchAsync_v2_ptsz: (..., 2, 'ptsz')."""
    stream = "legacy"
    m = re.match(r"(.*)_(ptds|ptsz)$", symbol)
    if m:
        symbol, stream = m.group(1), m.group(2)
    m = re.match(r"(.*)_v(\d+)$", symbol)
    if m:
        return m.group(1), int(m.group(2)), stream
    return symbol, 1, stream


def split_params(params):
    params = squash(params)
    if params in ("", "void"):
        return []
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def parse_param(param):
    """-> (type text, name or None, base type or None); see extract_runtime_headers.parse_param."""
    if "(" in param:
        m = re.search(r"\(\s*\*\s*(\w+)?\s*\)", param)
        name = m.group(1) if m and m.group(1) else None
        typ = param if not name else param[:m.start(1)] + param[m.end(1):]
        return re.sub(r"\s*\*\s*", "*", squash(typ)), name, None
    arrays = "".join(re.findall(r"\[[^\]]*\]", param))
    core = re.sub(r"\[[^\]]*\]", "", param)
    tokens = re.findall(r"\w+|\*", core)
    name = None
    if tokens and re.match(r"\w+$", tokens[-1]) and tokens[-1] not in BUILTIN:
        before = [t for t in tokens[:-1] if t not in QUALIFIERS and t != "*"]
        if before:
            name = tokens[-1]
            tokens = tokens[:-1]
    typ = re.sub(r"\s*\*\s*", "*", " ".join(tokens)) + ("*" if arrays else "")
    base = " ".join(t for t in tokens if t not in ("const", "volatile", "restrict", "__restrict",
                                                  "*"))
    return typ, name, base


def param_types(params):
    return [parse_param(p)[0] for p in split_params(params)]


def param_bases(params):
    return [parse_param(p)[2] for p in split_params(params) if parse_param(p)[2]]


def read_exports(directory):
    """{version: (soname, [names])}."""
    runtimes = {}
    for v in VERSIONS:
        path = os.path.join(directory, v + ".txt")
        soname, names = None, []
        for line in open(path):
            line = line.strip()
            if line.startswith("# soname:"):
                soname = line.split(":", 1)[1].strip()
            elif line and not line.startswith("#"):
                name, _, so = line.partition("@@")
                if soname and so and so != soname:
                    raise TableError("%s: %s is versioned %s, not %s" % (path, name, so, soname))
                names.append(name)
        if not soname:
            raise TableError("%s: no '# soname:' header" % path)
        runtimes[v] = (soname, sorted(set(names)))
    return runtimes


def read_headers(directory):
    facts = {}
    for v in VERSIONS:
        f = json.load(open(os.path.join(directory, "cudart-%s.json" % v)))
        if f["cudart_version"] != version_number(v):
            raise TableError("cudart-%s.json: CUDART_VERSION %d" % (v, f["cudart_version"]))
        facts[v] = f
    return facts


def read_adapters(path):
    adapters = []
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "symbol":
            continue
        if len(cols) != 4:
            raise TableError("%s: bad row %r" % (path, line))
        adapters.append({"symbol": cols[0], "families": [int(x) for x in cols[1].split(",")],
                         "adapter": cols[2], "why": cols[3]})
    return adapters


def declaration(facts, symbol):
    """The declaration of `symbol` in one version's headers, or None."""
    d = facts["decls"]["default"].get(symbol)
    if d is None and split_symbol(symbol)[2] != "legacy":
        d = facts["decls"]["ptds"].get(symbol)
    return d


def size_mismatches(params, facts, facts13):
    """[(type, size there, size in 13.0)] for the parameters' struct types whose size differs."""
    out = []
    for base in param_bases(params):
        if base in facts13["type_sizes"]:
            there = facts["type_sizes"].get(base)
            if there != facts13["type_sizes"][base]:
                out.append((base, there, facts13["type_sizes"][base]))
    return out


def build(inputs):
    runtimes = read_exports(os.path.join(inputs, "cudart_exports"))
    facts = read_headers(os.path.join(inputs, "runtime_headers"))
    adapters = read_adapters(os.path.join(inputs, "cudart_adapters.tsv"))
    f13 = facts["13.0"]
    exports = {v: set(runtimes[v][1]) for v in VERSIONS}

    # Entries.
    entries, left_out = [], {"__cuda* host-stub ABI": 0, "not a cuda* name": 0,
                              "not declared by the 13.0 headers": []}
    for name in runtimes["13.0"][1]:
        if name.startswith("__cuda"):
            left_out["__cuda* host-stub ABI"] += 1
            continue
        if not name.startswith("cuda"):
            left_out["not a cuda* name"] += 1
            continue
        decl = declaration(f13, name)
        if decl is None:
            left_out["not declared by the 13.0 headers"].append(name)
            continue
        base, _, stream = split_symbol(name)
        entries.append({"symbol": name, "base": base, "stream": stream, "ret": decl["ret"],
                        "params": decl["params"]})
    for i, e in enumerate(entries):
        e["index"] = i
        names, texts = [], []
        for k, p in enumerate(split_params(e["params"])):
            _, name, _ = parse_param(p)
            if name is None:
                name = "a%d" % k
                if "(" in p:
                    p = re.sub(r"\(\s*\*\s*\)", "(*%s)" % name, p)
                else:
                    p = p + ("" if p.endswith("*") else " ") + name
            names.append(name)
            texts.append(p)
        if len(set(names)) != len(names):
            raise TableError("%s: parameter names collide: %s" % (e["symbol"], names))
        e["args"] = names
        e["params_named"] = ", ".join(texts)
    by_symbol = {e["symbol"]: e for e in entries}

    # Adapters.
    adapter_rows = {}
    for a in adapters:
        e = by_symbol.get(a["symbol"])
        if e is None:
            raise TableError("cudart_adapters.tsv: %s is not an entry (not exported by the 13.0 "
                             "runtime or not declared by the 13.0 headers)" % a["symbol"])
        for fam in a["families"]:
            if fam not in FAMILY_ORDER or fam == 13:
                raise TableError("cudart_adapters.tsv: %s lists family %d" % (a["symbol"], fam))
            if (a["symbol"], fam) in adapter_rows:
                raise TableError("cudart_adapters.tsv: %s listed twice for %d" % (a["symbol"], fam))
            adapter_rows[(a["symbol"], fam)] = a["adapter"]

    # Rules.
    all_names = set().union(*exports.values())
    kept_both, divergent = [], []
    for e in entries:
        s, base, stream = e["symbol"], e["base"], e["stream"]
        types13 = param_types(e["params"])
        suffix = "" if stream == "legacy" else "_" + stream
        pattern = re.compile(r"^%s(?:_v(\d+))?%s$" % (re.escape(base), re.escape(suffix)))
        names = sorted((n for n in all_names if pattern.match(n)),
                       key=lambda n: -(int(pattern.match(n).group(1) or 1)))
        e["rules"] = {}
        for fam in FAMILY_ORDER:
            if fam == 13:
                rule = {"candidates": [s], "adapter": None, "reason": ""}
                e["rules"][str(fam)] = rule
                continue
            cands, why = [], []
            exported_any = False
            for n in names:
                vs = [v for v in FAMILIES[fam] if n in exports[v]]
                if not vs:
                    continue
                exported_any = True
                ok_in, verdicts = [], []
                for v in vs:
                    d = declaration(facts[v], n)
                    if d is None:
                        verdicts.append("%s exports %s but its headers do not declare it" % (v, n))
                        continue
                    t = param_types(d["params"])
                    if t != types13 or d["ret"] != e["ret"]:
                        verdicts.append("%s declares %s%s(%s)" % (
                            v, "" if d["ret"] == e["ret"] else d["ret"] + " ",
                            "" if n == s else n + " ", ", ".join(t)))
                        continue
                    mism = size_mismatches(d["params"], facts[v], f13)
                    if mism:
                        verdicts.append("%s %s: %s" % (v, n, ", ".join(
                            "%s is %s B (13.0: %d B)" % (ty, there if there is not None else "?",
                                                         here) for ty, there, here in mism)))
                        continue
                    ok_in.append(v)
                if ok_in:
                    cands.append(n)
                    if len(ok_in) != len(vs) and fam != 10:
                        # The rule asks for a runtime of the family that declares it alike; an
                        # older minor spelling it otherwise is reported, not a reason to drop it.
                        divergent.append("%s (family %d): %s fits in %s; %s" % (
                            s, fam, n, ",".join(ok_in), "; ".join(verdicts)))
                else:
                    why.extend(verdicts)
            if not exported_any:
                why = ["not exported by %s" % ", ".join(FAMILIES[fam])]
            adapter = adapter_rows.get((s, fam))
            if cands and adapter:
                if fam != 12:
                    # 11.x: the facts cover the family; a listed adapter that a native symbol
                    # makes pointless is a mistake in the list, not something to drop silently.
                    raise TableError("cudart_adapters.tsv lists %s for %s on family %d, but "
                                     "the family has the native %s" % (adapter, s, fam, cands))
                # 12.x: the candidates may be newer than 12.0 (the facts start at 12.4): both.
                kept_both.append((s, fam, cands, adapter))
            reason = "" if cands else "; ".join(dict.fromkeys(why))
            e["rules"][str(fam)] = {"candidates": cands, "adapter": adapter, "reason": reason}

    # Version markers: symbols some but not all real runtimes of a family export.
    markers = []
    for fam in sorted({11, 12, 13}):
        vs = FAMILIES[fam]
        for n in sorted(set().union(*(exports[v] for v in vs))):
            have = [v for v in vs if n in exports[v]]
            if len(have) != len(vs):
                markers.append((n, version_number(have[0])))

    # cudaDeviceProp.
    for a, b in SAME_LAYOUT:
        if facts[a]["device_prop"] != facts[b]["device_prop"]:
            raise TableError("cudaDeviceProp differs between %s and %s" % (a, b))
    for fam, v in DEVICE_PROP_VERSIONS.items():
        size = facts[v]["type_sizes"]["struct cudaDeviceProp"]
        if size != DEVICE_PROP_SIZES[fam]:
            raise TableError("cudaDeviceProp of %s is %d B, expected %d" % (
                v, size, DEVICE_PROP_SIZES[fam]))
    prop = []
    for fld in f13["device_prop"]:
        offs = {}
        for fam in (12, 11):
            there = {x["name"]: x for x in facts[DEVICE_PROP_VERSIONS[fam]]["device_prop"]}
            x = there.get(fld["name"])
            offs[fam] = x["offset"] if x and x["size"] == fld["size"] else -1
        prop.append((fld["name"], fld["offset"], fld["size"], offs[12], offs[11]))

    info = {"left_out": left_out, "kept_both": kept_both,
            "divergent": divergent}
    return entries, runtimes, markers, prop, info


def c_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def bind_text(rule):
    parts = []
    if rule["candidates"]:
        parts.append("native:" + "|".join(rule["candidates"]))
    if rule["adapter"]:
        parts.append("adapter:" + rule["adapter"])
    return "|".join(parts) if parts else "missing:" + rule["reason"]


def write_table(entries, runtimes, info, out):
    lo = info["left_out"]
    with open(os.path.join(out, "cudart_api_table.tsv"), "w") as f:
        f.write("# cudyn runtime-API table: one row per cuda* function the 13.0 runtime exports and "
                "the 13.0 headers declare. Generated by generate_runtime.py; do not edit.\n")
        f.write("# left out of the %d exported names: %d __cuda* host-stub ABI (forwarded, not "
                "entries), %d not cuda*, %d not declared by the 13.0 headers (%s)\n" % (
                    len(runtimes["13.0"][1]), lo["__cuda* host-stub ABI"], lo["not a cuda* name"],
                    len(lo["not declared by the 13.0 headers"]),
                    ", ".join(lo["not declared by the 13.0 headers"]) or "-"))
        f.write("# bind_F (family F runtime): native:symbols tried in order | adapter:Name (the hand-"
                "written adapter of inputs/cudart_adapters.tsv) | missing:why. Family 10 uses the "
                "11.x facts (no 10.x runtime is obtainable).\n")
        for d in info["divergent"]:
            f.write("# older minor declares otherwise: %s\n" % d)
        f.write("\t".join(["symbol", "base", "stream", "ret", "first_runtime", "exported_in"] +
                          ["bind_%d" % fam for fam in FAMILY_ORDER] + ["prototype"]) + "\n")
        for e in entries:
            have = [v for v in VERSIONS if e["symbol"] in runtimes[v][1]]
            f.write("\t".join([e["symbol"], e["base"], e["stream"], e["ret"], have[0],
                               ",".join(have)] +
                              [bind_text(e["rules"][str(fam)]) for fam in FAMILY_ORDER] +
                              [e["params"]]) + "\n")


def write_includes(entries, runtimes, markers, prop, out):
    d = os.path.join(out, "generated_cudart")
    os.makedirs(d, exist_ok=True)
    head = "// Generated by version_tables/generate_runtime.py; do not edit.\n"
    with open(os.path.join(d, "cudart_entries.inc"), "w") as f:
        f.write(head)
        for e in entries:
            f.write("CUDYN_CUDART_ENTRY(%d, %s, %s, (%s), (%s))\n" % (
                e["index"], e["ret"], e["symbol"], e["params_named"], ", ".join(e["args"])))
    with open(os.path.join(d, "cudart_entry_count.h"), "w") as f:
        f.write(head)
        f.write("#ifndef CUDYN_GENERATED_CUDART_ENTRY_COUNT_H_\n"
                "#define CUDYN_GENERATED_CUDART_ENTRY_COUNT_H_\n"
                "namespace cudyn { inline constexpr int kCudartEntryCount = %d; }\n"
                "#endif  // CUDYN_GENERATED_CUDART_ENTRY_COUNT_H_\n" % len(entries))
    with open(os.path.join(d, "cudart_rules.inc"), "w") as f:
        f.write(head)
        for e in entries:
            for fam in FAMILY_ORDER:
                r = e["rules"][str(fam)]
                cands = "".join(c + "\\0" for c in r["candidates"])
                f.write('CUDYN_CUDART_RULE(%d, %d, "%s", %s, %s)\n' % (
                    e["index"], fam, cands,
                    "CUDYN_CUDART_ADAPTER_ID(%s)" % r["adapter"] if r["adapter"]
                    else "CUDYN_CUDART_NO_ADAPTER", c_string(r["reason"])))
    with open(os.path.join(d, "cudart_adapters.inc"), "w") as f:
        f.write(head)
        seen = {}
        for e in entries:
            for fam in FAMILY_ORDER:
                a = e["rules"][str(fam)]["adapter"]
                if a and a not in seen:
                    seen[a] = e
        for a, e in seen.items():
            f.write("CUDYN_CUDART_ADAPTER(%s, %d, %s)\n" % (a, e["index"], e["symbol"]))
    with open(os.path.join(d, "cudart_markers.inc"), "w") as f:
        f.write(head)
        for n, v in markers:
            f.write('CUDYN_CUDART_MARKER("%s", %d)\n' % (n, v))
    with open(os.path.join(d, "cudart_device_prop.inc"), "w") as f:
        f.write(head)
        f.write("// CUDYN_DEVICE_PROP_FIELD(name, offset in 13.0, size, offset in 12.x, offset in "
                "11.x): -1 where the field is absent or has another size there.\n")
        for p in prop:
            f.write("CUDYN_DEVICE_PROP_FIELD(%s, %d, %d, %d, %d)\n" % p)
        for fam in (13, 12, 11):
            f.write("CUDYN_DEVICE_PROP_SIZE(%d, %d)\n" % (fam, DEVICE_PROP_SIZES[fam]))
    doc = {"entries": [], "runtimes": {}}
    for e in entries:
        doc["entries"].append({k: e[k] for k in ("index", "symbol", "base", "stream", "ret",
                                                 "params", "args", "rules")})
    for v in VERSIONS:
        doc["runtimes"][v] = {"soname": runtimes[v][0], "version": version_number(v),
                              "exports": runtimes[v][1]}
    with open(os.path.join(d, "cudart_prototypes.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default=os.path.join(HERE, "inputs"))
    ap.add_argument("--out", help="write OUT/cudart_api_table.tsv")
    ap.add_argument("--incs", help="write INCS/generated_cudart/ (the includes and the JSON)")
    args = ap.parse_args()
    if not args.out and not args.incs:
        args.out = HERE
    try:
        entries, runtimes, markers, prop, info = build(args.inputs)
    except TableError as err:
        sys.exit("generate_runtime.py: ERROR: %s" % err)
    if args.out:
        write_table(entries, runtimes, info, args.out)
    if args.incs:
        write_includes(entries, runtimes, markers, prop, args.incs)
    counts = {fam: {"native": 0, "adapter": 0, "native+adapter": 0, "missing": 0}
              for fam in FAMILY_ORDER}
    for e in entries:
        for fam in FAMILY_ORDER:
            r = e["rules"][str(fam)]
            kind = ("native+adapter" if r["candidates"] and r["adapter"] else
                    "native" if r["candidates"] else "adapter" if r["adapter"] else "missing")
            counts[fam][kind] += 1
    print("%d entries; %s" % (len(entries), "; ".join(
        "%d: %s" % (fam, ", ".join("%s %d" % kv for kv in counts[fam].items()))
        for fam in FAMILY_ORDER)))


if __name__ == "__main__":
    main()
