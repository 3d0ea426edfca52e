// The shim's own cuGetProcAddress / cuGetProcAddress_v2 (stubs/shim.cc) against the driver behind
// it: for every base name in the table, every ABI version the table knows up to the driver's own
// version, and flags 0 (default) and 2 (per-thread default stream), the shim must pick the same
// variant the driver picks (the shim hands out its trampoline for it), find nothing where the
// driver finds nothing, and on 12.0+ drivers report the same symbolStatus.
// Above the driver's version the two differ on purpose (see AboveTheDriversVersion).
//
// Compiled once, run once per driver: env CUDYN_GPA_DRIVER = the runfiles path of its libcuda.so.1.
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "stubs/shim.h"
#include "tests/util/runfiles.h"

// The shim's exported entry points (the drop-in is linked statically); the 13.0 headers map the
// public names to _v2, so declare both explicitly.
#undef cuGetProcAddress
extern "C" CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int version,
                                            cuuint64_t flags);
#undef cuGetProcAddress_v2
extern "C" CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                               cuuint64_t flags,
                                               CUdriverProcAddressQueryResult* status);

namespace cudyn {
namespace {

using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t, int*);

class ShimGetProcAddress : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* driver = getenv("CUDYN_GPA_DRIVER");
    ASSERT_NE(driver, nullptr) << "set CUDYN_GPA_DRIVER (the BUILD file does)";
    path_ = new std::string(testing::Runfile(driver));
    ASSERT_FALSE(path_->empty()) << driver << " missing from runfiles";
    setenv("CUDYN_DRIVER_PATH", path_->c_str(), 1);
    ASSERT_EQ(cuDriverGetVersion(&version_), CUDA_SUCCESS);  // the shim's: opens the driver
    handle_ = dlopen(path_->c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    v1_ = reinterpret_cast<GetProcAddressV1>(dlsym(handle_, "cuGetProcAddress"));
    v2_ = reinterpret_cast<GetProcAddressV2>(dlsym(handle_, "cuGetProcAddress_v2"));
    ASSERT_NE(v1_, nullptr) << *path_ << " has no cuGetProcAddress: pick an 11.3+ driver";
    trampolines_ = new std::unordered_map<void*, int>();
    for (int i = 0; i < kEntryCount; ++i) {
      if (ShimTrampoline(i) != nullptr) (*trampolines_)[ShimTrampoline(i)] = i;
    }
  }

  // The variant a driver pointer is: its exported name.
  static std::string DriverName(void* fn) {
    Dl_info info;
    if (fn == nullptr || dladdr(fn, &info) == 0 || info.dli_sname == nullptr) return "";
    return info.dli_sname;
  }
  // The variant a shim pointer is: the entry whose trampoline it is.
  static std::string ShimName(void* fn) {
    if (fn == nullptr) return "";
    auto it = trampolines_->find(fn);
    return it == trampolines_->end() ? "<not a trampoline>" : std::string(EntrySymbol(it->second));
  }

  // Bases and versions to ask about: every base, every ABI version in the table up to the
  // driver's version, and the driver's version itself.
  static std::vector<std::string> Bases() {
    std::set<std::string> bases;
    for (int i = 0; i < kEntryCount; ++i) bases.insert(std::string(EntryBase(i)));
    return {bases.begin(), bases.end()};
  }
  static std::vector<int> VersionsUpToTheDriver() {
    std::set<int> versions = {version_};
    for (int i = 0; i < kEntryCount; ++i) {
      if (kEntries[i].abi_version <= version_) versions.insert(kEntries[i].abi_version);
    }
    return {versions.begin(), versions.end()};
  }

  static std::string* path_;
  static int version_;
  static void* handle_;
  static GetProcAddressV1 v1_;
  static GetProcAddressV2 v2_;
  static std::unordered_map<void*, int>* trampolines_;
};
std::string* ShimGetProcAddress::path_;
int ShimGetProcAddress::version_;
void* ShimGetProcAddress::handle_;
GetProcAddressV1 ShimGetProcAddress::v1_;
GetProcAddressV2 ShimGetProcAddress::v2_;
std::unordered_map<void*, int>* ShimGetProcAddress::trampolines_;

