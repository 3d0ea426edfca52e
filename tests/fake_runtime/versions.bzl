"""The fake CUDA runtimes (tests/fake_runtime): one list, read by the BUILD files that use them.

Each fake: version -> (facts it is generated from (a real runtime's export list and headers),
SONAME, Bazel repository of those headers, export-name regexes left out). 10.x runtimes are not
obtainable: their fakes use the 11.2 facts under their own SONAMEs and versions. 12.0 uses the 12.4
facts without what 12.3 added (edge data: every _v3, and the _v2 edge-data variants); 12.8 the
12.5 facts.
"""

_EDGE_DATA_12_3 = [
    "_v3",
    "^cudaStreamUpdateCaptureDependencies_v2",
    "^cudaGraphAddDependencies_v2",
    "^cudaGraphRemoveDependencies_v2",
    "^cudaGraphGetEdges_v2",
    "^cudaGraphNodeGetDependencies_v2",
    "^cudaGraphNodeGetDependentNodes_v2",
    "^cudaGraphAddNode_v2",
]

FAKE_RUNTIMES = {
    "10.0": ("11.2", "libcudart.so.10.0", "@cuda_11_2//:headers", []),
    "10.2": ("11.2", "libcudart.so.10.2", "@cuda_11_2//:headers", []),
    "11.2": ("11.2", "libcudart.so.11.0", "@cuda_11_2//:headers", []),
    "11.8": ("11.8", "libcudart.so.11.0", "@cuda_11_8//:headers", []),
    "12.0": ("12.4", "libcudart.so.12", "@cuda_12_4//:headers", _EDGE_DATA_12_3),
    "12.4": ("12.4", "libcudart.so.12", "@cuda_12_4//:headers", []),
    "12.5": ("12.5", "libcudart.so.12", "@cuda_12_5//:headers", []),
    "12.8": ("12.5", "libcudart.so.12", "@cuda_12_5//:headers", []),
    "13.0": ("13.0", "libcudart.so.13", "@cuda//:headers", []),
}

FAKE_RUNTIME_VERSIONS = [v for v in FAKE_RUNTIMES]

def fake_runtime_label(version):
    """The fake's shared library target: //tests/fake_runtime:<version>/<soname>."""
    return "//tests/fake_runtime:%s/%s" % (version, FAKE_RUNTIMES[version][1])
