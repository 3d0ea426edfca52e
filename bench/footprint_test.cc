// The dispatch tables and slots of a drop-in process fit in 64 KiB (a size assertion; timing
// targets are benchmarks, never tests).
#include "bench/footprint.h"

#include "gtest/gtest.h"
#include "loader/cudyn.h"

namespace {

TEST(Footprint, EveryTableIsFound) {
  for (const auto& item : cudyn_bench::DispatchFootprint()) {
    EXPECT_TRUE(item.found) << item.name << " not in the ELF symbol table (stripped binary?)";
    EXPECT_GT(item.bytes, 0u) << item.name;
  }
}

TEST(Footprint, SlotsAreOnePointerPerEntry) {
  for (const auto& item : cudyn_bench::DispatchFootprint()) {
    if (item.name == "g_default_slots" || item.name == "kTrampolines") {
      EXPECT_EQ(item.bytes, cudyn::kEntryCount * sizeof(void*)) << item.name;
    }
  }
}

TEST(Footprint, TablesAndSlotsFitIn64KiB) {
  auto items = cudyn_bench::DispatchFootprint();
  size_t total = cudyn_bench::TotalBytes(items);
  std::string breakdown;
  for (const auto& item : items) breakdown += item.name + "=" + std::to_string(item.bytes) + " ";
  EXPECT_LE(total, cudyn_bench::kFootprintBudgetBytes) << breakdown;
  RecordProperty("total_bytes", static_cast<int>(total));
}

}  // namespace
