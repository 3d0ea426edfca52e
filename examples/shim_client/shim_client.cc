// shim_client: uses cudyn the way libraries and language bindings load the driver - no link-time
// dependency at all. It dlopens libcudyn_cuda.so by path (in place of libcuda.so.1), takes
// cuGetProcAddress_v2 from it with dlsym, and gets every other entry point through that, asking for
// the CUDA version of its headers (CUDA_VERSION, 13000) with flags 0. It then runs the vector_add
// and managed_memory workloads and prints the same checksum lines as those examples.
//
// Requesting everything at 13000 means each pointer has the newest signature (cuCtxSynchronize is
// cuCtxSynchronize_v2(CUcontext), cuMemAdvise is cuMemAdvise_v2 with a CUmemLocation): the types
// below are the matching PFN_<name>_v<version> typedefs of cudaTypedefs.h. On an older driver the
// shim's cuGetProcAddress hands out the same signatures, backed by cudyn's adapters.
//
//   shim_client [PATH/libcudyn_cuda.so]    default: $CUDYN_SHIM_PATH, else next to the executable
// Exit codes as the other examples (0 pass, 1 fail, 2 no device, 3 no usable driver or shim).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/host.h"

#if CUDA_VERSION < 13000
#error "the cudyn examples are written against the CUDA 13.0 headers: point CUDA_PATH at a 13.x toolkit"
#endif

namespace {

int g_parts = 0;

struct Api {
  PFN_cuGetErrorName_v6000 cuGetErrorName;
  PFN_cuDriverGetVersion_v2020 cuDriverGetVersion;
  PFN_cuInit_v2000 cuInit;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 cuDevicePrimaryCtxRelease;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
  PFN_cuCtxSynchronize_v13000 cuCtxSynchronize;  // the 13.0 variant: takes the context
  PFN_cuModuleLoadData_v2000 cuModuleLoadData;
  PFN_cuModuleGetFunction_v2000 cuModuleGetFunction;
  PFN_cuModuleUnload_v2000 cuModuleUnload;
  PFN_cuMemAlloc_v3020 cuMemAlloc;
  PFN_cuMemFree_v3020 cuMemFree;
  PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD;
  PFN_cuMemcpyDtoH_v3020 cuMemcpyDtoH;
  PFN_cuLaunchKernel_v4000 cuLaunchKernel;
  PFN_cuMemAllocManaged_v6000 cuMemAllocManaged;
  PFN_cuMemAdvise_v12020 cuMemAdvise;
  PFN_cuMemPrefetchAsync_v12020 cuMemPrefetchAsync;
  PFN_cuStreamSynchronize_v2000 cuStreamSynchronize;
};
Api api;

void Line(const std::string& text) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

const char* Name(CUresult rc) {
  const char* name = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name) return "?";
  return name;
}

[[noreturn]] void Exit(int code, const std::string& result) {
  Line("result: " + result);
  std::exit(code);
}

[[noreturn]] void Fail(const std::string& what) {
  Line("FAIL: " + what);
  Exit(example::kExitFail, "FAIL");
}

void Check(CUresult rc, const char* call) {
  if (rc != CUDA_SUCCESS) {
    Fail(std::string(call) + " returned " + std::to_string(rc) + " " + Name(rc));
  }
}
#define CHECK(call) Check((call), #call)

std::string DefaultShimPath() {
  if (const char* env = std::getenv("CUDYN_SHIM_PATH")) {
    if (*env) return env;
  }
  char exe[PATH_MAX] = {0};
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) return "libcudyn_cuda.so";
  std::string dir(exe, static_cast<size_t>(len));
  return dir.substr(0, dir.rfind('/') + 1) + "libcudyn_cuda.so";
}

// Every entry point through the shim's cuGetProcAddress_v2 (or v1), at CUDA_VERSION, flags 0.
class Resolver {
 public:
  Resolver(PFN_cuGetProcAddress_v12000 v2, PFN_cuGetProcAddress_v11030 v1) : v2_(v2), v1_(v1) {}

