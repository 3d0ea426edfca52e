// The runtime drop-in's own code: nvcc's host-stub ABI — the __cuda* functions that
// nvcc-generated host code calls to register fat binaries and launch `<<<...>>>` kernels —
// forwarded to the chosen runtime. (The trampolines' slow path: stubs/cudart_trampoline.cc.)
//
// nvcc 13's launch code calls __cudaGetKernel and __cudaLaunchKernel, which runtimes before 12.x
// lack. There the kernel handle is the host stub's address itself and the launch goes through
// cudaLaunchKernel, which every runtime has and which takes exactly that address.
#include <cuda_runtime_api.h>

#include <atomic>

#include "loader/cudart.h"
#include "stubs/cudart_trampoline.h"

namespace cudyn {
namespace {

// One host-ABI function of the runtime, looked up once (nullptr: the runtime lacks it).
class HostFunction {
 public:
  explicit constexpr HostFunction(const char* name) : name_(name) {}
  template <typename Fn>
  Fn Get() {
    if (!done_.load(std::memory_order_acquire)) {
      fn_.store(DefaultRuntime().Symbol(name_), std::memory_order_relaxed);
      done_.store(true, std::memory_order_release);
    }
    return reinterpret_cast<Fn>(fn_.load(std::memory_order_relaxed));
  }

 private:
  const char* name_;
  std::atomic<void*> fn_{nullptr};
  std::atomic<bool> done_{false};
};

HostFunction g_register_fat_binary("__cudaRegisterFatBinary");
HostFunction g_register_fat_binary_end("__cudaRegisterFatBinaryEnd");
HostFunction g_unregister_fat_binary("__cudaUnregisterFatBinary");
HostFunction g_register_function("__cudaRegisterFunction");
HostFunction g_register_var("__cudaRegisterVar");
HostFunction g_register_managed_var("__cudaRegisterManagedVar");
HostFunction g_init_module("__cudaInitModule");
HostFunction g_push_call_configuration("__cudaPushCallConfiguration");
HostFunction g_pop_call_configuration("__cudaPopCallConfiguration");
HostFunction g_get_kernel("__cudaGetKernel");
HostFunction g_launch_kernel("__cudaLaunchKernel");
HostFunction g_launch_kernel_ptsz("__cudaLaunchKernel_ptsz");
HostFunction g_cuda_launch_kernel("cudaLaunchKernel");
HostFunction g_cuda_launch_kernel_ptsz("cudaLaunchKernel_ptsz");

// Handed out when no runtime could be loaded, so registration code has something to pass
// around; every launch then fails with the loader's error.
void* g_no_runtime_handle = nullptr;

cudaError_t NoRuntime() { return static_cast<cudaError_t>(DefaultRuntime().missing_result()); }

using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
using HostLaunchFn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);

}  // namespace
}  // namespace cudyn

using cudyn::g_no_runtime_handle;

extern "C" {

CUDYN_CUDART_API void** __cudaRegisterFatBinary(void* fatCubin) {
  auto fn = cudyn::g_register_fat_binary.Get<void** (*)(void*)>();
  // Under driver emulation the runtime may get a fatbin its real driver answers as the emulated
  // one would (loader/DESIGN.md, "Driver emulation").
  return fn != nullptr ? fn(cudyn::EmulateRegisteredFatbin(fatCubin)) : &g_no_runtime_handle;
}

CUDYN_CUDART_API void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) {
  auto fn = cudyn::g_register_fat_binary_end.Get<void (*)(void**)>();
  if (fn != nullptr && fatCubinHandle != &g_no_runtime_handle) fn(fatCubinHandle);
}

CUDYN_CUDART_API void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  cudyn::ForgetCudartModule(fatCubinHandle);
  auto fn = cudyn::g_unregister_fat_binary.Get<void (*)(void**)>();
  if (fn != nullptr && fatCubinHandle != &g_no_runtime_handle) fn(fatCubinHandle);
}

