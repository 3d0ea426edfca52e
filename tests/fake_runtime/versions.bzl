"""The fake CUDA runtimes (tests/fake_runtime): the one list every BUILD file and test uses.

Each fake: version -> struct(
    facts: the real runtime whose export list (version_tables/inputs/cudart_exports/<facts>.txt)
           and headers (version_tables/inputs/runtime_headers/cudart-<facts>.json, and the
           crt/ host-stub headers of `headers`) it is generated from,
    soname: its SONAME, which is also the version node of every export (name@@SONAME),
    headers: the Bazel repository of that version's CUDA headers, compiled against,
    without: regexes (the subset Python's re and ECMAScript agree on) of export names left out).

No 10.x, 12.0 or 12.8 runtime is among the facts: the 10.x fakes use the 11.2 facts under their
own SONAMEs and versions, 12.8 the 12.5 facts, and 12.0 the 12.4 facts minus what 12.3 added
(see _EDGE_DATA_12_3).
"""

# CUDA 12.3 added graph edge data: every _v3 entry point (cudaStreamGetCaptureInfo_v3, ...) and
# the _v2 variants taking cudaGraphEdgeData. A 12.0 runtime has none of them; left out of the 12.4
# facts for the 12.0 fake, their _ptsz twins included (the regexes are not anchored at the end).
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

def _fake(facts, soname, headers, without = []):
    return struct(facts = facts, soname = soname, headers = headers, without = without)

FAKE_RUNTIMES = {
    "10.0": _fake("11.2", "libcudart.so.10.0", "@cuda_11_2"),
    "10.2": _fake("11.2", "libcudart.so.10.2", "@cuda_11_2"),
    "11.2": _fake("11.2", "libcudart.so.11.0", "@cuda_11_2"),
    "11.8": _fake("11.8", "libcudart.so.11.0", "@cuda_11_8"),
    "12.0": _fake("12.4", "libcudart.so.12", "@cuda_12_4", _EDGE_DATA_12_3),
    "12.4": _fake("12.4", "libcudart.so.12", "@cuda_12_4"),
    "12.5": _fake("12.5", "libcudart.so.12", "@cuda_12_5"),
    "12.8": _fake("12.5", "libcudart.so.12", "@cuda_12_5"),
    "13.0": _fake("13.0", "libcudart.so.13", "@cuda"),
}

# Oldest first.
FAKE_RUNTIME_VERSIONS = [v for v in FAKE_RUNTIMES]

def fake_runtime_soname(version):
    """The fake's SONAME, e.g. "libcudart.so.11.0" for "11.8"."""
    return FAKE_RUNTIMES[version].soname

def fake_runtime_name(version):
    """The fake's target name in //tests/fake_runtime, e.g. "fake_cudart_11_8"."""
    return "fake_cudart_" + version.replace(".", "_")

def fake_runtime_target(version):
    """The fake's label, e.g. "//tests/fake_runtime:fake_cudart_11_8"."""
    return "//tests/fake_runtime:" + fake_runtime_name(version)

def fake_runtime_label(version):
    """The label of the fake's file, e.g. "//tests/fake_runtime:11.8/libcudart.so.11.0"."""
    return "//tests/fake_runtime:%s/%s" % (version, FAKE_RUNTIMES[version].soname)

def fake_runtime_runfiles_path(version):
    """The fake's path in runfiles (and under bazel-bin): tests/fake_runtime/11.8/libcudart.so.11.0."""
    return "tests/fake_runtime/%s/%s" % (version, FAKE_RUNTIMES[version].soname)
