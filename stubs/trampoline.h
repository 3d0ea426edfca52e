// The drop-in stub for one driver entry: a typed function with the variant's exact name and
// prototype whose body is a tail call through the entry's stub slot.
//
// Hot path (the physical limit of a dispatch table): every stub slot starts out pointing at the
// entry's own binding thunk, so a trampoline never tests anything; compiled, it is exactly
//     jmp *cudyn_stub_slots+8*index(%rip)
// (stubs/BUILD compiles this code optimised in every compilation mode; stubs/trampoline_asm_test
// checks the disassembly). The first call lands in the thunk, which binds the entry through the
// default driver (thread-safe), stores the driver's function into the slot and calls it. An
// entry with no native variant and no adapter keeps its thunk and returns 302 (303/34 without a
// driver); that call logs once.
#ifndef CUDYN_STUBS_TRAMPOLINE_H_
#define CUDYN_STUBS_TRAMPOLINE_H_

#include "loader/cudyn.h"
#include "version_tables/cuda_driver_api.h"

// Exported from libcudyn_cuda.so and visible in the static drop-in; the embedding twin hides it
// (cudyn_library.bzl), so a binding can embed cudyn next to the real libcuda and other copies.
#define CUDYN_STUB_API __attribute__((visibility("default")))

// One slot per table entry: the binding thunk until the entry is bound, then the function to call
// (nullptr for entries the compiling headers lack and for those the shim answers itself). Hidden,
// so a trampoline reaches it PC-relative, with no GOT and no relocation against a symbol; C
// linkage, so the trampolines' assembly can name it.
extern "C" __attribute__((visibility("hidden"))) void* cudyn_stub_slots[::cudyn::kEntryCount];

namespace cudyn {

// The thunks' slow path: binds `index` through DefaultDriver(); on success stores the function
// into cudyn_stub_slots[index] and returns it, else returns nullptr (the slot keeps the thunk).
void* BindStubSlot(int index) __attribute__((visibility("hidden")));
// What a call of a missing entry returns: 302, or the driver's 303/34 when none is open.
int StubMissingResult() __attribute__((visibility("hidden")));

}  // namespace cudyn

#define CUDYN_BIND_THUNK(index, symbol, params, args)                                        \
  static __attribute__((noinline, cold, used)) CUresult CUDAAPI cudyn_bind_##symbol params { \
    void* fn = ::cudyn::BindStubSlot(index);                                                 \
    if (fn == nullptr) return static_cast<CUresult>(::cudyn::StubMissingResult());          \
    return reinterpret_cast<CUresult(CUDAAPI*) params>(fn) args;                             \
  }

#if defined(__x86_64__) && defined(__ELF__)
// x86-64: the body is written as the one instruction it must be. A compiler would add
// instructions for some prototypes (it re-extends unsigned char/short arguments before a tail
// call), and none in any mode or sanitizer build here. The C declaration keeps it typed: it must
// agree with cuda.h's declaration of the same symbol, or the build fails.
#define CUDYN_TRAMPOLINE(index, symbol, params, args)                      \
  CUDYN_BIND_THUNK(index, symbol, params, args)                            \
  extern "C" CUDYN_STUB_API CUresult CUDAAPI symbol params;                \
  __asm__(".text\n"                                                        \
          ".globl " #symbol "\n"                                           \
          ".type " #symbol ", @function\n"                                 \
          ".p2align 3\n" #symbol ":\n"                                     \
          "  jmp *(cudyn_stub_slots + 8 * " #index ")(%rip)\n"              \
          ".size " #symbol ", . - " #symbol "\n");
#else
// Elsewhere: a typed C++ tail call, which optimised compilers turn into a load and a jump.
#define CUDYN_TRAMPOLINE(index, symbol, params, args)                                        \
  CUDYN_BIND_THUNK(index, symbol, params, args)                                              \
  extern "C" CUDYN_STUB_API __attribute__((no_sanitize("address", "thread", "undefined")))  \
  CUresult CUDAAPI symbol params {                                                           \
    return reinterpret_cast<CUresult(CUDAAPI*) params>(                                      \
        __atomic_load_n(&::cudyn_stub_slots[index], __ATOMIC_RELAXED)) args;                 \
  }
#endif

// Defined by hand in stubs/shim.cc; its slot stays empty.
#define CUDYN_SHIM_OWN(index, symbol, params, args)

// The slot initialisers (the last part of the generated trampolines.cc).
#define CUDYN_SLOT_THUNK(index, symbol) reinterpret_cast<void*>(&cudyn_bind_##symbol),
#define CUDYN_SLOT_EMPTY(index) nullptr,

#endif  // CUDYN_STUBS_TRAMPOLINE_H_