CUDYN_CUDART_API void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun,
                                             char* deviceFun, const char* deviceName,
                                             int thread_limit, uint3* tid, uint3* bid, dim3* bDim,
                                             dim3* gDim, int* wSize) {
  using Fn = void (*)(void**, const char*, char*, const char*, int, uint3*, uint3*, dim3*, dim3*,
                      int*);
  // Recorded for cudaFuncGetName on runtimes that lack it (loader/cudart_adapters.cc).
  cudyn::NoteCudartFunction(fatCubinHandle, hostFun, deviceName);
  auto fn = cudyn::g_register_function.Get<Fn>();
  if (fn != nullptr && fatCubinHandle != &g_no_runtime_handle) {
    fn(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
  }
}

CUDYN_CUDART_API void __cudaRegisterVar(void** fatCubinHandle, char* hostVar,
                                        char* deviceAddress, const char* deviceName, int ext,
                                        size_t size, int constant, int global) {
  using Fn = void (*)(void**, char*, char*, const char*, int, size_t, int, int);
  auto fn = cudyn::g_register_var.Get<Fn>();
  if (fn != nullptr && fatCubinHandle != &g_no_runtime_handle) {
    fn(fatCubinHandle, hostVar, deviceAddress, deviceName, ext, size, constant, global);
  }
}

CUDYN_CUDART_API void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress,
                                               char* deviceAddress, const char* deviceName,
                                               int ext, size_t size, int constant, int global) {
  using Fn = void (*)(void**, void**, char*, const char*, int, size_t, int, int);
  auto fn = cudyn::g_register_managed_var.Get<Fn>();
  if (fn != nullptr && fatCubinHandle != &g_no_runtime_handle) {
    fn(fatCubinHandle, hostVarPtrAddress, deviceAddress, deviceName, ext, size, constant, global);
  }
}

CUDYN_CUDART_API char __cudaInitModule(void** fatCubinHandle) {
  auto fn = cudyn::g_init_module.Get<char (*)(void**)>();
  return fn != nullptr && fatCubinHandle != &g_no_runtime_handle ? fn(fatCubinHandle) : 0;
}

CUDYN_CUDART_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                      size_t sharedMem,
                                                      struct CUstream_st* stream) {
  using Fn = unsigned (*)(dim3, dim3, size_t, struct CUstream_st*);
  auto fn = cudyn::g_push_call_configuration.Get<Fn>();
  // Non-zero tells the generated code not to launch.
  return fn != nullptr ? fn(gridDim, blockDim, sharedMem, stream) : 1u;
}

CUDYN_CUDART_API cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim,
                                                        size_t* sharedMem, void* stream) {
  using Fn = cudaError_t (*)(dim3*, dim3*, size_t*, void*);
  auto fn = cudyn::g_pop_call_configuration.Get<Fn>();
  return fn != nullptr ? fn(gridDim, blockDim, sharedMem, stream) : cudyn::NoRuntime();
}

CUDYN_CUDART_API cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun) {
  using Fn = cudaError_t (*)(cudaKernel_t*, const void*);
  if (auto fn = cudyn::g_get_kernel.Get<Fn>()) return fn(kernel, hostFun);
  if (!cudyn::DefaultRuntime().ok()) return cudyn::NoRuntime();
  // Before 12.x: the host stub's address is the handle cudaLaunchKernel takes.
  if (kernel == nullptr) return cudaErrorInvalidValue;
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(hostFun));
  return cudaSuccess;
}

static cudaError_t LaunchKernel(cudyn::HostFunction& host, cudyn::HostFunction& plain,
                                cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                size_t sharedMem, cudaStream_t stream) {
  // Both come from the same runtime, so a handle from its __cudaGetKernel goes back to it.
  if (auto fn = host.Get<cudyn::HostLaunchFn>()) {
    return fn(kernel, gridDim, blockDim, args, sharedMem, stream);
  }
  if (auto fn = plain.Get<cudyn::LaunchFn>()) {
    return fn(reinterpret_cast<const void*>(kernel), gridDim, blockDim, args, sharedMem, stream);
  }
  return cudyn::NoRuntime();
}

CUDYN_CUDART_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
                                                dim3 blockDim, void** args, size_t sharedMem,
                                                cudaStream_t stream) {
  return LaunchKernel(cudyn::g_launch_kernel, cudyn::g_cuda_launch_kernel, kernel, gridDim,
                      blockDim, args, sharedMem, stream);
}

CUDYN_CUDART_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                                     dim3 blockDim, void** args,
                                                     size_t sharedMem, cudaStream_t stream) {
  return LaunchKernel(cudyn::g_launch_kernel_ptsz, cudyn::g_cuda_launch_kernel_ptsz, kernel,
                      gridDim, blockDim, args, sharedMem, stream);
}

}  // extern "C"
