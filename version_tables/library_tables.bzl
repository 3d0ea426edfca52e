"""One library of CUDA_LIBS (third_party/cuda_runtimes.bzl): its generated X-macro lists and its facts test.

library_tables("curand") declares, in //version_tables:
  :curand_generated_files  genrule: generate_runtime.py --library curand over inputs/curand_exports/*.txt
                           and inputs/curand_headers/*.json -> generated_curand/ (curand_entries.inc,
                           curand_rules.inc, curand_table.inc, curand_versions.inc, curand_entry_count.h)
  :curand_generated_inc    cc_library of those
  :curand_facts_test       library_facts_test.py --library curand over the real libraries and headers
"""

load(
    "//third_party:cuda_runtimes.bzl",
    "CUDA_TOOLKIT_VERSION",
    "cuda_headers_repo",
    "cuda_lib_label",
    "cuda_lib_versions",
    "cuda_release_labels",
)


def library_generated_incs(lib):
    return ["generated_%s/%s_%s.inc" % (lib, lib, part) for part in ["entries", "rules", "table", "versions"]]

def library_tables(lib):
    versions = cuda_lib_versions(lib)
    exports = native.glob(["inputs/%s_exports/*.txt" % lib])
    headers = native.glob(["inputs/%s_headers/*.json" % lib])
    native.genrule(
        name = lib + "_generated_files",
        srcs = exports + headers,
        outs = library_generated_incs(lib) + ["generated_%s/%s_entry_count.h" % (lib, lib)],
        cmd = "python3 $(location generate_runtime.py) --library %s" % lib +
              " --inputs $$(dirname $$(dirname $(location inputs/%s_exports/13.0.txt)))" % lib +
              " --incs $(RULEDIR) >/dev/null",
        tools = [
            "extract_runtime_headers.py",
            "generate_runtime.py",
            "//third_party:homes",
        ],
    )
    native.cc_library(
        name = lib + "_generated_inc",
        hdrs = ["generated_%s/%s_entry_count.h" % (lib, lib)],
        textual_hdrs = library_generated_incs(lib),
    )
    repos = [cuda_headers_repo(v) for v in versions + [CUDA_TOOLKIT_VERSION]]
    release = []
    for v in versions:
        release += ["--release", v] + ["$(rootpaths %s)" % l for l in cuda_release_labels(v)]
    native.py_test(
        name = lib + "_facts_test",
        size = "small",
        srcs = [
            "extract_cudart_exports.py",
            "extract_runtime_headers.py",
            "generate_runtime.py",
            "library_facts_test.py",
        ],
        main = "library_facts_test.py",
        # 13.0's library is $CUDA_PATH/lib64/<soname> (default the toolkit).
        args = ["--library", lib, "--headers"] +
               ["%s=$(location %s//:cuda_h)" % (v, cuda_headers_repo(v)) for v in versions + [CUDA_TOOLKIT_VERSION]] +
               ["--libs"] + ["%s=$(rootpath %s)" % (v, cuda_lib_label(lib, v)) for v in versions] + release,
        data = [
            lib + "_api_table.tsv",
            "//third_party:homes",
        ] + exports + headers +
               # The release's libraries (the library itself among them).
               {l: 1 for v in versions for l in cuda_release_labels(v)}.keys() +
               ["%s//:%s" % (r, t) for r in repos for t in ["all_headers", "cuda_h"]],
        python_version = "PY3",
    )
