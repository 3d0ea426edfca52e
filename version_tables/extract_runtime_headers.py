#!/usr/bin/env python3
"""Extracts the runtime-API (libcudart) facts cudyn needs from one CUDA include directory.

Runs the C preprocessor (gcc -E -P, C mode: it works for every header set from 11.2 to 13.0) over
cuda_runtime_api.h and cuda_profiler_api.h (cudaProfilerStart/Stop, which libcudart exports too) in
two modes, default and per-thread default stream
(-DCUDA_API_PER_THREAD_DEFAULT_STREAM, "ptds"), and compiles and runs small probes with gcc against
the same headers to measure struct sizes and layouts (cudaDeviceProp's included). Writes one JSON
file:
  cudart_version   CUDART_VERSION of the headers (12050 for 12.5)
  decls            mode -> symbol -> {"ret", "params"}: every `extern <ret> cudaXxx(...)` declaration,
                   parameters squashed to single spaces as written (with their names)
  map              mode -> public name -> the symbol it expands to (only where it differs)
  type_sizes       sizeof of every struct/union/array type a parameter points to (or takes by value,
                   or a function returns); incomplete (opaque) types are left out
  device_prop      every field of struct cudaDeviceProp in declaration order with offset and size
  struct_fields    type -> the top-level fields of every struct/union type of type_sizes, in
                   declaration order: {"name", "offset", "size"} measured with offsetof/sizeof by a
                   compiled probe (a nested struct/union is one field under its member name, an
                   anonymous one contributes its own members); a type whose definition this reader
                   cannot read (bit-fields, ...) is left out
  member_fields    type -> every leaf field, for the struct types of struct_fields that have a named
                   nested struct/union member (cudaResourceDesc's union `res`): the nested members
                   spelled as paths ("res.pitch2D.width"), each with its offset and size, in
                   declaration order; union members overlap. Layout conversions work field by
                   field from these (generate_runtime.py)
  member_type_sizes
                   sizeof of every struct/union type that a type of struct_fields has as a member
                   (by value, an array's element type too, transitively) and type_sizes lacks:
                   cudaGraphNodeParams's union members (`struct cudaKernelNodeParamsV2`, ...), the
                   13.0 structs the adapters convert into an older runtime's typed structs. Their
                   fields are in struct_fields / member_fields like the others'
  member_types     type -> {member: its struct/union type} for the types of struct_fields with
                   members of a struct or union type by value (cudaLaunchConfig_t's gridDim: dim3):
                   a path through such a member ("gridDim.x") is that member's offset plus the field's
                   offset in the member's type (generate_runtime.py's conversions to the driver)
Only `regen --headers` needs the headers; generate_runtime.py works from the JSON files checked in
under inputs/runtime_headers/.

With --library NAME it reads another library's header by the same rules, as LIBRARY_HEADERS
describes it (the header, the symbol prefix, whether declarations say `extern`), and writes only
  decls           {"default": symbol -> {"ret", "params"}}
  pointer_typedefs
                  {typedef name: "struct X *" or "struct X const *"}: every typedef of a pointer to a
                  struct or union that a declaration names (a library's handles and descriptors:
                  cuSPARSE 12.1+ declares `cusparseConstSpMatDescr_t` where 11.x has
                  `cusparseSpMatDescr_t`, the same pointer to the pointee made const)
(inputs/<name>_headers/<name>-<v>.json, e.g. inputs/cublas_headers/cublas-<v>.json for cuBLAS;
generate_runtime.py --library reads them).

Usage: extract_runtime_headers.py [--library NAME] INCLUDE_DIR OUT.json
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MODES = {
    "default": [],
    "ptds": ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
}
HEADER = "cuda_runtime_api.h"
# Headers whose cuda* declarations are runtime entries too (libcudart exports them); the graphics
# interop headers (GL, EGL, VDPAU) need the graphics APIs' own headers and stay out.
EXTRA_HEADERS = ["cuda_profiler_api.h"]
INCLUDES = "".join("#include <%s>\n" % h for h in [HEADER] + EXTRA_HEADERS)

ATTR = r"(?:__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)\s*)"


def decl_re(prefix, extern):
    """Declarations `[extern] <ret> <prefix>Xxx(...);` (extern required when `extern`); not a
    `return f(...);` of an inline wrapper, nor a function-pointer typedef."""
    return re.compile(
        r"(?:^|[;}\n])\s*" + (r"extern\s+" if extern else r"(?:extern\s+)?") + ATTR +
        r"*(?!return\b|typedef\b)((?:const\s+|struct\s+|enum\s+|unsigned\s+)*\w+(?:\s*\*)*)\s*" + ATTR + r"*(" + prefix +
        r"\w+)\s*\(([^;{}]*?)\)\s*" + ATTR + r"*;")


DECL_RE = decl_re("cuda", True)
# Other libraries read with --library: name -> (header, symbol prefix, declarations say extern).
# Their headers are read in C mode (their C++-only parts, such as nvrtc.h's templates, drop out).
# The header may be a list; the prefix is a regular expression (nvJitLink.h declares its functions
# under release-named symbols, __nvJitLinkCreate_13_0, behind static inline wrappers).
LIBRARY_HEADERS = {
    "nvrtc": ("nvrtc.h", "nvrtc", False),
    "cublas": ("cublas_v2.h", "cublas", False),
    "curand": ("curand.h", "curand", False),
    "cufft": (["cufft.h", "cufftXt.h"], "cufft", False),
    "nvjitlink": ("nvJitLink.h", "(?:__)?nvJitLink", False),
    "cusparse": ("cusparse.h", "cusparse", False),
    "cusolver": (["cusolver_common.h", "cusolverDn.h", "cusolverSp.h", "cusolverRf.h"], "cusolver",
                 False),
    "cublaslt": ("cublasLt.h", "cublasLt", False),
}
MAP_RE = re.compile(r"^@@MAP\s+(\d+)\s+(\S+)\s*$", re.M)
QUALIFIERS = {"const", "volatile", "struct", "enum", "union", "restrict", "__restrict"}
BUILTIN = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
           "_Bool", "bool"}


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


def base_of(symbol):
    """cudaMemPrefetchAsync_v2_ptsz -> cudaMemPrefetchAsync."""
    s = re.sub(r"_(ptds|ptsz)$", "", symbol)
    return re.sub(r"_v\d+$", "", s)


def split_params(params):
    """Top-level comma split; [] for `void` or nothing."""
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
    """-> (type text without the name, name or None, pointed-to or by-value base type or None).

    The type text is normalised: single spaces, no space before or after '*'
    ('const void *devPtr' -> 'const void*')."""
    if "(" in param:  # function pointer written out: void (*fn)(void *)
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


def preprocess(include_dir, mode_flags, extra=""):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            f.write(INCLUDES)
            f.write(extra)
        out = subprocess.run(["gcc", "-E", "-P", "-I", include_dir] + mode_flags + [src],
                             check=True, capture_output=True, text=True)
        return out.stdout


def probe_prologue(includes):
    """The lines a probe program starts with: stddef.h, stdio.h and `includes` (the headers whose
    types it measures: INCLUDES for the runtime, cuda.h for extract_headers.py)."""
    return "#include <stddef.h>\n#include <stdio.h>\n" + includes


def compile_run(include_dir, body, syntax_only=False, includes=INCLUDES):
    """Compiles a C program (probe_prologue(includes) + body); returns
    (returncode, stdout-or-stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.c")
        exe = os.path.join(tmp, "p")
        with open(src, "w") as f:
            f.write(probe_prologue(includes))
            f.write(body)
        cmd = ["gcc", "-w", "-I", include_dir, src]
        cmd += ["-fsyntax-only"] if syntax_only else ["-o", exe]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode or syntax_only:
            return r.returncode, r.stderr
        r = subprocess.run([exe], capture_output=True, text=True, check=True)
        return 0, r.stdout


def cudart_version(include_dir):
    text = open(os.path.join(include_dir, HEADER)).read()
    return int(re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text).group(1))


