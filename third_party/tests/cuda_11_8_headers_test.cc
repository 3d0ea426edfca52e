// Compiled against @cuda_11_8//:headers (Debian bookworm nvidia-cuda-dev 11.8 headers in the deps cache).
// Note: a target must not have two CUDA header repositories in its transitive deps — both put an include/
// directory with a cuda.h on -isystem and the first one wins.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <gtest/gtest.h>

TEST(CudaHeaders, Cuda118FromDepsCache) {
  EXPECT_EQ(CUDA_VERSION, 11080);
  // 11.8 has the versioned PFN typedefs, including cuGetProcAddress (11.3+).
  PFN_cuGetProcAddress_v11030 pfn = nullptr;
  EXPECT_EQ(pfn, nullptr);
}