  template <typename T>
  void Get(const char* name, T* out) {
    void* pfn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult rc = v2_ ? v2_(name, &pfn, CUDA_VERSION, 0, &status) : v1_(name, &pfn, CUDA_VERSION, 0);
    if (rc == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED || rc == CUDA_ERROR_STUB_LIBRARY) {
      Exit(example::kExitNoDriver, "NO DRIVER (cuGetProcAddress(\"" + std::string(name) + "\") returned " +
                                       std::to_string(rc) + ": the shim found no usable libcuda.so.1)");
    }
    if (rc != CUDA_SUCCESS || pfn == nullptr || status != CU_GET_PROC_ADDRESS_SUCCESS) {
      Fail("cuGetProcAddress(\"" + std::string(name) + "\", " + std::to_string(CUDA_VERSION) +
           ", 0) returned " + std::to_string(rc) + ", symbolStatus " + std::to_string(status));
    }
    Dl_info info = {};
    const char* symbol = dladdr(pfn, &info) && info.dli_sname ? info.dli_sname : "?";
    std::printf("proc: %s -> %s\n", name, symbol);
    ++resolved_;
    *out = reinterpret_cast<T>(pfn);
  }
  int resolved() const { return resolved_; }

 private:
  PFN_cuGetProcAddress_v12000 v2_;
  PFN_cuGetProcAddress_v11030 v1_;
  int resolved_ = 0;
};

void VectorAdd(CUcontext context, CUmodule module) {
  CUfunction vector_add = nullptr;
  CHECK(api.cuModuleGetFunction(&vector_add, module, "vector_add"));
  int n = example::kVectorAddN;
  std::vector<float> a, b, c(n, -1.0f);
  example::VectorAddInputs(n, &a, &b);
  size_t bytes = sizeof(float) * n;
  CUdeviceptr da = 0, db = 0, dc = 0;
  CHECK(api.cuMemAlloc(&da, bytes));
  CHECK(api.cuMemAlloc(&db, bytes));
  CHECK(api.cuMemAlloc(&dc, bytes));
  CHECK(api.cuMemcpyHtoD(da, a.data(), bytes));
  CHECK(api.cuMemcpyHtoD(db, b.data(), bytes));
  void* params[] = {&da, &db, &dc, &n};
  CHECK(api.cuLaunchKernel(vector_add, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1, 0,
                           nullptr, params, nullptr));
  CHECK(api.cuCtxSynchronize(context));
  CHECK(api.cuMemcpyDtoH(c.data(), dc, bytes));
  long bad = example::FirstVectorAddMismatch(a, b, c);
  if (bad >= 0) Fail("vector_add: c[" + std::to_string(bad) + "] = " + std::to_string(c[bad]));
  Line("part vector_add: ran");
  ++g_parts;
  example::PrintChecksum("vector_add", c.data(), bytes);
  CHECK(api.cuMemFree(da));
  CHECK(api.cuMemFree(db));
  CHECK(api.cuMemFree(dc));
}

// The managed_memory example's workload: advise + prefetch to the device, kernel, back to the host.
void Managed(CUdevice device, CUmodule module) {
  CUfunction scale_offset = nullptr;
  CHECK(api.cuModuleGetFunction(&scale_offset, module, "scale_offset"));
  int concurrent = 0;
  CHECK(api.cuDeviceGetAttribute(&concurrent, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device));
  if (!concurrent) Fail("device 0 lacks concurrent managed access (needed by cuMemPrefetchAsync)");
  int n = 1 << 20;
  size_t bytes = sizeof(float) * n;
  CUdeviceptr ptr = 0;
  CHECK(api.cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL));
  float* host = reinterpret_cast<float*>(ptr);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000);
  CUmemLocation on_device = {};
  on_device.type = CU_MEM_LOCATION_TYPE_DEVICE;
  on_device.id = device;
  CUmemLocation on_host = {};
  on_host.type = CU_MEM_LOCATION_TYPE_HOST;
  CHECK(api.cuMemAdvise(ptr, bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, on_device));
  CHECK(api.cuMemPrefetchAsync(ptr, bytes, on_device, 0, nullptr));
  float scale = 2.0f, offset = 1.0f;
  void* params[] = {&ptr, &scale, &offset, &n};
  CHECK(api.cuLaunchKernel(scale_offset, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1, 0,
                           nullptr, params, nullptr));
  CHECK(api.cuStreamSynchronize(nullptr));
  CHECK(api.cuMemAdvise(ptr, bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, on_host));
  CHECK(api.cuMemPrefetchAsync(ptr, bytes, on_host, 0, nullptr));
  CHECK(api.cuStreamSynchronize(nullptr));
  for (int i = 0; i < n; ++i) {
    float want = static_cast<float>(i % 1000) * 2.0f + 1.0f;
    if (host[i] != want) Fail("managed_memory: x[" + std::to_string(i) + "] = " + std::to_string(host[i]));
  }
  Line("part managed_memory: ran");
  ++g_parts;
  example::PrintChecksum("managed_memory", host, bytes);
  CHECK(api.cuMemFree(ptr));
}

}  // namespace

