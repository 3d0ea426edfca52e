// The drop-in of a library on the toolkit template (loader/toolkit.h), for every such library: its
// generated <lib>_trampolines.cc (stubs/gen_cudart_trampolines.py --library) includes the
// library's header, its loader header and this, then says CUDYN_TOOLKIT_DROPIN once and
// CUDYN_TOOLKIT_TRAMPOLINE per entry.
//
// A trampoline is a typed function with the newest header's name and prototype whose body is a
// tail call through the entry's slot: exactly `jmp *cudyn_<lib>_stub_slots+8*index(%rip)`. Every
// slot starts at the entry's binding thunk: the first call opens the library through its default
// instance (nothing is opened before it) and binds the entry; a missing entry keeps its thunk and
// answers the library's "not supported" status (its "no library" status when nothing the driver
// runs was found), logging once. Entries returning text answer cudyn's own text, void ones
// nothing, others a zero value.
#ifndef CUDYN_STUBS_TOOLKIT_TRAMPOLINE_H_
#define CUDYN_STUBS_TOOLKIT_TRAMPOLINE_H_

#include <dlfcn.h>

#include <type_traits>

#include "loader/core.h"
#include "loader/toolkit.h"

// Exported from the drop-in; its embedding twin hides it (cudyn_library.bzl).
#define CUDYN_TOOLKIT_API __attribute__((visibility("default")))

namespace cudyn {
// What a call of a missing entry of `library` returns: its not-supported status, or its
// no-library status when none was found.
inline int ToolkitStubMissingStatus(Toolkit& library) { return library.missing_result(); }
// The function `name` of the release `library` chose (dlsym on its handle, never cudyn's own),
// or nullptr.
inline void* ToolkitForwardFunction(Toolkit& library, const char* name) {
  if (!library.ok() || library.handle() == nullptr) return nullptr;
  void* fn = dlsym(library.handle(), name);
  return fn != nullptr && !internal::IsCudynFunction(fn) ? fn : nullptr;
}
// Binds `index` of `library` into `slots`; nullptr when missing (the slot keeps the thunk).
inline void* BindToolkitStubSlot(Toolkit& library, void** slots, int index) {
  void* fn = library.ResolveSlow(index);
  if (fn != nullptr) __atomic_store_n(&slots[index], fn, __ATOMIC_RELEASE);
  return fn;
}
}  // namespace cudyn

// The library's part, once per drop-in: its slot array, its missing answers and the marker by
// which the loader recognises (and refuses) the drop-in installed under the library's name.
#define CUDYN_TOOLKIT_DROPIN(lib, Name, status_type)                                            \
  extern "C" __attribute__((visibility("hidden"))) void* cudyn_##lib##_stub_slots[];            \
  template <typename Ret, typename... Args>                                                    \
  static inline Ret CudynMissing##Name(Args... args) {                                          \
    (static_cast<void>(args), ...);                                                             \
    if constexpr (std::is_void_v<Ret>) {                                                        \
      return;                                                                                   \
    } else if constexpr (std::is_same_v<Ret, status_type>) {                                    \
      return static_cast<status_type>(                                                          \
          ::cudyn::ToolkitStubMissingStatus(::cudyn::Default##Name()));                         \
    } else if constexpr (std::is_same_v<Ret, const char*>) {                                    \
      /* An error-string function: the library's own text when the traits have it. */          \
      if constexpr (sizeof...(Args) == 1 && (std::is_same_v<Args, status_type> && ...)) {        \
        if (::cudyn::k##Name##Traits.status_text != nullptr) {                                  \
          return ::cudyn::k##Name##Traits.status_text(static_cast<int>(args)...);               \
        }                                                                                       \
      }                                                                                         \
      return ::cudyn::Default##Name().ok()                                                      \
                 ? "cudyn: this library release does not provide the function"                 \
                 : "cudyn: no release of this library that the driver runs was found";          \
    } else {                                                                                    \
      return Ret{};                                                                             \
    }                                                                                           \
  }                                                                                             \
  extern "C" CUDYN_TOOLKIT_API int cudyn##Name##EntryCount(void) {                              \
    return ::cudyn::k##Name##EntryCount;                                                        \
  }                                                                                             \
  /* Introspection, as cudynEntryStatus is for the driver (loader/cudyn_c.h): how an entry is */ \
  /* bound on the release taken ("native", "adapter", "missing"; "unknown": not an entry), */   \
  /* that release's file ("" when none) and its release number. */                              \
  extern "C" CUDYN_TOOLKIT_API const char* cudyn##Name##EntryStatus(const char* symbol) {       \
    return ::cudyn::ToolkitEntryStatusText(::cudyn::Default##Name(), symbol);                   \
  }                                                                                             \
  extern "C" CUDYN_TOOLKIT_API const char* cudyn##Name##LibraryPath(void) {                     \
    return ::cudyn::Default##Name().path().c_str();                                             \
  }                                                                                             \
  extern "C" CUDYN_TOOLKIT_API int cudyn##Name##Release(void) {                                 \
    return ::cudyn::Default##Name().release();                                                  \
  }                                                                                             \
  /* What tells any of them from a real library (loader/toolkit.h kToolkitDropinMarker). */     \
  extern "C" CUDYN_TOOLKIT_API int cudynToolkitDropin(void) { return 1; }

