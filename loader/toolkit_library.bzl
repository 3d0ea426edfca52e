"""toolkit_library: a library on the toolkit template (toolkit.h) from its traits file and table."""

load("//:cudyn_library.bzl", "cudyn_library")

def _c(text):
    return "\"%s\"" % text if text else "nullptr"

def _base_traits(lib, t):
    """The lines of Base<Name>Traits(): every field of ToolkitTraits that is data."""
    fields = [
        ("name", _c(t.title)),
        ("library", _c(lib)),
        ("file", _c(t.file)),
        ("env_name", _c("CUDYN_%s_PATH" % lib.upper())),
        ("wheel_before_13", _c(t.wheel)),
        ("version_symbol", _c(t.version_symbol)),
        ("cudyn_marker", _c("cudyn%sEntryCount" % t.name)),
        ("not_the_library", _c("not_" + lib)),
        ("too_new", _c(getattr(t, "too_new", "driver_too_old"))),
        ("no_library_status", "k%sNoLibrary" % t.name),
        ("not_supported_status", "k%sNotSupported" % t.name),
        ("not_supported_name", _c(t.not_supported[0])),
        ("dropin_soname", _c(t.soname_13)),
        ("runtime_version_symbol", _c(getattr(t, "runtime_version_symbol", None))),
        ("version_scale", str(getattr(t, "version_scale", 1000))),
    ]
    for hook in ["read_version", "version_text"]:
        if getattr(t, hook, None):
            fields.append((hook, "&" + getattr(t, hook)))
    if getattr(t, "driver_library", False):
        fields.append(("driver_library", "true"))
    siblings = getattr(t, "siblings", [])
    if siblings:
        fields.append(("siblings", "\"%s\"" % "".join([n + "\\0" for n in siblings])))
    if getattr(t, "soname_is_cuda_major", False):
        fields.append(("oldest_release_of_soname", "&SonameMajorRelease"))
    return ["  t.%s = %s;" % f for f in fields]

def _header_text(lib, t):
    """loader/<lib>.h: the status values cudyn answers, the entry indices, the base traits, the
    declarations."""
    guard = "CUDYN_LOADER_%s_H_" % lib.upper()
    macro = "CUDYN_%s_ENTRY" % lib.upper()
    return "\n".join([
        "// Generated from TOOLKIT_LIBRARIES (loader/toolkit_library.bzl) for %s. Do not edit." % lib,
        "// The template: loader/toolkit.h.",
        "#ifndef " + guard,
        "#define " + guard,
        "#include \"loader/toolkit.h\"",
        "#include \"version_tables/generated_%s/%s_entry_count.h\"" % (lib, lib),
        "namespace cudyn {",
        "inline constexpr int k%sNoLibrary = %d;  // %s" % (t.name, t.no_library[1], t.no_library[0]),
        "inline constexpr int k%sNotSupported = %d;  // %s" % (t.name, t.not_supported[1], t.not_supported[0]),
        "enum %sEntryIndex : int {" % t.name,
        "#define %s(index, ret, symbol, params, args) k%s_##symbol = index," % (macro, t.name),
        "#include \"version_tables/generated_%s/%s_entries.inc\"" % (lib, lib),
        "#undef " + macro,
        "};",
        "// Its traits but the table and the hooks of a traits file.",
        "constexpr ToolkitTraits Base%sTraits() {" % t.name,
        "  ToolkitTraits t{};",
    ] + _base_traits(lib, t) + [
        "  return t;",
        "}",
        "}  // namespace cudyn",
        "CUDYN_DECLARE_TOOLKIT(%s, %s, k%sEntryCount)" % (t.name, lib, t.name),
        "#endif  // " + guard,
        "",
    ])

def _traits_text(lib, t):
    """loader/<lib>.cc of a library without hooks: its traits are its base traits and its table."""
    return "\n".join([
        "// Generated from TOOLKIT_LIBRARIES (loader/toolkit_library.bzl) for %s. Do not edit." % lib,
        "#include \"loader/%s.h\"" % lib,
        "namespace cudyn {",
        "namespace {",
        "#include \"version_tables/generated_%s/%s_table.inc\"" % (lib, lib),
        "CUDYN_TOOLKIT_TRAITS(%s)" % t.name,
        "}  // namespace",
        "CUDYN_DEFINE_TOOLKIT(%s, %s, k%sEntryCount)" % (t.name, lib, t.name),
        "}  // namespace cudyn",
        "",
    ])

