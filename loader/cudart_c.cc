#include "loader/cudart_c.h"

#include <string>

#include "loader/cudart.h"
#include "loader/internal.h"

namespace {

bool ValidIndex(int index) { return index >= 0 && index < cudyn::kCudartEntryCount; }

}  // namespace

extern "C" {

int cudynCudartInit(void) { return cudyn::DefaultRuntime().error(); }
const char* cudynCudartPath(void) { return cudyn::DefaultRuntime().path().c_str(); }
int cudynCudartFamily(void) { return cudyn::DefaultRuntime().family(); }
int cudynCudartVersion(void) { return cudyn::DefaultRuntime().version(); }
int cudynCudartEntryCount(void) { return cudyn::kCudartEntryCount; }

const char* cudynCudartEntrySymbol(int index) {
  return ValidIndex(index) ? cudyn::kCudartEntries[index].symbol : nullptr;
}

int cudynCudartFindEntry(const char* symbol) {
  return symbol != nullptr ? cudyn::FindCudartEntry(symbol) : -1;
}

const char* cudynCudartEntryStatus(int index) {
  if (!ValidIndex(index)) return nullptr;
  cudyn::Runtime& runtime = cudyn::DefaultRuntime();
  runtime.Probe(index);  // asking is not calling: a missing entry stays silent
  return cudyn::EntryStatusName(runtime.status(index));
}

int cudynCudartEntryRuntimeSymbol(int index, char* buffer, size_t size) {
  if (!ValidIndex(index)) return -1;
  std::string symbol = cudyn::DefaultRuntime().bound_symbol(index);
  return symbol.empty() ? -1 : cudyn::internal::CopyToBuffer(symbol, buffer, size);
}

int cudynCudartBindAll(void) {
  cudyn::Runtime& runtime = cudyn::DefaultRuntime();
  return runtime.ok() ? runtime.BindAll() : -1;
}

int cudynCudartLastError(char* buffer, size_t size) {
  return cudyn::internal::CopyToBuffer(cudyn::DefaultRuntime().last_error(), buffer, size);
}

}  // extern "C"
