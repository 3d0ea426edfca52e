// The memory cudyn's dispatch data takes in a process that links the drop-in (//stubs:cudyn_cuda):
// the generated tables, the trampoline and adapter address tables, both slot arrays (the
// trampolines' and the default driver's), and the per-driver state. Each size is the st_size of
// the object's symbol in this executable's ELF symbol table (file-local tables included), or
// sizeof for the Driver object, which has no symbol of its own, and Driver::TableBytes for its
// entry table, allocated when the driver opens. Requires an unstripped executable
// (Bazel's default).
//
// cudyn's other data objects of kAccountedBytes or more are listed too, measured but not counted,
// each with why; //bench:footprint_test proves against the shipped libcudyn_cuda.so that every
// such object of cudyn is in one list or the other.
#ifndef CUDYN_BENCH_FOOTPRINT_H_
#define CUDYN_BENCH_FOOTPRINT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace cudyn_bench {

struct FootprintItem {
  std::string name;    // e.g. "kEntries"
  std::string symbol;  // a part of its ELF symbol name that no other symbol has ("" for sizeof)
  std::string what;    // one line: what it is (for a not-counted item: why it is not counted)
  size_t bytes = 0;
  bool per_driver = false;  // allocated per Driver object (the default driver has one)
  bool found = true;        // false when the symbol was not found (bytes is then 0)
  bool heap = false;        // allocated at run time (no symbol): the Driver's entry table
};

// The counted items, static tables first. The "tables + slots" total of one process using the
// drop-in is their sum (one Driver object: the default one).
std::vector<FootprintItem> DispatchFootprint();
// cudyn's other data objects of kAccountedBytes or more, not counted in the total.
std::vector<FootprintItem> NotCounted();
size_t TotalBytes(const std::vector<FootprintItem>& items);

// The budget the issue sets for tables + slots.
inline constexpr size_t kFootprintBudgetBytes = 64 * 1024;
// Every data object of cudyn this large is counted or listed as not counted.
inline constexpr size_t kAccountedBytes = 256;

}  // namespace cudyn_bench

#endif  // CUDYN_BENCH_FOOTPRINT_H_
