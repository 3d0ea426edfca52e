"""The real CUDA runtimes (libcudart) cudyn's tests read: the one list, read by everything else.

third_party/fetch_runtimes.sh reads CUDA_RUNTIMES (one entry per line, in exactly the form below)
and, with a private APT configuration (the machine's own sources are never touched), downloads
each package from its Debian suite and extracts the library as <cache>/cudart/<version>/<soname>.
third_party/cuda_runtimes.BUILD declares @cuda_runtimes//:cudart_<version> from it.

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

# Versions, oldest first.
CUDA_RUNTIME_VERSIONS = [v for v in CUDA_RUNTIMES]

def cuda_runtime_label(version):
    """The filegroup holding one runtime (its single file, named by its SONAME)."""
    return "@cuda_runtimes//:cudart_" + version

def cuda_runtime_path(version):
    """The runfiles path of one runtime."""
    return "cuda_runtimes/%s/%s" % (version, CUDA_RUNTIMES[version][3])

CUDA_RUNTIME_LABELS = [cuda_runtime_label(v) for v in CUDA_RUNTIME_VERSIONS]
