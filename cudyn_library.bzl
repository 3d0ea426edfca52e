"""cudyn_library: a cc_library and its twin for embedding, from one list of sources and options.

The embedding twin (//stubs:cudyn_cuda_embed and what it links) compiles the same sources with
every symbol hidden, and links the embedding twins of the cudyn libraries it depends on, so a
binding (Python, Rust, ...) can carry cudyn without exporting any of it.
"""

# What makes a library an embedding twin: nothing it defines is visible outside the final binary.
EMBED_COPTS = [
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
]

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

def cudyn_library(
        name,
        embed_name = None,
        copts = [],
        embed_copts = [],
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
      embed_name: the twin (default name + "_embed").
      copts: for both.
      embed_copts: the twin's extra copts, after EMBED_COPTS (e.g. ["-DCUDYN_EMBED"]).
      deps: dependencies of both, as they are.
      cudyn_deps: other cudyn_library targets: the twin depends on their twins instead.
      alwayslink: for the normal library.
      embed_alwayslink: for the twin (default: alwayslink).
      visibility: of the normal library (default: the package's).
      embed_visibility: of the twin (default: the package's).
      embed_tags: the twin's tags (default: the normal library's); ["manual"] keeps a twin nothing
        ships or tests out of `bazel build //...` (it is built when something depends on it).
      **kwargs: srcs, hdrs, textual_hdrs, linkopts, ... for both.
    """
    native.cc_library(
        name = name,
        copts = copts,
        deps = cudyn_deps + deps,
        alwayslink = alwayslink,
        visibility = visibility,
        **kwargs
    )
    twin_kwargs = dict(kwargs)
    if embed_tags != None:
        twin_kwargs["tags"] = embed_tags
    native.cc_library(
        name = embed_name or name + "_embed",
        copts = copts + EMBED_COPTS + embed_copts,
        deps = [_embed_label(d) for d in cudyn_deps] + deps,
        alwayslink = alwayslink if embed_alwayslink == None else embed_alwayslink,
        visibility = embed_visibility,
        **twin_kwargs
    )
