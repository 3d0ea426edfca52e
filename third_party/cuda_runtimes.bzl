"""The real CUDA libraries cudyn's tests read (libcudart, libnvrtc): the one list of each, read by
everything else.

third_party/fetch_runtimes.sh reads CUDA_RUNTIMES, NVRTC_LIBRARIES and NVRTC_BUILTINS (one entry
per line, in exactly the form below) and, with a private APT configuration (the machine's own
sources are never touched), downloads each package from its Debian suite and extracts the library
as <cache>/cudart/<version>/<soname> (CUDA_RUNTIMES) or <cache>/nvrtc/<version>/<soname> (both
NVRTC lists: NVRTC dlopens its builtins from its own directory).
third_party/cuda_runtimes.BUILD declares @cuda_runtimes//:cudart_<version> from it,
third_party/cuda_nvrtc.BUILD @cuda_nvrtc//:nvrtc_<version>.

Each entry: version -> (package, exact Debian version, suite, SONAME). The 13.0 runtime is not here:
it comes with the CUDA 13.0 toolkit (/usr/local/cuda-13.0/lib64/libcudart.so.13).
"""

CUDA_RUNTIMES = {
    "11.2": ("libcudart11.0", "11.2.152~11.2.2-3+deb11u3", "bullseye", "libcudart.so.11.0"),
    "11.8": ("libcudart11.0", "11.8.89~11.8.0-5~deb12u1", "bookworm", "libcudart.so.11.0"),
    "12.4": ("libcudart12", "12.4.127~12.4.1-2", "trixie", "libcudart.so.12"),
    "12.5": ("libcudart12", "12.5.39~12.5.0-2+b1", "experimental", "libcudart.so.12"),
}

# The runtime headers (cuda_runtime_api.h and the rest of usr/include) of the runtimes whose
# headers no toolkit or other cache entry provides: version -> (package, exact Debian version, suite).
# fetch_runtimes.sh extracts ./usr/include of each as <cache>/cuda-<version>/usr/include; WORKSPACE
# declares them as @cuda_12_4 / @cuda_12_5 (version_tables/extract_runtime_headers.py reads them).
CUDA_RUNTIME_HEADERS = {
    "12.4": ("nvidia-cuda-dev", "12.4.127~12.4.1-2", "trixie"),
    "12.5": ("nvidia-cuda-dev", "12.5.39~12.5.0-2+b1", "experimental"),
}

# The CUDA toolkit headers (nvidia-cuda-dev's ./usr/include, cuda.h included) the build, the fakes
# and the generators compile against besides the 13.0 toolkit's: version -> (suite family, package).
# third_party/fetch_deps.sh reads this block (one entry per line, in exactly the form below) and
# extracts the newest version of the package in that family as <cache>/cuda-<version>/usr/include.
# WORKSPACE declares these and CUDA_RUNTIME_HEADERS as @cuda_<major>_<minor>
# (third_party/cuda/cuda_configure.bzl, cuda_header_repositories).
CUDA_TOOLKIT_HEADERS = {
    "11.8": ("bookworm", "nvidia-cuda-dev"),
    "11.2": ("bullseye", "nvidia-cuda-dev"),
}

# The real NVRTC libraries (libnvrtc): version -> (package, exact Debian version, suite, SONAME),
# and the builtins library each dlopens from its own directory, in the same form. 11.2's builtins
# ship in libnvrtc11.2 itself; from 11.3 on they are their own package. The 13.0 NVRTC is not here:
# it comes with the CUDA 13.0 toolkit (/usr/local/cuda-13.0/lib64/libnvrtc.so.13).
NVRTC_LIBRARIES = {
    "11.2": ("libnvrtc11.2", "11.2.152~11.2.2-3+deb11u3", "bullseye", "libnvrtc.so.11.2"),
    "11.8": ("libnvrtc11.2", "11.8.89~11.8.0-5~deb12u1", "bookworm", "libnvrtc.so.11.2"),
    "12.4": ("libnvrtc12", "12.4.127~12.4.1-2", "trixie", "libnvrtc.so.12"),
    "12.5": ("libnvrtc12", "12.5.40~12.5.0-2+b1", "experimental", "libnvrtc.so.12"),
}
NVRTC_BUILTINS = {
    "11.2": ("libnvrtc11.2", "11.2.152~11.2.2-3+deb11u3", "bullseye", "libnvrtc-builtins.so.11.2"),
    "11.8": ("libnvrtc-builtins11.8", "11.8.89~11.8.0-5~deb12u1", "bookworm", "libnvrtc-builtins.so.11.8"),
    "12.4": ("libnvrtc-builtins12.4", "12.4.127~12.4.1-2", "trixie", "libnvrtc-builtins.so.12.4"),
    "12.5": ("libnvrtc-builtins12.5", "12.5.40~12.5.0-2+b1", "experimental", "libnvrtc-builtins.so.12.5"),
}

