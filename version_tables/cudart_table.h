// cudyn runtime-API table: the generated facts about every libcudart entry of the compiling
// headers (CUDA 13.0), as C++ data (see cudart_api_table.tsv, made by generate_runtime.py).
//
// One entry per cuda* function the 13.0 runtime exports and the 13.0 headers declare; indices
// are the slot indices of loader/cudart.h and stubs/. For each entry and runtime family
// (10, 11, 12, 13) a rule: the runtime symbols whose prototype and struct layouts fit the entry's
// (tried in order), the adapter serving it otherwise, and why it is missing when neither fits.
// Constant-initialised: usable before main and without a runtime.
#ifndef CUDYN_VERSION_TABLES_CUDART_TABLE_H_
#define CUDYN_VERSION_TABLES_CUDART_TABLE_H_

#include <cstdint>
#include <string_view>

#include "version_tables/generated_cudart/cudart_entry_count.h"

namespace cudyn {

// Adapters (loader/cudart_adapters.cc): the hand-written ones, one id per row of
// version_tables/inputs/cudart_adapters.tsv, then the generated ZeroTail_<symbol> ones
// (generated_cudart/cudart_zero_tail.inc: an older symbol whose output structs 13.0 only appended
// fields to, called after zero-filling them).
enum class CudartAdapter : uint8_t {
  kNone,
#define CUDYN_CUDART_ADAPTER(name, index, symbol) k##name,
#include "version_tables/generated_cudart/cudart_adapters.inc"
#undef CUDYN_CUDART_ADAPTER
};

inline constexpr int kCudartFamilies[] = {10, 11, 12, 13};
inline constexpr int kCudartFamilyCount = 4;
// 10 -> 0, ..., 13 -> 3; -1 for anything else.
constexpr int CudartFamilySlot(int family) {
  return family >= 10 && family <= 13 ? family - 10 : -1;
}

struct CudartRule {
  const char* candidates;  // NUL-separated runtime symbols, ending with an empty one
  CudartAdapter adapter;
  const char* reason;      // why the family has no native variant ("" when it has)
  // The oldest driver (1000 x family) that runs a runtime family serving the entry natively: a
  // call no path serves answers 35 below it, 801 from it on (loader/cudart.h: missing_result).
  int needs_driver;
};

struct CudartEntryInfo {
  const char* symbol;
};
extern const CudartEntryInfo kCudartEntries[kCudartEntryCount];

struct CudartRuleTable {
  CudartRule rules[kCudartEntryCount][kCudartFamilyCount];
};
extern const CudartRuleTable kCudartRuleTable;
// The rule of entry `index` on runtime family `family` (10..13).
inline const CudartRule& CudartRuleFor(int index, int family) {
  return kCudartRuleTable.rules[index][CudartFamilySlot(family)];
}

// Compile-time entry indices: kCudart_cudaMemAdvise etc.
enum CudartEntryIndex : int {
#define CUDYN_CUDART_ENTRY(index, ret, symbol, params, args) kCudart_##symbol = index,
#include "version_tables/generated_cudart/cudart_entries.inc"
#undef CUDYN_CUDART_ENTRY
};

// A symbol some real runtimes of a family export and older ones do not: its presence proves at
// least `version` (used when cudaRuntimeGetVersion cannot answer).
struct CudartMarker {
  const char* symbol;
  int version;
};
extern const CudartMarker kCudartMarkers[];
extern const int kCudartMarkerCount;

inline std::string_view CudartSymbol(int index) { return kCudartEntries[index].symbol; }
// Entry index of an exact symbol name, or -1 (entries are sorted by symbol).
int FindCudartEntry(std::string_view symbol);
// "MemAdviseLocation", ... ("none" for kNone).
const char* CudartAdapterName(CudartAdapter adapter);

}  // namespace cudyn

#endif  // CUDYN_VERSION_TABLES_CUDART_TABLE_H_