def type_sizes(include_dir, types, includes=INCLUDES):
    """sizeof of every record/union/array type among `types` that is complete."""
    types = sorted(types)
    # One line per type; a line that does not compile (incomplete type, not a type) is dropped.
    header_lines = probe_prologue(includes).count("\n")
    body = "".join("int probe_%d = __builtin_classify_type(*(%s *)0) * 0 + (int)sizeof(%s);\n"
                   % (i, t, t) for i, t in enumerate(types))
    _, err = compile_run(include_dir, body, syntax_only=True, includes=includes)
    bad = set()
    for m in re.finditer(r"p\.c:(\d+):\d+: error", err):
        bad.add(int(m.group(1)) - header_lines - 1)  # probe i is on line header_lines + 1 + i
    good = [t for i, t in enumerate(types) if i not in bad]
    body = "int main(void) {\n" + "".join(
        'printf("%%d %%zu\\n", (int)__builtin_classify_type(*(%s *)0), sizeof(%s));\n' % (t, t)
        for t in good) + "return 0;\n}\n"
    rc, out = compile_run(include_dir, body, includes=includes)
    if rc:
        sys.exit("type size probe failed:\n" + out)
    sizes = {}
    for t, line in zip(good, out.splitlines()):
        klass, size = map(int, line.split())
        if klass in (12, 13, 14):  # record, union, array (gcc's type classes)
            sizes[t] = size
    return sizes


