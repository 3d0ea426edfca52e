// managed_memory: unified memory with cuMemAdvise and cuMemPrefetchAsync, to the device and back.
//
// Under the CUDA 13.0 headers cuMemAdvise is cuMemAdvise_v2 and cuMemPrefetchAsync is
// cuMemPrefetchAsync_v2 (both take a CUmemLocation, both appeared in CUDA 12.2). On an older driver
// (or under CUDYN_MAX_CUDA_VERSION=11040) cudyn adapts them to the CUDA 8.0 variants, passing the
// device ordinal for a DEVICE location and CU_DEVICE_CPU for HOST. The checks below read back what
// the driver recorded (cuMemRangeGetAttribute) to prove the location arrived intact.
#include <cuda.h>

#include "common/example.h"

namespace {

int RangeAttribute(CUdeviceptr ptr, size_t bytes, CUmem_range_attribute attribute) {
  int value = -42;
  CU_CHECK(cuMemRangeGetAttribute(&value, sizeof(value), attribute, ptr, bytes));
  return value;
}

void Expect(const char* what, int got, int want) {
  if (got != want) example::Fail("%s: got %d, expected %d", what, got, want);
}

}  // namespace

int main() {
  CUdevice device = 0;
  if (int code = example::Start("managed_memory", &device)) return code;

  int managed = 0, concurrent = 0;
  CU_CHECK(cuDeviceGetAttribute(&managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, device));
  CU_CHECK(cuDeviceGetAttribute(&concurrent, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device));
  if (!managed || !concurrent) {
    example::Fail("device 0 lacks managed memory with concurrent access (managed=%d, concurrent=%d); "
                  "cuMemPrefetchAsync needs both", managed, concurrent);
  }

  CUcontext context = nullptr;
  CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cuCtxSetCurrent(context));
  CUmodule module = example::LoadKernels();
  CUfunction scale_offset = example::GetKernel(module, "scale_offset");
  CUstream stream = nullptr;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  int n = 1 << 20;  // 4 MiB of managed memory
  size_t bytes = sizeof(float) * n;
  CUdeviceptr ptr = 0;
  CU_CHECK(cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL));
  float* host = reinterpret_cast<float*>(ptr);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000);

  CUmemLocation on_device = {};
  on_device.type = CU_MEM_LOCATION_TYPE_DEVICE;
  on_device.id = device;
  CUmemLocation on_host = {};
  on_host.type = CU_MEM_LOCATION_TYPE_HOST;
  on_host.id = 0;

  // Advice and prefetch to the device, then a kernel works on the data there.
  CU_CHECK(cuMemAdvise(ptr, bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, on_device));
  Expect("preferred location after advising the device",
         RangeAttribute(ptr, bytes, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), device);
  CU_CHECK(cuMemAdvise(ptr, bytes, CU_MEM_ADVISE_SET_ACCESSED_BY, on_device));
  Expect("accessed-by after advising the device",
         RangeAttribute(ptr, bytes, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY), device);
  CU_CHECK(cuMemPrefetchAsync(ptr, bytes, on_device, 0, stream));
  Expect("last prefetch location after prefetching to the device",
         RangeAttribute(ptr, bytes, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), device);
  float scale = 2.0f, offset = 1.0f;
  void* params[] = {&ptr, &scale, &offset, &n};
  CU_CHECK(cuLaunchKernel(scale_offset, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1,
                          0, stream, params, nullptr));
  CU_CHECK(cuStreamSynchronize(stream));

  // Advice and prefetch back to the host (CU_DEVICE_CPU in the CUDA 8.0 API), then check there.
  CU_CHECK(cuMemAdvise(ptr, bytes, CU_MEM_ADVISE_UNSET_ACCESSED_BY, on_device));
  CU_CHECK(cuMemAdvise(ptr, bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, on_host));
  Expect("preferred location after advising the host",
         RangeAttribute(ptr, bytes, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), CU_DEVICE_CPU);
  CU_CHECK(cuMemPrefetchAsync(ptr, bytes, on_host, 0, stream));
  Expect("last prefetch location after prefetching to the host",
         RangeAttribute(ptr, bytes, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), CU_DEVICE_CPU);
  CU_CHECK(cuStreamSynchronize(stream));

  for (int i = 0; i < n; ++i) {
    float want = static_cast<float>(i % 1000) * 2.0f + 1.0f;
    if (host[i] != want) example::Fail("managed_memory: x[%d] = %g, expected %g", i, host[i], want);
  }
  example::PartRan("managed_memory");
  example::PrintChecksum("managed_memory", host, bytes);

  CU_CHECK(cuMemFree(ptr));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuDevicePrimaryCtxRelease(device));
  return example::Finish();
}
