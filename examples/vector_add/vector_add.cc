// vector_add: c = a + b on the GPU from a PTX module.
//
// Driver API only (cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel), compiled against the CUDA
// 13.0 headers and linked with @cudyn//stubs:cudyn_cuda instead of -lcuda: the same binary runs on
// any driver from CUDA 10.0 on, and under CUDYN_MAX_CUDA_VERSION.
#include <cuda.h>

#include <vector>

#include "common/example.h"

int main() {
  CUdevice device = 0;
  if (int code = example::Start("vector_add", &device)) return code;

  CUcontext context = nullptr;
  CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cuCtxSetCurrent(context));

  CUmodule module = example::LoadKernels();
  CUfunction vector_add = example::GetKernel(module, "vector_add");

  int n = example::kVectorAddN;
  std::vector<float> a, b, c(n, -1.0f);
  example::VectorAddInputs(n, &a, &b);
  size_t bytes = sizeof(float) * n;

  CUdeviceptr da = 0, db = 0, dc = 0;
  CU_CHECK(cuMemAlloc(&da, bytes));
  CU_CHECK(cuMemAlloc(&db, bytes));
  CU_CHECK(cuMemAlloc(&dc, bytes));
  CU_CHECK(cuMemcpyHtoD(da, a.data(), bytes));
  CU_CHECK(cuMemcpyHtoD(db, b.data(), bytes));
  CU_CHECK(cuMemsetD32(dc, 0xffffffffu, n));  // NaN pattern: an element the kernel skips fails the check

  void* params[] = {&da, &db, &dc, &n};
  CU_CHECK(cuLaunchKernel(vector_add, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1,
                          0, nullptr, params, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(c.data(), dc, bytes));

  long bad = example::FirstVectorAddMismatch(a, b, c);
  if (bad >= 0) {
    example::Fail("vector_add: c[%ld] = %g, expected %g + %g", bad, c[bad], a[bad], b[bad]);
  }
  example::PartRan("vector_add");
  example::PrintChecksum("vector_add", c.data(), bytes);

  CU_CHECK(cuMemFree(da));
  CU_CHECK(cuMemFree(db));
  CU_CHECK(cuMemFree(dc));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuDevicePrimaryCtxRelease(device));
  return example::Finish();
}
