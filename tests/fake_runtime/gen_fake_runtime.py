#!/usr/bin/env python3
"""Writes one fake CUDA runtime: a C++ file defining exactly the symbols a real runtime exports,
and its version script.

Facts (never typed here): the export list (version_tables/inputs/cudart_exports/<v>.txt) and the
prototypes (version_tables/inputs/runtime_headers/cudart-<v>.json) of the runtime the fake stands
for. The C++ file is compiled against that version's own cuda_runtime_api.h, so every definition
must agree with the real declaration. Every function records its arguments
(fake_runtime_core.h); a few answer like a runtime (versions, device count, properties).

Usage: gen_fake_runtime.py --exports TXT --facts JSON --version 11.8 --soname libcudart.so.11.0
                           [--without REGEX]... --out_cc FILE --out_lds FILE
"""
import argparse
import json
import re

# nvcc's host-stub ABI: not in cuda_runtime_api.h, so defined with plain types (no declaration
# to agree with). Each records its call; the configuration pair stores and returns the launch.
HOST_STUBS = {
    "__cudaRegisterFatBinary": ("void**", "void* fatCubin", "fatCubin",
                                "static void* handle[4]; return handle;"),
    "__cudaRegisterFatBinaryEnd": ("void", "void** handle", "handle", ""),
    "__cudaUnregisterFatBinary": ("void", "void** handle", "handle", ""),
    "__cudaRegisterFunction": ("void", "void** handle, const char* hostFun, char* deviceFun, "
                               "const char* deviceName, int limit, void* tid, void* bid, "
                               "void* bDim, void* gDim, int* wSize",
                               "handle, hostFun, deviceFun, deviceName, limit, tid, bid, bDim, "
                               "gDim, wSize", ""),
    "__cudaRegisterVar": ("void", "void** handle, char* hostVar, char* deviceAddress, "
                          "const char* deviceName, int ext, size_t size, int constant, int global",
                          "handle, hostVar, deviceAddress, deviceName, ext, size, constant, global",
                          ""),
    "__cudaRegisterManagedVar": ("void", "void** handle, void** hostVarPtrAddress, "
                                 "char* deviceAddress, const char* deviceName, int ext, "
                                 "size_t size, int constant, int global",
                                 "handle, hostVarPtrAddress, deviceAddress, deviceName, ext, "
                                 "size, constant, global", ""),
    "__cudaInitModule": ("char", "void** handle", "handle", "return 1;"),
    "__cudaPushCallConfiguration": ("unsigned", "dim3 grid, dim3 block, size_t shared, void* stream",
                                    "grid, block, shared, stream",
                                    "g_config = {grid, block, shared, stream}; return 0;"),
    "__cudaPopCallConfiguration": ("cudaError_t", "dim3* grid, dim3* block, size_t* shared, "
                                   "void* stream", "grid, block, shared, stream",
                                   "*grid = g_config.grid; *block = g_config.block; "
                                   "*shared = g_config.shared; "
                                   "*static_cast<void**>(stream) = g_config.stream; "
                                   "return cudaSuccess;"),
    "__cudaGetKernel": ("cudaError_t", "void** kernel, const void* hostFun", "kernel, hostFun",
                        "*kernel = const_cast<void*>(hostFun); return cudaSuccess;"),
    "__cudaLaunchKernel": ("cudaError_t", "void* kernel, dim3 grid, dim3 block, void** args, "
                           "size_t shared, void* stream", "kernel, grid, block, args, shared, stream",
                           ""),
    "__cudaLaunchKernel_ptsz": ("cudaError_t", "void* kernel, dim3 grid, dim3 block, void** args, "
                                "size_t shared, void* stream",
                                "kernel, grid, block, args, shared, stream", ""),
}

TYPE_WORDS = {"const", "volatile", "struct", "enum", "union", "unsigned", "signed", "int", "char",
              "short", "long", "float", "double", "void", "size_t"}


