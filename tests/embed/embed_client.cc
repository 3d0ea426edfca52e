// A stand-in for a language binding (a Python or Rust extension) that embeds cudyn statically
// (//stubs:cudyn_cuda_embed) and calls the driver API by its public names, compiled against the
// CUDA 13.0 headers (cuMemAdvise is cuMemAdvise_v2). Built twice, as libembed_a.so and
// libembed_b.so; each exports only its EMBED_NAME-prefixed functions below.
#include <cuda.h>

#include "loader/cudyn_c.h"

#define EMBED_CAT2(a, b) a##_##b
#define EMBED_CAT(a, b) EMBED_CAT2(a, b)
#define EMBED_FN(name) extern "C" __attribute__((visibility("default"))) int EMBED_CAT(EMBED_NAME, name)

// What cuDriverGetVersion reports through this copy of cudyn (the effective version).
EMBED_FN(driver_version)(void) {
  int version = 0;
  return cuDriverGetVersion(&version) == CUDA_SUCCESS ? version : -1;
}

EMBED_FN(init)(void) { return cuInit(0); }

// cuMemAdvise with a host location: served by cuMemAdvise_v2, or adapted to cuMemAdvise(CPU).
// Headers before 12.2 have neither CU_MEM_LOCATION_TYPE_HOST nor the CUmemLocation form
// (the CUDA 11.8 headers build of CI): there it passes CU_DEVICE_CPU to the old form.
EMBED_FN(mem_advise_host)(void) {
#if CUDA_VERSION >= 12020
  CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
  return cuMemAdvise(0x2000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host);
#else
  return cuMemAdvise(0x2000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU);
#endif
}

// This copy's binding status of `symbol` as a small integer: 0 unbound, 1 native, 2 adapter,
// 3 missing, -1 unknown symbol.
EMBED_FN(entry_status)(const char* symbol) {
  int index = cudynFindEntry(symbol);
  if (index < 0) return -1;
  const char* status = cudynEntryStatus(index);
  static const char* const kNames[] = {"unbound", "native", "adapter", "missing"};
  for (int i = 0; i < 4; ++i) {
    const char *a = status, *b = kNames[i];
    while (*a != '\0' && *a == *b) ++a, ++b;
    if (*a == *b) return i;
  }
  return -1;
}
