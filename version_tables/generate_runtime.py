#!/usr/bin/env python3
"""Merges the checked-in runtime-API (libcudart) facts under inputs/ into the cudart table.

Inputs (all checked in):
  inputs/cudart_exports/<version>.txt     what each real runtime exports (name@@soname lines,
                                          `# soname:` header); extract_cudart_exports.py
  inputs/runtime_headers/cudart-<v>.json  facts from that version's headers; extract_runtime_headers.py
  inputs/cudart_adapters.tsv              the hand-decided adapters
  inputs/headers/cuda-<v>.json            cuda.h's facts (extract_headers.py): the struct layouts of
                                          the DRIVER_CONVERSIONS' driver types
Outputs:
  cudart_api_table.tsv                    one row per entry, checked in, rebuilt by `regen`, compared
                                          with a fresh run by //version_tables:cudart_regen_test (--out)
  generated_cudart/*.inc, *.h, *.json     X-macro lists for loader/, stubs/, tests/ (cudart_layouts.inc:
                                          the LAYOUTS the adapters convert, field by field;
                                          cudart_to_driver.inc: the DRIVER_CONVERSIONS, runtime
                                          structs into cuda.h's, from inputs/headers/cuda-*.json
                                          too) and the
                                          JSON twin for Python generators; made at build time by
                                          //version_tables:cudart_generated_files (--incs), never checked in

Rules. Entries: every cuda* function the 13.0 runtime exports that the 13.0 headers declare (the
default mode, or the per-thread mode for _ptds/_ptsz names), sorted by symbol. For every entry S and
family F (13 = 13.0; 12 = 12.4, 12.5; 11 = 11.2, 11.8; 10 = the facts of 11, no 10.x runtime being
obtainable): the candidates are the names base(S)[_vN](stream suffix of S), highest N first, that a
real runtime of F exports and declares with the parameter types of S's 13.0 prototype (names dropped,
whitespace and `*` spacing normalised, otherwise spelled exactly as written), every struct / union /
array type a parameter points to or takes by value having its 13.0 size there -- or, for a struct
whose size differs, being "appended-only" (every top-level field the older headers give it has the
same name, offset and size in 13.0; struct_fields of the JSON) and passed as `const X*`: the older
runtime reads the old prefix of the caller's 13.0 struct (a comment line in the table says so).
Any other size difference ("changed") rules the name out. Family 13: [S].
A name whose only differences are appended-only structs of which some are passed as `X*` (outputs)
is no candidate but is served, when F has no candidate, by a generated adapter ZeroTail_<symbol>
(ZeroTail_<symbol>_F<F> where families call different names): it zero-fills each non-null output
struct at its 13.0 size, then calls the first of those names present with the same arguments, so
the fields the older runtime does not write read as zero (generated_cudart/cudart_zero_tail.inc;
its ids follow the hand-decided ones in cudart_adapters.inc). A hand-decided adapter listed where
a zero-tail adapter applies is an error.
With no candidate: the adapter of cudart_adapters.tsv where the row lists the family, else missing
(why). A listed adapter and candidates together keep both on family 12 (candidates first, the
adapter for the 12.0-12.3 minors that lack them: the facts start at 12.4) and on 10/11 where some
runtime of the family exports no candidate (11.2 lacks what 11.8 has); on 10/11 otherwise that is
an error.

Other libraries (--library NAME, described in LIBRARIES below: NVRTC, cuBLAS, cuRAND, cuFFT,
nvJitLink, cuSPARSE, cuSOLVER, cuBLASLt) have no families and no
adapters: one rule per entry and real version. Entries: every <prefix>* function the newest version
exports and its header declares. For entry S and version V the candidates are the names base(S)
[_vN], highest N first, that V exports and V's header declares with S's return and parameter types
(version-named variants bound natively where present); none: missing, with why (not exported by
V, or declared otherwise there). Outputs <name>_api_table.tsv (checked in) and generated_<name>/
(<name>_entries.inc, <name>_rules.inc, <name>_versions.inc, <name>_entry_count.h).

Usage: generate_runtime.py [--library NAME] [--inputs DIR] [--out DIR] [--incs DIR]
  (--out defaults to this directory when --incs is not given)
"""
import argparse
import json
import os
import re
import sys

# The prototype reading rules are the extractor's own: one definition for both steps.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "third_party"))
from extract_runtime_headers import parse_param, split_params, squash  # noqa: E402
import homes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# The runtimes with facts (third_party/cuda_runtimes.bzl: the packaged ones and the toolkit's).
VERSIONS = homes.runtimes()["CUDA_RUNTIME_FACT_VERSIONS"]
_FAMILY_OF = {v: int(v.split(".")[0]) for v in VERSIONS}
# No 10.x runtime is obtainable: family 10 is judged on the facts of family 11.
FAMILIES = {f: [v for v in VERSIONS if _FAMILY_OF[v] == f] for f in sorted(set(_FAMILY_OF.values()))}
FAMILIES = dict(sorted({10: FAMILIES[11], **FAMILIES}.items()))
FAMILY_ORDER = list(FAMILIES)
# The layouts cudart_device_prop.inc describes, per family (its newest runtime), and the version pairs
# that must agree (every older runtime of the family with its newest).
DEVICE_PROP_SIZES = {13: 1008, 12: 1032, 11: 728}
DEVICE_PROP_VERSIONS = {f: FAMILIES[f][-1] for f in sorted(DEVICE_PROP_SIZES, reverse=True)}
# The struct layouts the hand-written adapters convert field by field (cudart_layouts.inc): name ->
# (the 13.0 type, {family: the type an older runtime of that family takes instead}). The fields
# and offsets come from the facts (member_fields: union members as paths, else struct_fields).
# cudaTextureDescV2: 11.6+ runtimes (11.8 here) take a `struct cudaTextureDesc_v2` (72 B, with
# seamlessCubemap) through cudaCreateTextureObject_v2; family 10/11 versions without it get
# size 0 and read through the 68-B cudaTextureDesc layout instead.
LAYOUTS = [
    ("cudaResourceDesc", "struct cudaResourceDesc",
     {12: "struct cudaResourceDesc", 11: "struct cudaResourceDesc"}),
    ("cudaResourceViewDesc", "struct cudaResourceViewDesc",
     {12: "struct cudaResourceViewDesc", 11: "struct cudaResourceViewDesc"}),
    ("cudaTextureDesc", "struct cudaTextureDesc",
     {12: "struct cudaTextureDesc", 11: "struct cudaTextureDesc"}),
    ("cudaTextureDescV2", "struct cudaTextureDesc", {11: "struct cudaTextureDesc_v2"}),
] + [
    # The composed cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams: each
    # 13.0 union member of cudaGraphNodeParams (a ...V2 struct: member_type_sizes of the facts)
    # converted into the typed struct the older runtime's typed node call takes.
    (v2, "struct " + v2, {12: "struct " + typed, 11: "struct " + typed})
    for v2, typed in (("cudaKernelNodeParamsV2", "cudaKernelNodeParams"),
                      ("cudaMemsetParamsV2", "cudaMemsetParams"),
                      ("cudaHostNodeParamsV2", "cudaHostNodeParams"),
                      ("cudaExternalSemaphoreSignalNodeParamsV2",
                       "cudaExternalSemaphoreSignalNodeParams"),
                      ("cudaExternalSemaphoreWaitNodeParamsV2",
                       "cudaExternalSemaphoreWaitNodeParams"),
                      ("cudaMemAllocNodeParamsV2", "cudaMemAllocNodeParams"))
] + [
    # Structs those typed calls take as the caller passes them (a memcpy node's copyParams, the
    # external semaphore nodes' paramsArray): loader/cudart_adapters.cc asserts each field has its
    # 13.0 offset in every older family.
    (name, "struct " + name, {12: "struct " + name, 11: "struct " + name})
    for name in ("cudaMemcpy3DParms", "cudaExternalSemaphoreSignalParams",
                 "cudaExternalSemaphoreWaitParams")
]
# Fields of a layout the older runtime writes (out parameters): copied back into the caller's
# 13.0 struct after the call (cudaMemAllocNodeParams.dptr: "out: address of the allocation").
LAYOUT_OUTPUTS = {"cudaMemAllocNodeParamsV2": {"dptr"}}
LAYOUT_FAMILIES = (12, 11)
SAME_LAYOUT = [(v, FAMILIES[f][-1]) for f in LAYOUT_FAMILIES for v in FAMILIES[f][:-1]]

