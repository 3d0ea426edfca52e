// Driver-API entries picked from the generated table (version_tables/cuda_api_table.tsv, through
// version_tables/api_table.h) by the property a test needs of them, instead of a symbol name typed
// by hand: the test follows the table when it changes. Each lookup answers the table's first
// matching entry (in symbol order), or -1 when the table has none (a test should ASSERT_GE 0).
#ifndef CUDYN_TESTS_UTIL_DRIVER_ENTRIES_H_
#define CUDYN_TESTS_UTIL_DRIVER_ENTRIES_H_

#include "version_tables/api_table.h"

namespace cudyn {
namespace testing {

// The first entry for which pred(index) holds, or -1.
template <class Pred>
int FirstEntryWhere(Pred pred) {
  for (int i = 0; i < kEntryCount; ++i) {
    if (pred(i)) return i;
  }
  return -1;
}

// How many entries (ABI variants) share the base of entry `index`, itself included.
inline int VariantCount(int index) {
  int n = 0;
  for (int i = LowerBoundEntry(EntryBase(index)); i < kEntryCount && EntryBase(i) == EntryBase(index);
       ++i) {
    ++n;
  }
  return n;
}

// The CUDA version of real driver `major` (cuDriverGetVersion), or 0 when it is not one of
// kRealDrivers; RealDriverCudaBefore: that of the real driver just older, or 0 for the oldest.
inline int RealDriverCuda(int major) {
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (kRealDrivers[k].major == major) return kRealDrivers[k].cuda_version;
  }
  return 0;
}
inline int RealDriverCudaBefore(int major) {
  int before = 0;
  for (int k = 0; k < kRealDriverCount; ++k) {
    const RealDriverInfo& d = kRealDrivers[k];
    if (d.major < major && d.cuda_version > before) before = d.cuda_version;
  }
  return before;
}

inline bool OnEveryRealDriver(int index) {
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (!RealDriverExports(kRealDrivers[k].major, index)) return false;
  }
  return true;
}

// The only variant of its base, legacy stream, exported by every real driver and reachable through
// cuGetProcAddress: bound natively, under its own name, on every driver by every strategy.
inline int EntryNativeEverywhere() {
  return FirstEntryWhere([](int i) {
    const EntryInfo& e = kEntries[i];
    return e.stream == StreamClass::kLegacy && e.gpa_reachable && e.fallback < 0 &&
           e.adapter == AdapterKind::kNone && VariantCount(i) == 1 && OnEveryRealDriver(i);
  });
}

// A versioned legacy variant that real driver `major` is the first to export, of an ABI newer
// than the real driver before it and no newer than `major`'s CUDA version, with a custom adapter
// over an older variant of the same base that every real driver exports (itself not adapted):
// native on `major` (under its own name), served by its adapter over that fallback on older
// drivers and under a clamp below its ABI version.
inline int EntryNewWithDriver(int major) {
  const int cuda = RealDriverCuda(major), before = RealDriverCudaBefore(major);
  return FirstEntryWhere([=](int i) {
    const EntryInfo& e = kEntries[i];
    return e.stream == StreamClass::kLegacy && e.gpa_reachable && e.adapter == AdapterKind::kCustom &&
           EntrySymbol(i) != EntryBase(i) && e.abi_version > before && e.abi_version <= cuda &&
           e.first_driver_cuda == cuda && RealDriverExports(major, i) && e.fallback >= 0 &&
           EntryBase(e.fallback) == EntryBase(i) && kEntries[e.fallback].fallback < 0 &&
           kEntries[e.fallback].gpa_reachable && OnEveryRealDriver(e.fallback);
  });
}

// A legacy entry real driver `major` does not export, with an adapter (custom or same signature)
// over a fallback that `major` exports and reaches through cuGetProcAddress at its CUDA version:
// served there by the adapter, which calls the fallback's symbol. (cuCtxCreate_v4 over
// cuCtxCreate_v3 for 535, as the table stands.)
inline int EntryAdaptedOn(int major) {
  const int cuda = RealDriverCuda(major);
  return FirstEntryWhere([=](int i) {
    const EntryInfo& e = kEntries[i];
    return e.stream == StreamClass::kLegacy && e.abi_version > cuda &&
           (e.adapter == AdapterKind::kCustom || e.adapter == AdapterKind::kSameSignature) &&
           !RealDriverExports(major, i) && e.fallback >= 0 && RealDriverExports(major, e.fallback) &&
           kEntries[e.fallback].gpa_reachable && kEntries[e.fallback].abi_version <= cuda;
  });
}

// A legacy entry real driver `major` does not export and nothing adapts: missing there.
inline int EntryMissingOn(int major) {
  return FirstEntryWhere([=](int i) {
    const EntryInfo& e = kEntries[i];
    return e.stream == StreamClass::kLegacy && e.adapter == AdapterKind::kNone &&
           !RealDriverExports(major, i);
  });
}

}  // namespace testing
}  // namespace cudyn

#endif  // CUDYN_TESTS_UTIL_DRIVER_ENTRIES_H_