def _matching(text, i, open_ch="{", close_ch="}"):
    """Index just past the bracket closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced %s" % open_ch)


def _split_top(text, sep):
    """Splits at `sep` outside (), [] and {}."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


AGGREGATE_RE = re.compile(r"\b(typedef\s+)?(struct|union)\b\s*" + ATTR + r"*(\w+)?\s*" + ATTR + r"*\{")
TYPEDEF_TAG_RE = re.compile(r"\btypedef\s+(struct|union)\s+(\w+)\s+" + ATTR + r"*(\w+)\s*" + ATTR
                            + r"*;")


def aggregate_bodies(text):
    """{"struct X" / "union X" / typedef name: the text between the braces} of every struct and
    union defined at file scope (typedef names of a tagged aggregate point at its body too)."""
    bodies, aliases, end = {}, {}, 0
    for m in AGGREGATE_RE.finditer(text):
        if m.start() < end:
            continue  # nested in the previous definition
        close = _matching(text, m.end() - 1)
        end = close
        body = text[m.end():close - 1]
        if m.group(3):
            bodies["%s %s" % (m.group(2), m.group(3))] = body
        if m.group(1):
            tail = text[close:text.index(";", close)]
            for d in _split_top(re.sub(ATTR, " ", tail), ","):
                d = squash(d)
                if re.match(r"\w+$", d):
                    bodies[d] = body
    for m in TYPEDEF_TAG_RE.finditer(text):
        aliases[m.group(3)] = "%s %s" % (m.group(1), m.group(2))
    for name, target in aliases.items():
        if name not in bodies and target in bodies:
            bodies[name] = bodies[target]
    return bodies


def member_names(body):
    """The names of an aggregate's top-level members in declaration order; a nested struct/union
    is one member under its member name, an anonymous one contributes its own members. Raises
    ValueError for what offsetof cannot measure (bit-fields) or this reader does not understand."""
    names = []
    for decl in _split_top(body, ";"):
        decl = squash(re.sub(ATTR, " ", decl))
        if not decl:
            continue
        if "{" in decl:
            open_at = decl.index("{")
            close = _matching(decl, open_at)
            if not re.match(r"(struct|union)\b(\s+\w+)?\s*$", decl[:open_at].strip()):
                raise ValueError("cannot read the member '%s'" % decl)
            tail = decl[close:].strip()
            if not tail:
                names.extend(member_names(decl[open_at + 1:close - 1]))
                continue
            declarators = _split_top(tail, ",")
        else:
            declarators = _split_top(decl, ",")
        for d in declarators:
            d = d.strip()
            if re.search(r":", re.sub(r"\[[^\]]*\]", "", d)):
                raise ValueError("bit-field '%s'" % d)
            if "(" in d:  # function pointer: ret (*name)(params)
                m = re.search(r"\(\s*\*\s*(\w+)\s*\)", d)
            else:
                m = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", d)
            if not m:
                raise ValueError("cannot read the member '%s'" % decl)
            names.append(m.group(1))
    return names


