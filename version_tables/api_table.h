// cudyn API table: the generated facts about every driver-API ABI variant, as C++ data.
//
// One entry per symbol exported by any supported NVIDIA driver (see cuda_api_table.tsv). Entry
// indices are stable within one build and are the slot indices used by loader/ and stubs/.
// Everything here is constant-initialised: no constructors run, nothing allocates, and it is
// usable before main and without a driver.
#ifndef CUDYN_VERSION_TABLES_API_TABLE_H_
#define CUDYN_VERSION_TABLES_API_TABLE_H_

#include <cstdint>
#include <string_view>

#include "version_tables/generated/cudyn_entry_count.h"

namespace cudyn {

// Which default-stream semantics a variant implements.
enum class StreamClass : uint8_t { kLegacy, kPtds, kPtsz };

// How an entry is served on a driver that lacks it natively.
enum class AdapterKind : uint8_t {
  kNone,               // no adapter: missing on such a driver
  kSameSignature,      // the older variant (fallback) has the same signature: bound directly
  kCustom,             // a hand-written adapter translates the arguments to the fallback
  kNoFaithfulAdapter,  // listed with a reason why no adapter can be faithful
};

struct EntryInfo {
  uint16_t name_offset;     // into kEntryNames
  uint8_t base_length;      // the base name is a prefix of the symbol
  StreamClass stream;
  AdapterKind adapter;
  bool gpa_reachable;       // cuGetProcAddress can return it (else exact-name dlsym only)
  uint8_t real_driver_mask; // bit k: exported by kRealDrivers[k]
  uint16_t abi_version;     // CUDA version the variant appeared in (PFN_<base>_v<N>)
  uint16_t first_driver_cuda;  // CUDA version of the oldest real driver exporting it
  int16_t fallback;         // entry index of the older variant adapters call, or -1
};

inline constexpr int kEntryCount = CUDYN_ENTRY_COUNT;
inline constexpr int kBaseCount = CUDYN_BASE_COUNT;

extern const char kEntryNames[];
extern const EntryInfo kEntries[kEntryCount];

// Compile-time entry indices: kEntry_cuMemAdvise_v2 etc.
enum EntryIndex : int {
#define CUDYN_ENTRY(index, symbol, ...) kEntry_##symbol = index,
#include "version_tables/generated/cudyn_entries.inc"
#undef CUDYN_ENTRY
};

struct RealDriverInfo {
  int major;                   // 418, 450, ...
  const char* driver_version;  // "535.261.03"
  int cuda_version;            // its cuDriverGetVersion
  int exported_count;          // cu* functions it exports
};
extern const RealDriverInfo kRealDrivers[];
extern const int kRealDriverCount;

inline std::string_view EntrySymbol(int index) {
  return std::string_view(kEntryNames + kEntries[index].name_offset);
}
inline std::string_view EntryBase(int index) {
  return EntrySymbol(index).substr(0, kEntries[index].base_length);
}
// True when real driver `major` (one of kRealDrivers) exports entry `index`.
bool RealDriverExports(int major, int index);
// Entry index of an exact exported symbol name, or -1. O(log n), no allocation.
int FindEntry(std::string_view symbol);
// Index of the first entry whose symbol is not less than `symbol` (kEntryCount if none): the
// variants of a base start there, since entries are sorted by symbol.
int LowerBoundEntry(std::string_view symbol);
// "legacy", "ptds", "ptsz".
const char* StreamClassName(StreamClass stream);
// "none", "same_signature", "custom", "no_faithful_adapter".
const char* AdapterKindName(AdapterKind kind);

}  // namespace cudyn

#endif  // CUDYN_VERSION_TABLES_API_TABLE_H_
