// Compiled against @cuda_11_2//:headers (Debian bullseye nvidia-cuda-dev 11.2, which has no cudaTypedefs.h).
#include <cuda.h>

#include <gtest/gtest.h>

TEST(CudaHeaders, Cuda112FromDepsCache) {
  EXPECT_EQ(CUDA_VERSION, 11020);
#if __has_include(<cudaTypedefs.h>)
  ADD_FAILURE() << "CUDA 11.2 headers unexpectedly ship cudaTypedefs.h";
#endif
}
