#!/usr/bin/env python3
"""Writes one fake CUDA runtime: a C++ file defining exactly the symbols a real runtime exports,
and the version script that exports them as name@@SONAME.

Facts (nothing here is a list of symbols or a prototype typed by hand):
  --exports       the real runtime's export list (version_tables/inputs/cudart_exports/<v>.txt)
  --facts         the prototypes of that version's cuda_runtime_api.h and its cudaDeviceProp layout
                  (version_tables/inputs/runtime_headers/cudart-<v>.json)
  --host_header   that version's crt/host_runtime.h and crt/device_functions.h: the prototypes of
                  nvcc's host-stub ABI (__cudaRegisterFatBinary, __cudaPushCallConfiguration, ...),
                  read from the header text
The C++ file includes that version's own cuda_runtime_api.h, so each definition must agree with
the real declaration (the compiler rejects a C function redeclared with other types); names the
header maps by macro are #undef'd first. An exported name no header declares is defined as
`int NAME(void)`. Every function records its call (fake_runtime_core.h); a few answer like a
runtime (versions, device count, device properties, the launch configuration).

Usage: gen_fake_runtime.py --exports TXT --facts JSON --host_header H... --version 11.8
                           --soname libcudart.so.11.0 [--without REGEX]... --out_cc CC --out_lds LDS
"""
import argparse
import json
import re
import sys

# The control API (fake_runtime_control.h): the only exports beyond the real runtime's.
CONTROL_API = [
    "fake_cudart_reset",
    "fake_cudart_set_result",
    "fake_cudart_set_driver_version",
    "fake_cudart_call_count",
    "fake_cudart_last_arg",
    "fake_cudart_set_out",
    "fake_cudart_chosen_field",
    "fake_cudart_identity",
    "fake_cudart_last_pointee",
]

# Behaviour beyond "record and return the configured result", by symbol. `{0}`, `{1}`... are the
# parameter names; `rc` is the configured result. Runs before the out-injections are written, so
# a test's set_out always has the last word.
SPECIAL = {
    "cudaRuntimeGetVersion": "if (rc == 0 && {0} != nullptr) *{0} = fake_cudart::RuntimeVersion();",
    "cudaDriverGetVersion": "if (rc == 0 && {0} != nullptr) *{0} = fake_cudart::DriverVersion();",
    "cudaGetDeviceCount": "if (rc == 0 && {0} != nullptr) *{0} = 1;",
    "cudaGetDeviceProperties": "if (rc == 0 && {0} != nullptr) fake_cudart::FillProp({0});",
    "cudaGetDeviceProperties_v2": "if (rc == 0 && {0} != nullptr) fake_cudart::FillProp({0});",
    "cudaChooseDevice": ("if ({1} != nullptr) fake_cudart::SaveChosenProp({1}, sizeof(*{1}));\n"
                         "  if (rc == 0 && {0} != nullptr) *{0} = 0;"),
    "__cudaPushCallConfiguration": ("if (rc == 0) fake_cudart::PushConfig(&{0}, &{1}, {2}, "
                                    "reinterpret_cast<void*>({3}));"),
    "__cudaPopCallConfiguration": "if (rc == 0) rc = fake_cudart::PopConfig({0}, {1}, {2}, {3});",
    "__cudaGetKernel": ("if (rc == 0 && {0} != nullptr) "
                        "*{0} = reinterpret_cast<cudaKernel_t>(const_cast<void*>({1}));"),
}

# Return values that are not the configured result itself (the header documents them).
# cudaGetLastError / cudaPeekAtLastError: a configured result, else the thread's last error (every
# other cudaError_t entry records its non-zero result as it, as a real runtime does).
SPECIAL_RETURN = {
    "cudaGetLastError": "return static_cast<cudaError_t>(rc != 0 ? rc : fake_cudart::LastError(true));",
    "cudaPeekAtLastError": ("return static_cast<cudaError_t>(rc != 0 ? rc : "
                            "fake_cudart::LastError(false));"),
    "__cudaRegisterFatBinary": "return fake_cudart::FatBinaryHandle();",
    "__cudaInitModule": "return static_cast<char>(rc == 0);",
    "cudaCreateChannelDesc": "return cudaChannelFormatDesc{{{0}, {1}, {2}, {3}, {4}}};",
}

