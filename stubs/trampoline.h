// The drop-in stub for one driver entry: a typed function with the variant's exact name and
// prototype whose body is a tail call through the default driver's slot. Hot path: one
// RIP-relative load, a predictable branch, an indirect jump. First call binds (thread-safe);
// an entry with no native variant and no adapter returns 302 (303/34 without a driver).
#ifndef CUDYN_STUBS_TRAMPOLINE_H_
#define CUDYN_STUBS_TRAMPOLINE_H_

#include "loader/cudyn.h"
#include "version_tables/cuda_driver_api.h"

// Exported from libcudyn_cuda.so and visible in the static drop-in; hidden in embedding mode so
// a binding can embed cudyn next to the real libcuda and other copies of cudyn.
#if defined(CUDYN_EMBED)
#define CUDYN_STUB_API __attribute__((visibility("hidden")))
#else
#define CUDYN_STUB_API __attribute__((visibility("default")))
#endif

#define CUDYN_TRAMPOLINE(index, symbol, params, args)                                       \
  /* First call (and missing entries): bind, then call. Kept out of line so the hot path   \
     needs no stack frame. */                                                               \
  static __attribute__((noinline, cold)) CUresult CUDAAPI cudyn_bind_##symbol params {     \
    void* fn = ::cudyn::ResolveDefaultSlow(index);                                          \
    if (fn == nullptr) return static_cast<CUresult>(::cudyn::DefaultDriver().missing_result()); \
    return reinterpret_cast<CUresult(CUDAAPI*) params>(fn) args;                            \
  }                                                                                         \
  extern "C" CUDYN_STUB_API CUresult CUDAAPI symbol params {                               \
    void* fn = ::cudyn::g_default_slots[index].load(std::memory_order_acquire);            \
    if (__builtin_expect(fn == nullptr, 0)) return cudyn_bind_##symbol args;                \
    return reinterpret_cast<CUresult(CUDAAPI*) params>(fn) args;                            \
  }

// Defined by hand in stubs/shim.cc.
#define CUDYN_SHIM_OWN(index, symbol, params, args)

#endif  // CUDYN_STUBS_TRAMPOLINE_H_
