"""The real NVIDIA drivers cudyn is tested on: the one list, read by everything else.

third_party/fetch_deps.sh reads REAL_DRIVERS (it parses the lines between `REAL_DRIVERS = {` and the
closing `}`: keep one driver per line, in exactly the form below) to download and extract each driver
into <cache>/drivers/<major>/. third_party/nvidia_drivers.BUILD declares @nvidia_drivers//:libcuda_<major>
from it, and the tests load it to run once per driver.

Each entry: major -> (cuDriverGetVersion, Debian suite family, packages, extra libraries).
  - packages: Debian non-free packages downloaded (never installed) from that suite family; the newest
    version starting with "<major>." is taken.
  - extra libraries: besides libcuda.so.<major>.*, the <lib>.so.<major>.* files copied next to it
    (418's libcuda has a DT_NEEDED on libnvidia-fatbinaryloader and no RUNPATH).
"""

REAL_DRIVERS = {
    "418": (10010, "bullseye", ["libnvidia-tesla-418-cuda1", "libnvidia-tesla-418-fatbinaryloader"], ["libnvidia-fatbinaryloader"]),
    "450": (11000, "bullseye", ["libnvidia-tesla-450-cuda1"], []),
    "460": (11020, "bullseye", ["libnvidia-tesla-460-cuda1"], []),
    "470": (11040, "bookworm", ["libnvidia-tesla-470-cuda1"], []),
    "535": (12020, "bookworm", ["libcuda1"], []),
}

# Driver majors as strings, oldest first.
REAL_DRIVER_MAJORS = [major for major in REAL_DRIVERS]

# major -> the CUDA version its cuDriverGetVersion reports.
REAL_DRIVER_CUDA_VERSIONS = {major: entry[0] for major, entry in REAL_DRIVERS.items()}

# The real drivers that export cuGetProcAddress (added in CUDA 11.3), oldest first.
REAL_DRIVER_MAJORS_WITH_GET_PROC_ADDRESS = [m for m in REAL_DRIVER_MAJORS if REAL_DRIVER_CUDA_VERSIONS[m] >= 11030]

def real_driver_label(major):
    """The filegroup holding one driver's directory (libcuda.so.1 and what it needs)."""
    return "@nvidia_drivers//:libcuda_" + major

def real_driver_runfiles_path(major):
    """Where that driver's libcuda.so.1 is in a test's runfiles (rlocation path)."""
    return "nvidia_drivers/%s/libcuda.so.1" % major

# Every real driver's filegroup, oldest first.
REAL_DRIVER_LABELS = [real_driver_label(major) for major in REAL_DRIVER_MAJORS]

# The real NVML libraries (libnvidia-ml.so.1) and NVML headers (nvml.h) cudyn's NVML facts come from:
# the one list, read by third_party/fetch_nvml.sh (which parses the lines between `REAL_NVML = {` /
# `NVML_HEADERS = {` and the closing `}`: keep one entry per line, in exactly the form below), by
# third_party/nvml.BUILD (@nvml) and by version_tables (generate_nvml.py, :nvml_facts_test).
#
# REAL_NVML: driver branch -> (the CUDA version that branch's driver reports, Debian suite family,
# packages). The newest version of each package starting with "<branch>." in that suite family is
# downloaded (never installed) and its libnvidia-ml.so.<version> copied to <cache>/nvml/<branch>/.
# Suite family "bookworm" accepts bookworm, bookworm-updates and bookworm-security (never backports);
# "trixie" and "experimental" likewise.
REAL_NVML = {
    "390": (9010, "bullseye", ["libnvidia-legacy-390xx-ml1"]),
    "418": (10010, "bullseye", ["libnvidia-tesla-418-ml1"]),
    "450": (11000, "bullseye", ["libnvidia-tesla-450-ml1"]),
    "460": (11020, "bullseye", ["libnvidia-tesla-460-ml1"]),
    "470": (11040, "bookworm", ["libnvidia-tesla-470-ml1"]),
    "535": (12020, "bookworm", ["libnvidia-ml1"]),
    "550": (12040, "trixie", ["libnvidia-ml1"]),
    "555": (12050, "experimental", ["libnvidia-ml1"]),
}

# NVML_HEADERS: CUDA version -> (Debian suite family, package): the newest version of the package
# starting with "<CUDA version>." in that suite family; its usr/include/nvml.h is copied to
# <cache>/nvml-headers/<CUDA version>/nvml.h.
NVML_HEADERS = {
    "11.2": ("bullseye", "libnvidia-ml-dev"),
    "11.8": ("bookworm", "libnvidia-ml-dev"),
    "12.4": ("trixie", "libnvidia-ml-dev"),
    "12.5": ("experimental", "libnvidia-ml-dev"),
}

# NVML branches as strings, oldest first.
REAL_NVML_BRANCHES = [branch for branch in REAL_NVML]

# branch -> the CUDA version its driver reports (cuDriverGetVersion).
REAL_NVML_CUDA_VERSIONS = {branch: entry[0] for branch, entry in REAL_NVML.items()}

# NVML header versions (CUDA versions as strings), oldest first.
NVML_HEADER_VERSIONS = [version for version in NVML_HEADERS]

def real_nvml_label(branch):
    """The filegroup holding one branch's libnvidia-ml.so.1."""
    return "@nvml//:nvml_" + branch

def real_nvml_runfiles_path(branch):
    """Where that branch's libnvidia-ml.so.1 is in a test's runfiles (rlocation path)."""
    return "nvml/nvml/%s/libnvidia-ml.so.1" % branch

def nvml_header_label(version):
    """The filegroup holding the nvml.h of one CUDA version."""
    return "@nvml//:nvml_h_" + version

def nvml_header_runfiles_path(version):
    """Where the nvml.h of one CUDA version is in a test's runfiles (rlocation path)."""
    return "nvml/nvml-headers/%s/nvml.h" % version

# Every real NVML library's filegroup, oldest first.
REAL_NVML_LABELS = [real_nvml_label(branch) for branch in REAL_NVML_BRANCHES]