TYPE_WORDS = {"const", "volatile", "struct", "enum", "union", "unsigned", "signed", "int", "char",
              "short", "long", "float", "double", "void", "size_t", "__restrict__", "restrict"}


def fail(msg):
    sys.exit("gen_fake_runtime.py: " + msg)


def split_params(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([<"
        depth -= ch in ")]>"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return [] if parts in ([], ["void"]) else parts


def named(params):
    """(the parameter list with a name on every parameter, [names])."""
    out, names = [], []
    for i, p in enumerate(split_params(params)):
        p = re.sub(r"\s*=\s*[^=]+$", "", p).strip()  # a default argument (host stubs)
        fp = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", p)  # a function-pointer parameter
        tokens = re.findall(r"\w+|\S", re.sub(r"\[[^\]]*\]\s*$", "", p))
        if fp:
            out.append(p)
            names.append(fp.group(1))
        elif (len(tokens) >= 2 and re.match(r"^[A-Za-z_]\w*$", tokens[-1]) and
              tokens[-1] not in TYPE_WORDS):
            out.append(p)
            names.append(tokens[-1])
        else:
            out.append("%s a%d" % (p, i))
            names.append("a%d" % i)
    return ", ".join(out) or "void", names


def host_stub_decls(paths):
    """{name: {"ret", "params"}} of every `RET CUDARTAPI __cudaNAME(PARAMS);` in the headers."""
    decls = {}
    for path in paths:
        text = open(path).read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        text = re.sub(r"\\\n", " ", text)
        text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
        for m in re.finditer(r"([^;{}()]*?)\bCUDARTAPI\s+(__cuda\w+)\s*\(([^()]*)\)\s*;", text):
            ret = " ".join(w for w in m.group(1).split()
                           if w not in ("extern", '"C"', "__host__", "__device__", "static",
                                        "inline", "__cudart_builtin__"))
            decl = {"ret": ret, "params": " ".join(m.group(3).split())}
            if not ret:
                fail("%s: no return type for %s" % (path, m.group(2)))
            if m.group(2) in decls and decls[m.group(2)] != decl:
                fail("%s: two declarations of %s: %s / %s" % (path, m.group(2), decls[m.group(2)],
                                                             decl))
            decls[m.group(2)] = decl
    return decls


def struct_inputs(params, complete):
    """{argument index: name} of the `const struct X *` parameters whose struct the facts measure
    (complete types): the fake records the struct they point to (fake_cudart_last_pointee)."""
    out = {}
    params, names = named(params)
    for k, p in enumerate(split_params(params)):
        m = re.match(r"const\s+(struct\s+\w+)\s*\*\s*\w+$", p.strip())
        if m and " ".join(m.group(1).split()) in complete:
            out[k] = names[k]
    return out


def definition(sym, ret, params, complete=()):
    pointees = struct_inputs(params, complete)
    params, names = named(params)
    ret = " ".join(ret.split())
    lines = ['extern "C" %s %s(%s) {' % (ret, sym, params),
             '  fake_cudart::Call call("%s");' % sym]
    lines += ["  call.Arg(%s);" % n for n in names]
    lines += ["  call.Pointee(%d, %s);" % (k, n) for k, n in sorted(pointees.items())]
    reassigns = "rc =" in SPECIAL.get(sym, "")
    lines.append("  %sint rc = call.Commit();" % ("" if reassigns else "const "))
    if sym in SPECIAL:
        lines.append("  " + SPECIAL[sym].format(*names))
    lines.append("  call.WriteOuts();")
    if sym in SPECIAL_RETURN:
        if "rc" not in SPECIAL_RETURN[sym]:
            lines.append("  (void)rc;")
        lines.append("  " + SPECIAL_RETURN[sym].format(*names))
    elif ret == "void":
        lines.append("  (void)rc;")
    elif ret == "cudaError_t":
        lines.append("  fake_cudart::NoteResult(rc);")
        lines.append("  return static_cast<cudaError_t>(rc);")
    elif ret.replace(" ", "") == "constchar*":
        lines.append("  (void)rc;")
        lines.append('  return "fake:%s";' % sym)
    elif ret in ("int", "unsigned", "unsigned int", "char"):
        lines.append("  return static_cast<%s>(rc);" % ret)
    else:
        fail("%s returns %s: say what the fake returns (SPECIAL_RETURN)" % (sym, ret))
    lines += ["}", ""]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exports", required=True)
    ap.add_argument("--facts", required=True)
    ap.add_argument("--host_header", action="append", default=[])
    ap.add_argument("--version", required=True)
    ap.add_argument("--soname", required=True)
    ap.add_argument("--without", action="append", default=[])
    ap.add_argument("--out_cc", required=True)
    ap.add_argument("--out_lds", required=True)
    a = ap.parse_args()

    exports, unused = [], set(a.without)
    for line in open(a.exports):
        if not line.strip() or line.startswith("#"):
            continue
        name = line.split("@@")[0].strip()
        hits = [w for w in a.without if re.search(w, name)]
        unused -= set(hits)
        if not hits:
            exports.append(name)
    if unused:
        fail("--without matches no export: %s" % sorted(unused))
    if len(set(exports)) != len(exports):
        fail("duplicate names in " + a.exports)
    facts = json.load(open(a.facts))
    decls = dict(facts["decls"]["ptds"])
    decls.update(facts["decls"]["default"])
    host = host_stub_decls(a.host_header)
    major, minor = a.version.split(".")
    version = int(major) * 1000 + int(minor) * 10

    cc = ["// Generated by tests/fake_runtime/gen_fake_runtime.py: fake libcudart %s (%s), from %s"
          % (a.version, a.soname, a.exports.split("/")[-1]),
          "// and %s. Do not edit." % a.facts.split("/")[-1],
          "#include <cuda_runtime_api.h>", "", "#include <cstddef>", "",
          '#include "tests/fake_runtime/fake_runtime_core.h"', "",
          "namespace fake_cudart {", "",
          "int RuntimeVersion() { return %d; }" % version,
          'const char* Identity() { return "fake libcudart %s"; }' % a.version,
          'const char* DeviceName() { return "cudyn fake runtime %s"; }' % a.version, "",
          "// struct cudaDeviceProp of the %s header, field by field." % facts["cudart_version"],
          "const PropField kPropFields[] = {"]
    cc += ['    {"%s", %d, %d},' % (f["name"], f["offset"], f["size"]) for f in facts["device_prop"]]
    cc += ["};", "const int kPropFieldCount = sizeof(kPropFields) / sizeof(kPropFields[0]);", ""]
    for f in facts["device_prop"]:
        cc.append("static_assert(offsetof(cudaDeviceProp, %s) == %d && "
                  "sizeof(cudaDeviceProp::%s) == %d, \"%s\");"
                  % (f["name"], f["offset"], f["name"], f["size"], f["name"]))
    cc += ["", "}  // namespace fake_cudart", ""]

    undeclared = []
    for sym in exports:
        d = host.get(sym) if sym.startswith("__cuda") else decls.get(sym)
        if d is None:
            undeclared.append(sym)
            # Its prototype is not among the facts (a graphics-interop function): the fake
            # records the six integer argument registers as they arrive, so a test can see that
            # whatever forwarded the call kept them.
            regs = ["long a%d" % k for k in range(6)]
            cc += ["// Exported by the real runtime, declared by no header of the facts.",
                   "#undef %s" % sym, 'extern "C" int %s(%s) {' % (sym, ", ".join(regs)),
                   '  fake_cudart::Call call("%s");' % sym]
            cc += ["  call.Arg(a%d);" % k for k in range(6)]
            cc += ["  const int rc = call.Commit();", "  return rc;", "}", ""]
            continue
        cc += ["#undef %s" % sym] + definition(sym, d["ret"], d["params"], facts["type_sizes"])
    open(a.out_cc, "w").write("\n".join(cc) + "\n")

    lds = ["/* Generated by tests/fake_runtime/gen_fake_runtime.py: the %d exports of a %s runtime"
           % (len(exports), a.version),
           "   (%d of them declared by no header), then the fake's control API. */"
           % len(undeclared),
           "%s {" % a.soname, "  global:"]
    lds += ["    %s;" % s for s in exports]
    lds += ["    %s;" % s for s in CONTROL_API]
    lds += ["  local:", "    *;", "};"]
    open(a.out_lds, "w").write("\n".join(lds) + "\n")


if __name__ == "__main__":
    main()