def toolkit_library(name, t, copts):
    """Declares //loader:<name> (and its embedding twin) from TOOLKIT_LIBRARIES' entry `t`: its
    generated header <name>.h, its traits file <name>.cc (hand-written when `t.hooks`, else
    generated) and its table //version_tables:<name>_generated_inc.

    Args:
      name: the library ("cublas").
      t: its TOOLKIT_LIBRARIES entry.
      copts: the loader's copts.
    """
    native.genrule(
        name = name + "_h",
        outs = [name + ".h"],
        cmd = "cat > $@ <<'EOF'\n" + _header_text(name, t) + "EOF",
    )
    if not getattr(t, "hooks", False):
        native.genrule(
            name = name + "_cc",
            outs = [name + ".cc"],
            cmd = "cat > $@ <<'EOF'\n" + _traits_text(name, t) + "EOF",
        )
    cudyn_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"] + getattr(t, "hdrs", []),
        copts = copts,
        cudyn_deps = [":core", ":toolkit"] + getattr(t, "deps", []),
        embed_alwayslink = False,
        # Built when a library's embedding drop-in is (stubs/dropin_linkopts.bzl), not by //...
        embed_tags = ["manual"],
        visibility = ["//visibility:public"],
        deps = ["//version_tables:%s_generated_inc" % name] + getattr(t, "header_deps", []),
    )