#define CUDYN_TOOLKIT_BIND_THUNK(lib, Name, index, ret, symbol, params, args)            \
  static __attribute__((noinline, cold, used)) ret cudyn_##lib##_bind_##symbol params {  \
    void* cudyn_fn_ = ::cudyn::BindToolkitStubSlot(::cudyn::Default##Name(),             \
                                                   cudyn_##lib##_stub_slots, index);     \
    if (cudyn_fn_ == nullptr) return CudynMissing##Name<ret> args;                       \
    return reinterpret_cast<ret(*) params>(cudyn_fn_) args;                             \
  }

#if defined(__x86_64__) && defined(__ELF__)
#define CUDYN_TOOLKIT_TRAMPOLINE(lib, Name, index, ret, symbol, params, args)  \
  CUDYN_TOOLKIT_BIND_THUNK(lib, Name, index, ret, symbol, params, args)        \
  extern "C" CUDYN_TOOLKIT_API ret symbol params;                              \
  __asm__(".text\n"                                                            \
          ".globl " #symbol "\n"                                               \
          ".type " #symbol ", @function\n"                                     \
          ".p2align 3\n" #symbol ":\n"                                         \
          "  jmp *(cudyn_" #lib "_stub_slots + 8 * " #index ")(%rip)\n"        \
          ".size " #symbol ", . - " #symbol "\n");
#else
#define CUDYN_TOOLKIT_TRAMPOLINE(lib, Name, index, ret, symbol, params, args)                    \
  CUDYN_TOOLKIT_BIND_THUNK(lib, Name, index, ret, symbol, params, args)                          \
  extern "C" CUDYN_TOOLKIT_API __attribute__((no_sanitize("address", "thread", "undefined"))) ret \
  symbol params {                                                                                \
    return reinterpret_cast<ret(*) params>(                                                      \
        __atomic_load_n(&::cudyn_##lib##_stub_slots[index], __ATOMIC_RELAXED)) args;             \
  }
#endif

// The names a real release exports beyond the header (the internal functions other libraries
// import: libcublas.so.13 calls libcublasLt.so.13's cublasLtCtxInit), forwarded untyped: each is
// one jmp through its slot, which starts at a thunk that keeps the argument registers, binds the
// name in the chosen release (dlsym) and jumps there (stubs/gen_cudart_trampolines.py writes them;
// x86-64). A name the release lacks answers the library's missing status.
// (After the generated kForwardNames<Name>: the names, nullptr-ended.)
#define CUDYN_TOOLKIT_FORWARDS(lib, Name, count)                                                \
  extern "C" __attribute__((visibility("hidden"))) int cudyn_##lib##_forward_missing() {        \
    return ::cudyn::ToolkitStubMissingStatus(::cudyn::Default##Name());                         \
  }                                                                                             \
  extern "C" __attribute__((visibility("hidden"))) void* cudyn_##lib##_forward_bind(int forward) { \
    void* fn = ::cudyn::ToolkitForwardFunction(::cudyn::Default##Name(),                        \
                                               kForwardNames##Name[forward]);                   \
    if (fn == nullptr) return reinterpret_cast<void*>(&cudyn_##lib##_forward_missing);          \
    __atomic_store_n(&cudyn_##lib##_stub_slots[::cudyn::k##Name##EntryCount + forward], fn,     \
                     __ATOMIC_RELEASE);                                                         \
    return fn;                                                                                  \
  }

#define CUDYN_TOOLKIT_SLOT_THUNK(lib, index, symbol) \
  reinterpret_cast<void*>(&cudyn_##lib##_bind_##symbol),

#endif  // CUDYN_STUBS_TOOLKIT_TRAMPOLINE_H_