def member_paths(body, prefix=""):
    """Like member_names, but a named nested struct/union contributes its own members as paths
    under its name ("res.linear.devPtr"); arrays and members of a named type are leaves."""
    paths = []
    for decl in _split_top(body, ";"):
        decl = squash(re.sub(ATTR, " ", decl))
        if not decl:
            continue
        if "{" in decl:
            open_at = decl.index("{")
            close = _matching(decl, open_at)
            inner = decl[open_at + 1:close - 1]
            tail = decl[close:].strip()
            if not tail:
                paths.extend(member_paths(inner, prefix))
                continue
            for d in _split_top(tail, ","):
                d = d.strip()
                if not re.match(r"\w+$", d):  # an array of aggregates: one leaf
                    m = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", d)
                    if not m:
                        raise ValueError("cannot read the member '%s'" % decl)
                    paths.append(prefix + m.group(1))
                    continue
                paths.extend(member_paths(inner, prefix + d + "."))
            continue
        paths.extend(prefix + n for n in member_names(decl + ";"))
    return paths


def member_types(text, types):
    """The struct/union types (as aggregate_bodies names them) that the aggregates `types` have as
    members by value (an array's element type too), and theirs, transitively; `types` excluded."""
    bodies = aggregate_bodies(text)
    seen, todo = set(types), [t for t in sorted(types) if t in bodies]
    found = set()
    while todo:
        body = bodies[todo.pop()]
        # Inline nested aggregates are part of the body: read their member declarations too.
        for decl in _split_top(re.sub(r"[{}]", ";", body), ";"):
            decl = squash(re.sub(ATTR, " ", decl))
            if not decl or "*" in decl or "(" in decl:
                continue
            m = re.match(r"(?:const\s+|volatile\s+)*((?:struct|union)\s+\w+|\w+)\s+\w+", decl)
            if m and m.group(1) in bodies and m.group(1) not in seen:
                seen.add(m.group(1))
                found.add(m.group(1))
                todo.append(m.group(1))
    return found


def member_fields(include_dir, text, types, includes=INCLUDES):
    """{type: [{"name": path, "offset", "size"}]} of the leaf fields of each of `types` that has a
    named nested aggregate member, measured like struct_fields."""
    bodies = aggregate_bodies(text)
    todo = []
    for t in sorted(types):
        if t not in bodies:
            continue
        try:
            top, paths = member_names(bodies[t]), member_paths(bodies[t])
        except ValueError:
            continue
        if paths != top and len(set(paths)) == len(paths):
            todo.append((t, paths))
    return measure(include_dir, todo, includes)


def struct_fields(include_dir, text, types, includes=INCLUDES):
    """{type: [{"name", "offset", "size"}]} for each of `types` (struct or union types, written
    "struct X" or as a typedef name) whose definition this reader understands: every top-level
    member with offsetof/sizeof measured by a compiled probe. A type it cannot read, or whose probe
    line does not compile, is left out."""
    bodies = aggregate_bodies(text)
    todo = []
    for t in sorted(types):
        if t not in bodies:
            continue
        try:
            names = member_names(bodies[t])
        except ValueError:
            continue
        if names and len(set(names)) == len(names):
            todo.append((t, names))
    return measure(include_dir, todo, includes)


