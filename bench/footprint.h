// The memory cudyn's dispatch data takes in a process that links the drop-in (//stubs:cudyn_cuda):
// the generated tables, the trampoline and adapter address tables, the slots, and the per-driver
// state. Sizes are the sizes of the actual objects: sizeof where the object is visible from here,
// otherwise the st_size of its symbol in this executable's ELF symbol table (file-local tables
// such as the shim's kTrampolines). Requires an unstripped executable (Bazel's default).
#ifndef CUDYN_BENCH_FOOTPRINT_H_
#define CUDYN_BENCH_FOOTPRINT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace cudyn_bench {

struct FootprintItem {
  std::string name;    // e.g. "kEntries"
  std::string what;    // one line: what it is
  size_t bytes = 0;
  bool per_driver = false;  // allocated per Driver object (the default driver has one)
  bool found = true;        // false when the symbol was not found (bytes is then 0)
};

// Every item, static tables first. The "tables + slots" total of one process using the drop-in
// is the sum of all items (one Driver object: the default one).
std::vector<FootprintItem> DispatchFootprint();
size_t TotalBytes(const std::vector<FootprintItem>& items);

// The budget the issue sets for tables + slots.
inline constexpr size_t kFootprintBudgetBytes = 64 * 1024;

}  // namespace cudyn_bench

#endif  // CUDYN_BENCH_FOOTPRINT_H_
