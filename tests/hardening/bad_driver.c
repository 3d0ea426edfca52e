/* A deliberately bad libcuda.so.1 for the hardening tests. One source, many libraries: the
 * CUDYN_BAD_* macros (set per cc_binary in BUILD) pick the defect.
 *
 *   CUDYN_BAD_NO_VERSION        no cuDriverGetVersion at all
 *   CUDYN_BAD_VERSION_RC        what cuDriverGetVersion returns (default 0)
 *   CUDYN_BAD_VERSION_VALUE     the version it writes (default 12020)
 *   CUDYN_BAD_GPA               how cuGetProcAddress(_v2) answers a symbol it has:
 *                                 0 correctly, 1 success + NULL, 2 garbage status (v2: success,
 *                                 a pointer and symbolStatus 0x7eadbeef; v1: CUresult 0x7eadbeef
 *                                 and a pointer), 3 success + a pointer to writable data,
 *                                 4 success + an unmapped address, 5 success + another function
 *   CUDYN_BAD_HALF              export every other symbol of the 535 driver (exports_half.inc)
 *
 * Every other cu* function (the list comes from the version tables, see gen_driver_exports.py)
 * returns kMarker, so a test can tell it ran; the "other function" of mode 5 returns kDecoy. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

#ifndef CUDYN_BAD_VERSION_RC
#define CUDYN_BAD_VERSION_RC 0
#endif
#ifndef CUDYN_BAD_VERSION_VALUE
#define CUDYN_BAD_VERSION_VALUE 12020
#endif
#ifndef CUDYN_BAD_GPA
#define CUDYN_BAD_GPA 0
#endif

enum { kMarker = 0, kDecoy = 999 };

#define CUDYN_BAD_EXPORT(symbol, base, abi, per_thread, gpa) \
  EXPORT int symbol(void) { return kMarker; }
#ifdef CUDYN_BAD_HALF
#include "tests/hardening/exports_half.inc"
#else
#include "tests/hardening/exports_full.inc"
#endif
#undef CUDYN_BAD_EXPORT

struct Export {
  const char* symbol;
  const char* base;
  int abi_version;
  int per_thread;
  int gpa;
  void* fn;
};

static const struct Export kExports[] = {
#define CUDYN_BAD_EXPORT(symbol, base, abi, per_thread, gpa) \
  {#symbol, base, abi, per_thread, gpa, (void*)&symbol},
#ifdef CUDYN_BAD_HALF
#include "tests/hardening/exports_half.inc"
#else
#include "tests/hardening/exports_full.inc"
#endif
#undef CUDYN_BAD_EXPORT
};

/* Not code: mode 3 hands out its address. Writable, so it is never in an executable segment. */
static volatile unsigned char kNotCode[256] = {1};

static int Decoy(void) { return kDecoy; }

EXPORT int cudynBadDriverDecoy(void) { return Decoy(); }

#ifndef CUDYN_BAD_NO_VERSION
EXPORT int cuDriverGetVersion(int* version) {
  if (version == NULL) return 1;
  *version = CUDYN_BAD_VERSION_VALUE;
  return CUDYN_BAD_VERSION_RC;
}
#endif

/* The correct answer: the newest variant of `name` at most `version`, per-thread when asked. */
static void* Find(const char* name, int version, unsigned long long flags) {
  const struct Export* best = NULL;
  int want_pt = (flags & 2) != 0;
  for (size_t i = 0; i < sizeof(kExports) / sizeof(kExports[0]); ++i) {
    const struct Export* e = &kExports[i];
    if (!e->gpa || strcmp(e->base, name) != 0 || e->abi_version > version) continue;
    if (e->per_thread != want_pt) continue;
    if (best == NULL || best->abi_version < e->abi_version) best = e;
  }
  return best != NULL ? best->fn : NULL;
}

static int Answer(const char* name, void** pfn, int version, unsigned long long flags,
                  int* status) {
  if (name == NULL || pfn == NULL) return 1;
  void* fn = Find(name, version, flags);
  if (status != NULL) *status = fn != NULL ? 0 : 1;
  *pfn = NULL;
  if (fn == NULL) return status != NULL ? 0 : 500;
  switch (CUDYN_BAD_GPA) {
    case 1: *pfn = NULL; return 0;
    case 2:
      *pfn = (void*)&Decoy;
      if (status != NULL) {
        *status = 0x7eadbeef;
        return 0;
      }
      return 0x7eadbeef;
    case 3: *pfn = (void*)kNotCode; return 0;
    case 4: *pfn = (void*)(uintptr_t)0x10; return 0;
    case 5: *pfn = (void*)&Decoy; return 0;
    default: *pfn = fn; return 0;
  }
}

EXPORT int cuGetProcAddress(const char* name, void** pfn, int version, unsigned long long flags) {
  return Answer(name, pfn, version, flags, NULL);
}

EXPORT int cuGetProcAddress_v2(const char* name, void** pfn, int version,
                               unsigned long long flags, int* status) {
  int ignored;
  return Answer(name, pfn, version, flags, status != NULL ? status : &ignored);
}
