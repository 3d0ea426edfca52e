// The NVRTC drop-in's own part: binding a stub slot through DefaultNvrtc(), the answers of a
// missing entry, and the marker by which the loader recognises (and refuses) this library when it
// is installed or preloaded under NVRTC's name. See stubs/nvrtc_trampoline.h.
#include "stubs/nvrtc_trampoline.h"

namespace cudyn {

void* BindNvrtcStubSlot(int index) {
  void* fn = DefaultNvrtc().Resolve(index);
  if (fn != nullptr) __atomic_store_n(&cudyn_nvrtc_stub_slots[index], fn, __ATOMIC_RELEASE);
  return fn;
}

nvrtcResult NvrtcStubMissingResult() {
  return static_cast<nvrtcResult>(DefaultNvrtc().missing_result());
}

const char* NvrtcStubMissingText() {
  return DefaultNvrtc().ok() ? "cudyn: this NVRTC does not provide the function"
                             : "cudyn: no NVRTC (libnvrtc) whose PTX this driver can load was found";
}

}  // namespace cudyn

static_assert(::cudyn::kNvrtcErrorInvalidInput == NVRTC_ERROR_INVALID_INPUT, "nvrtc.h");
static_assert(::cudyn::kNvrtcErrorInternalError == NVRTC_ERROR_INTERNAL_ERROR, "nvrtc.h");

// The marker (loader/nvrtc.cc kNvrtcIdentity): the number of entries this drop-in serves.
extern "C" CUDYN_NVRTC_API int cudynNvrtcEntryCount(void) { return ::cudyn::kNvrtcEntryCount; }
