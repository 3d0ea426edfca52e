"""cudyn's own version: the one place it is written (semantic versioning, https://semver.org).

Used by the SONAME of the installed libcudyn_cuda.so (libcudyn_cuda.so.<MAJOR>), the pkg-config
and CMake files, the .deb, //dist:version (CUDYN_VERSION_STRING) and `cudyn --version`.
Bump MAJOR when the exported surface loses or changes a symbol (dist/abi/ says which).
"""

CUDYN_VERSION = "0.1.0"
