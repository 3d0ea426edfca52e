#!/usr/bin/env python3
"""Extracts the driver-API facts cudyn needs from one CUDA Toolkit include directory.

Runs the C preprocessor (gcc -E) over cuda.h, the interop/profiler headers and, where the
toolkit has it, cudaTypedefs.h in three modes (default, per-thread default stream, and
__CUDA_API_VERSION_INTERNAL, which exposes the old prototypes newer headers hide) and writes
one JSON file of facts. It also measures the struct layouts of cuda.h's types that the declarations
take (a parameter's pointee or by-value type, and their members' struct/union types, transitively),
with extract_runtime_headers.py's compiled probes (its layout_facts, over cuda.h alone): the keys
type_sizes, struct_fields, member_type_sizes, member_fields and member_types, as that script's
docstring describes them (types of the graphics-interop headers are left out: their probes need
those APIs' headers). The runtime-to-driver conversions of generate_runtime.py read them.
Only `regen` needs the headers; the merge step (generate.py) works from
the JSON files checked in under inputs/headers/, so the tables can be rebuilt and verified on a
machine without any CUDA toolkit.

Usage: extract_headers.py INCLUDE_DIR OUT.json
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The layout measuring is the runtime extractor's: one definition for both header sets.
sys.path.insert(0, HERE)
from extract_runtime_headers import layout_facts, named_types  # noqa: E402

SHIM = os.path.join(HERE, "interop_shim")  # stand-ins for GL/EGL/VDPAU type headers

API_HEADERS = ["cuda.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h", "cudaProfiler.h"]
TYPEDEF_HEADERS = ["cudaTypedefs.h", "cudaGLTypedefs.h", "cudaEGLTypedefs.h",
                   "cudaVDPAUTypedefs.h", "cudaProfilerTypedefs.h"]
MODES = {
    "default": [],
    "ptds": ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
    "internal": ["-D__CUDA_API_VERSION_INTERNAL"],
}

DECL_RE = re.compile(
    r"(?:^|[;}\n])\s*(?:extern\s+)?(?:__attribute__\(\([^)]*\)\)\s*)*CUresult\s+"
    r"(?:__attribute__\(\([^)]*\)\)\s*)*(cu\w+)\s*\(([^;{]*?)\)\s*(?:__attribute__\(\([^)]*\)\)\s*)*;")
PFN_RE = re.compile(
    r"typedef\s+CUresult\s*\(\s*\*\s*PFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\s*\)\s*\(([^;]*?)\)\s*;")
MAP_RE = re.compile(r"^@@(MAP|PFN)\s+(\S+)\s+(\S+)\s*$", re.M)


def base_of(symbol):
    """cuMemcpyHtoD_v2_ptds -> cuMemcpyHtoD."""
    s = re.sub(r"_(ptds|ptsz)$", "", symbol)
    return re.sub(r"_v\d+$", "", s)


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


def preprocess(include_dir, headers, mode_flags, extra=""):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            for h in headers:
                f.write("#include <%s>\n" % h)
            f.write(extra)
        out = subprocess.run(
            ["gcc", "-E", "-P", "-I", SHIM, "-I", include_dir] + mode_flags + [src],
            check=True, capture_output=True, text=True)
        return out.stdout


def cuda_version(include_dir):
    text = open(os.path.join(include_dir, "cuda.h")).read()
    return int(re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text).group(1))


def result_codes(include_dir):
    """CUresult enumerators with the doc comment that precedes each one in cuda.h."""
    text = open(os.path.join(include_dir, "cuda.h")).read()
    body = re.search(r"typedef enum cudaError_enum \{(.*?)\}\s*CUresult;", text, re.S).group(1)
    codes = []
    for m in re.finditer(r"/\*\*(.*?)\*/\s*(CUDA_\w+)\s*=\s*(\d+)", body, re.S):
        doc = re.sub(r"^\s*\*\s?", "", m.group(1), flags=re.M)
        doc = re.sub(r"\\p\s+|::|\\ref\s+|\\note\s+", "", doc)
        codes.append({"name": m.group(2), "value": int(m.group(3)), "doc": squash(doc)})
    return codes


def extract(include_dir):
    present_api = [h for h in API_HEADERS if os.path.exists(os.path.join(include_dir, h))]
    present_td = [h for h in TYPEDEF_HEADERS if os.path.exists(os.path.join(include_dir, h))]
    facts = {"cuda_version": cuda_version(include_dir), "headers": present_api + present_td,
             "decls": {}, "pfn": {}, "map": {}, "pfn_map": {}}
    decls, pfns = facts["decls"], facts["pfn"]
    for mode, flags in MODES.items():
        text = preprocess(include_dir, present_api + present_td, flags)
        for m in DECL_RE.finditer(text):
            sym, params = m.group(1), squash(m.group(2))
            if decls.setdefault(sym, params) != params and mode != "internal":
                # Internal mode re-declares names with their oldest prototype; prefer what the
                # public modes say, record nothing else.
                decls[sym] = params
        for m in PFN_RE.finditer(text):
            name = "%s_v%s%s" % (m.group(1), m.group(2), m.group(3) or "")
            pfns[name] = {"base": m.group(1), "version": int(m.group(2)),
                          "stream": (m.group(3) or "_legacy")[1:], "params": squash(m.group(4))}
    bases = sorted({base_of(s) for s in decls} | {p["base"] for p in pfns.values()})
    # Index-keyed probe lines: the base name itself may be a macro, so only the second field
    # is allowed to expand.
    probe = "".join("@@MAP %d %s\n@@PFN %d PFN_%s\n" % (i, b, i, b) for i, b in enumerate(bases))
    for mode, flags in MODES.items():
        text = preprocess(include_dir, present_api + present_td, flags, probe)
        facts["map"][mode] = {}
        facts["pfn_map"][mode] = {}
        for kind, index, target in MAP_RE.findall(text):
            base = bases[int(index)]
            if kind == "MAP":
                facts["map"][mode][base] = target
            elif target.startswith("PFN_") and target != "PFN_" + base:
                facts["pfn_map"][mode][base] = target[len("PFN_"):]
    facts["results"] = result_codes(include_dir)
    types = set()
    for params in decls.values():
        types |= named_types(params)
    facts.update(layout_facts(include_dir, preprocess(include_dir, ["cuda.h"], []), types,
                              "#include <cuda.h>\n"))
    return facts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    facts = extract(sys.argv[1])
    with open(sys.argv[2], "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
