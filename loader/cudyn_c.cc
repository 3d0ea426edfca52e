#include "loader/cudyn_c.h"

#include <string>

#include "loader/cudyn.h"
#include "loader/internal.h"

namespace {

bool ValidIndex(int index) { return index >= 0 && index < cudyn::kEntryCount; }

}  // namespace

extern "C" {

int cudynInit(void) { return cudyn::DefaultDriver().error(); }
const char* cudynDriverPath(void) { return cudyn::DefaultDriver().path().c_str(); }
int cudynDriverCudaVersion(void) { return cudyn::DefaultDriver().cuda_version(); }
int cudynEffectiveCudaVersion(void) { return cudyn::DefaultDriver().effective_version(); }
const char* cudynStrategy(void) { return cudyn::StrategyName(cudyn::DefaultDriver().strategy()); }
int cudynEntryCount(void) { return cudyn::kEntryCount; }

const char* cudynEntrySymbol(int index) {
  return ValidIndex(index) ? cudyn::kEntryNames + cudyn::kEntries[index].name_offset : nullptr;
}

int cudynFindEntry(const char* symbol) {
  return symbol != nullptr ? cudyn::FindEntry(symbol) : -1;
}

const char* cudynEntryStatus(int index) {
  if (!ValidIndex(index)) return nullptr;
  cudyn::Driver& driver = cudyn::DefaultDriver();
  driver.Probe(index);  // asking is not calling: a missing entry stays silent
  return cudyn::EntryStatusName(driver.status(index));
}

const char* cudynEntryVia(int index) {
  if (!ValidIndex(index)) return nullptr;
  return cudyn::BindViaName(cudyn::DefaultDriver().via(index));
}

int cudynEntryDriverSymbol(int index, char* buffer, size_t size) {
  if (!ValidIndex(index)) return -1;
  std::string symbol = cudyn::DefaultDriver().driver_symbol(index);
  if (symbol.empty()) return -1;
  return cudyn::internal::CopyToBuffer(symbol, buffer, size);
}

int cudynBindAll(void) {
  cudyn::Driver& driver = cudyn::DefaultDriver();
  return driver.ok() ? driver.BindAll() : -1;
}

int cudynLastError(char* buffer, size_t size) {
  return cudyn::internal::CopyToBuffer(cudyn::DefaultDriver().last_error(), buffer, size);
}

}  // extern "C"
