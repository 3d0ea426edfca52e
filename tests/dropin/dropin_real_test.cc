// The same kind of application (CUDA 13.0 headers, linked only with //stubs:cudyn_cuda) against a
// real driver from Debian's packages: symbol binding works and cuInit reports 100 (no GPU here).
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <string>

#include "gtest/gtest.h"
#include "loader/cudyn_c.h"
#include "tests/util/runfiles.h"


namespace {

// Set per test target by the BUILD file (env CUDYN_TEST_DRIVER_MAJOR): one compiled test, one process per driver.
const int kMajor = [] {
  const char* value = getenv("CUDYN_TEST_DRIVER_MAJOR");
  return value != nullptr ? atoi(value) : 0;
}();

class DropInReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string path = cudyn::testing::Runfile("nvidia_drivers/" + std::to_string(kMajor) +
                                               "/libcuda.so.1");
    ASSERT_FALSE(path.empty()) << "driver " << kMajor << " missing: run third_party/fetch_deps.sh";
    if (kMajor == 418) {  // its DT_NEEDED fatbinaryloader is not on the default search path here
      std::string dir = path.substr(0, path.rfind('/'));
      ASSERT_NE(dlopen((dir + "/libnvidia-fatbinaryloader.so.418.226.00").c_str(),
                       RTLD_NOW | RTLD_GLOBAL), nullptr);
    }
    setenv("CUDYN_DRIVER_PATH", path.c_str(), 1);
  }
};

TEST_F(DropInReal, BindsAndInitReportsNoDevice) {
  int version = 0;
  ASSERT_EQ(cuDriverGetVersion(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, cudynDriverCudaVersion());
  EXPECT_GE(version, 10010);
  EXPECT_EQ(cuInit(0), CUDA_ERROR_NO_DEVICE);
  // Everything the 13.0 headers route this program to is bound (natively or by an adapter).
  for (const char* symbol : {"cuMemAdvise_v2", "cuCtxCreate_v4", "cuStreamGetCaptureInfo_v3",
                             "cuMemPrefetchAsync_v2", "cuStreamBeginCapture_v2",
                             "cuCtxSynchronize_v2", "cuModuleLoadData", "cuLaunchKernel",
                             "cuMemAlloc_v2", "cuEventElapsedTime_v2"}) {
    std::string status = cudynEntryStatus(cudynFindEntry(symbol));
    EXPECT_TRUE(status == "native" || status == "adapter") << symbol << ": " << status;
  }
  // A call before a successful cuInit reaches the driver and gets its own error, not cudyn's.
  CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
  CUresult rc = cuMemAdvise(0, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, host);
  EXPECT_NE(rc, CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND);
  EXPECT_NE(rc, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
  const char* name = nullptr;
  EXPECT_EQ(cuGetErrorName(CUDA_ERROR_NO_DEVICE, &name), CUDA_SUCCESS);
  EXPECT_STREQ(name, "CUDA_ERROR_NO_DEVICE");
}

}  // namespace
