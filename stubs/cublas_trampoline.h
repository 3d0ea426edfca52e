// The cuBLAS drop-in stub for one entry: a typed function with the 13.0 cublas_v2.h name and
// prototype (the version-named cublasCreate_v2 ..., the _64 variants) whose body is a tail call
// through the entry's slot, the NVRTC drop-in's shape (stubs/nvrtc_trampoline.h): a trampoline is
// exactly `jmp *cudyn_cublas_stub_slots+8*index(%rip)`. The first call opens cuBLAS through
// DefaultCublas() (nothing is opened before it) and binds the entry; a missing entry keeps its
// thunk and answers CUBLAS_STATUS_NOT_SUPPORTED (CUBLAS_STATUS_NOT_INITIALIZED when no cuBLAS the
// driver runs was found; loader/cublas.h says why), logging once. Entries returning text answer
// cudyn's own text, size_t ones 0, void ones nothing.
#ifndef CUDYN_STUBS_CUBLAS_TRAMPOLINE_H_
#define CUDYN_STUBS_CUBLAS_TRAMPOLINE_H_

#include <cublas_v2.h>

#include <type_traits>

#include "loader/cublas.h"

#if defined(CUDYN_EMBED)
#define CUDYN_CUBLAS_API __attribute__((visibility("hidden")))
#else
#define CUDYN_CUBLAS_API __attribute__((visibility("default")))
#endif

extern "C" __attribute__((visibility("hidden"))) void* cudyn_cublas_stub_slots[::cudyn::kCublasEntryCount];

namespace cudyn {
// Binds `index` through DefaultCublas(); stores the function into the stub slot and returns it, or
// nullptr (the slot keeps the thunk).
void* BindCublasStubSlot(int index) __attribute__((visibility("hidden")));
// What a call of a missing entry returns (see above).
cublasStatus_t CublasStubMissingResult() __attribute__((visibility("hidden")));
// What an entry returning text (cublasGetStatusString/Name) answers when cuBLAS cannot serve it.
const char* CublasStubMissingText() __attribute__((visibility("hidden")));
}  // namespace cudyn

template <typename Ret>
inline Ret CudynCublasMissing() {
  if constexpr (std::is_void_v<Ret>) {
    return;
  } else if constexpr (std::is_same_v<Ret, cublasStatus_t>) {
    return ::cudyn::CublasStubMissingResult();
  } else if constexpr (std::is_same_v<Ret, const char*>) {
    return ::cudyn::CublasStubMissingText();
  } else {
    return Ret{};
  }
}

#define CUDYN_CUBLAS_BIND_THUNK(index, ret, symbol, params, args)                       \
  static __attribute__((noinline, cold, used)) ret cudyn_cublas_bind_##symbol params { \
    void* cudyn_fn_ = ::cudyn::BindCublasStubSlot(index);                               \
    if (cudyn_fn_ == nullptr) return CudynCublasMissing<ret>();                         \
    return reinterpret_cast<ret(*) params>(cudyn_fn_) args;                            \
  }

#if defined(__x86_64__) && defined(__ELF__)
#if defined(CUDYN_EMBED)
#define CUDYN_CUBLAS_VISIBILITY(symbol) ".hidden " #symbol "\n"
#else
#define CUDYN_CUBLAS_VISIBILITY(symbol)
#endif
#define CUDYN_CUBLAS_TRAMPOLINE(index, ret, symbol, params, args)    \
  CUDYN_CUBLAS_BIND_THUNK(index, ret, symbol, params, args)          \
  extern "C" CUDYN_CUBLAS_API ret symbol params;                     \
  __asm__(".text\n"                                                 \
          ".globl " #symbol "\n" CUDYN_CUBLAS_VISIBILITY(symbol)     \
          ".type " #symbol ", @function\n"                          \
          ".p2align 3\n" #symbol ":\n"                              \
          "  jmp *(cudyn_cublas_stub_slots + 8 * " #index ")(%rip)\n" \
          ".size " #symbol ", . - " #symbol "\n");
#else
#define CUDYN_CUBLAS_TRAMPOLINE(index, ret, symbol, params, args)                             \
  CUDYN_CUBLAS_BIND_THUNK(index, ret, symbol, params, args)                                   \
  extern "C" CUDYN_CUBLAS_API __attribute__((no_sanitize("address", "thread", "undefined"))) \
  ret symbol params {                                                                       \
    return reinterpret_cast<ret(*) params>(                                                 \
        __atomic_load_n(&::cudyn_cublas_stub_slots[index], __ATOMIC_RELAXED)) args;          \
  }
#endif

#define CUDYN_CUBLAS_SLOT_THUNK(index, symbol) reinterpret_cast<void*>(&cudyn_cublas_bind_##symbol),

#endif  // CUDYN_STUBS_CUBLAS_TRAMPOLINE_H_
