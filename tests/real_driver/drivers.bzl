"""The real NVIDIA drivers third_party/fetch_deps.sh caches (@nvidia_drivers//:libcuda_<major>)."""

REAL_DRIVER_MAJORS = [
    "418",
    "450",
    "460",
    "470",
    "535",
]