int main(int argc, char** argv) {
  Line("example: shim_client");
  std::string path = argc > 1 ? argv[1] : DefaultShimPath();
  Line("shim: " + path);
  void* shim = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (shim == nullptr) {
    const char* error = dlerror();
    Exit(example::kExitNoDriver, "NO DRIVER (cannot load the shim: " + std::string(error ? error : "?") + ")");
  }
  auto v2 = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(shim, "cuGetProcAddress_v2"));
  auto v1 = reinterpret_cast<PFN_cuGetProcAddress_v11030>(dlsym(shim, "cuGetProcAddress"));
  if (v2 == nullptr && v1 == nullptr) {
    Exit(example::kExitNoDriver, "NO DRIVER (" + path + " exports no cuGetProcAddress)");
  }
  Resolver resolve(v2, v1);
  resolve.Get("cuGetErrorName", &api.cuGetErrorName);
  resolve.Get("cuDriverGetVersion", &api.cuDriverGetVersion);
  resolve.Get("cuInit", &api.cuInit);
  resolve.Get("cuDeviceGet", &api.cuDeviceGet);
  resolve.Get("cuDeviceGetAttribute", &api.cuDeviceGetAttribute);
  resolve.Get("cuDevicePrimaryCtxRetain", &api.cuDevicePrimaryCtxRetain);
  resolve.Get("cuDevicePrimaryCtxRelease", &api.cuDevicePrimaryCtxRelease);
  resolve.Get("cuCtxSetCurrent", &api.cuCtxSetCurrent);
  resolve.Get("cuCtxSynchronize", &api.cuCtxSynchronize);
  resolve.Get("cuModuleLoadData", &api.cuModuleLoadData);
  resolve.Get("cuModuleGetFunction", &api.cuModuleGetFunction);
  resolve.Get("cuModuleUnload", &api.cuModuleUnload);
  resolve.Get("cuMemAlloc", &api.cuMemAlloc);
  resolve.Get("cuMemFree", &api.cuMemFree);
  resolve.Get("cuMemcpyHtoD", &api.cuMemcpyHtoD);
  resolve.Get("cuMemcpyDtoH", &api.cuMemcpyDtoH);
  resolve.Get("cuLaunchKernel", &api.cuLaunchKernel);
  resolve.Get("cuMemAllocManaged", &api.cuMemAllocManaged);
  resolve.Get("cuMemAdvise", &api.cuMemAdvise);
  resolve.Get("cuMemPrefetchAsync", &api.cuMemPrefetchAsync);
  resolve.Get("cuStreamSynchronize", &api.cuStreamSynchronize);
  Line("resolved: " + std::to_string(resolve.resolved()) + " entry points through " +
       (v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress") + " at " + std::to_string(CUDA_VERSION));

  int version = 0;
  CHECK(api.cuDriverGetVersion(&version));
  Line("driver: CUDA " + example::CudaVersionText(version) + " (" + std::to_string(version) + ")");
  CUresult rc = api.cuInit(0);
  Line("init: cuInit(0) = " + std::to_string(rc) + " " + Name(rc));
  if (rc == CUDA_ERROR_NO_DEVICE) Exit(example::kExitNoDevice, "NO DEVICE (cuInit(0) returned 100 CUDA_ERROR_NO_DEVICE)");
  CHECK(rc);

  CUdevice device = 0;
  CHECK(api.cuDeviceGet(&device, 0));
  CUcontext context = nullptr;
  CHECK(api.cuDevicePrimaryCtxRetain(&context, device));
  CHECK(api.cuCtxSetCurrent(context));
  CUmodule module = nullptr;
  CHECK(api.cuModuleLoadData(&module, kVectorAddPtx));
  VectorAdd(context, module);
  Managed(device, module);
  CHECK(api.cuModuleUnload(module));
  CHECK(api.cuDevicePrimaryCtxRelease(device));
  Exit(example::kExitPass, "PASS (" + std::to_string(g_parts) + " parts ran, 0 not available)");
}
