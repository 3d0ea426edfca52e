"""fuzz_sources: what a libFuzzer build outside Bazel compiles, read from a Bazel binary's deps.

run_fuzzer.sh builds the fuzz targets with clang (-fsanitize=fuzzer), which Bazel's gcc toolchain
cannot do. Rather than keeping its own copy of the library sources (which drifted from the BUILD
files before), it builds :<target>_fuzzer_sources and compiles what the file lists: the C/C++
sources of every library in this workspace the smoke binary depends on, transitively. Building
the target also builds the generated sources and headers those libraries need.

Output <name>.txt, one line per source, sorted:
    src <path>     a source file, relative to the workspace root
    gen <path>     a generated file, relative to bazel-bin
"""

_SOURCE_EXTENSIONS = ["c", "cc", "cpp"]

_FuzzSourcesInfo = provider(fields = {
    "own": "this target's own C/C++ sources",
    "sources": "depset of the C/C++ sources of this target and its deps (this workspace only)",
    "generated": "depset of the generated files those libraries compile or include",
})

def _collect_impl(target, ctx):
    sources = []
    generated = []
    if target.label.workspace_name == "":
        for attr in ["srcs", "hdrs", "textual_hdrs"]:
            for f in getattr(ctx.rule.files, attr, []):
                if attr == "srcs" and f.extension in _SOURCE_EXTENSIONS:
                    sources.append(f)
                if not f.is_source:
                    generated.append(f)
    deps = [
        d[_FuzzSourcesInfo]
        for d in getattr(ctx.rule.attr, "deps", [])
        if _FuzzSourcesInfo in d
    ]
    return [_FuzzSourcesInfo(
        own = sources,
        sources = depset(sources, transitive = [d.sources for d in deps]),
        generated = depset(generated, transitive = [d.generated for d in deps]),
    )]

_collect = aspect(
    implementation = _collect_impl,
    attr_aspects = ["deps"],
)

def _fuzz_sources_impl(ctx):
    info = ctx.attr.binary[_FuzzSourcesInfo]
    # The binary's own sources (the fuzz target, the smoke main) are not listed: run_fuzzer.sh
    # compiles the fuzz target itself, with libFuzzer's main.
    own = {f.path: True for f in info.own}
    lines = sorted([
        ("src " if f.is_source else "gen ") + f.short_path
        for f in info.sources.to_list()
        if f.path not in own
    ])
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(out, "\n".join(lines) + "\n")
    return [DefaultInfo(files = depset([out], transitive = [info.generated]))]

fuzz_sources = rule(
    implementation = _fuzz_sources_impl,
    attrs = {
        "binary": attr.label(aspects = [_collect], mandatory = True),
    },
)

def reader_fuzz_target(name, deps, seeds, mutations = 300):
    """A libFuzzer target <name>_fuzzer.cc of a package, as Bazel knows it (its run_fuzzer.sh builds
    the real thing with clang): :<name>_fuzzer_smoke (the replay main), :<name>_fuzzer_sources (what
    run_fuzzer.sh compiles besides the target: libfuzzer_sources) and :<name>_fuzzer_smoke_test
    (every seed of `seeds` and `mutations` mutations of each)."""
    smoke = name + "_fuzzer_smoke"
    native.cc_binary(
        name = smoke,
        testonly = True,
        srcs = [
            name + "_fuzzer.cc",
            "//tests/fuzz:fuzz_smoke_main.cc",
        ],
        deps = deps,
    )
    fuzz_sources(
        name = name + "_fuzzer_sources",
        testonly = True,
        binary = ":" + smoke,
    )
    native.sh_test(
        name = smoke + "_test",
        size = "small",
        srcs = ["//tests/fuzz:smoke_test.sh"],
        args = [
            "$(location :%s)" % smoke,
            "-",
            "--mutations=%d" % mutations,
            "$(locations %s)" % seeds,
        ],
        data = [
            ":" + smoke,
            seeds,
        ],
    )
