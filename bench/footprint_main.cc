// Prints the dispatch footprint (see footprint.h) as JSON for bench/ratios.py, and as a table on
// stderr. Exit status 1 when the total exceeds the 64 KiB budget or a counted table was not found.
#include <cstdio>
#include <vector>

#include "bench/footprint.h"
#include "loader/cudyn.h"

namespace {

// One JSON array of items; also the stderr table.
bool PrintItems(const char* key, const std::vector<cudyn_bench::FootprintItem>& items,
                const char* missing) {
  bool all_found = true;
  std::printf("  \"%s\": [\n", key);
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    all_found = all_found && item.found;
    std::printf(
        "    {\"name\": \"%s\", \"what\": \"%s\", \"bytes\": %zu, \"per_driver\": %s, "
        "\"found\": %s}%s\n",
        item.name.c_str(), item.what.c_str(), item.bytes, item.per_driver ? "true" : "false",
        item.found ? "true" : "false", i + 1 < items.size() ? "," : "");
    std::fprintf(stderr, "%-16s %7zu B  %s%s\n", item.name.c_str(), item.bytes, item.what.c_str(),
                 item.found ? "" : missing);
  }
  std::printf("  ],\n");
  return all_found;
}

}  // namespace

int main() {
  std::vector<cudyn_bench::FootprintItem> items = cudyn_bench::DispatchFootprint();
  size_t total = cudyn_bench::TotalBytes(items);
  std::printf("{\n  \"entries\": %d,\n", cudyn::kEntryCount);
  bool all_found = PrintItems("items", items, "  (NOT FOUND)");
  std::fprintf(stderr, "%-16s %7zu B  (budget %zu B)\nnot counted:\n", "total", total,
               cudyn_bench::kFootprintBudgetBytes);
  PrintItems("not_counted", cudyn_bench::NotCounted(), "  (not in this executable)");
  std::printf("  \"total_bytes\": %zu,\n  \"budget_bytes\": %zu\n}\n", total,
              cudyn_bench::kFootprintBudgetBytes);
  return all_found && total <= cudyn_bench::kFootprintBudgetBytes ? 0 : 1;
}
