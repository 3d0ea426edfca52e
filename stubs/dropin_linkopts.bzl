"""How the drop-ins are built: the shared drop-in's link options, and one macro per library API.

How the shared drop-in is linked: //stubs:libcudyn_cuda.so and the installed copy //dist.

Start-up cost matters (a C program pays it at exec): references inside the library are bound at
link time (-Bsymbolic: the trampoline address table needs no symbol lookups), and libstdc++ is
linked in statically and hidden by the version script, so a C program does not load and relocate
libstdc++ because of cudyn. NEEDED: libc, libm and ld.so only.
"""

load("//:cudyn_library.bzl", "cudyn_library")

# The trampolines are the hot path of every call: optimised in every compilation mode (fastbuild
# would otherwise turn each into a stack frame and calls), so each is one `jmp *slot(%rip)`
# (trampoline_asm_test checks it).
STUB_COPTS = ["-O2"]

def dropin_linkopts(version_script, soname):
    """The link options of a shared drop-in.

    Args:
      version_script: "$(location ...)" of stubs/cudyn_cuda.lds.
      soname: the SONAME to write.
    """
    return [
        "-Wl,-soname," + soname,
        "-Wl,--no-undefined",
        # The toolchain links with -z now; a drop-in binds its few imports lazily, like the
        # driver it replaces (only what a program calls is ever looked up).
        "-Wl,-z,lazy",
    ] + shipped_object_linkopts(version_script)

def shipped_object_linkopts(version_script):
    """The link options every shared object cudyn ships shares (drop-ins, the Python module):
    only what `version_script` exports, references inside bound at link time, libstdc++ and
    libgcc linked in statically so it needs only glibc.

    Args:
      version_script: "$(location ...)" of its version script.
    """
    return [
        "-Wl,--version-script=" + version_script,
        "-Wl,-Bsymbolic",
        # libstdc++'s vtables name __cxa_pure_virtual weakly, which leaves ~80 symbol lookups
        # that fail at every start: define it from the static libstdc++ instead.
        "-Wl,-u,__cxa_pure_virtual",
        # Drop what nothing exported reaches (most of the static libstdc++): fewer relocations.
        "-Wl,--gc-sections",
        "-Wl,-O1",
        "-Wl,--hash-style=gnu",
    ] + select({
        # Sanitizer builds link libstdc++ dynamically: a static copy allocates its exception
        # emergency pool when loaded, and a test that dlopens and dlcloses the drop-in would have
        # LeakSanitizer report that pool.
        "//:sanitizer_build": [],
        "//conditions:default": [
            "-static-libgcc",
            "-static-libstdc++",
            "-l:libstdc++.a",
            # The toolchain appends -lstdc++ after these: with everything already resolved from
            # the archive it must not become a NEEDED entry.
            "-Wl,--as-needed",
        ],
    })

# The tag of every target a library drop-in declares: they are written for the CUDA 13.0 API of
# their library, so CI's CUDA 11.8 step (.ci/test.sh) leaves them out by this tag.
CUDA_13_API_TAG = "cuda_13_api"

# The tag of the tests of what ships (a drop-in's NEEDED entries, its one-jmp trampolines, the names
# it exports): properties of the plain build, which CI's sanitizer steps (.ci/test.sh) leave out, as
# they leave out tests/packaging and dist.
SHIPPED_TAG = "shipped"

