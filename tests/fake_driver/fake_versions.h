// Test helper: the fake drivers' versions, where they are in runfiles, and which entries each
// exports, computed from version_tables/api_table.h (independently of gen_fake_driver.py).
#ifndef CUDYN_TESTS_FAKE_DRIVER_FAKE_VERSIONS_H_
#define CUDYN_TESTS_FAKE_DRIVER_FAKE_VERSIONS_H_

#include <limits.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "version_tables/api_table.h"

namespace cudyn {
namespace testing {

// //tests/fake_driver:cuda_<V>/libcuda.so.1 exists for each of these (the list lives in
// tests/fake_driver/versions.bzl; the BUILD file passes it in).
inline constexpr int kFakeCudaVersions[] = {CUDYN_FAKE_CUDA_VERSIONS};

// Absolute, symlink-resolved path of the fake for `version` (the test's working directory is
// the runfiles root of workspace "cudyn"), or "" when it is not in runfiles.
inline std::string FakeDriverPath(int version) {
  std::string rel = "tests/fake_driver/cuda_" + std::to_string(version) + "/libcuda.so.1";
  char resolved[PATH_MAX];
  return realpath(rel.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

// The export rule: a version with a real driver exports exactly that driver's symbols; any
// other version V exports the entries with abi_version <= V that the oldest real driver at or
// above V already exports (first_driver_cuda <= its CUDA version).
inline bool FakeExports(int fake_version, int entry) {
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (kRealDrivers[k].cuda_version == fake_version) {
      return RealDriverExports(kRealDrivers[k].major, entry);
    }
  }
  int ceiling = INT_MAX;
  for (int k = 0; k < kRealDriverCount; ++k) {
    int c = kRealDrivers[k].cuda_version;
    if (c >= fake_version && c < ceiling) ceiling = c;
  }
  return kEntries[entry].abi_version <= fake_version &&
         kEntries[entry].first_driver_cuda <= ceiling;
}

inline std::vector<bool> FakeExportSet(int fake_version) {
  std::vector<bool> out(kEntryCount);
  for (int i = 0; i < kEntryCount; ++i) out[i] = FakeExports(fake_version, i);
  return out;
}

}  // namespace testing
}  // namespace cudyn

#endif  // CUDYN_TESTS_FAKE_DRIVER_FAKE_VERSIONS_H_