# The real cuBLAS libraries (libcublas) and the libcublasLt of the same major each needs (by bare
# name, DT_NEEDED; no RUNPATH), in the same form: version (of the CUDA release) -> (package, exact
# Debian version, suite, SONAME). Both end up in <cache>/cublas/<version>/. cuBLAS 11 and 12 also
# need the libcudart of their major (DT_NEEDED libcudart.so.11.0 / libcudart.so.12): CUDA_RUNTIMES
# has them. The 13.0 cuBLAS is not here: it comes with the CUDA 13.0 toolkit
# (/usr/local/cuda-13.0/lib64/libcublas.so.13, libcublasLt.so.13).
CUBLAS_LIBRARIES = {
    "11.8": ("libcublas11", "11.11.3.6~11.8.0-5~deb12u1", "bookworm", "libcublas.so.11"),
    "12.4": ("libcublas12", "12.4.5.8~12.4.1-2", "trixie", "libcublas.so.12"),
    "12.5": ("libcublas12", "12.5.2.13~12.5.0-2+b1", "experimental", "libcublas.so.12"),
}
CUBLAS_LT = {
    "11.8": ("libcublaslt11", "11.11.3.6~11.8.0-5~deb12u1", "bookworm", "libcublasLt.so.11"),
    "12.4": ("libcublaslt12", "12.4.5.8~12.4.1-2", "trixie", "libcublasLt.so.12"),
    "12.5": ("libcublaslt12", "12.5.2.13~12.5.0-2+b1", "experimental", "libcublasLt.so.12"),
}

# The other real CUDA math/link libraries, in the same form: version (of the CUDA release) ->
# (package, exact Debian version, suite, SONAME). fetch_runtimes.sh puts every library of one
# release in one directory, <cache>/cuda-libs/<version>/ (cuBLASLt is CUBLAS_LT above, in
# <cache>/cublas/<version>/, not fetched twice). DT_NEEDED (by bare name; RUNPATH $ORIGIN): cuSPARSE
# 12+ needs libnvJitLink; cuSOLVER 11.x (CUDA 12) / 12 needs libcublas, libcublasLt, libcusparse and
# libnvJitLink of its release (11.8: libcublas, libcublasLt); so a release loads with
# LD_LIBRARY_PATH=<cache>/cuda-libs/<version>:<cache>/cublas/<version>. No 11.8 nvJitLink exists.
# The 13.0 ones come with the CUDA 13.0 toolkit (/usr/local/cuda-13.0/lib64, CUDA_LIBS_13_0).
CURAND_LIBRARIES = {
    "11.8": ("libcurand10", "11.1.1+~10.3.0.86~11.8.0-5~deb12u1", "bookworm", "libcurand.so.10"),
    "12.4": ("libcurand10", "11.1.1+~10.3.5.147~12.4.1-2", "trixie", "libcurand.so.10"),
    "12.5": ("libcurand10", "11.1.1+~10.3.6.39~12.5.0-2+b1", "experimental", "libcurand.so.10"),
}
CUFFT_LIBRARIES = {
    "11.8": ("libcufft10", "11.1.1+~10.9.0.58~11.8.0-5~deb12u1", "bookworm", "libcufft.so.10"),
    "12.4": ("libcufft11", "11.2.1.3~12.4.1-2", "trixie", "libcufft.so.11"),
    "12.5": ("libcufft11", "11.2.3.18~12.5.0-2+b1", "experimental", "libcufft.so.11"),
}
NVJITLINK_LIBRARIES = {
    "12.4": ("libnvjitlink12", "12.4.127~12.4.1-2", "trixie", "libnvJitLink.so.12"),
    "12.5": ("libnvjitlink12", "12.5.40~12.5.0-2+b1", "experimental", "libnvJitLink.so.12"),
}
CUSPARSE_LIBRARIES = {
    "11.8": ("libcusparse11", "11.7.5.86~11.8.0-5~deb12u1", "bookworm", "libcusparse.so.11"),
    "12.4": ("libcusparse12", "12.3.1.170~12.4.1-2", "trixie", "libcusparse.so.12"),
    "12.5": ("libcusparse12", "12.4.1.24~12.5.0-2+b1", "experimental", "libcusparse.so.12"),
}
CUSOLVER_LIBRARIES = {
    "11.8": ("libcusolver11", "11.4.1.48~11.8.0-5~deb12u1", "bookworm", "libcusolver.so.11"),
    "12.4": ("libcusolver11", "11.6.1.9~12.4.1-2", "trixie", "libcusolver.so.11"),
    "12.5": ("libcusolver11", "11.6.2.40~12.5.0-2+b1", "experimental", "libcusolver.so.11"),
}

