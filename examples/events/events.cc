// events: timing GPU work with cuEventRecord / cuEventElapsedTime.
//
// cuEventElapsedTime is cuEventElapsedTime_v2 under the CUDA 13.0 headers (CUDA 12.8, same
// signature); on older drivers cudyn calls the CUDA 2.0 variant. The elapsed time is printed but
// not compared between runs; the checksum covers the data the timed kernels wrote.
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "common/example.h"

int main() {
  CUdevice device = 0;
  if (int code = example::Start("events", &device)) return code;

  CUcontext context = nullptr;
  CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cuCtxSetCurrent(context));
  CUmodule module = example::LoadKernels();
  CUfunction fill = example::GetKernel(module, "fill_pattern");
  CUstream stream = nullptr;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  int n = 1 << 22;  // 16 MiB of unsigned ints
  size_t bytes = sizeof(unsigned int) * n;
  CUdeviceptr dx = 0;
  CU_CHECK(cuMemAlloc(&dx, bytes));

  CUevent start = nullptr, stop = nullptr, untimed = nullptr;
  CU_CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CU_CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  CU_CHECK(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING));

  // Four fills between the two events; the last one decides the data.
  const unsigned int kPatterns[4][2] = {{1u, 0u}, {3u, 7u}, {40503u, 11u}, {2654435761u, 12345u}};
  CU_CHECK(cuEventRecord(start, stream));
  for (const auto& pattern : kPatterns) {
    unsigned int mul = pattern[0], add = pattern[1];
    void* params[] = {&dx, &mul, &add, &n};
    CU_CHECK(cuLaunchKernel(fill, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1, 0,
                            stream, params, nullptr));
  }
  CU_CHECK(cuEventRecord(stop, stream));
  CU_CHECK(cuEventRecord(untimed, stream));
  CU_CHECK(cuEventSynchronize(stop));
  CU_CHECK(cuEventSynchronize(untimed));
  CU_CHECK(cuEventQuery(stop));

  float ms = -1.0f;
  CU_CHECK(cuEventElapsedTime(&ms, start, stop));
  if (!std::isfinite(ms) || ms <= 0.0f || ms > 60000.0f) {
    example::Fail("cuEventElapsedTime: %g ms for four kernels, expected a positive time", ms);
  }
  std::printf("elapsed: %.3f ms (cuEventElapsedTime; not compared between runs)\n", ms);
  // An event created with CU_EVENT_DISABLE_TIMING has no timestamp: documented INVALID_HANDLE,
  // passed through unchanged by cudyn whichever variant runs.
  float ignored = 0.0f;
  CUresult rc = cuEventElapsedTime(&ignored, start, untimed);
  if (rc != CUDA_ERROR_INVALID_HANDLE) {
    example::Fail("cuEventElapsedTime with a CU_EVENT_DISABLE_TIMING event returned %d %s, expected "
                  "400 CUDA_ERROR_INVALID_HANDLE", static_cast<int>(rc), example::ResultName(rc));
  }
  example::PartRan("event_timing");

  std::vector<unsigned int> x(n);
  CU_CHECK(cuMemcpyDtoH(x.data(), dx, bytes));
  for (int i = 0; i < n; ++i) {
    unsigned int want = static_cast<unsigned int>(i) * kPatterns[3][0] + kPatterns[3][1];
    if (x[i] != want) example::Fail("events: x[%d] = %u, expected %u", i, x[i], want);
  }
  example::PartRan("event_fill");
  example::PrintChecksum("event_fill", x.data(), bytes);

  CU_CHECK(cuEventDestroy(start));
  CU_CHECK(cuEventDestroy(stop));
  CU_CHECK(cuEventDestroy(untimed));
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuDevicePrimaryCtxRelease(device));
  return example::Finish();
}