# The runtime structs the adapters hand to the driver (cudart_to_driver.inc): name -> (the 13.0
# runtime type, the cuda.h type, [(runtime path, driver path, relation)]). The field pairs by name
# are the knowledge (the runtime documents each field as the driver's of that meaning); offsets and
# sizes come from the facts (runtime_headers/cudart-13.0.json, headers/cuda-13.0.json), a path
# through a by-value struct member ("gridDim.x") by member_types. Relations: SAME (equal sizes,
# copied as they are: handles, pointers and enums the adapters assert equal) or NARROW (an unsigned
# integer the driver holds in fewer bytes, truncated as the 13.0 runtime does). Driver fields no
# row names stay zero, or the code sets them (CUgraphNodeParams.conditional.ctx).
SAME, NARROW = "same", "narrow"
DRIVER_CONVERSIONS = [
    # cudaLaunchKernelExC served by cuLaunchKernelEx (the runtime's cudaLaunchConfig_t).
    ("LaunchConfig", "cudaLaunchConfig_t", "CUlaunchConfig", [
        ("gridDim.x", "gridDimX", SAME), ("gridDim.y", "gridDimY", SAME),
        ("gridDim.z", "gridDimZ", SAME), ("blockDim.x", "blockDimX", SAME),
        ("blockDim.y", "blockDimY", SAME), ("blockDim.z", "blockDimZ", SAME),
        ("dynamicSmemBytes", "sharedMemBytes", NARROW), ("stream", "hStream", SAME),
        ("attrs", "attrs", SAME), ("numAttrs", "numAttrs", SAME)]),
    # A conditional node's parameters for cuGraphAddNode / cuGraph(Exec)NodeSetParams.
    ("ConditionalNodeParams", "struct cudaGraphNodeParams", "CUgraphNodeParams", [
        ("type", "type", SAME), ("conditional.handle", "conditional.handle", SAME),
        ("conditional.type", "conditional.type", SAME),
        ("conditional.size", "conditional.size", SAME),
        ("conditional.phGraph_out", "conditional.phGraph_out", SAME)]),
]


# Libraries bound by exact name only (--library): name -> how their facts are found and named.
#   prefix: their functions' prefix; versions: the real versions with facts, oldest first
#   (inputs/<name>_exports/<v>.txt from extract_cudart_exports.py, inputs/<name>_headers/<name>-<v>.json
#   from extract_runtime_headers.py --library <name>); macro: the X-macro prefix of the includes;
#   count: the C++ constant of the entry count.
LIBRARIES = {
    "nvrtc": {"prefix": "nvrtc", "versions": homes.library_fact_versions("nvrtc"),
              "macro": "CUDYN_NVRTC", "count": "kNvrtcEntryCount",
              "title": "NVRTC (libnvrtc): one row per nvrtc* function the 13.0 NVRTC exports and "
                       "the 13.0 nvrtc.h declares"},
    "cublas": {"prefix": "cublas", "versions": homes.library_fact_versions("cublas"),
               "macro": "CUDYN_CUBLAS", "count": "kCublasEntryCount",
               "title": "cuBLAS (libcublas): one row per cublas* function the 13.0 cuBLAS exports and "
                        "the 13.0 cublas_v2.h declares"},
}
# The libraries of CUDA_LIBS (third_party/cuda_runtimes.bzl). Their export lists also carry
# "# library_version:", "# needed:" and "# cuda_runtime:" (extract_cudart_exports.py --library), which
# <name>_versions.inc carries too. release_named: a regular expression for symbols named for a
# release (group 1 the function, e.g. __nvJitLinkCreate_12_4): on each version the candidates of an
# entry are the release-named symbols of its function that version exports and its header declares
# with the entry's types (newest release first), then the plain function name where exported, with
# the prototype of that version's release-named declaration (the header's inline wrapper forwards
# to it).
_NEW = [
    ("curand", "curand", homes.library_fact_versions("curand"), "cuRAND (libcurand)", "curand.h"),
    ("cufft", "cufft", homes.library_fact_versions("cufft"), "cuFFT (libcufft)", "cufft.h and cufftXt.h"),
    ("nvjitlink", "nvJitLink", homes.library_fact_versions("nvjitlink"), "nvJitLink (libnvJitLink)", "nvJitLink.h"),
    ("cusparse", "cusparse", homes.library_fact_versions("cusparse"), "cuSPARSE (libcusparse)", "cusparse.h"),
    ("cusolver", "cusolver", homes.library_fact_versions("cusolver"), "cuSOLVER (libcusolver)",
     "cusolver_common.h, cusolverDn.h, cusolverSp.h and cusolverRf.h"),
    ("cublaslt", "cublasLt", homes.library_fact_versions("cublaslt"), "cuBLASLt (libcublasLt)", "cublasLt.h"),
]
for _name, _prefix, _versions, _what, _headers in _NEW:
    LIBRARIES[_name] = {
        "prefix": _prefix, "versions": _versions, "macro": "CUDYN_" + _name.upper(),
        "count": "k%s%sEntryCount" % (_prefix[0].upper(), _prefix[1:]), "release_facts": True,
        "title": "%s: one row per %s* function the 13.0 %s exports and the 13.0 %s declares%s" % (
            _what, _prefix, _what.split(" ")[0], _headers, "" if _name != "nvjitlink" else
            " (by its release-named symbol, __nvJitLinkCreate_13_0)"),
    }
LIBRARIES["nvjitlink"]["release_named"] = r"^__(nvJitLink\w+)_\d+_\d+$"


class TableError(Exception):
    pass


def version_number(v):
    major, minor = v.split(".")
    return int(major) * 1000 + int(minor) * 10


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


def param_types(params):
    return [parse_param(p)[0] for p in split_params(params)]


def abi_type(ty, pointer_typedefs):
    """A parameter or return type as binding a library compares it: the release's pointer typedefs
    resolved (its header facts) and every const dropped, since a qualifier changes no register or
    stack slot (13.0 nvJitLinkCreate takes `const char *const *`, 12.x `const char **`; cuSPARSE
    12.1+ declares `cusparseConstSpMatDescr_t`, a `struct cusparseSpMatDescr const *`, where 11.x
    has `cusparseSpMatDescr_t`, a `struct cusparseSpMatDescr *`)."""
    ty = re.sub(r"\b\w+\b", lambda m: pointer_typedefs.get(m.group(0), m.group(0)), ty)
    ty = re.sub(r"\bconst\b", " ", ty)
    return re.sub(r"\s*\*\s*", "*", re.sub(r"\s+", " ", ty)).strip()


def param_bases(params):
    return [parse_param(p)[2] for p in split_params(params) if parse_param(p)[2]]


