"""cudyn_library: a cc_library and its twin for embedding, from one list of sources and options.

The embedding twin (//stubs:cudyn_cuda_embed and what it links) exports nothing: it links the
library's own objects with every symbol they define made hidden (tools/build/hide_symbols.py: the
objects are compiled once, not once per twin), and the embedding twins of the cudyn libraries it
depends on, so a binding (Python, Rust, ...) can carry cudyn without exporting any of it.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

# Link options for an executable that tests start many times (cudyn-check, the probes): non-PIE in
# the ASan/UBSan builds, where relocating UBSan's per-check data dominated each start (.bazelrc,
# non_pie_executables). Only for executables: -no-pie on a shared library's link drops -shared.
SPAWNED_BINARY_LINKOPTS = select({
    "//:non_pie_executables": ["-no-pie"],
    "//conditions:default": [],
})

def _embed_label(label):
    """//loader:cudyn -> //loader:cudyn_embed, :api_table -> :api_table_embed."""
    if ":" in label:
        return label + "_embed"
    return label + ":" + label.rsplit("/", 1)[-1] + "_embed"

def _hidden_objects_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    library = ctx.attr.library
    libraries, flags = [], []
    for linker_input in library[CcInfo].linking_context.linker_inputs.to_list():
        if linker_input.owner != library.label:
            continue  # a dependency's: its own twin hides it
        flags.extend(linker_input.user_link_flags)
        for lib in linker_input.libraries:
            hidden = {}
            for kind in ("static_library", "pic_static_library"):
                archive = getattr(lib, kind)
                if archive == None:
                    continue
                # An alwayslink archive (.lo, .pic.lo) is named as any other: alwayslink says it.
                base = archive.basename
                if base.endswith(".lo"):
                    base = base[:-len(".lo")] + ".a"
                out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, base))
                ctx.actions.run(
                    executable = "python3",
                    arguments = [ctx.file._hide_symbols.path, archive.path, out.path],
                    inputs = [archive, ctx.file._hide_symbols],
                    outputs = [out],
                    mnemonic = "HideSymbols",
                    progress_message = "Hiding the symbols of %s" % archive.short_path,
                    use_default_shell_env = True,
                )
                hidden[kind] = out
            if hidden:
                libraries.append(cc_common.create_library_to_link(
                    actions = ctx.actions,
                    feature_configuration = features,
                    cc_toolchain = cc_toolchain,
                    alwayslink = ctx.attr.alwayslink,
                    **hidden
                ))
    linking_context = cc_common.create_linking_context(linker_inputs = depset([
        cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset(libraries),
            user_link_flags = depset(flags),
        ),
    ]))
    return [CcInfo(
        compilation_context = library[CcInfo].compilation_context,
        linking_context = linking_context,
    )]

# The library's own archives, every symbol they define hidden (no dependency's): what its
# embedding twin links.
_hidden_objects = rule(
    implementation = _hidden_objects_impl,
    attrs = {
        "library": attr.label(providers = [CcInfo]),
        "alwayslink": attr.bool(),
        "_hide_symbols": attr.label(
            default = Label("//tools/build:hide_symbols.py"),
            allow_single_file = True,
        ),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

def cudyn_library(
        name,
        embed_name = None,
        copts = [],
        deps = [],
        cudyn_deps = [],
        alwayslink = False,
        embed_alwayslink = None,
        visibility = None,
        embed_visibility = None,
        embed_tags = None,
        **kwargs):
    """Declares cc_library `name` and its embedding twin `embed_name`.

    Args:
      name: the normal library.
      embed_name: the twin (default name + "_embed"): `name`'s objects with every symbol hidden
        (name + "_hidden"), over the twins of cudyn_deps.
      copts: the library's.
      deps: dependencies of both, as they are.
      cudyn_deps: other cudyn_library targets: the twin depends on their twins instead.
      alwayslink: for the normal library.
      embed_alwayslink: for the twin (default: alwayslink).
      visibility: of the normal library (default: the package's).
      embed_visibility: of the twin (default: the package's).
      embed_tags: the twin's tags (default: the normal library's); ["manual"] keeps a twin nothing
        ships or tests out of `bazel build //...` (it is built when something depends on it).
      **kwargs: srcs, hdrs, textual_hdrs, linkopts, tags, ... of the normal library.
    """
    native.cc_library(
        name = name,
        copts = copts,
        deps = cudyn_deps + deps,
        alwayslink = alwayslink,
        visibility = visibility,
        **kwargs
    )
    tags = kwargs.get("tags") if embed_tags == None else embed_tags
    _hidden_objects(
        name = name + "_hidden",
        library = ":" + name,
        alwayslink = alwayslink if embed_alwayslink == None else embed_alwayslink,
        visibility = ["//visibility:private"],
        tags = tags,
    )
    native.cc_library(
        name = embed_name or name + "_embed",
        deps = [":" + name + "_hidden"] + [_embed_label(d) for d in cudyn_deps] + deps,
        visibility = embed_visibility,
        tags = tags,
    )