def measure(include_dir, todo, includes=INCLUDES):
    """[(type, [member designator])] -> {type: [{"name", "offset", "size"}]}, by a compiled probe
    (offsetof/sizeof); a type whose probe line does not compile is left out."""
    def probe_line(t, names):
        return "{ " + "".join(
            'printf("%%zu %%zu ", offsetof(%s, %s), sizeof(((%s *)0)->%s)); ' % (t, n, t, n)
            for n in names) + 'printf("\\n"); }\n'

    # One line per type; a line that does not compile is dropped (its type left out).
    header_lines = probe_prologue(includes).count("\n")
    body = "int main(void) {\n" + "".join(probe_line(t, n) for t, n in todo) + "return 0;\n}\n"
    _, err = compile_run(include_dir, body, syntax_only=True, includes=includes)
    bad = set()
    for m in re.finditer(r"p\.c:(\d+):\d+: error", err):
        bad.add(int(m.group(1)) - header_lines - 2)  # after `int main(void) {`
    todo = [x for i, x in enumerate(todo) if i not in bad]
    body = "int main(void) {\n" + "".join(probe_line(t, n) for t, n in todo) + "return 0;\n}\n"
    rc, out = compile_run(include_dir, body, includes=includes)
    if rc:
        sys.exit("struct layout probe failed:\n" + out)
    fields = {}
    for (t, names), line in zip(todo, out.splitlines()):
        nums = list(map(int, line.split()))
        fields[t] = [{"name": n, "offset": nums[2 * k], "size": nums[2 * k + 1]}
                     for k, n in enumerate(names)]
    return fields


def device_prop(include_dir, text):
    try:
        names = member_names(aggregate_bodies(text)["struct cudaDeviceProp"])
    except (KeyError, ValueError) as err:
        sys.exit("cannot read struct cudaDeviceProp: %s" % err)
    fields = struct_fields(include_dir, text, ["struct cudaDeviceProp"]).get("struct cudaDeviceProp")
    if fields is None or [f["name"] for f in fields] != names:
        sys.exit("cudaDeviceProp probe failed")
    return fields


def extract(include_dir):
    facts = {"cudart_version": cudart_version(include_dir), "decls": {}, "map": {}}
    texts = {}
    for mode, flags in MODES.items():
        text = preprocess(include_dir, flags)
        texts[mode] = text
        facts["decls"][mode] = declarations(text, DECL_RE, "%s (mode %s)" % (include_dir, mode))
    names = set()
    for decls in facts["decls"].values():
        for sym in decls:
            names.add(sym)
            names.add(base_of(sym))
            names.add(re.sub(r"_(ptds|ptsz)$", "", sym))
    names = sorted(names)
    # Index-keyed probe lines: only the second field may expand.
    probe = "".join("@@MAP %d %s\n" % (i, n) for i, n in enumerate(names))
    for mode, flags in MODES.items():
        text = preprocess(include_dir, flags, probe)
        facts["map"][mode] = {}
        for index, target in MAP_RE.findall(text):
            name = names[int(index)]
            if target != name:
                facts["map"][mode][name] = target
    types = set()
    for decls in facts["decls"].values():
        for d in decls.values():
            types |= named_types(d["params"])
            ret = d["ret"].replace("const ", "").replace("*", "").strip()
            types.add(ret)
    types.discard("void")
    facts.update(layout_facts(include_dir, texts["default"], types))
    facts["device_prop"] = device_prop(include_dir, texts["default"])
    return facts


def named_types(params):
    """The types (not builtin) the parameters of one declaration point to or take by value."""
    types = set()
    for p in split_params(params):
        _, _, base = parse_param(p)
        if base and base not in BUILTIN and not base.startswith(("unsigned", "signed", "long",
                                                                 "short")):
            types.add(base)
    return types


def layout_facts(include_dir, text, types, includes=INCLUDES):
    """type_sizes, struct_fields, member_type_sizes, member_fields and member_types (the module
    docstring) of `types` as the preprocessed `text` defines them, measured by probes that include
    `includes`. extract_headers.py measures cuda.h's types with it too."""
    facts = {"type_sizes": type_sizes(include_dir, types, includes)}
    facts["struct_fields"] = struct_fields(include_dir, text, facts["type_sizes"], includes)
    nested = member_types(text, facts["struct_fields"])
    facts["member_type_sizes"] = type_sizes(include_dir, nested - set(facts["type_sizes"]),
                                            includes)
    facts["struct_fields"].update(struct_fields(include_dir, text, facts["member_type_sizes"],
                                                includes))
    facts["member_fields"] = member_fields(include_dir, text, facts["struct_fields"], includes)
    facts["member_types"] = member_type_names(text, facts["struct_fields"])
    return facts