def read_exports(directory, versions=VERSIONS):
    """{version: (soname, [names])}."""
    runtimes = {}
    for v in versions:
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


def read_served(path):
    """inputs/cudart_served.tsv: the entries served from the driver, per family."""
    rows = []
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "symbol":
            continue
        if len(cols) != 5 or cols[3] not in ("context", "driver"):
            raise TableError("%s: bad row %r" % (path, line))
        rows.append({"symbol": cols[0], "families": [int(x) for x in cols[1].split(",")],
                     "driver": cols[2], "init": cols[3], "why": cols[4]})
    return rows


def read_driver_prototypes(path):
    """{cu symbol: prototype} from the driver table (cuda_api_table.tsv)."""
    out = {}
    head = None
    for line in open(path):
        if line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if head is None:
            head = cols
            continue
        out[cols[0]] = cols[head.index("prototype")]
    return out


def declaration(facts, symbol):
    """The declaration of `symbol` in one version's headers, or None."""
    d = facts["decls"]["default"].get(symbol)
    if d is None and split_symbol(symbol)[2] != "legacy":
        d = facts["decls"]["ptds"].get(symbol)
    return d


def appended_only(base, facts, facts13):
    """True when 13.0's `base` only appended fields to this version's: it is larger, and every
    field this version has (struct_fields: top-level name, offset, size) 13.0 has with the same
    name, offset and size. A layout either side could not read counts as changed."""
    old = facts.get("struct_fields", {}).get(base)
    new = facts13.get("struct_fields", {}).get(base)
    there, here = facts["type_sizes"].get(base), facts13["type_sizes"].get(base)
    if not old or not new or there is None or here is None or there >= here:
        return False
    new_by_name = {f["name"]: f for f in new}
    return all(f["name"] in new_by_name and
               (new_by_name[f["name"]]["offset"], new_by_name[f["name"]]["size"]) ==
               (f["offset"], f["size"]) for f in old)


def size_mismatches(params, facts, facts13):
    """[(type, size there, size in 13.0, how)] for the parameters' struct types whose size
    differs, one per parameter; how: "input" (an appended-only struct passed as `const X*`: the
    older runtime reads the old prefix), "output" (appended-only, passed as `X*`: it writes the old
    prefix), "changed" (anything else: another layout, or passed otherwise)."""
    out = []
    for p in split_params(params):
        typ, _, base = parse_param(p)
        if not base or base not in facts13["type_sizes"]:
            continue
        there = facts["type_sizes"].get(base)
        if there == facts13["type_sizes"][base]:
            continue
        how = "changed"
        if appended_only(base, facts, facts13):
            if typ == "const %s*" % base:
                how = "input"
            elif typ == "%s*" % base:
                how = "output"
        out.append((base, there, facts13["type_sizes"][base], how))
    return out


def describe_mismatch(ty, there, here, how):
    text = "%s is %s B (13.0: %d B" % (ty, there if there is not None else "?", here)
    if how == "changed":
        return text + ")"
    return text + ", fields appended; %s)" % ("read" if how == "input" else "written")


def describe_args(args):
    """{arg: [(type, size there, size in 13.0, version)]} -> 'attributes (struct X: 24 B there,
    88 B in 13.0)'."""
    return ", ".join("%s (%s: %s B there, %d B in 13.0)" % (
        arg, fo[0][0], "/".join(sorted({str(x[1]) for x in fo})), fo[0][2])
        for arg, fo in args.items())


def leaf_fields(facts, ty):
    """The fields of `ty` a conversion copies: the leaves (member_fields) where the facts have
    them, else the top-level fields; None when the facts cannot read the type."""
    return facts.get("member_fields", {}).get(ty) or facts.get("struct_fields", {}).get(ty)


def type_size(facts, ty):
    """sizeof `ty` in these facts (a parameter's type, or a member's: member_type_sizes);
    None where they lack it."""
    size = facts["type_sizes"].get(ty)
    return size if size is not None else facts.get("member_type_sizes", {}).get(ty)


def layouts(facts):
    """[{"name", "sizes": {13: B, 12: B, 11: B}, "fields": [(path, off13, size, {fam: off},
    {fam: must be zero}, written back)]}] for LAYOUTS (written back: LAYOUT_OUTPUTS). Per family,
    the versions of the facts that declare the older type must agree on its fields. A 13.0 field
    the family lacks (absent, or of another size) has offset -1 there; it must be zero in a
    caller's struct (else the older runtime cannot express it) unless it overlaps a field the
    family has: then it is another member of a union whose carried member the discriminant
    selects, and its extra bytes are the union's spare room. A field the older layout has and 13.0
    lacks is an error (the conversion would lose it)."""
    out = []
    for name, ty13, older in LAYOUTS:
        new = leaf_fields(facts["13.0"], ty13)
        if not new:
            raise TableError("layout %s: the 13.0 facts cannot read %s" % (name, ty13))
        sizes, offs, zero = {13: type_size(facts["13.0"], ty13)}, {}, {}
        for fam in LAYOUT_FAMILIES:
            ty = older.get(fam)
            have = [v for v in FAMILIES[fam] if ty and type_size(facts[v], ty) is not None]
            sizes[fam] = type_size(facts[have[0]], ty) if have else 0
            old = leaf_fields(facts[have[0]], ty) if have else []
            for v in have[1:]:
                if leaf_fields(facts[v], ty) != old or type_size(facts[v], ty) != sizes[fam]:
                    raise TableError("layout %s: %s differs between %s and %s" % (
                        name, ty, have[0], v))
            if have and not old:
                raise TableError("layout %s: the %s facts cannot read %s" % (name, have[0], ty))
            by_name = {f["name"]: f for f in old}
            new_names = {f["name"] for f in new}
            lost = [f["name"] for f in old if f["name"] not in new_names]
            if lost:
                raise TableError("layout %s: %s of %s has %s, which 13.0 lacks" % (
                    name, ty, have[0], lost))
            offs[fam] = {}
            for f in new:
                o = by_name.get(f["name"])
                offs[fam][f["name"]] = o["offset"] if o and o["size"] == f["size"] else -1
            kept = [f for f in new if offs[fam][f["name"]] >= 0]
            zero[fam] = {f["name"]: int(bool(have) and offs[fam][f["name"]] < 0 and not any(
                k["offset"] < f["offset"] + f["size"] and f["offset"] < k["offset"] + k["size"]
                for k in kept)) for f in new}
        outputs = LAYOUT_OUTPUTS.get(name, set())
        unknown = outputs - {f["name"] for f in new}
        if unknown:
            raise TableError("layout %s: no output field %s in 13.0" % (name, sorted(unknown)))
        out.append({"name": name, "sizes": sizes, "fields": [
            (f["name"], f["offset"], f["size"], {fam: offs[fam][f["name"]] for fam in offs},
             {fam: zero[fam][f["name"]] for fam in zero}, int(f["name"] in outputs))
            for f in new]})
    return out


def field_at(facts, ty, path, where):
    """(offset, size) of `path` in `ty` by the facts: struct_fields per component, the type of a
    by-value struct member from member_types. TableError when a component does not exist."""
    offset = 0
    parts = path.split(".")
    for k, part in enumerate(parts):
        fields = {f["name"]: f for f in facts.get("struct_fields", {}).get(ty, [])}
        if part not in fields:
            raise TableError("%s: %s has no field %s (%s)" % (where, ty, part, path))
        offset += fields[part]["offset"]
        if k + 1 < len(parts):
            inner = facts.get("member_types", {}).get(ty, {}).get(part)
            if inner is None:
                raise TableError("%s: %s.%s is no struct member the facts measure (%s)" % (
                    where, ty, part, path))
            ty = inner
    return offset, fields[part]["size"]


