"""toolkit_library: a library on the toolkit template (toolkit.h) from its traits file and table."""

load("//:cudyn_library.bzl", "cudyn_library")

def toolkit_library(name, copts, cudyn_deps = []):
    """Declares //loader:<name> (and its embedding twin) from <name>.cc / <name>.h.

    Args:
      name: the library ("cublas"): its traits file is <name>.cc, its header <name>.h, its table
        //version_tables:<name>_generated_inc.
      copts: the loader's copts.
      cudyn_deps: other cudyn libraries its traits use (e.g. ":nvrtc_rule").
    """
    cudyn_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        copts = copts,
        cudyn_deps = [":core", ":toolkit"] + cudyn_deps,
        embed_alwayslink = False,
        visibility = ["//visibility:public"],
        deps = ["//version_tables:%s_generated_inc" % name],
    )

# Every library on the toolkit template, in cudyn-check's order: the one list. loader/BUILD declares
# each library from it, //loader:toolkit_libraries lists them for cudyn-check, stubs/BUILD makes
# their drop-ins. Per library:
#   name         the C++ spelling of its traits (k<Name>Traits, Default<Name>(), k<Name>EntryCount)
#   header       its API header, whose prototypes the drop-in compiles
#   status_type  its status type (what a missing entry answers)
#   soname_13    the 13.0 release's SONAME: the drop-in's name for `cudyn run`
#   deps         other //loader libraries its traits file uses
#   min_trampolines  the drop-in asm test's lower bound on its trampolines
TOOLKIT_LIBRARIES = {
    "nvrtc": struct(
        name = "Nvrtc",
        header = "nvrtc.h",
        status_type = "nvrtcResult",
        soname_13 = "libnvrtc.so.13",
        deps = [":nvrtc_rule"],
        min_trampolines = 24,
    ),
    "cublas": struct(
        name = "Cublas",
        header = "cublas_v2.h",
        status_type = "cublasStatus_t",
        soname_13 = "libcublas.so.13",
        deps = [],
        min_trampolines = 517,
    ),
}

def toolkit_libraries(name):
    """//loader:<name>: ToolkitLibraries() (toolkit_libraries.h) over every TOOLKIT_LIBRARIES entry."""
    includes = "".join(["#include \\\"loader/%s.h\\\"\\n" % lib for lib in TOOLKIT_LIBRARIES])
    rows = "".join(["    &k%sTraits,\\n" % t.name for t in TOOLKIT_LIBRARIES.values()])
    native.genrule(
        name = name + "_cc",
        outs = [name + ".cc"],
        cmd = ("printf '%s' > $@" % (
            "// Generated from TOOLKIT_LIBRARIES (loader/toolkit_library.bzl). Do not edit.\\n" +
            "#include \\\"loader/toolkit_libraries.h\\\"\\n" + includes +
            "namespace cudyn {\\n" +
            "const std::vector<const ToolkitTraits*>& ToolkitLibraries() {\\n" +
            "  static const std::vector<const ToolkitTraits*>* const kLibraries =\\n" +
            "      new std::vector<const ToolkitTraits*>{\\n" + rows + "  };\\n" +
            "  return *kLibraries;\\n}\\n}  // namespace cudyn\\n"
        )),
    )
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        visibility = ["//visibility:public"],
        deps = [":" + lib for lib in TOOLKIT_LIBRARIES],
    )
