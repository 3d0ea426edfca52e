// The dispatch tables and slots of a drop-in process fit in 64 KiB (a size assertion; timing
// targets are benchmarks, never tests), and the footprint counts what is really there: its
// measurements (this executable, its own ELF reader) agree with `nm -S` of the shipped
// libcudyn_cuda.so (another link, another reader), and every data object of cudyn of
// kAccountedBytes or more in that library is counted or listed as not counted.
#include "bench/footprint.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "tests/util/runfiles.h"

namespace {

using cudyn_bench::FootprintItem;

// A static Driver object in the shipped library: its symbol size is one Driver.
constexpr char kDriverObject[] = "_ZZN5cudyn8internal15DefaultInstanceINS_6DriverEEERT_vE8unopened";

struct Symbol {
  size_t size = 0;
  char type = '?';
};

// `nm --defined-only -S` of libcudyn_cuda.so (//bench:libcudyn_cuda_nm): name -> size, type.
std::map<std::string, Symbol> ShippedSymbols() {
  std::map<std::string, Symbol> symbols;
  std::ifstream in(cudyn::testing::Runfile("bench/libcudyn_cuda.nm.txt"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string address, size, type, name;
    if (!(fields >> address >> size >> type >> name)) continue;  // no size: not an object
    symbols[name] = {std::stoul(size, nullptr, 16), type[0]};
  }
  return symbols;
}

bool IsData(char type) { return std::string("bBdDrR").find(type) != std::string::npos; }

// cudyn's own objects: namespace cudyn (also function-local statics) or a cudyn_ C name.
bool IsCudyn(const std::string& name) {
  return name.rfind("_ZN5cudyn", 0) == 0 || name.rfind("_ZZN5cudyn", 0) == 0 ||
         name.rfind("cudyn_", 0) == 0;
}

// The one data symbol of the shipped library whose name contains `part`; "" when none or several.
std::string ShippedName(const std::map<std::string, Symbol>& symbols, const std::string& part) {
  std::string found;
  int matches = 0;
  for (const auto& [name, symbol] : symbols) {
    if (IsData(symbol.type) && name.rfind("__odr_asan", 0) != 0 &&  // ASan's one-byte markers
        name.find(part) != std::string::npos) {
      found = name;
      ++matches;
    }
  }
  return matches == 1 ? found : "";
}

class Footprint : public ::testing::Test {
 protected:
  void SetUp() override {
    shipped_ = ShippedSymbols();
    ASSERT_GT(shipped_.size(), 100u) << "bench/libcudyn_cuda.nm.txt missing or empty";
  }
  std::map<std::string, Symbol> shipped_;
};

TEST_F(Footprint, EveryTableIsFound) {
  for (const auto& item : cudyn_bench::DispatchFootprint()) {
    EXPECT_TRUE(item.found) << item.name << " not in the ELF symbol table once (stripped binary?)";
    EXPECT_GT(item.bytes, 0u) << item.name;
  }
}

// What this executable measures is what the shipped library holds, object by object.
TEST_F(Footprint, EachCountedObjectHasItsSizeInTheShippedLibrary) {
  size_t shipped_total = 0, heap_total = 0;
  for (const auto& item : cudyn_bench::DispatchFootprint()) {
    if (item.heap) {  // no symbol: allocated when the driver opens
      heap_total += item.bytes;
      continue;
    }
    std::string name = ShippedName(shipped_, item.symbol.empty() ? kDriverObject : item.symbol);
    ASSERT_FALSE(name.empty()) << item.name << ": no single symbol in libcudyn_cuda.so";
    EXPECT_EQ(item.bytes, shipped_[name].size) << item.name << " (" << name << ")";
    shipped_total += shipped_[name].size;
  }
  EXPECT_EQ(cudyn_bench::TotalBytes(cudyn_bench::DispatchFootprint()), shipped_total + heap_total);
  EXPECT_GT(heap_total, 4 * static_cast<size_t>(cudyn::kEntryCount)) << "status, via, two log flags";
}

// The three per-entry pointer arrays, sized by nm, not by the declarations that make them.
TEST_F(Footprint, SlotsAndTrampolineTableAreOnePointerPerEntry) {
  for (const char* part : {"cudyn_stub_slots", "_ZN5cudyn15g_default_slotsE", "12kTrampolinesE"}) {
    std::string name = ShippedName(shipped_, part);
    ASSERT_FALSE(name.empty()) << part;
    EXPECT_EQ(shipped_[name].size, cudyn::kEntryCount * sizeof(void*)) << name;
  }
}

// Nothing of cudyn's that size is left out silently: a new table or slot array fails here until it
// is counted (or listed, with why, as not counted).
TEST_F(Footprint, EveryLargeCudynObjectIsAccountedFor) {
  std::vector<std::string> parts;
  for (const auto& item : cudyn_bench::DispatchFootprint()) {
    if (!item.symbol.empty()) parts.push_back(item.symbol);
  }
  for (const auto& item : cudyn_bench::NotCounted()) parts.push_back(item.symbol);
  int large = 0;
  for (const auto& [name, symbol] : shipped_) {
    if (!IsData(symbol.type) || !IsCudyn(name) || symbol.size < cudyn_bench::kAccountedBytes) {
      continue;
    }
    ++large;
    bool listed = false;
    for (const auto& part : parts) listed = listed || name.find(part) != std::string::npos;
    EXPECT_TRUE(listed) << name << " (" << symbol.size << " B) is neither counted nor listed";
  }
  EXPECT_GE(large, 7);  // the five tables and two slot arrays at least
}

TEST_F(Footprint, TablesAndSlotsFitIn64KiB) {
  auto items = cudyn_bench::DispatchFootprint();
  size_t total = cudyn_bench::TotalBytes(items);
  std::string breakdown;
  for (const auto& item : items) breakdown += item.name + "=" + std::to_string(item.bytes) + " ";
  EXPECT_LE(total, cudyn_bench::kFootprintBudgetBytes) << breakdown;
  RecordProperty("total_bytes", static_cast<int>(total));
}

}  // namespace
