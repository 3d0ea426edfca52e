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