TEST_F(ShimGetProcAddress, SameVariantAsTheDriverAtOrBelowItsVersion) {
  int compared = 0, found = 0, disagreements = 0;
  for (const std::string& base : Bases()) {
    for (int version : VersionsUpToTheDriver()) {
      for (cuuint64_t flags : {0ull, 2ull}) {
        void* real = nullptr;
        void* shim = nullptr;
        CUresult real_rc = v1_(base.c_str(), &real, version, flags);
        CUresult shim_rc = cuGetProcAddress(base.c_str(), &shim, version, flags);
        std::string want = real_rc == CUDA_SUCCESS ? DriverName(real) : "";
        std::string got = shim_rc == CUDA_SUCCESS ? ShimName(shim) : "";
        ++compared;
        if (!want.empty()) ++found;
        if (want != got || (real_rc == CUDA_SUCCESS) != (shim_rc == CUDA_SUCCESS)) {
          if (++disagreements <= 40) {
            ADD_FAILURE() << base << " @" << version << " flags " << flags << ": driver rc "
                          << real_rc << " -> '" << want << "', shim rc " << shim_rc << " -> '"
                          << got << "'";
          }
        }
        if (v2_ == nullptr) continue;
        int real_status = -1, shim_status = -1;
        real = shim = nullptr;
        real_rc = v2_(base.c_str(), &real, version, flags, &real_status);
        shim_rc = cuGetProcAddress_v2(base.c_str(), &shim, version, flags,
                                      reinterpret_cast<CUdriverProcAddressQueryResult*>(&shim_status));
        if (real_rc != shim_rc || real_status != shim_status ||
            (real_rc == CUDA_SUCCESS && DriverName(real) != ShimName(shim))) {
          if (++disagreements <= 40) {
            ADD_FAILURE() << "v2 " << base << " @" << version << " flags " << flags
                          << ": driver rc " << real_rc << " status " << real_status << " -> '"
                          << DriverName(real) << "', shim rc " << shim_rc << " status "
                          << shim_status << " -> '" << ShimName(shim) << "'";
          }
        }
      }
    }
  }
  EXPECT_EQ(disagreements, 0) << "of " << compared << " questions";
  // The comparison covered the driver's whole reachable surface, not an empty set.
  EXPECT_GT(found, 1000) << "of " << compared << " questions";
}

// Above its own version an 11.x/12.x driver silently returns its newest variant, whose signature
// may differ from what the caller asked for (470 answers a CUDA 12.2 request for cuMemAdvise with
// the v1 function). The shim returns the variant of the requested version instead, served by an
// adapter; a 13.x driver and the shim behind it reject requests above the driver's version.
TEST_F(ShimGetProcAddress, AboveTheDriversVersion) {
  const int above = version_ >= 13000 ? version_ + 10 : 13000;
  void* real = nullptr;
  void* shim = nullptr;
  CUresult real_rc = v1_("cuMemAdvise", &real, above, 0);
  CUresult shim_rc = cuGetProcAddress("cuMemAdvise", &shim, above, 0);
  if (version_ >= 13000) {
    EXPECT_EQ(real_rc, CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(shim_rc, CUDA_ERROR_INVALID_VALUE);
    return;
  }
  ASSERT_EQ(real_rc, CUDA_SUCCESS);
  ASSERT_EQ(shim_rc, CUDA_SUCCESS);
  EXPECT_EQ(DriverName(real), version_ >= 12020 ? "cuMemAdvise_v2" : "cuMemAdvise");
  if (AdapterCompiledIn(kEntry_cuMemAdvise_v2)) {
    EXPECT_EQ(ShimName(shim), "cuMemAdvise_v2");
  }
}

}  // namespace
}  // namespace cudyn