def struct_size(facts, ty):
    return facts.get("type_sizes", {}).get(ty) or facts.get("member_type_sizes", {}).get(ty)


def driver_conversions(facts, driver_facts, conversions=None):
    """[{"name", "runtime", "runtime_size", "driver", "driver_size", "fields": [(runtime path,
    offset, size, driver path, offset, size, narrow)]}] for `conversions` (DRIVER_CONVERSIONS
    unless given: cudart_to_driver_test passes faulty rows), from the 13.0
    runtime and driver facts. Every driver header version that measures the driver type must give
    the named fields the same offsets and sizes (a driver of any version reads the struct), no two
    rows may write the same driver bytes, and each size relation must be the row's."""
    f13, d13 = facts["13.0"], driver_facts["13.0"]
    out = []
    for name, rt_type, drv_type, rows in (DRIVER_CONVERSIONS if conversions is None
                                          else conversions):
        where = "conversion %s" % name
        if f13.get("struct_fields", {}).get(rt_type) is None:
            raise TableError("%s: the 13.0 runtime facts do not measure %s" % (where, rt_type))
        if d13.get("struct_fields", {}).get(drv_type) is None:
            raise TableError("%s: the 13.0 driver facts do not measure %s" % (where, drv_type))
        fields, written = [], []
        for rt_path, drv_path, relation in rows:
            row = "%s: %s -> %s" % (where, rt_path, drv_path)
            r_off, r_size = field_at(f13, rt_type, rt_path, row)
            d_off, d_size = field_at(d13, drv_type, drv_path, row)
            if relation == SAME and r_size != d_size:
                raise TableError("%s: %d B -> %d B, not the same size (a narrowing must be "
                                 "declared NARROW)" % (row, r_size, d_size))
            if relation == NARROW and not (d_size < r_size and {d_size, r_size} <= {1, 2, 4, 8}):
                raise TableError("%s: %d B -> %d B is no narrowing of an integer" % (
                    row, r_size, d_size))
            if relation not in (SAME, NARROW):
                raise TableError("%s: unknown relation %r" % (row, relation))
            for v, dv in sorted(driver_facts.items()):
                if v != "13.0" and dv.get("struct_fields", {}).get(drv_type) is not None:
                    if field_at(dv, drv_type, drv_path, row) != (d_off, d_size):
                        raise TableError("%s: %s.%s differs between the 13.0 and %s cuda.h" % (
                            row, drv_type, drv_path, v))
            for other, o_off, o_size in written:
                if o_off < d_off + d_size and d_off < o_off + o_size:
                    raise TableError("%s: overlaps the row writing %s" % (row, other))
            written.append((drv_path, d_off, d_size))
            fields.append((rt_path, r_off, r_size, drv_path, d_off, d_size,
                           int(relation == NARROW)))
        out.append({"name": name, "runtime": rt_type, "runtime_size": struct_size(f13, rt_type),
                    "driver": drv_type, "driver_size": struct_size(d13, drv_type),
                    "fields": fields})
    return out


def read_driver_headers(directory):
    """{version: facts} of inputs/headers/cuda-<version>.json (extract_headers.py)."""
    out = {}
    for name in sorted(os.listdir(directory)):
        m = re.match(r"cuda-(\d+\.\d+)\.json$", name)
        if m:
            with open(os.path.join(directory, name)) as f:
                out[m.group(1)] = json.load(f)
    if "13.0" not in out:
        raise TableError("%s: no cuda-13.0.json" % directory)
    return out


def struct_verdicts(facts):
    """{type: text} for every struct type whose size some older version's headers give otherwise:
    appended (every older field at the same offset and size in 13.0) or changed, per version."""
    f13 = facts["13.0"]
    out = {}
    for ty, here in sorted(f13["type_sizes"].items()):
        parts = {}
        for v in VERSIONS[:-1]:
            there = facts[v]["type_sizes"].get(ty)
            if there is None or there == here:
                continue
            kind = "appended" if appended_only(ty, facts[v], f13) else "changed"
            parts.setdefault((there, kind), []).append(v)
        if parts:
            out[ty] = "%d B in 13.0; %s" % (here, "; ".join(
                "%d B in %s: %s" % (there, ", ".join(vs), kind)
                for (there, kind), vs in parts.items()))
    return out


def name_params(e):
    """Sets e["args"] (parameter names, aN where the header gives none) and e["params_named"]."""
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