# Every library on the toolkit template, in cudyn-check's order: the one list. loader/BUILD declares
# each library from it, //loader:toolkit_libraries lists them for cudyn-check and `cudyn run`,
# stubs/BUILD makes their drop-ins, dist/BUILD installs them. Per library:
#   name           the C++ spelling (k<Name>Traits, Default<Name>(), k<Name>EntryCount)
#   title, file    "cuBLAS", "libcublas" (its SONAMEs are <file>.so.<n>)
#   wheel          its pip wheels' directory before CUDA 13 (from 13 on: nvidia/cu13/lib)
#   version_symbol the function every real copy exports, read by read_version (loader/toolkit.h's
#                  readers) and written by version_text; version_scale, runtime_version_symbol
#                  as ToolkitTraits says
#   soname_is_cuda_major  <file>.so.M is always of CUDA M (cuBLAS, cuBLASLt)
#   siblings       the libraries of its own release it needs (loader/toolkit.h ToolkitTraits::
#                  siblings), what others need first
#   header         its API headers (comma-separated), whose prototypes the drop-in compiles
#   status_type    its status type (what a missing entry answers)
#   no_library, not_supported  (name, value) of the status it answers when no release the driver
#                  runs is found / for an entry the chosen release lacks (the drop-in asserts both)
#   soname_13      the 13.0 release's SONAME: the drop-in's name for `cudyn run`
#   hooks          its traits file loader/<lib>.cc is hand-written (acceptance or companions of its
#                  own); else it is generated from this entry
#   driver_library shipped with the driver (NVML): ToolkitTraits::driver_library
#   deps           other //loader libraries its traits file uses
#   hdrs           hand-written headers of its own beside loader/<lib>.h
#   header_deps    where its API headers come from when the 13.0 toolkit (@cuda) lacks them
#   redirect_paths programs dlopen it by absolute path (monitoring tools do NVML's): `cudyn run`
#                  preloads libcudyn_<lib>_paths.so beside the drop-in (stubs/dlopen_redirect.c)
#   min_trampolines  the drop-in asm test's lower bound on its trampolines, whose names start
#                  with trampoline_prefix (default: the library's name)
TOOLKIT_LIBRARIES = {
    "nvrtc": struct(
        name = "Nvrtc",
        title = "NVRTC",
        file = "libnvrtc",
        wheel = "/nvidia/cuda_nvrtc/lib",
        version_symbol = "nvrtcVersion",
        read_version = "ReadMajorMinorVersion",
        version_text = "CudaVersionText",
        too_new = "ptx_too_new",
        header = "nvrtc.h",
        status_type = "nvrtcResult",
        no_library = ("NVRTC_ERROR_INTERNAL_ERROR", 11),
        not_supported = ("NVRTC_ERROR_INVALID_INPUT", 3),
        soname_13 = "libnvrtc.so.13",
        hooks = True,
        deps = [":nvrtc_rule"],
        min_trampolines = 24,
    ),
    "cublas": struct(
        name = "Cublas",
        title = "cuBLAS",
        file = "libcublas",
        wheel = "/nvidia/cublas/lib",
        version_symbol = "cublasGetProperty",
        read_version = "ReadPropertyVersion",
        version_text = "PropertyVersionText",
        version_scale = 10000,
        runtime_version_symbol = "cublasGetCudartVersion",
        soname_is_cuda_major = True,
        siblings = ["libcublasLt"],
        header = "cublas_v2.h",
        status_type = "cublasStatus_t",
        no_library = ("CUBLAS_STATUS_NOT_INITIALIZED", 1),
        not_supported = ("CUBLAS_STATUS_NOT_SUPPORTED", 15),
        soname_13 = "libcublas.so.13",
        hooks = True,
        min_trampolines = 517,
    ),
    "cublaslt": struct(
        name = "CublasLt",
        title = "cuBLASLt",
        file = "libcublasLt",
        wheel = "/nvidia/cublas/lib",
        version_symbol = "cublasLtGetVersion",
        read_version = "ReadSizeVersion",
        version_text = "PropertyVersionText",
        runtime_version_symbol = "cublasLtGetCudartVersion",
        soname_is_cuda_major = True,
        header = "cublasLt.h",
        status_type = "cublasStatus_t",
        no_library = ("CUBLAS_STATUS_NOT_INITIALIZED", 1),
        not_supported = ("CUBLAS_STATUS_NOT_SUPPORTED", 15),
        soname_13 = "libcublasLt.so.13",
        min_trampolines = 40,
        trampoline_prefix = "cublasLt",
    ),
    "cufft": struct(
        name = "Cufft",
        title = "cuFFT",
        file = "libcufft",
        wheel = "/nvidia/cufft/lib",
        version_symbol = "cufftGetVersion",
        read_version = "ReadIntVersion",
        version_text = "ThousandsVersionText",
        header = "cufftXt.h",
        status_type = "cufftResult",
        no_library = ("CUFFT_SETUP_FAILED", 7),
        not_supported = ("CUFFT_NOT_SUPPORTED", 16),
        soname_13 = "libcufft.so.12",
        min_trampolines = 50,
    ),
    "curand": struct(
        name = "Curand",
        title = "cuRAND",
        file = "libcurand",
        wheel = "/nvidia/curand/lib",
        version_symbol = "curandGetVersion",
        read_version = "ReadIntVersion",
        version_text = "ThousandsVersionText",
        header = "curand.h",
        status_type = "curandStatus_t",
        no_library = ("CURAND_STATUS_INITIALIZATION_FAILED", 203),
        not_supported = ("CURAND_STATUS_VERSION_MISMATCH", 100),
        soname_13 = "libcurand.so.10",
        min_trampolines = 25,
    ),
    "cusparse": struct(
        name = "Cusparse",
        title = "cuSPARSE",
        file = "libcusparse",
        wheel = "/nvidia/cusparse/lib",
        version_symbol = "cusparseGetProperty",
        read_version = "ReadPropertyVersion",
        version_text = "ThousandsVersionText",
        siblings = ["libnvJitLink"],
        header = "cusparse.h",
        status_type = "cusparseStatus_t",
        no_library = ("CUSPARSE_STATUS_NOT_INITIALIZED", 1),
        not_supported = ("CUSPARSE_STATUS_NOT_SUPPORTED", 10),
        soname_13 = "libcusparse.so.12",
        min_trampolines = 400,
    ),
    "cusolver": struct(
        name = "Cusolver",
        title = "cuSOLVER",
        file = "libcusolver",
        wheel = "/nvidia/cusolver/lib",
        version_symbol = "cusolverGetProperty",
        read_version = "ReadPropertyVersion",
        version_text = "ThousandsVersionText",
        siblings = ["libnvJitLink", "libcusparse", "libcublasLt", "libcublas"],
        header = "cusolverDn.h,cusolverSp.h,cusolverRf.h",
        status_type = "cusolverStatus_t",
        no_library = ("CUSOLVER_STATUS_NOT_INITIALIZED", 1),
        not_supported = ("CUSOLVER_STATUS_NOT_SUPPORTED", 9),
        soname_13 = "libcusolver.so.12",
        min_trampolines = 400,
    ),
    "nvjitlink": struct(
        name = "NvJitLink",
        title = "nvJitLink",
        file = "libnvJitLink",
        wheel = "/nvidia/nvjitlink/lib",
        version_symbol = "nvJitLinkVersion",
        read_version = "ReadMajorMinorVersion",
        version_text = "CudaVersionText",
        header = "nvJitLink.h",
        status_type = "nvJitLinkResult",
        no_library = ("NVJITLINK_ERROR_INTERNAL", 6),
        not_supported = ("NVJITLINK_ERROR_OUTDATED_LIBRARY", 14),
        soname_13 = "libnvJitLink.so.13",
        min_trampolines = 13,
        trampoline_prefix = "__nvJitLink",
    ),
    "nvml": struct(
        name = "Nvml",
        title = "NVML",
        file = "libnvidia-ml",
        wheel = None,
        version_symbol = "nvmlErrorString",
        driver_library = True,
        header = "nvml.h",
        header_deps = ["@nvml//:headers"],
        hdrs = ["nvml_support.h"],
        status_type = "nvmlReturn_t",
        no_library = ("NVML_ERROR_LIBRARY_NOT_FOUND", 12),
        not_supported = ("NVML_ERROR_FUNCTION_NOT_FOUND", 13),
        soname_13 = "libnvidia-ml.so.1",
        redirect_paths = True,
        hooks = True,
        min_trampolines = 300,
        trampoline_prefix = "nvml",
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