def library_dropin(
        library,
        loader,
        entries,
        soname_13,
        min_trampolines = None,
        forwards = None,
        toolkit = None,
        asm_test_args = [],
        asm_test_data = []):
    """The drop-in of one CUDA library API beside the driver's: one table, one rule set.

    Declares, for library L (e.g. "nvrtc"):
      :L_trampolines              every entry of the table as a one-`jmp` trampoline (generated)
      :cudyn_L_impl, :cudyn_L     static, for -lL (L* and the introspection calls visible)
      :cudyn_L_embed              static, every symbol hidden, for bindings that embed cudyn
      :libcudyn_L.so              shared drop-in (exports only what stubs/cudyn_L.lds says)
      :dropin_L/<soname_13>       the same under the 13.0 library's SONAME, what `cudyn run`
                                  preloads and //dist installs as lib/cudyn/L/<soname_13>
      :L_shipped_deps_test        both shared forms need only glibc
      :L_trampoline_asm_test      every trampoline is one jmp through cudyn_L_stub_slots
      :L_dropin_exports_test      (toolkit) every name any real release exports is exported
    Sources by convention: L_shim.cc (its own answers), L_trampoline.h and L_trampoline.cc (the
    trampolines' slow path), cudyn_L.lds.

    Args:
      library: "cudart", "nvrtc", "cublas".
      loader: the loader library behind it (e.g. "//loader:nvrtc").
      entries: the generated table of entries (cudart_entries.inc-style).
      soname_13: the 13.0 library's SONAME ("libnvrtc.so.13").
      min_trampolines: the asm test's lower bound on the count of trampolines, if any.
      forwards: for the runtime, the generated forwards table its generator also reads.
      toolkit: for a library on the toolkit template (loader/toolkit.h), its TOOLKIT_LIBRARIES
        entry: the whole drop-in is then generated (stubs/toolkit_trampoline.h), its version
        script too (every entry and the marker cudyn<Name>EntryCount).
      asm_test_args: extra arguments of the asm test (after the shared library).
      asm_test_data: their data.
    """
    tags = [CUDA_13_API_TAG]
    lds = "cudyn_%s.lds" % library
    shared = "libcudyn_%s.so" % library
    outs = [library + "_trampolines.cc"]
    if forwards:
        gen_args = "$(location %s) $(location %s) $@" % (entries, forwards)
        gen_srcs = [entries, forwards]
        srcs, hdrs = [library + "_shim.cc", library + "_trampoline.cc"], [library + "_trampoline.h"]
    else:
        outs.append(lds)
        exports = "//version_tables:%s_exports" % library
        gen_args = "--library %s $(location %s) $(OUTS) %s %s %s %s %s $(locations %s)" % (
            library,
            entries,
            toolkit.name,
            toolkit.header,
            toolkit.status_type,
            toolkit.no_library[0],
            toolkit.not_supported[0],
            exports,
        )
        gen_srcs = [entries, exports]
        srcs, hdrs = [], ["toolkit_trampoline.h"]
    native.genrule(
        name = library + "_trampolines",
        srcs = gen_srcs,
        outs = outs,
        cmd = "python3 $(location gen_cudart_trampolines.py) " + gen_args,
        tools = ["gen_cudart_trampolines.py"],
        tags = tags,
    )
    cudyn_library(
        name = "cudyn_%s_impl" % library,
        srcs = srcs + [library + "_trampolines.cc"],
        hdrs = hdrs,
        copts = STUB_COPTS,
        cudyn_deps = [loader],
        embed_name = "cudyn_%s_embed" % library,
        embed_visibility = ["//visibility:public"],
        # A library's embedding twin is built when a binding links it, not by `bazel build //...`
        # (nothing here ships or tests the toolkit libraries' twins).
        embed_tags = tags + ["manual"] if toolkit else None,
        deps = ["@cuda//:headers"] + (getattr(toolkit, "header_deps", []) if toolkit else []),
        alwayslink = True,
        tags = tags,
    )
    native.cc_library(
        name = "cudyn_" + library,
        visibility = ["//visibility:public"],
        deps = [":cudyn_%s_impl" % library],
        tags = tags,
    )
    for name, soname in [(shared, shared), ("dropin_%s/%s" % (library, soname_13), soname_13)]:
        native.cc_binary(
            name = name,
            linkopts = dropin_linkopts("$(location %s)" % lds, soname),
            linkshared = True,
            visibility = ["//visibility:public"],
            deps = [
                lds,
                ":cudyn_" + library,
            ],
            tags = tags,
        )
    native.sh_test(
        name = library + "_shipped_deps_test",
        size = "small",
        srcs = ["shipped_deps_test.sh"],
        args = [
            "$(location :%s)" % shared,
            "$(location :dropin_%s/%s)" % (library, soname_13),
        ],
        data = [
            ":dropin_%s/%s" % (library, soname_13),
            ":" + shared,
        ],
        tags = tags + [SHIPPED_TAG],
    )
    if toolkit:
        native.sh_test(
            name = library + "_dropin_exports_test",
            size = "small",
            srcs = ["dropin_exports_test.sh"],
            args = ["$(location :%s)" % shared, "$(locations //version_tables:%s_exports)" % library],
            data = [":" + shared, "//version_tables:%s_exports" % library],
            tags = tags + [SHIPPED_TAG],
        )
    env = {
        "SHIM_OWN": "",
        "SLOT_TABLE": "cudyn_%s_stub_slots" % library,
        # The first letters every trampoline's name starts with (cudart: cuda*; a library: its
        # entries' common prefix, e.g. cublasLt, or "_" for nvJitLink's __nvJitLink*_13_0).
        "TRAMPOLINE_PREFIX": "cuda" if library == "cudart" else (toolkit.trampoline_prefix if hasattr(toolkit, "trampoline_prefix") else library),
    }
    if min_trampolines:
        env["MIN_TRAMPOLINES"] = str(min_trampolines)
    native.sh_test(
        name = library + "_trampoline_asm_test",
        size = "small",
        srcs = ["trampoline_asm_test.sh"],
        args = ["$(location :%s)" % shared] + asm_test_args,
        data = [":" + shared] + asm_test_data,
        env = env,
        tags = tags + [SHIPPED_TAG],
    )
