// The real CUDA runtimes and drivers the real-runtime tests run on, from the one list of each
// (third_party/cuda_runtimes.bzl, third_party/nvidia_drivers.bzl, written out by genrules).
#ifndef CUDYN_TESTS_REAL_RUNTIME_REAL_LISTS_H_
#define CUDYN_TESTS_REAL_RUNTIME_REAL_LISTS_H_

namespace cudyn_real {

struct RealRuntime {
  const char* version;  // "11.8"
  const char* path;     // runfiles path of the library
};
inline constexpr RealRuntime kRealRuntimes[] = {
#include "tools/layers/real_runtimes.inc"
};

struct RealDriver {
  const char* major;  // "535"
  int cuda;           // its CUDA version, 12020
};
inline constexpr RealDriver kRealDrivers[] = {
#include "tests/util/real_drivers.inc"
};

}  // namespace cudyn_real

#endif  // CUDYN_TESTS_REAL_RUNTIME_REAL_LISTS_H_
