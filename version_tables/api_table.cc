#include "version_tables/api_table.h"

#include <algorithm>

namespace cudyn {

const char kEntryNames[] =
#include "version_tables/generated/cudyn_names.inc"
    ;

#define CUDYN_ENTRY(index, symbol, base, stream, abi, first, gpa, adapter, fallback, offset, mask) \
  {offset,                                                                                         \
   static_cast<uint8_t>(sizeof(#base) - 1),                                                        \
   StreamClass::stream,                                                                            \
   AdapterKind::adapter,                                                                           \
   gpa != 0,                                                                                       \
   mask,                                                                                           \
   abi,                                                                                            \
   first,                                                                                          \
   fallback},
const EntryInfo kEntries[kEntryCount] = {
#include "version_tables/generated/cudyn_entries.inc"
};
#undef CUDYN_ENTRY

#define CUDYN_REAL_DRIVER(major, version, cuda, count) {major, version, cuda, count},
const RealDriverInfo kRealDrivers[] = {
#include "version_tables/generated/cudyn_real_drivers.inc"
};
#undef CUDYN_REAL_DRIVER
const int kRealDriverCount = sizeof(kRealDrivers) / sizeof(kRealDrivers[0]);

bool RealDriverExports(int major, int index) {
  if (index < 0 || index >= kEntryCount) return false;
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (kRealDrivers[k].major == major) return (kEntries[index].real_driver_mask >> k) & 1;
  }
  return false;
}

int LowerBoundEntry(std::string_view symbol) {
  // The generator emits entries sorted by symbol (byte order), so binary search works.
  int lo = 0, hi = kEntryCount;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (EntrySymbol(mid) < symbol) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

int FindEntry(std::string_view symbol) {
  int lo = LowerBoundEntry(symbol);
  return (lo < kEntryCount && EntrySymbol(lo) == symbol) ? lo : -1;
}

const char* StreamClassName(StreamClass stream) {
  switch (stream) {
    case StreamClass::kLegacy: return "legacy";
    case StreamClass::kPtds: return "ptds";
    case StreamClass::kPtsz: return "ptsz";
  }
  return "?";
}

const char* AdapterKindName(AdapterKind kind) {
  switch (kind) {
    case AdapterKind::kNone: return "none";
    case AdapterKind::kSameSignature: return "same_signature";
    case AdapterKind::kCustom: return "custom";
    case AdapterKind::kNoFaithfulAdapter: return "no_faithful_adapter";
  }
  return "?";
}

}  // namespace cudyn