# Every library above once: name -> its list (cuBLASLt's is CUBLAS_LT, in @cuda_cublas).
CUDA_LIBS = {
    "curand": CURAND_LIBRARIES,
    "cufft": CUFFT_LIBRARIES,
    "nvjitlink": NVJITLINK_LIBRARIES,
    "cusparse": CUSPARSE_LIBRARIES,
    "cusolver": CUSOLVER_LIBRARIES,
    "cublaslt": CUBLAS_LT,
}

# The 13.0 SONAMEs (in the toolkit's lib64).
CUDA_LIBS_13_0 = {
    "curand": "libcurand.so.10",
    "cufft": "libcufft.so.12",
    "nvjitlink": "libnvJitLink.so.13",
    "cusparse": "libcusparse.so.12",
    "cusolver": "libcusolver.so.12",
    "cublaslt": "libcublasLt.so.13",
}

def cuda_lib_versions(lib):
    """The Debian-packaged versions of one library of CUDA_LIBS, oldest first (13.0 not included)."""
    return [v for v in CUDA_LIBS[lib]]

def cuda_lib_label(lib, version):
    """The filegroup holding one library (its single file, named by its SONAME)."""
    if lib == "cublaslt":
        return "@cuda_cublas//:cublaslt_" + version
    return "@cuda_libs//:%s_%s" % (lib, version)

def cuda_lib_path(lib, version):
    """The runfiles path of one library."""
    repo = "cuda_cublas" if lib == "cublaslt" else "cuda_libs"
    return "%s/%s/%s" % (repo, version, CUDA_LIBS[lib][version][3])

def cuda_release_labels(version):
    """Every library of one release (CUDA_LIBS and cuBLAS): what loading any of them may need."""
    return [cuda_lib_label(lib, version) for lib in CUDA_LIBS if version in CUDA_LIBS[lib]] + [
        cublas_label(version),
    ]

# Versions, oldest first.
CUDA_RUNTIME_VERSIONS = [v for v in CUDA_RUNTIMES]

def cuda_runtime_label(version):
    """The filegroup holding one runtime (its single file, named by its SONAME)."""
    return "@cuda_runtimes//:cudart_" + version

def cuda_runtime_path(version):
    """The runfiles path of one runtime."""
    return "cuda_runtimes/%s/%s" % (version, CUDA_RUNTIMES[version][3])

CUDA_RUNTIME_LABELS = [cuda_runtime_label(v) for v in CUDA_RUNTIME_VERSIONS]

NVRTC_VERSIONS = [v for v in NVRTC_LIBRARIES]

def nvrtc_label(version):
    """The filegroup holding one NVRTC and its builtins (files named by their SONAMEs)."""
    return "@cuda_nvrtc//:nvrtc_" + version

def nvrtc_path(version):
    """The runfiles path of one NVRTC library."""
    return "cuda_nvrtc/%s/%s" % (version, NVRTC_LIBRARIES[version][3])

NVRTC_LABELS = [nvrtc_label(v) for v in NVRTC_VERSIONS]

CUBLAS_VERSIONS = [v for v in CUBLAS_LIBRARIES]

def cublas_label(version):
    """The filegroup holding one cuBLAS and its libcublasLt (files named by their SONAMEs)."""
    return "@cuda_cublas//:cublas_" + version

def cublas_path(version):
    """The runfiles path of one cuBLAS library."""
    return "cuda_cublas/%s/%s" % (version, CUBLAS_LIBRARIES[version][3])

CUBLAS_LABELS = [cublas_label(v) for v in CUBLAS_VERSIONS]

# The CUDA toolkit this repository builds with (WORKSPACE's @cuda): its runtime and libraries are
# the newest release the facts know, beside the Debian-packaged ones above.
CUDA_TOOLKIT_VERSION = "13.0"

# Every release the runtime facts know, oldest first: the packaged runtimes and the toolkit's.
CUDA_RUNTIME_FACT_VERSIONS = CUDA_RUNTIME_VERSIONS + [CUDA_TOOLKIT_VERSION]

def cuda_headers_repo(version):
    """The Bazel repository of one release's CUDA headers (WORKSPACE): @cuda is the toolkit's."""
    return "@cuda" if version == CUDA_TOOLKIT_VERSION else "@cuda_" + version.replace(".", "_")
