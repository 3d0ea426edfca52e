#!/usr/bin/env python3
"""The runtime drop-in forwards the graphics-interop functions (cudart_forwards.inc) untyped, by
name, to whichever runtime it chose. That is right only if their ABI is the same in every runtime
version: this test reads the interop headers (cuda_gl_interop.h, cuda_egl_interop.h,
cuda_vdpau_interop.h) of the real 13.0, 12.5, 12.4, 11.8 and 11.2 header sets as text (they need
the GL/EGL/VDPAU headers to compile, so they are not preprocessed) and proves:
  * every forwarded name is declared there by 13.0 and returns cudaError_t (what the drop-in
    answers when the runtime lacks it);
  * each declaration reads the same (comments and spacing aside) in every version that has it;
  * every struct and union these headers define has the same body in every version;
  * no enumerator changed meaning: one both versions name has the same value, and a value both
    versions use has the same name (13.0 added values; it dropped three EGL color formats 11.2
    had, which a 13.0 caller cannot name).

Usage: cudart_forwards_test.py CUDART_FORWARDS_INC INCLUDE_13.0 OLDER_INCLUDE...
(an include directory, or a file in it such as its cuda.h)
"""
import os
import re
import sys

HEADERS = ["cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h"]


def text_of(include_dir):
    if os.path.isfile(include_dir):
        include_dir = os.path.dirname(include_dir)
    parts = []
    for h in HEADERS:
        with open(os.path.join(include_dir, h)) as f:
            parts.append(f.read())
    text = "\n".join(parts)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"\s+", " ", text)


def declarations(text):
    """name -> the declaration without the deprecation marker (11.x-13.0 mark the old GL calls)."""
    return {m.group(2): m.group(0).replace("__CUDA_DEPRECATED ", "") for m in re.finditer(
        r"extern (?:__CUDA_DEPRECATED )?__host__ (\w+) CUDARTAPI (cuda\w+) ?\(([^;]*)\) ?;", text)}


def aggregates(text):
    return {m.group(2): m.group(3).strip() for m in re.finditer(
        r"\b(struct|union) (?:__device_builtin__ )?(cuda\w+) ?\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", text)}


def enumerators(text):
    """enum name -> {enumerator: value}."""
    enums = {}
    for enum, body in re.findall(r"\benum (?:__device_builtin__ )?(cuda\w+) ?\{([^}]*)\}", text):
        enums[enum] = {n: int(v, 0) for n, v in re.findall(r"(\w+) ?= ?(0x[0-9a-fA-F]+|\d+)", body)}
    return enums


def main():
    forwards_inc, newest, older = sys.argv[1], sys.argv[2], sys.argv[3:]
    names = re.findall(r"^CUDYN_CUDART_FORWARD\(\d+, (\w+)\)$", open(forwards_inc).read(), re.M)
    failures = []
    if not names:
        failures.append("no CUDYN_CUDART_FORWARD lines in " + forwards_inc)
    t13 = text_of(newest)
    d13, a13, e13 = declarations(t13), aggregates(t13), enumerators(t13)
    for n in names:
        if n not in d13:
            failures.append("%s: not declared by the 13.0 interop headers" % n)
        elif not d13[n].startswith("extern __host__ cudaError_t "):
            failures.append("%s: does not return cudaError_t: %s" % (n, d13[n]))
    if len(a13) < 2:
        failures.append("only %d structs found in the 13.0 interop headers" % len(a13))
    for inc in older:
        t = text_of(inc)
        d, a, e = declarations(t), aggregates(t), enumerators(t)
        for n in names:
            if n in d and n in d13 and d[n] != d13[n]:
                failures.append("%s: %s declares %s / 13.0 %s" % (n, inc, d[n], d13[n]))
        for ty, body in a.items():
            if ty in a13 and body != a13[ty]:
                failures.append("struct %s differs in %s" % (ty, inc))
        for enum, values in e.items():
            new = e13.get(enum, {})
            by_value = {}
            for n, v in new.items():
                by_value.setdefault(v, set()).add(n)
            for n, v in values.items():
                if n in new and new[n] != v:
                    failures.append("%s: %s = %d in %s, %d in 13.0" % (enum, n, v, inc, new[n]))
                if v in by_value and n not in by_value[v]:
                    failures.append("%s: value %d is %s in %s, %s in 13.0" % (
                        enum, v, n, inc, "/".join(sorted(by_value[v]))))
        print("%s: %d of %d forwarded declarations, %d structs, %d enums checked against 13.0" % (
            inc, sum(n in d for n in names), len(names), len(a), len(e)))
    for f in failures:
        print("FAIL: " + f)
    print("%d forwarded names; %d failure(s)" % (len(names), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