def build(inputs):
    runtimes = read_exports(os.path.join(inputs, "cudart_exports"))
    facts = read_headers(os.path.join(inputs, "runtime_headers"))
    adapters = read_adapters(os.path.join(inputs, "cudart_adapters.tsv"))
    served = read_served(os.path.join(inputs, "cudart_served.tsv"))
    driver_protos = read_driver_prototypes(os.path.join(inputs, "..", "cuda_api_table.tsv"))
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
        name_params(e)
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
    kept_both, divergent, input_only = [], [], []
    zero_tail_adapters = {}
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
            cands, zero_tail, why = [], [], []
            outputs, inputs_note, zero_note = {}, [], []
            exported_any = False
            for n in names:
                vs = [v for v in FAMILIES[fam] if n in exports[v]]
                if not vs:
                    continue
                exported_any = True
                ok_in, verdicts = [], []
                n_outputs, n_inputs = {}, {}
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
                    if any(m[3] == "changed" for m in mism):
                        verdicts.append("%s %s: %s" % (v, n, ", ".join(
                            describe_mismatch(*m) for m in mism)))
                        continue
                    for k, p in enumerate(split_params(d["params"])):
                        typ, _, base = parse_param(p)
                        for ty, there, here, how in mism:
                            if base == ty:
                                (n_outputs if how == "output" else n_inputs).setdefault(
                                    e["args"][k], []).append((ty, there, here, v))
                    ok_in.append(v)
                if ok_in and n_outputs:
                    # Appended-only structs the older symbol writes: served by a generated
                    # ZeroTail_ adapter that zero-fills them (13.0 size) before the call.
                    zero_tail.append(n)
                    for arg, facts_of in n_outputs.items():
                        outputs.setdefault(arg, facts_of[0][:1] + facts_of[0][2:3])
                    zero_note.append("%s of %s writes %s" % (n, ",".join(ok_in),
                                                             describe_args(n_outputs)))
                    if n_inputs:
                        zero_note[-1] += ", reads " + describe_args(n_inputs)
                    why.append("%s of %s writes appended-only structs (zero-tail adapter)" % (
                        n, ",".join(ok_in)))
                elif ok_in:
                    cands.append(n)
                    if n_inputs:
                        inputs_note.append("%s of %s reads %s up to the old size" % (
                            n, ",".join(ok_in), describe_args(n_inputs)))
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
            if cands:
                zero_tail = []  # a native symbol serves the family: no zero-tail adapter
            if zero_tail and adapter:
                raise TableError("cudart_adapters.tsv lists %s for %s on family %d, but the "
                                 "family's %s only write appended-only structs (a generated "
                                 "zero-tail adapter serves it)" % (adapter, s, fam, zero_tail))
            if zero_tail:
                if e["ret"] != "cudaError_t":
                    raise TableError("%s returns %s: a zero-tail adapter returns cudaError_t" % (
                        s, e["ret"]))
                e.setdefault("zero_tail", {})[fam] = {"calls": zero_tail, "outputs": outputs,
                                                      "note": "; ".join(zero_note)}
            if cands and inputs_note:
                input_only.append((s, fam, "; ".join(inputs_note)))
            if cands and adapter:
                # Some runtime of the family exports no candidate (11.2 lacks what 11.8 has):
                # the adapter serves it there (the loader tries the candidates first).
                fallback = not all(any(c in exports[v] for c in cands) for v in FAMILIES[fam])
                if fam != 12 and not fallback:
                    # 11.x: the facts cover the family; a listed adapter that a native symbol
                    # makes pointless is a mistake in the list, not something to drop silently.
                    raise TableError("cudart_adapters.tsv lists %s for %s on family %d, but "
                                     "the family has the native %s" % (adapter, s, fam, cands))
                # 12.x: the candidates may be newer than 12.0 (the facts start at 12.4): both.
                kept_both.append((s, fam, cands, adapter))
            reason = "" if cands else "; ".join(dict.fromkeys(why))
            e["rules"][str(fam)] = {"candidates": cands, "adapter": adapter, "reason": reason}

        # Zero-tail adapters: one per entry, named ZeroTail_<symbol>, when every family it serves
        # calls the same older symbols; else one per family (ZeroTail_<symbol>_F<family>).
        zt = e.get("zero_tail", {})
        lists = {tuple(z["calls"]) for z in zt.values()}
        for fam, z in sorted(zt.items()):
            name = "ZeroTail_" + s + ("" if len(lists) == 1 else "_F%d" % fam)
            z["name"] = name
            e["rules"][str(fam)]["adapter"] = name
            zero_tail_adapters.setdefault(name, {
                "symbol": s, "index": e["index"], "calls": z["calls"], "families": [],
                "zeroes": {}, "notes": {}})
            zero_tail_adapters[name]["families"].append(fam)
            zero_tail_adapters[name]["notes"][fam] = z["note"]
            for arg, (ty, here) in z["outputs"].items():
                zero_tail_adapters[name]["zeroes"][arg] = {"type": ty, "size": here}

    # Served from the driver (inputs/cudart_served.tsv): an adapter Driver_<symbol> per entry.
    served_adapters = {}
    for row in served:
        e = by_symbol.get(row["symbol"])
        if e is None:
            raise TableError("cudart_served.tsv: %s is not an entry" % row["symbol"])
        proto = driver_protos.get(row["driver"])
        if proto is None:
            raise TableError("cudart_served.tsv: %s: the driver exports no %s" % (
                row["symbol"], row["driver"]))
        if len(split_params(proto)) != len(e["args"]):
            raise TableError("cudart_served.tsv: %s takes %d parameters, %s %d" % (
                row["symbol"], len(e["args"]), row["driver"], len(split_params(proto))))
        if e["ret"] != "cudaError_t":
            raise TableError("cudart_served.tsv: %s returns %s" % (row["symbol"], e["ret"]))
        name = "Driver_" + row["symbol"]
        if name in served_adapters:
            raise TableError("cudart_served.tsv: %s listed twice" % row["symbol"])
        for fam in row["families"]:
            if fam not in FAMILY_ORDER or fam == 13:
                raise TableError("cudart_served.tsv: %s lists family %d" % (row["symbol"], fam))
            r = e["rules"][str(fam)]
            # A family whose newer runtimes export the entry (11.8) and older ones do not (11.2):
            # the driver serves it where no candidate is present (the loader tries candidates
            # first). A row for a family where every runtime has a candidate serves nothing.
            fallback = r["candidates"] and not all(
                any(c in exports[v] for c in r["candidates"]) for v in FAMILIES[fam])
            if r["adapter"] or (r["candidates"] and not fallback):
                raise TableError("cudart_served.tsv: %s on family %d is already served (%s)" % (
                    row["symbol"], fam, bind_text(r)))
            r["adapter"] = name
            r["driver"] = row["driver"]
        served_adapters[name] = {"symbol": row["symbol"], "index": e["index"],
                                 "driver": row["driver"], "init": row["init"],
                                 "families": row["families"], "why": row["why"]}

    # What an entry no path serves answers (loader/cudart.cc: Runtime::missing_result): the oldest
    # driver that runs a runtime serving it natively, 1000 x the first family with a native symbol
    # (from 11 on any minor of a family runs on its first driver; family 10's facts are 11.x's, so
    # it never decides). Below it 35, what that runtime answers on this driver; else 801.
    for e in entries:
        first = next(f for f in (11, 12, 13) if e["rules"][str(f)]["candidates"])
        e["needs_driver"] = first * 1000

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

    # Zero-fill arguments in the entry's parameter order.
    for z in zero_tail_adapters.values():
        order = by_symbol[z["symbol"]]["args"]
        z["zeroes"] = [dict(arg=a, **z["zeroes"][a]) for a in order if a in z["zeroes"]]
    info = {"layouts": layouts(facts),
            "to_driver": driver_conversions(facts, read_driver_headers(os.path.join(inputs,
                                                                                  "headers"))),
            "left_out": left_out, "kept_both": kept_both,
            "divergent": divergent, "input_only": input_only,
            "zero_tail": zero_tail_adapters, "served": served_adapters,
            "structs": struct_verdicts(facts)}
    return entries, runtimes, markers, prop, info


def c_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def bind_text(rule):
    parts = []
    if rule["candidates"]:
        parts.append("native:" + "|".join(rule["candidates"]))
    if rule.get("driver"):
        parts.append("driver:" + rule["driver"])
    elif rule["adapter"]:
        parts.append("adapter:" + rule["adapter"])
    return "|".join(parts) if parts else "missing:" + rule["reason"]


def write_table(entries, runtimes, info, out):
    lo = info["left_out"]
    with open(os.path.join(out, "cudart_api_table.tsv"), "w") as f:
        f.write("# cudyn runtime-API table: one row per cuda* function the 13.0 runtime exports and "
                "the 13.0 headers declare. Generated by generate_runtime.py; do not edit.\n")
        f.write("# left out of the %d exported names: %d __cuda* host-stub ABI (forwarded, not "
                "entries), %d not cuda*, %d declared only by the graphics-interop headers (GL, EGL, "
                "VDPAU; they need those APIs' own headers), forwarded by name to the runtime's "
                "same-named function (cudart_forwards.inc; unchanged since 11.2: "
                "cudart_forwards_test) (%s)\n" % (
                    len(runtimes["13.0"][1]), lo["__cuda* host-stub ABI"], lo["not a cuda* name"],
                    len(lo["not declared by the 13.0 headers"]),
                    ", ".join(lo["not declared by the 13.0 headers"]) or "-"))
        f.write("# bind_F (family F runtime): native:symbols tried in order | adapter:Name (the hand-"
                "written adapter of inputs/cudart_adapters.tsv, or a generated ZeroTail_ adapter: "
                "the older symbol called with its appended-only output structs zero-filled first) | "
                "missing:why. Family 10 uses the 11.x facts (no 10.x runtime is obtainable). A "
                "struct whose size differs is appended-only when every field of the older one has "
                "the same name, offset and size in 13.0, else changed (no native match).\n")
        for d in info["divergent"]:
            f.write("# older minor declares otherwise: %s\n" % d)
        for ty, text in info["structs"].items():
            f.write("# struct size differs: %s: %s\n" % (ty, text))
        for s, fam, note in info["input_only"]:
            f.write("# appended-only struct read (input), native: %s (family %d): %s\n" % (
                s, fam, note))
        for name, z in info["zero_tail"].items():
            for fam in z["families"]:
                f.write("# appended-only struct written (output), zero-tail adapter: %s (family "
                        "%d): %s; %s calls %s after zero-filling %s to the 13.0 size\n" % (
                            z["symbol"], fam, z["notes"][fam], name, "|".join(z["calls"]),
                            ", ".join("%s (%d B)" % (x["arg"], x["size"]) for x in z["zeroes"])))
        f.write("\t".join(["symbol", "base", "stream", "ret", "first_runtime", "exported_in"] +
                          ["bind_%d" % fam for fam in FAMILY_ORDER] + ["prototype"]) + "\n")
        for e in entries:
            have = [v for v in VERSIONS if e["symbol"] in runtimes[v][1]]
            f.write("\t".join([e["symbol"], e["base"], e["stream"], e["ret"], have[0],
                               ",".join(have)] +
                              [bind_text(e["rules"][str(fam)]) for fam in FAMILY_ORDER] +
                              [e["params"]]) + "\n")