def member_type_names(text, types):
    """{type: {member: its struct/union type}} for the types of `types` with top-level members of a
    struct or union type by value (not arrays, pointers nor inline aggregates; an anonymous
    aggregate's members count as the type's own), types named as aggregate_bodies names them: what
    a path through such a member ("gridDim.x") resolves against."""
    bodies = aggregate_bodies(text)

    def members(body):
        found = {}
        for decl in _split_top(body, ";"):
            decl = squash(re.sub(ATTR, " ", decl))
            if "{" in decl:
                open_at = decl.index("{")
                close = _matching(decl, open_at)
                if not decl[close:].strip():  # anonymous: its members are the type's
                    found.update(members(decl[open_at + 1:close - 1]))
                continue
            m = re.match(r"(?:const\s+|volatile\s+)*((?:struct|union)\s+\w+|\w+)\s+(.*)$", decl)
            if not m or m.group(1) not in bodies:
                continue
            for d in _split_top(m.group(2), ","):
                if re.match(r"\w+$", d.strip()):
                    found[d.strip()] = m.group(1)
        return found

    out = {}
    for t in sorted(types):
        if t in bodies:
            found = members(bodies[t])
            if found:
                out[t] = found
    return out


def declarations(text, regex, where):
    """symbol -> {"ret", "params"} of every declaration `regex` finds in preprocessed `text`."""
    decls = {}
    for m in regex.finditer(text):
        ret, sym, params = squash(m.group(1)), m.group(2), squash(m.group(3))
        ret = re.sub(r"\s*\*", " *", ret)
        prev = decls.setdefault(sym, {"ret": ret, "params": params})
        if prev != {"ret": ret, "params": params}:
            sys.exit("%s: %s declared twice differently" % (where, sym))
    return decls


def extract_library(include_dir, library):
    header, prefix, extern = LIBRARY_HEADERS[library]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            f.write("".join("#include <%s>\n" % h for h in ([header] if isinstance(header, str)
                                                             else header)))
        # Debian's nvidia-cuda-dev ships cuda_fp16.h (which cublas_api.h includes) without the
        # libcu++ <nv/target> it includes (another package); no declaration read here depends on it,
        # so an empty one is searched after the real include directories.
        os.makedirs(os.path.join(tmp, "fallback", "nv"))
        open(os.path.join(tmp, "fallback", "nv", "target"), "w").close()
        text = subprocess.run(["gcc", "-E", "-P", "-I", include_dir, "-idirafter",
                               os.path.join(tmp, "fallback"), src], check=True,
                              capture_output=True, text=True).stdout
    decls = declarations(text, decl_re(prefix, extern), include_dir)
    return {"decls": {"default": decls}, "pointer_typedefs": pointer_typedefs(text, decls)}


POINTER_TYPEDEF_RE = re.compile(
    r"\btypedef\s+((?:const\s+)?(?:struct|union)\s+\w+(?:\s+const)?)\s*\*\s*(\w+)\s*" + ATTR + "?;")


def pointer_typedefs(text, decls):
    """{name: "struct X *" / "struct X const *"} of the pointer typedefs the declarations name."""
    named = {w for d in decls.values() for w in re.findall(r"\w+", d["ret"] + " " + d["params"])}
    found = {}
    for m in POINTER_TYPEDEF_RE.finditer(text):
        if m.group(2) in named:
            target = squash(m.group(1))
            if target.startswith("const "):  # one spelling: the qualifier after the type
                target = target[len("const "):] + " const"
            found[m.group(2)] = target + " *"
    return found


def main():
    args = sys.argv[1:]
    library = None
    if len(args) == 4 and args[0] == "--library" and args[1] in LIBRARY_HEADERS:
        library, args = args[1], args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    facts = extract_library(args[0], library) if library else extract(args[0])
    with open(args[1], "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
