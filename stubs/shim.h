// The shim's own cuGetProcAddress logic, separated from the exported entry points so tests can
// drive it with any availability (fake or real driver) and compare it with a real driver's.
#ifndef CUDYN_STUBS_SHIM_H_
#define CUDYN_STUBS_SHIM_H_

#include <string_view>

#include "loader/cudyn.h"

namespace cudyn {

// Whether entry `index` can be served (native or adapter) by the driver behind the shim.
using ShimAvailability = bool (*)(int index);

struct ShimLookup {
  int index = -1;           // the entry cuGetProcAddress returns, or -1
  bool base_known = false;  // some variant of the name is served at some version (symbolStatus
                            // 2 "version not sufficient" rather than 1 "not found")
};

// The entry cuGetProcAddress(symbol, version, flags) returns: among the base's variants that are
// reachable through cuGetProcAddress, available, and not newer than `version`, the newest. With
// flags bit 2 (per-thread default stream) a base that has per-thread variants is served only by
// those, as real drivers do (tests/shim_gpa compares every base/version/flag with 470 and 535).
ShimLookup ShimFindProc(std::string_view symbol, int version, unsigned long long flags,
                        ShimAvailability available);

// The exported trampoline of an entry (nullptr where the compiling headers lack it).
void* ShimTrampoline(int index);

}  // namespace cudyn

#endif  // CUDYN_STUBS_SHIM_H_