def served_text(rule, needs_driver):
    """How a family's runtime serves an entry, for CUDART_SERVED.md."""
    if rule.get("driver"):
        return "%sdriver `%s` (35 where the driver lacks it)" % (
            "native, else " if rule["candidates"] else "", rule["driver"])
    if rule["candidates"] and rule["adapter"]:
        return "native, else adapter"
    if rule["candidates"]:
        return "native"
    if rule["adapter"]:
        return "adapter (zero-tail)" if rule["adapter"].startswith("ZeroTail_") else "adapter"
    return "missing (35 below a %d.0 driver, else 801)" % (needs_driver // 1000)


def write_served_doc(entries, info, out):
    """CUDART_SERVED.md: per entry and family, how a runtime of that family serves it."""
    fams = [f for f in FAMILY_ORDER if f != 10]
    counts = {f: {} for f in fams}
    for e in entries:
        for f in fams:
            t = served_text(e["rules"][str(f)], e["needs_driver"])
            k = "native, else adapter" if t.startswith("native, else") else t.split(" ")[0]
            counts[f][k] = counts[f].get(k, 0) + 1
    with open(os.path.join(out, "CUDART_SERVED.md"), "w") as f:
        f.write("# How each CUDA 13.0 runtime entry is served, per runtime family\n\n"
                "Generated by `version_tables/generate_runtime.py` from its inputs (do not edit; "
                "`//version_tables:cudart_regen_test` fails when it is stale). Family 10 is served "
                "as family 11. Kinds:\n\n"
                "* **native**: the runtime's own symbol (a `_vN` of the 13.0 prototype);\n"
                "* **adapter**: a hand-written adapter of `inputs/cudart_adapters.tsv` over the "
                "runtime's older function, or composed from the runtime's and the driver's calls "
                "(loader/cudart_adapters.cc says why each is faithful); **adapter (zero-tail)**: generated, output structs "
                "zero-filled to their 13.0 size first;\n"
                "* **driver `cuX`**: served from the driver entry `cuX` "
                "(`inputs/cudart_served.tsv`) through cudyn's driver layer, its CUresult "
                "translated to cudaError_t; a driver without `cuX` (and without the older "
                "variant cudyn's driver layer adapts to it, e.g. a 12.8 driver's "
                "`cuMemcpyBatchAsync` for `cuMemcpyBatchAsync_v2`) answers 35 "
                "`cudaErrorInsufficientDriver`, as a 13.0 runtime does on any driver before 13.0;\n"
                "* **missing**: no path serves it; a call answers 35 `cudaErrorInsufficientDriver` "
                "when the driver in front (after the clamp) is older than the first driver that "
                "runs a runtime family serving the entry natively (what that runtime answers "
                "there), else 801 `cudaErrorNotSupported` (the driver could run such a runtime; "
                "the chosen one lacks the entry).\n\n")
        f.write("| family | %s |\n|---|%s\n" % (
            " | ".join(sorted({k for c in counts.values() for k in c})),
            "---|" * len({k for c in counts.values() for k in c})))
        for fam in fams:
            f.write("| %d | %s |\n" % (fam, " | ".join(
                str(counts[fam].get(k, 0)) for k in sorted({k for c in counts.values() for k in c}))))
        f.write("\nEntries some family does not serve natively:\n\n| entry | %s |\n|---|%s\n" % (
            " | ".join("%d.x" % x for x in fams), "---|" * len(fams)))
        for e in entries:
            texts = [served_text(e["rules"][str(x)], e["needs_driver"]) for x in fams]
            if all(t == "native" for t in texts):
                continue
            f.write("| `%s` | %s |\n" % (e["symbol"], " | ".join(texts)))


def write_includes(entries, runtimes, markers, prop, info, out):
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
                "namespace cudyn {\n"
                "inline constexpr int kCudartEntryCount = %d;\n"
                "// Exported names forwarded by name, untyped (cudart_forwards.inc).\n"
                "inline constexpr int kCudartForwardCount = %d;\n"
                "}  // namespace cudyn\n"
                "#endif  // CUDYN_GENERATED_CUDART_ENTRY_COUNT_H_\n" % (
                    len(entries), len(info["left_out"]["not declared by the 13.0 headers"])))
    with open(os.path.join(d, "cudart_forwards.inc"), "w") as f:
        f.write(head)
        f.write("// CUDYN_CUDART_FORWARD(index, symbol): exported by the 13.0 runtime, declared only by "
                "its graphics-interop headers; the drop-in forwards each call untouched to the chosen "
                "runtime's function of the same name.\n")
        for i, name in enumerate(info["left_out"]["not declared by the 13.0 headers"]):
            f.write("CUDYN_CUDART_FORWARD(%d, %s)\n" % (i, name))
    with open(os.path.join(d, "cudart_rules.inc"), "w") as f:
        f.write(head)
        for e in entries:
            for fam in FAMILY_ORDER:
                r = e["rules"][str(fam)]
                cands = "".join(c + "\\0" for c in r["candidates"])
                f.write('CUDYN_CUDART_RULE(%d, %d, "%s", %s, %s, %d)\n' % (
                    e["index"], fam, cands,
                    "CUDYN_CUDART_ADAPTER_ID(%s)" % r["adapter"] if r["adapter"]
                    else "CUDYN_CUDART_NO_ADAPTER", c_string(r["reason"]), e["needs_driver"]))
    with open(os.path.join(d, "cudart_adapters.inc"), "w") as f:
        f.write(head)
        seen = {}
        for e in entries:
            for fam in FAMILY_ORDER:
                a = e["rules"][str(fam)]["adapter"]
                if (a and a not in seen and a not in info["zero_tail"] and
                        a not in info["served"]):
                    seen[a] = e
        for a, e in seen.items():
            f.write("CUDYN_CUDART_ADAPTER(%s, %d, %s)\n" % (a, e["index"], e["symbol"]))
        # The generated zero-tail adapters (cudart_zero_tail.inc), after the hand-decided ones.
        for a, z in info["zero_tail"].items():
            f.write("CUDYN_CUDART_ADAPTER(%s, %d, %s)\n" % (a, z["index"], z["symbol"]))
        # The generated driver-served adapters (cudart_served.inc), last.
        for a, z in info["served"].items():
            f.write("CUDYN_CUDART_ADAPTER(%s, %d, %s)\n" % (a, z["index"], z["symbol"]))
    by_symbol = {e["symbol"]: e for e in entries}
    with open(os.path.join(d, "cudart_served.inc"), "w") as f:
        f.write(head)
        f.write("// CUDYN_CUDART_SERVED(name, index, ret, (params), (args), driver symbol, init): "
                "served from the driver entry of the same arguments (inputs/cudart_served.tsv); "
                "init: context (the runtime's cudaFree(NULL) first) or driver (cuInit(0) first).\n")
        for a, z in info["served"].items():
            e = by_symbol[z["symbol"]]
            f.write("CUDYN_CUDART_SERVED(%s, %d, %s, (%s), (%s), %s, %s)\n" % (
                a, e["index"], e["ret"], e["params_named"], ", ".join(e["args"]), z["driver"],
                z["init"]))
    with open(os.path.join(d, "cudart_zero_tail.inc"), "w") as f:
        f.write(head)
        f.write("// CUDYN_CUDART_ZERO_TAIL(name, ret, (params), (args), \"older\\0symbols\\0\", "
                "(CUDYN_CUDART_ZERO_OUT(arg, 13.0 size) ...)): call the first older symbol present "
                "after zero-filling each non-null output struct.\n")
        for a, z in info["zero_tail"].items():
            e = by_symbol[z["symbol"]]
            f.write('CUDYN_CUDART_ZERO_TAIL(%s, %s, (%s), (%s), "%s", (%s))\n' % (
                a, e["ret"], e["params_named"], ", ".join(e["args"]),
                "".join(c + "\\0" for c in z["calls"]),
                " ".join("CUDYN_CUDART_ZERO_OUT(%s, %d)" % (x["arg"], x["size"])
                         for x in z["zeroes"])))
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
    with open(os.path.join(d, "cudart_layouts.inc"), "w") as f:
        f.write(head)
        f.write("// CUDYN_CUDART_LAYOUT(name, size in 13.0, size in 12.x, size in 11.x): a struct the "
                "adapters convert field by field; 0 where the family has no such type.\n"
                "// CUDYN_CUDART_LAYOUT_FIELD(layout, \"path\", offset in 13.0, size, offset in "
                "12.x, offset in 11.x, must be zero for 12.x, must be zero for 11.x, out): -1 "
                "where the field is absent or has another size there; must be zero: a 13.0-only "
                "field that "
                "overlaps no field the family has (a non-zero value cannot be expressed there); "
                "out: the older runtime writes it, copied back after the call.\n")
        for lay in info["layouts"]:
            f.write("CUDYN_CUDART_LAYOUT(%s, %d, %d, %d)\n" % (
                lay["name"], lay["sizes"][13], lay["sizes"][12], lay["sizes"][11]))
        for lay in info["layouts"]:
            for path, off13, size, offs, zero, written in lay["fields"]:
                f.write('CUDYN_CUDART_LAYOUT_FIELD(%s, "%s", %d, %d, %d, %d, %d, %d, %d)\n' % (
                    lay["name"], path, off13, size, offs[12], offs[11], zero[12], zero[11],
                    written))
    with open(os.path.join(d, "cudart_to_driver.inc"), "w") as f:
        f.write(head)
        f.write("// CUDYN_CUDART_TO_DRIVER(name, runtime type, its size, driver type, its size): a "
                "runtime struct the adapters hand to the driver, converted field by field.\n"
                "// CUDYN_CUDART_TO_DRIVER_FIELD(name, runtime type, path, offset, size, driver "
                "type, path, offset, size, narrow): narrow 1 where the driver's field is a "
                "smaller unsigned integer (truncated), else the sizes are equal (copied as is); "
                "driver fields without a row are zero.\n")
        for c in info["to_driver"]:
            f.write("CUDYN_CUDART_TO_DRIVER(%s, %s, %d, %s, %d)\n" % (
                c["name"], c["runtime"], c["runtime_size"], c["driver"], c["driver_size"]))
        for c in info["to_driver"]:
            for r_path, r_off, r_size, d_path, d_off, d_size, narrow in c["fields"]:
                f.write("CUDYN_CUDART_TO_DRIVER_FIELD(%s, %s, %s, %d, %d, %s, %s, %d, %d, %d)\n" % (
                    c["name"], c["runtime"], r_path, r_off, r_size, c["driver"], d_path, d_off,
                    d_size, narrow))
    doc = {"entries": [], "runtimes": {}, "zero_tail_adapters": {
        a: {k: z[k] for k in ("symbol", "index", "calls", "families", "zeroes")}
        for a, z in info["zero_tail"].items()}}
    for e in entries:
        doc["entries"].append({k: e[k] for k in ("index", "symbol", "base", "stream", "ret",
                                                 "params", "args", "rules")})
    for v in VERSIONS:
        doc["runtimes"][v] = {"soname": runtimes[v][0], "version": version_number(v),
                              "exports": runtimes[v][1]}
    with open(os.path.join(d, "cudart_prototypes.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def build_library(name, inputs):
    """The entries and per-version rules of a library of LIBRARIES."""
    desc = LIBRARIES[name]
    versions = desc["versions"]
    libs = read_exports(os.path.join(inputs, name + "_exports"), versions)
    headers = {v: json.load(open(os.path.join(inputs, name + "_headers", "%s-%s.json" % (name, v))))
               for v in versions}
    facts = {v: headers[v]["decls"]["default"] for v in versions}
    typedefs = {v: headers[v].get("pointer_typedefs", {}) for v in versions}
    newest = versions[-1]
    named = re.compile(desc["release_named"]) if "release_named" in desc else None

    def function(symbol):
        """The function a symbol is: __nvJitLinkCreate_12_4 -> nvJitLinkCreate (release_named)."""
        m = named.match(symbol) if named else None
        return m.group(1) if m else symbol

    def declared(v, symbol):
        if symbol in facts[v] or not named:
            return facts[v].get(symbol)
        # A plain name: the prototype of the version's release-named declaration of it.
        for other in sorted(facts[v]):
            if other != symbol and function(other) == symbol:
                return facts[v][other]
        return None

    entries = []
    for sym in libs[newest][1]:
        if not function(sym).startswith(desc["prefix"]) or sym not in facts[newest]:
            continue
        d = facts[newest][sym]
        e = {"symbol": sym, "ret": d["ret"], "params": d["params"], "index": len(entries)}
        name_params(e)
        base = split_symbol(function(sym))[0]
        e["rules"] = {}
        for v in versions:
            found = []
            for other in libs[v][1]:
                parts = split_symbol(function(other))
                if parts[0] != base or parts[2] != "legacy":
                    continue
                od = declared(v, other)
                if od and abi_type(od["ret"], typedefs[v]) == abi_type(d["ret"], typedefs[newest]) and [
                        abi_type(t, typedefs[v]) for t in param_types(od["params"])] == [
                        abi_type(t, typedefs[newest]) for t in param_types(d["params"])]:
                    # Release-named before plain (then the name); only libraries with release_named
                    # have any.
                    found.append((parts[1], function(other) != other, other))
            cands = [n for _, _, n in sorted(found, reverse=True)]
            if cands:
                reason = ""
            elif sym in libs[v][1] or (named and any(function(o) == function(sym)
                                                     for o in libs[v][1])):
                reason = "declared otherwise by the %s header" % v
            else:
                reason = "not exported by the %s %s" % (v, libs[v][0])
            e["rules"][v] = {"candidates": cands, "reason": reason,
                             "exported": sym in libs[v][1]}
        entries.append(e)
    if not entries:
        raise TableError("%s: no entries" % name)
    return entries, libs


def library_version(inputs_dir, name, version):
    """The number the release's own version call answers ("# library_version:" of its exports)."""
    return int(release_facts(inputs_dir, name, version).get("library_version", "0"))


def release_facts(inputs_dir, name, version):
    """The "# key: value" header of inputs/<name>_exports/<version>.txt."""
    path = os.path.join(inputs_dir, name + "_exports", version + ".txt")
    facts = {}
    for line in open(path):
        if not line.startswith("#"):
            break
        key, _, value = line[1:].partition(":")
        facts[key.strip()] = value.strip()
    return facts


def write_library(name, entries, libs, out, incs, inputs_dir):
    desc = LIBRARIES[name]
    versions = desc["versions"]
    if out:
        with open(os.path.join(out, name + "_api_table.tsv"), "w") as f:
            f.write("# cudyn %s. Generated by generate_runtime.py --library %s; do not edit.\n" % (
                desc["title"], name))
            f.write("# bind_V (real version V): native:symbols tried in order | missing:why\n")
            f.write("\t".join(["symbol", "ret", "first", "exported_in"] +
                              ["bind_" + v for v in versions] + ["prototype"]) + "\n")
            for e in entries:
                have = [v for v in versions if e["symbol"] in libs[v][1]]
                f.write("\t".join([e["symbol"], e["ret"], have[0], ",".join(have)] + [
                    "native:" + "|".join(e["rules"][v]["candidates"]) if e["rules"][v]["candidates"]
                    else "missing:" + e["rules"][v]["reason"] for v in versions] +
                    [e["params"]]) + "\n")
    if incs:
        d = os.path.join(incs, "generated_" + name)
        os.makedirs(d, exist_ok=True)
        head = "// Generated by version_tables/generate_runtime.py --library %s; do not edit.\n" % name
        m = desc["macro"]
        with open(os.path.join(d, name + "_entries.inc"), "w") as f:
            f.write(head + "// %s_ENTRY(index, ret, symbol, (params), (args))\n" % m)
            for e in entries:
                f.write("%s_ENTRY(%d, %s, %s, (%s), (%s))\n" % (
                    m, e["index"], e["ret"], e["symbol"], e["params_named"], ", ".join(e["args"])))
        with open(os.path.join(d, name + "_rules.inc"), "w") as f:
            f.write(head + "// %s_RULE(index, version, \"candidates\\0...\", \"why missing\")\n" % m)
            for e in entries:
                for v in versions:
                    r = e["rules"][v]
                    f.write('%s_RULE(%d, %d, "%s", %s)\n' % (
                        m, e["index"], version_number(v), "".join(c + "\\0" for c in r["candidates"]),
                        c_string(r["reason"])))
        with open(os.path.join(d, name + "_versions.inc"), "w") as f:
            if desc.get("release_facts"):
                # The CUDA release a loaded library belongs to follows from library_version (a
                # SONAME spans releases); cuda_runtime: libcudart.so.N, "static" or "none".
                f.write(head + "// %s_VERSION(version, \"SONAME\", library_version, \"cuda_runtime\", "
                        "\"needed\\0...\"): the real versions with facts, oldest first\n" % m)
                for v in versions:
                    rf = release_facts(inputs_dir, name, v)
                    if "library_version" not in rf or "cuda_runtime" not in rf or "needed" not in rf:
                        raise TableError("%s_exports/%s.txt: no library_version/needed/cuda_runtime "
                                         "header (extract_cudart_exports.py --library)" % (name, v))
                    f.write('%s_VERSION(%d, "%s", %d, "%s", "%s")\n' % (
                        m, version_number(v), libs[v][0], int(rf["library_version"]),
                        rf["cuda_runtime"], "".join(n + "\\0" for n in rf["needed"].split())))
            else:
                f.write(head + "// %s_VERSION(version, \"SONAME\"): the real versions with facts, oldest "
                        "first\n" % m)
                for v in versions:
                    f.write('%s_VERSION(%d, "%s")\n' % (m, version_number(v), libs[v][0]))
        # The whole table as the loader's template reads it (loader/toolkit.h): symbols, the rules
        # of every real release, and the releases with the number each one's version call answers
        # (inputs/<name>_exports/<v>.txt "# library_version:", else 0).
        with open(os.path.join(d, name + "_table.inc"), "w") as f:
            f.write(head + "// The %s table for loader/toolkit.h (inside the traits file's namespace).\n" % name)
            f.write("constexpr std::string_view kSymbols[] = {\n")
            f.write("".join('    "%s",\n' % e["symbol"] for e in entries))
            f.write("};\nconstexpr ::cudyn::ToolkitRuleRow kRules[] = {\n")
            for e in entries:
                for v in versions:
                    r = e["rules"][v]
                    f.write('    {%d, %d, "%s", %s, %s},\n' % (
                        e["index"], version_number(v), "".join(c + "\\0" for c in r["candidates"]),
                        c_string(r["reason"]), "true" if r["exported"] else "false"))
            f.write("};\nconstexpr ::cudyn::ToolkitReleaseRow kReleases[] = {\n")
            for v in versions:
                f.write('    {%d, "%s", %d},\n' % (version_number(v), libs[v][0],
                                                   library_version(inputs_dir, name, v)))
            f.write("};\n")
        guard = "CUDYN_GENERATED_%s_ENTRY_COUNT_H_" % name.upper()
        with open(os.path.join(d, name + "_entry_count.h"), "w") as f:
            f.write(head + "#ifndef %s\n#define %s\nnamespace cudyn {\ninline constexpr int %s = "
                    "%d;\n}  // namespace cudyn\n#endif  // %s\n" % (
                        guard, guard, desc["count"], len(entries), guard))


def main_library(args):
    try:
        entries, libs = build_library(args.library, args.inputs)
    except TableError as err:
        sys.exit("generate_runtime.py: ERROR: %s" % err)
    try:
        write_library(args.library, entries, libs, args.out, args.incs, args.inputs)
    except TableError as err:
        sys.exit("generate_runtime.py: ERROR: %s" % err)
    versions = LIBRARIES[args.library]["versions"]
    print("%d entries; %s" % (len(entries), "; ".join(
        "%s: native %d" % (v, sum(1 for e in entries if e["rules"][v]["candidates"]))
        for v in versions)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", choices=sorted(LIBRARIES))
    ap.add_argument("--inputs", default=os.path.join(HERE, "inputs"))
    ap.add_argument("--out", help="write OUT/cudart_api_table.tsv")
    ap.add_argument("--incs", help="write INCS/generated_cudart/ (the includes and the JSON)")
    args = ap.parse_args()
    if not args.out and not args.incs:
        args.out = HERE
    if args.library:
        return main_library(args)
    try:
        entries, runtimes, markers, prop, info = build(args.inputs)
    except TableError as err:
        sys.exit("generate_runtime.py: ERROR: %s" % err)
    if args.out:
        write_table(entries, runtimes, info, args.out)
        write_served_doc(entries, info, args.out)
    if args.incs:
        write_includes(entries, runtimes, markers, prop, info, args.incs)
    counts = {fam: {"native": 0, "adapter": 0, "native+adapter": 0, "driver": 0, "missing": 0}
              for fam in FAMILY_ORDER}
    for e in entries:
        for fam in FAMILY_ORDER:
            r = e["rules"][str(fam)]
            kind = ("driver" if r.get("driver") else
                    "native+adapter" if r["candidates"] and r["adapter"] else
                    "native" if r["candidates"] else "adapter" if r["adapter"] else "missing")
            counts[fam][kind] += 1
    print("%d entries; %s" % (len(entries), "; ".join(
        "%d: %s" % (fam, ", ".join("%s %d" % kv for kv in counts[fam].items()))
        for fam in FAMILY_ORDER)))


if __name__ == "__main__":
    main()
