// The runtime-API drop-in stub for one entry: a typed function with the 13.0 name and prototype
// whose body is a tail call through the entry's slot — the same shape as the driver stubs
// (stubs/trampoline.h): every slot starts at the entry's binding thunk, so a trampoline is
// exactly `jmp *cudyn_cudart_stub_slots+8*index(%rip)` and never tests anything. The first call
// binds the entry through DefaultRuntime(); a missing entry keeps its thunk and returns
// Runtime::missing_result(index) (35 or 801; 303 when no runtime could be loaded), logging once.
#ifndef CUDYN_STUBS_CUDART_TRAMPOLINE_H_
#define CUDYN_STUBS_CUDART_TRAMPOLINE_H_

#include <cuda_runtime_api.h>

#include "loader/cudart.h"

static_assert(CUDART_VERSION >= 13000, "the runtime drop-in serves the CUDA 13.0 runtime API");

// Exported from the drop-in; its embedding twin hides it (cudyn_library.bzl).
#define CUDYN_CUDART_API __attribute__((visibility("default")))

// One slot per entry, then one per name forwarded untyped (cudart_forwards.inc).
extern "C" __attribute__((visibility("hidden"))) void*
    cudyn_cudart_stub_slots[::cudyn::kCudartEntryCount + ::cudyn::kCudartForwardCount];

namespace cudyn {
// Binds `index` through DefaultRuntime(); stores the function into the stub slot and returns it,
// or nullptr (the slot keeps the thunk).
void* BindCudartStubSlot(int index) __attribute__((visibility("hidden")));
// Binds the forwarded name in `slot` to the runtime's function of that name; returns it, or a
// function answering CudartStubMissingResult() when the runtime lacks it (the slot keeps the thunk).
void* BindCudartForwardSlot(int slot, const char* name) __attribute__((visibility("hidden")));
// What a call of missing entry `index` returns (Runtime::missing_result(index): 35 or 801, 303
// when no runtime is open); index -1: a forwarded name the runtime lacks (302).
cudaError_t CudartStubMissingResult(int index) __attribute__((visibility("hidden")));
// What the const char* entries (cudaGetErrorName/String) answer when no runtime can serve them.
const char* CudartStubMissingText() __attribute__((visibility("hidden")));
}  // namespace cudyn

#include <type_traits>

// What an entry with no function answers, by its return type: the error code, a text for the
// const char* ones, a zero value for the one returning a struct (cudaCreateChannelDesc).
template <typename Ret>
inline Ret CudynCudartMissing(int index) {
  if constexpr (std::is_same_v<Ret, cudaError_t>) {
    return ::cudyn::CudartStubMissingResult(index);
  } else if constexpr (std::is_same_v<Ret, const char*>) {
    return ::cudyn::CudartStubMissingText();
  } else {
    return Ret{};
  }
}

#define CUDYN_CUDART_BIND_THUNK(index, ret, symbol, params, args)                  \
  static __attribute__((noinline, cold, used)) ret cudyn_cudart_bind_##symbol params { \
    void* cudyn_fn_ = ::cudyn::BindCudartStubSlot(index);                          \
    if (cudyn_fn_ == nullptr) return CudynCudartMissing<ret>(index);                    \
    return reinterpret_cast<ret(*) params>(cudyn_fn_) args;                        \
  }

#if defined(__x86_64__) && defined(__ELF__)
#define CUDYN_CUDART_TRAMPOLINE(index, ret, symbol, params, args)       \
  CUDYN_CUDART_BIND_THUNK(index, ret, symbol, params, args)             \
  extern "C" CUDYN_CUDART_API ret symbol params;                        \
  __asm__(".text\n"                                                     \
          ".globl " #symbol "\n"                                        \
          ".type " #symbol ", @function\n"                              \
          ".p2align 3\n" #symbol ":\n"                                  \
          "  jmp *(cudyn_cudart_stub_slots + 8 * " #index ")(%rip)\n"   \
          ".size " #symbol ", . - " #symbol "\n");
#else
#define CUDYN_CUDART_TRAMPOLINE(index, ret, symbol, params, args)                            \
  CUDYN_CUDART_BIND_THUNK(index, ret, symbol, params, args)                                  \
  extern "C" CUDYN_CUDART_API __attribute__((no_sanitize("address", "thread", "undefined"))) \
  ret symbol params {                                                                        \
    return reinterpret_cast<ret(*) params>(                                                  \
        __atomic_load_n(&::cudyn_cudart_stub_slots[index], __ATOMIC_RELAXED)) args;          \
  }
#endif

#define CUDYN_CUDART_SLOT_THUNK(index, symbol) reinterpret_cast<void*>(&cudyn_cudart_bind_##symbol),

#endif  // CUDYN_STUBS_CUDART_TRAMPOLINE_H_