def split_params(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch in "(["
        depth -= ch in ")]"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return [] if parts == ["void"] else parts


def named(params):
    """(params text with a name on every parameter, [names])."""
    out, names = [], []
    for i, p in enumerate(split_params(params)):
        tokens = re.findall(r"\w+|\S", p)
        if len(tokens) >= 2 and re.match(r"^[A-Za-z_]\w*$", tokens[-1]) and tokens[-1] not in TYPE_WORDS:
            out.append(p)
            names.append(tokens[-1])
        else:
            out.append("%s a%d" % (p, i))
            names.append("a%d" % i)
    return ", ".join(out) or "void", names


def body(symbol, ret, names, extra=""):
    lines = ['  fake_cudart::Call call("%s");' % symbol]
    lines += ["  call.Arg(%d, %s);" % (i, n) for i, n in enumerate(names)]
    lines.append("  const int rc = call.Finish();")
    lines.append("  (void)rc;")
    if extra:
        lines.append("  " + extra)
    if ret == "cudaError_t":
        lines.append("  return static_cast<cudaError_t>(rc);")
    elif ret.replace(" ", "") == "constchar*":
        lines.append('  return "fake:%s";' % symbol)
    elif ret != "void":
        lines.append("  return {};")
    return "\n".join(lines)


SPECIAL = {
    "cudaRuntimeGetVersion": "if (rc == 0 && %s != nullptr) *%s = fake_cudart::RuntimeVersion();",
    "cudaDriverGetVersion": "if (rc == 0 && %s != nullptr) *%s = fake_cudart::DriverVersion();",
    "cudaGetDeviceCount": "if (rc == 0 && %s != nullptr) *%s = 1;",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exports", required=True)
    ap.add_argument("--facts", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--soname", required=True)
    ap.add_argument("--without", action="append", default=[])
    ap.add_argument("--out_cc", required=True)
    ap.add_argument("--out_lds", required=True)
    a = ap.parse_args()
    exports = [l.split("@@")[0].strip() for l in open(a.exports)
               if l.strip() and not l.startswith("#")]
    exports = [e for e in exports if not any(re.search(w, e) for w in a.without)]
    facts = json.load(open(a.facts))
    decls = dict(facts["decls"]["ptds"])
    decls.update(facts["decls"]["default"])
    # A symbol a public name is mapped to by macro (cudaX -> cudaX_v2) has that name's prototype.
    for mode in ("ptds", "default"):
        for public, symbol in facts["map"].get(mode, {}).items():
            if symbol not in decls and public in facts["decls"][mode]:
                decls[symbol] = facts["decls"][mode][public]
    major, minor = a.version.split(".")
    version = int(major) * 1000 + int(minor) * 10
    cc = ["// Generated by tests/fake_runtime/gen_fake_runtime.py: fake libcudart %s. Do not edit."
          % a.version,
          "#include <cuda_runtime_api.h>", "", "#include <cstddef>", "#include <cstring>", "",
          '#include "tests/fake_runtime/fake_runtime_core.h"', "",
          "namespace fake_cudart {",
          "int RuntimeVersion() { return %d; }" % version,
          "const PropField kPropFields[] = {"]
    for f in facts["device_prop"]:
        cc.append('    {"%s", %d, %d},' % (f["name"], f["offset"], f["size"]))
    cc += ["};", "const int kPropFieldCount = sizeof(kPropFields) / sizeof(kPropFields[0]);"]
    for f in facts["device_prop"]:
        cc.append("static_assert(offsetof(struct cudaDeviceProp, %s) == %d, \"layout\");"
                  % (f["name"], f["offset"]))
    cc += ["struct Config { dim3 grid, block; size_t shared; void* stream; };",
           "Config g_config;", "}  // namespace fake_cudart", "using fake_cudart::g_config;", "",
           'extern "C" const char* fake_cudart_version_text() { return "fake libcudart %s"; }'
           % a.version, ""]
    undeclared = []
    for sym in exports:
        if sym in HOST_STUBS:
            ret, params, args, extra = HOST_STUBS[sym]
            names = [n.strip() for n in args.split(",")]
            cc.append('extern "C" %s %s(%s) {' % (ret, sym, params))
            b = body(sym, "void", names)
            if extra:
                b += "\n  " + extra
            elif ret == "cudaError_t":
                b += "\n  return static_cast<cudaError_t>(rc);"
            cc += [b, "}", ""]
            continue
        if sym not in decls:
            undeclared.append(sym)
            cc += ["#undef %s" % sym, 'extern "C" int %s(void) {' % sym, body(sym, "int", []).replace(
                "return {};", "return rc;"), "}", ""]
            continue
        d = decls[sym]
        params, names = named(d["params"])
        extra = ""
        if sym in SPECIAL and names:
            extra = SPECIAL[sym] % (names[0], names[0])
        elif sym in ("cudaGetDeviceProperties", "cudaGetDeviceProperties_v2"):
            p = names[0]
            extra = ("if (rc == 0 && %s != nullptr) { fake_cudart::FillProp(%s); "
                     'std::memset(%s->name, 0, sizeof(%s->name)); '
                     'std::strcpy(%s->name, "cudyn fake runtime %s"); %s->major = 9; %s->minor = 0; '
                     "%s->multiProcessorCount = 132; %s->totalGlobalMem = 85899345920ull; }"
                     % ((p, p, p, p, p, a.version) + (p,) * 4))
        elif sym == "cudaChooseDevice":
            extra = ("if (%s != nullptr) fake_cudart::SaveChosenProp(%s, sizeof(*%s)); "
                     "if (rc == 0 && %s != nullptr) *%s = 0;"
                     % (names[1], names[1], names[1], names[0], names[0]))
        cc += ["#undef %s" % sym, 'extern "C" %s %s(%s) {' % (d["ret"], sym, params),
               body(sym, d["ret"], names, extra), "}", ""]
    open(a.out_cc, "w").write("\n".join(cc) + "\n")
    lds = ["/* Generated: the exports of a %s runtime (%d) + the fake's control API. */" %
           (a.version, len(exports)), "%s {" % a.soname, "  global:"]
    lds += ["    %s;" % s for s in exports]
    lds += ["    fake_cudart_*;", "  local:", "    *;", "};"]
    open(a.out_lds, "w").write("\n".join(lds) + "\n")


if __name__ == "__main__":
    main()
