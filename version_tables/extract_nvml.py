#!/usr/bin/env python3
"""The NVML (libnvidia-ml.so.1) facts cudyn needs, read from the real libraries and headers.

Inputs written (checked in under version_tables/inputs/; generate_nvml.py reads them):
  nvml_exports/<branch>.txt        every defined dynamic FUNC symbol (GLOBAL/WEAK) of that branch's
                                   real libnvidia-ml.so.1, sorted, one a line (readelf --dyn-syms)
  nvml_headers/nvml-<cuda>.json    from libnvidia-ml-dev <cuda>'s nvml.h (gcc -E -P, C mode):
      nvml_api_version  NVML_API_VERSION
      functions         symbol -> {"ret", "params" (as written, squashed), "param_names",
                        "param_types" (normalised), "abi" (param_types and ret with every typedef of
                        a struct/union and every typedef alias resolved: equal "abi" = same ABI)},
                        read with -DNVML_NO_UNVERSIONED_FUNC_DEFS, so that the legacy prototypes
                        (nvmlInit, nvmlDeviceGetComputeRunningProcesses, ...) are declared under
                        their real symbol names
      unversioned_map   name -> what a program built against the header without that macro calls
                        instead (the header's `#define nvmlInit nvmlInit_v2` block; a few rename
                        types or functions: nvmlGetBlacklistDeviceCount -> nvmlGetExcludedDeviceCount)
      return_codes      NVML_SUCCESS / NVML_ERROR_* -> value (enum nvmlReturn_t)
      structs           every struct/union type a pointer parameter of a function points to, and
                        every aggregate embedded (not through a pointer) in one of those:
                        type as written -> {"canonical", "fields": [{"name", "type"}]}. An older
                        header's are the layouts its own variants filled (the 11.2 header's
                        nvmlGridLicensableFeatures_t is the one nvmlDeviceGetGridLicensableFeatures_v3
                        fills, which the newest header declares with the _v4 layout)
  nvml_error_strings/<branch>.tsv  `code<TAB>string`: nvmlErrorString(code) of that branch's real
                                   library (called through ctypes in a child process; NVML answers
                                   it without nvmlInit) for every nvmlReturn_t value of the newest
                                   header and the undefined codes of PROBE_CODES

Usage:
  extract_nvml.py exports LIBRARY                  > nvml_exports/<branch>.txt
  extract_nvml.py header NVML_H                    > nvml_headers/nvml-<cuda>.json
  extract_nvml.py errors LIBRARY NEWEST_NVML_H     > nvml_error_strings/<branch>.tsv
  extract_nvml.py regen [--cache DIR]              rewrite every input from the deps cache
                                                   (default $CUDYN_DEPS or /var/cache/cudyn-deps),
                                                   then version_tables/nvml_api_table.tsv
                                                   (generate_nvml.py --tsv)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_runtime_headers as erh  # noqa: E402

# Codes nvmlErrorString is asked about besides the newest header's nvmlReturn_t values: undefined
# ones just past the defined range, and far away (0xFFFFFFFF: -1 as the unsigned enum).
PROBE_CODES = list(range(29, 41)) + [100, 998, 999, 1000, 0xFFFFFFFF]


def version_of(symbol):
    """nvmlInit -> ("nvmlInit", 1); nvmlInit_v2 -> ("nvmlInit", 2)."""
    m = re.match(r"^(.*)_v(\d+)$", symbol)
    return (m.group(1), int(m.group(2))) if m else (symbol, 1)


# ------------------------------------------------------------------------------------------------
# Exports
# ------------------------------------------------------------------------------------------------
def exports(path):
    out = subprocess.run(["readelf", "--dyn-syms", "--wide", path], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "FUNC" or f[4] not in ("GLOBAL", "WEAK") or f[6] == "UND":
            continue
        names.add(f[7].split("@")[0])
    return sorted(names)


def exports_text(path):
    return "".join(n + "\n" for n in exports(path))


# ------------------------------------------------------------------------------------------------
# Header
# ------------------------------------------------------------------------------------------------
def _gcc(header, flags):
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.abspath(header), os.path.join(tmp, "nvml.h"))
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            f.write("#include <nvml.h>\n")
        return subprocess.run(["gcc", "-I", tmp] + flags + [src], check=True,
                              capture_output=True, text=True).stdout


def _macros(header, flags):
    out = {}
    for line in _gcc(header, ["-E", "-dM"] + flags).splitlines():
        m = re.match(r"#define (\w+) (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


TYPEDEF_RE = re.compile(r"\btypedef\s+((?:const\s+|unsigned\s+|signed\s+|struct\s+|union\s+|enum\s+)*\w+"
                        r"(?:\s*\*)*)\s*(\w+)\s*;")


def _typedefs(text):
    """name -> what it stands for: "struct tag"/"union tag" for a typedef of a tagged aggregate
    (a typedef of an untagged one names itself: "struct <first typedef name>"), the aliased type
    for `typedef X Y;`."""
    out = {}
    for m in erh.AGGREGATE_RE.finditer(text):
        if not m.group(1):
            continue
        close = erh._matching(text, m.end() - 1)
        tail = text[close:text.index(";", close)]
        names = [erh.squash(d) for d in erh._split_top(re.sub(erh.ATTR, " ", tail), ",")]
        names = [n for n in names if re.match(r"\w+$", n)]
        if not names:
            continue
        tag = "%s %s" % (m.group(2), m.group(3) or names[0])
        for n in names:
            out[n] = tag
    for m in erh.TYPEDEF_TAG_RE.finditer(text):
        out.setdefault(m.group(3), "%s %s" % (m.group(1), m.group(2)))
    for m in TYPEDEF_RE.finditer(text):
        out.setdefault(m.group(2), erh.squash(m.group(1)))
    return out


def _canonical(typ, typedefs):
    """A normalised parameter type with typedef names resolved (repeatedly)."""
    for _ in range(10):
        new = re.sub(r"\b\w+\b", lambda m: typedefs.get(m.group(0), m.group(0))
                     if m.group(0) in typedefs and not typedefs[m.group(0)].endswith(" " + m.group(0))
                     else m.group(0), typ)
        new = re.sub(r"\s*\*\s*", "*", erh.squash(new))
        if new == typ:
            break
        typ = new
    return typ


def _fields(body):
    """[{"name", "type"}] of an aggregate's top-level members (a nested aggregate's type is its
    squashed text; an anonymous one contributes its own members)."""
    out = []
    for decl in erh._split_top(body, ";"):
        decl = erh.squash(re.sub(erh.ATTR, " ", decl))
        if not decl:
            continue
        if "{" in decl:
            open_at = decl.index("{")
            close = erh._matching(decl, open_at)
            tail = decl[close:].strip()
            if not tail:
                out.extend(_fields(decl[open_at + 1:close - 1]))
                continue
            base, declarators = erh.squash(decl[:close]), erh._split_top(tail, ",")
        else:
            parts = erh._split_top(decl, ",")
            first = parts[0].strip()
            m = re.match(r"^(.*?)([\s*]+)(\w+)\s*((?:\[[^\]]*\]\s*)*)(:\s*\d+)?$", first)
            if "(" in first or not m:
                out.append({"name": None, "type": decl})
                continue
            base = erh.squash(m.group(1))
            declarators = [m.group(2).replace(" ", "") + m.group(3) + m.group(4) + (m.group(5) or "")] + parts[1:]
        for d in declarators:
            d = d.strip()
            m = re.match(r"^(\**)\s*(\w+)\s*((?:\[[^\]]*\]\s*)*)(:\s*\d+)?$", d)
            if not m:
                out.append({"name": None, "type": base + " " + d})
                continue
            t = base + m.group(1) + re.sub(r"\s+", "", m.group(3)) + (
                " " + m.group(4).replace(" ", "") if m.group(4) else "")
            out.append({"name": m.group(2), "type": re.sub(r"\s*\*", "*", t)})
    return out


def _enum_values(text, name):
    m = re.search(r"typedef\s+enum\s+\w*\s*\{([^}]*)\}\s*" + name + r"\s*;", text)
    if not m:
        sys.exit("extract_nvml.py: no enum %s" % name)
    values, nxt = {}, 0
    for item in m.group(1).split(","):
        item = erh.squash(item)
        if not item:
            continue
        if "=" in item:
            k, v = [x.strip() for x in item.split("=", 1)]
            v = re.sub(r"(?<=\d)[uUlL]+\b", "", v)
            nxt = int(eval(v, {"__builtins__": {}}, dict(values)))  # literals and earlier names only
        else:
            k = item
        values[k] = nxt
        nxt += 1
    return values


def header_facts(header):
    text = _gcc(header, ["-E", "-P", "-DNVML_NO_UNVERSIONED_FUNC_DEFS"])
    plain = _macros(header, [])
    guarded = _macros(header, ["-DNVML_NO_UNVERSIONED_FUNC_DEFS"])
    typedefs = _typedefs(text)
    functions = {}
    for sym, d in erh.declarations(text, erh.decl_re("nvml", False), header).items():
        types, names = [], []
        for p in erh.split_params(d["params"]):
            t, n, _ = erh.parse_param(p)
            types.append(t)
            names.append(n)
        ret = re.sub(r"\s*\*", "*", d["ret"])
        functions[sym] = {
            "ret": ret,
            "params": d["params"] if d["params"] != "void" else "",
            "param_types": types,
            "param_names": names,
            "abi": [_canonical(ret, typedefs)] + [_canonical(t, typedefs) for t in types],
        }
    unversioned = {k: v for k, v in plain.items()
                   if k not in guarded and k.startswith("nvml") and re.match(r"nvml\w+$", v)}
    bodies = erh.aggregate_bodies(text)
    structs = {}

    def record(base):
        base = erh.squash(base)
        canon = _canonical(base, typedefs)
        key = base if base in bodies else canon
        if key not in bodies or base in structs:
            return
        structs[base] = {"canonical": canon, "fields": _fields(bodies[key])}
        for f in structs[base]["fields"]:  # an embedded aggregate's layout is part of this one's
            if f["name"] and "*" not in f["type"]:
                record(re.sub(r"\s*(\[.*|:.*)$", "", f["type"]))

    for sym in sorted(functions):
        for t in functions[sym]["param_types"]:
            if t.endswith("*"):
                record(re.sub(r"\b(const|volatile)\b|\*", " ", t))
    return {
        "nvml_api_version": int(guarded.get("NVML_API_VERSION", "0")),
        "functions": functions,
        "unversioned_map": unversioned,
        "return_codes": _enum_values(text, "nvmlReturn_t"),
        "structs": structs,
    }


def header_text(header):
    return json.dumps(header_facts(header), indent=1, sort_keys=True) + "\n"


# ------------------------------------------------------------------------------------------------
# Error strings
# ------------------------------------------------------------------------------------------------
CHILD = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.nvmlErrorString.restype = ctypes.c_char_p
lib.nvmlErrorString.argtypes = [ctypes.c_uint]
for c in sys.argv[2:]:
    s = lib.nvmlErrorString(int(c))
    print("%s\t%s" % (c, "(null)" if s is None else s.decode("utf-8", "backslashreplace")
                      .replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")))
"""


