// The NVRTC drop-in stub for one entry: a typed function with the 13.0 nvrtc.h name and prototype
// whose body is a tail call through the entry's slot — the runtime drop-in's shape
// (stubs/cudart_trampoline.h): every slot starts at the entry's binding thunk, so a trampoline is
// exactly `jmp *cudyn_nvrtc_stub_slots+8*index(%rip)`. The first call opens NVRTC through
// DefaultNvrtc() (nothing is opened before it) and binds the entry; a missing entry keeps its thunk
// and answers NVRTC_ERROR_INVALID_INPUT (NVRTC_ERROR_INTERNAL_ERROR when no NVRTC the driver can
// use was found; loader/nvrtc.h says why), logging once.
#ifndef CUDYN_STUBS_NVRTC_TRAMPOLINE_H_
#define CUDYN_STUBS_NVRTC_TRAMPOLINE_H_

#include <nvrtc.h>

#include <type_traits>

#include "loader/nvrtc.h"

#if defined(CUDYN_EMBED)
#define CUDYN_NVRTC_API __attribute__((visibility("hidden")))
#else
#define CUDYN_NVRTC_API __attribute__((visibility("default")))
#endif

extern "C" __attribute__((visibility("hidden"))) void* cudyn_nvrtc_stub_slots[::cudyn::kNvrtcEntryCount];

namespace cudyn {
// Binds `index` through DefaultNvrtc(); stores the function into the stub slot and returns it, or
// nullptr (the slot keeps the thunk).
void* BindNvrtcStubSlot(int index) __attribute__((visibility("hidden")));
// What a call of a missing entry returns (see above).
nvrtcResult NvrtcStubMissingResult() __attribute__((visibility("hidden")));
// What nvrtcGetErrorString answers when no NVRTC can serve it.
const char* NvrtcStubMissingText() __attribute__((visibility("hidden")));
}  // namespace cudyn

template <typename Ret>
inline Ret CudynNvrtcMissing() {
  if constexpr (std::is_same_v<Ret, nvrtcResult>) {
    return ::cudyn::NvrtcStubMissingResult();
  } else if constexpr (std::is_same_v<Ret, const char*>) {
    return ::cudyn::NvrtcStubMissingText();
  } else {
    return Ret{};
  }
}

#define CUDYN_NVRTC_BIND_THUNK(index, ret, symbol, params, args)                       \
  static __attribute__((noinline, cold, used)) ret cudyn_nvrtc_bind_##symbol params { \
    void* cudyn_fn_ = ::cudyn::BindNvrtcStubSlot(index);                               \
    if (cudyn_fn_ == nullptr) return CudynNvrtcMissing<ret>();                         \
    return reinterpret_cast<ret(*) params>(cudyn_fn_) args;                            \
  }

#if defined(__x86_64__) && defined(__ELF__)
#if defined(CUDYN_EMBED)
#define CUDYN_NVRTC_VISIBILITY(symbol) ".hidden " #symbol "\n"
#else
#define CUDYN_NVRTC_VISIBILITY(symbol)
#endif
#define CUDYN_NVRTC_TRAMPOLINE(index, ret, symbol, params, args)    \
  CUDYN_NVRTC_BIND_THUNK(index, ret, symbol, params, args)          \
  extern "C" CUDYN_NVRTC_API ret symbol params;                     \
  __asm__(".text\n"                                                 \
          ".globl " #symbol "\n" CUDYN_NVRTC_VISIBILITY(symbol)     \
          ".type " #symbol ", @function\n"                          \
          ".p2align 3\n" #symbol ":\n"                              \
          "  jmp *(cudyn_nvrtc_stub_slots + 8 * " #index ")(%rip)\n" \
          ".size " #symbol ", . - " #symbol "\n");
#else
#define CUDYN_NVRTC_TRAMPOLINE(index, ret, symbol, params, args)                             \
  CUDYN_NVRTC_BIND_THUNK(index, ret, symbol, params, args)                                   \
  extern "C" CUDYN_NVRTC_API __attribute__((no_sanitize("address", "thread", "undefined"))) \
  ret symbol params {                                                                       \
    return reinterpret_cast<ret(*) params>(                                                 \
        __atomic_load_n(&::cudyn_nvrtc_stub_slots[index], __ATOMIC_RELAXED)) args;          \
  }
#endif

#define CUDYN_NVRTC_SLOT_THUNK(index, symbol) reinterpret_cast<void*>(&cudyn_nvrtc_bind_##symbol),

#endif  // CUDYN_STUBS_NVRTC_TRAMPOLINE_H_
