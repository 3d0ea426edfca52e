// vmm: virtual memory management - one physical allocation mapped at two virtual addresses.
//
// cuMemGetAllocationGranularity, cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess,
// cuMemGetAccess, cuMemUnmap, cuMemRelease, cuMemAddressFree: all CUDA 10.2. A kernel writes through
// the first mapping and the host reads the data back through the second. On a driver older than
// 10.2 (e.g. CUDYN_MAX_CUDA_VERSION=10010) cudyn answers 302 CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND
// and the example reports the part as not available at this driver version (exit 0).
#include <cuda.h>

#include <vector>

#include "common/example.h"

int main() {
  CUdevice device = 0;
  if (int code = example::Start("vmm", &device)) return code;

  CUcontext context = nullptr;
  CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cuCtxSetCurrent(context));

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t granularity = 0;
  CUresult rc = cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (example::NotAvailable("vmm", "cuMemGetAllocationGranularity", rc, 10020)) {
    CU_CHECK(cuDevicePrimaryCtxRelease(device));
    return example::Finish();
  }
  int supported = 0;
  CU_CHECK(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                device));
  if (!supported) example::Fail("device 0 does not support virtual memory management");
  if (granularity == 0) example::Fail("cuMemGetAllocationGranularity returned 0");

  size_t want = 4u << 20;  // 4 MiB, rounded up to the granularity
  size_t size = (want + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  CU_CHECK(cuMemCreate(&handle, size, &prop, 0));
  CUdeviceptr base = 0;
  CU_CHECK(cuMemAddressReserve(&base, 2 * size, granularity, 0, 0));
  CUdeviceptr first = base, second = base + size;
  CU_CHECK(cuMemMap(first, size, 0, handle, 0));
  CU_CHECK(cuMemMap(second, size, 0, handle, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(first, size, &access, 1));
  CU_CHECK(cuMemSetAccess(second, size, &access, 1));
  unsigned long long flags = 0;
  CU_CHECK(cuMemGetAccess(&flags, &prop.location, second));
  if (flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
    example::Fail("cuMemGetAccess: flags %llu, expected PROT_READWRITE", flags);
  }

  CUmodule module = example::LoadKernels();
  CUfunction fill = example::GetKernel(module, "fill_pattern");
  int n = static_cast<int>(size / sizeof(unsigned int));
  unsigned int mul = 2246822519u, add = 374761393u;
  void* params[] = {&first, &mul, &add, &n};
  CU_CHECK(cuLaunchKernel(fill, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1, 0,
                          nullptr, params, nullptr));
  CU_CHECK(cuCtxSynchronize());

  // Read through the second mapping: same physical memory.  Only the first 4 MiB go into the
  // checksum, so it does not depend on the granularity.
  std::vector<unsigned int> x(n);
  CU_CHECK(cuMemcpyDtoH(x.data(), second, size));
  for (int i = 0; i < n; ++i) {
    unsigned int expected = static_cast<unsigned int>(i) * mul + add;
    if (x[i] != expected) example::Fail("vmm: x[%d] = %u through the second mapping, expected %u", i, x[i], expected);
  }
  example::PartRan("vmm");
  example::PrintChecksum("vmm", x.data(), want);

  CU_CHECK(cuMemUnmap(first, size));
  CU_CHECK(cuMemUnmap(second, size));
  CU_CHECK(cuMemRelease(handle));
  CU_CHECK(cuMemAddressFree(base, 2 * size));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuDevicePrimaryCtxRelease(device));
  return example::Finish();
}