def probe_codes(newest_header_facts):
    return sorted(set(newest_header_facts["return_codes"].values()) | set(PROBE_CODES),
                  key=lambda c: c & 0xFFFFFFFF)


def error_strings_text(library, codes):
    codes = [str(c & 0xFFFFFFFF) for c in codes]
    return subprocess.run([sys.executable, "-c", CHILD, os.path.abspath(library)] + codes,
                          check=True, capture_output=True, text=True).stdout


# ------------------------------------------------------------------------------------------------
# The lists of third_party/nvidia_drivers.bzl (Starlark that is Python too).
# ------------------------------------------------------------------------------------------------
def read_bzl(path):
    scope = {}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), scope)  # noqa: S102 (our own file)
    return scope["REAL_NVML"], scope["NVML_HEADERS"]


def regen(cache):
    real, headers = read_bzl(os.path.join(HERE, "..", "third_party", "nvidia_drivers.bzl"))
    inputs = os.path.join(HERE, "inputs")
    for d in ["nvml_exports", "nvml_headers", "nvml_error_strings"]:
        os.makedirs(os.path.join(inputs, d), exist_ok=True)
    newest = max(headers, key=lambda v: tuple(int(x) for x in v.split(".")))
    newest_facts = None
    for v in headers:
        h = os.path.join(cache, "nvml-headers", v, "nvml.h")
        facts = header_facts(h)
        if v == newest:
            newest_facts = facts
        with open(os.path.join(inputs, "nvml_headers", "nvml-%s.json" % v), "w") as f:
            f.write(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    codes = probe_codes(newest_facts)
    for b in real:
        lib = os.path.join(cache, "nvml", b, "libnvidia-ml.so.1")
        with open(os.path.join(inputs, "nvml_exports", b + ".txt"), "w") as f:
            f.write(exports_text(lib))
        with open(os.path.join(inputs, "nvml_error_strings", b + ".tsv"), "w") as f:
            f.write(error_strings_text(lib, codes))
    subprocess.run([sys.executable, os.path.join(HERE, "generate_nvml.py"), "--inputs", inputs,
                    "--newest-header", newest] +
                   [a for b, e in real.items() for a in ("--branch", "%s=%d" % (b, e[0]))] +
                   ["--tsv", os.path.join(HERE, "nvml_api_table.tsv")], check=True)


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "exports":
        sys.stdout.write(exports_text(a[1]))
    elif len(a) == 2 and a[0] == "header":
        sys.stdout.write(header_text(a[1]))
    elif len(a) == 3 and a[0] == "errors":
        sys.stdout.write(error_strings_text(a[1], probe_codes(header_facts(a[2]))))
    elif a and a[0] == "regen" and len(a) in (1, 3) and (len(a) == 1 or a[1] == "--cache"):
        regen(a[2] if len(a) == 3 else os.environ.get("CUDYN_DEPS", "/var/cache/cudyn-deps"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
