// The runtime drop-in's trampolines' slow path (stubs/cudart_trampoline.h): binding a slot to the
// chosen runtime's function, and what an entry or a forwarded name the runtime lacks answers.
#include <cuda_runtime_api.h>

#include "loader/cudart.h"
#include "stubs/cudart_trampoline.h"

namespace cudyn {

void* BindCudartStubSlot(int index) {
  void* fn = DefaultRuntime().Resolve(index);
  if (fn != nullptr) __atomic_store_n(&cudyn_cudart_stub_slots[index], fn, __ATOMIC_RELEASE);
  return fn;
}

cudaError_t CudartStubMissingResult(int index) {
  Runtime& rt = DefaultRuntime();
  const int result = index >= 0 ? rt.missing_result(index) : rt.missing_result();
  if (index >= 0 && rt.ok()) NoteCudartMissingAnswer(result);  // cudaGetLastError reports it
  return static_cast<cudaError_t>(result);
}

namespace {
// Every forwarded function returns cudaError_t (//version_tables:cudart_forwards_test), so a
// missing one answers like a missing entry whatever its arguments.
extern "C" cudaError_t CudynCudartForwardMissing() { return CudartStubMissingResult(-1); }
}  // namespace

void* BindCudartForwardSlot(int slot, const char* name) {
  void* fn = DefaultRuntime().Symbol(name);
  if (fn == nullptr) return reinterpret_cast<void*>(&CudynCudartForwardMissing);
  __atomic_store_n(&cudyn_cudart_stub_slots[slot], fn, __ATOMIC_RELEASE);
  return fn;
}

const char* CudartStubMissingText() {
  return DefaultRuntime().ok() ? "cudyn: this CUDA runtime does not provide the function"
                               : "cudyn: no usable CUDA runtime (libcudart) was found";
}

}  // namespace cudyn
