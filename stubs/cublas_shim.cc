// The cuBLAS drop-in's own part: binding a stub slot through DefaultCublas(), the answers of a
// missing entry, and the marker by which the loader recognises (and refuses) this library when it
// is installed or preloaded under cuBLAS's name. See stubs/cublas_trampoline.h.
#include "stubs/cublas_trampoline.h"

namespace cudyn {

void* BindCublasStubSlot(int index) {
  void* fn = DefaultCublas().Resolve(index);
  if (fn != nullptr) __atomic_store_n(&cudyn_cublas_stub_slots[index], fn, __ATOMIC_RELEASE);
  return fn;
}

cublasStatus_t CublasStubMissingResult() {
  return static_cast<cublasStatus_t>(DefaultCublas().missing_result());
}

const char* CublasStubMissingText() {
  return DefaultCublas().ok() ? "cudyn: this cuBLAS does not provide the function"
                              : "cudyn: no cuBLAS (libcublas) whose CUDA major this driver runs was found";
}

}  // namespace cudyn

static_assert(::cudyn::kCublasStatusNotSupported == CUBLAS_STATUS_NOT_SUPPORTED, "cublas_api.h");
static_assert(::cudyn::kCublasStatusNotInitialized == CUBLAS_STATUS_NOT_INITIALIZED, "cublas_api.h");

// The marker (loader/cublas.cc kCublasIdentity): the number of entries this drop-in serves.
extern "C" CUDYN_CUBLAS_API int cudynCublasEntryCount(void) { return ::cudyn::kCublasEntryCount; }
