// The driver drop-in's trampolines' slow path (stubs/trampoline.h): a thunk binds its entry through
// the default driver and stores the function into the entry's slot, or answers what a missing
// entry answers.
#include "stubs/trampoline.h"

namespace cudyn {

void* BindStubSlot(int index) {
  void* fn = DefaultDriver().Resolve(index);
  if (fn != nullptr) __atomic_store_n(&cudyn_stub_slots[index], fn, __ATOMIC_RELEASE);
  return fn;
}

int StubMissingResult() { return DefaultDriver().missing_result(); }

}  // namespace cudyn
