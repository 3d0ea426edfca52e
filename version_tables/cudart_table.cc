#include "version_tables/cudart_table.h"

namespace cudyn {
namespace {

// Rules arrive one line per (entry, family), families in ascending order, so each entry's four
// lines expand into its rules[] in order.
#define CUDYN_CUDART_NO_ADAPTER CudartAdapter::kNone
#define CUDYN_CUDART_ADAPTER_ID(name) CudartAdapter::k##name

}  // namespace

const CudartEntryInfo kCudartEntries[kCudartEntryCount] = {
#define CUDYN_CUDART_ENTRY(index, ret, symbol, params, args) {#symbol},
#include "version_tables/generated_cudart/cudart_entries.inc"
#undef CUDYN_CUDART_ENTRY
};

namespace {

struct RuleRow {
  int index;
  int family;
  CudartRule rule;
};
#define CUDYN_CUDART_RULE(index, family, candidates, adapter, reason, needs_driver) \
  {index, family, {candidates, adapter, reason, needs_driver}},
constexpr RuleRow kRuleRows[] = {
#include "version_tables/generated_cudart/cudart_rules.inc"
};
#undef CUDYN_CUDART_RULE

constexpr CudartRuleTable MakeRuleTable() {
  CudartRuleTable t{};
  for (const RuleRow& r : kRuleRows) t.rules[r.index][CudartFamilySlot(r.family)] = r.rule;
  return t;
}

}  // namespace

// Built at compile time from the rule rows: no constructor runs.
constexpr CudartRuleTable kCudartRuleTable = MakeRuleTable();

const CudartMarker kCudartMarkers[] = {
#define CUDYN_CUDART_MARKER(symbol, version) {symbol, version},
#include "version_tables/generated_cudart/cudart_markers.inc"
#undef CUDYN_CUDART_MARKER
    {nullptr, 0},
};
const int kCudartMarkerCount = sizeof(kCudartMarkers) / sizeof(kCudartMarkers[0]) - 1;

int FindCudartEntry(std::string_view symbol) {
  int lo = 0, hi = kCudartEntryCount;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (std::string_view(kCudartEntries[mid].symbol) < symbol) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < kCudartEntryCount && kCudartEntries[lo].symbol == symbol ? lo : -1;
}

const char* CudartAdapterName(CudartAdapter adapter) {
  switch (adapter) {
    case CudartAdapter::kNone:
      return "none";
#define CUDYN_CUDART_ADAPTER(name, index, symbol) \
  case CudartAdapter::k##name:                    \
    return #name;
#include "version_tables/generated_cudart/cudart_adapters.inc"
#undef CUDYN_CUDART_ADAPTER
  }
  return "unknown";
}

}  // namespace cudyn
