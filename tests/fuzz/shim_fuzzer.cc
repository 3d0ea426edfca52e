// libFuzzer target: the shim's cuGetProcAddress argument handling. The input is
//   line 1: the symbol (any bytes but NUL and newline), line 2: the version (decimal, may be
//   negative or huge), line 3: the flags (decimal, 64 bit), line 4: 16 hex digits choosing which
//   entries ShimFindProc may consider available.
// It calls the exported cuGetProcAddress and cuGetProcAddress_v2 (the drop-in shim, over the
// driver named by CUDYN_DRIVER_PATH: a fake driver, see run_fuzzer.sh / the smoke test) and
// ShimFindProc directly, and checks the contract of stubs/shim.h on every answer.
//
// Build and run: tests/fuzz/run_fuzzer.sh shim [seconds]. Under Bazel: :shim_fuzzer_smoke.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "loader/cudyn.h"
#include "stubs/shim.h"
#include "version_tables/cuda_driver_api.h"

namespace {

uint64_t g_mask = 0;
bool Masked(int index) { return ((g_mask >> (index % 64)) & 1) != 0; }
bool Provided(int index) {
  return cudyn::ShimTrampoline(index) != nullptr && cudyn::DefaultDriver().Resolve(index) != nullptr;
}

void CheckLookup(const cudyn::ShimLookup& r, const std::string& symbol, int version,
                 unsigned long long flags, cudyn::ShimAvailability available) {
  if (r.index < -1 || r.index >= cudyn::kEntryCount) __builtin_trap();
  if (r.index < 0) return;
  const cudyn::EntryInfo& e = cudyn::kEntries[r.index];
  if (cudyn::EntryBase(r.index) != symbol) __builtin_trap();  // only the base name is found
  if (!e.gpa_reachable || e.abi_version > version || !available(r.index)) __builtin_trap();
  if (!r.base_known) __builtin_trap();
  if ((flags & 2) == 0 && e.stream != cudyn::StreamClass::kLegacy) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string line[4];
  int field = 0;
  for (size_t i = 0; i < size && field < 4; ++i) {
    if (data[i] == '\n') {
      ++field;
    } else {
      line[field] += static_cast<char>(data[i]);
    }
  }
  const std::string symbol = line[0].substr(0, line[0].find('\0'));
  const int version = static_cast<int>(std::strtoll(line[1].c_str(), nullptr, 10));
  const unsigned long long flags = std::strtoull(line[2].c_str(), nullptr, 10);
  g_mask = std::strtoull(line[3].c_str(), nullptr, 16);

  // The pure lookup, with a fuzzed availability.
  CheckLookup(cudyn::ShimFindProc(symbol, version, flags, Masked), symbol, version, flags, Masked);
  CheckLookup(cudyn::ShimFindProc(line[0], version, flags, Masked), line[0], version, flags, Masked);

  // The exported entry points over the fake driver.
  cudyn::Driver& driver = cudyn::DefaultDriver();
  if (!driver.ok()) __builtin_trap();  // the harness points CUDYN_DRIVER_PATH at a fake
  void* fn = reinterpret_cast<void*>(0x1);
  CUresult rc = cuGetProcAddress(symbol.c_str(), &fn, version, flags);
  cudyn::ShimLookup expected = cudyn::ShimFindProc(symbol, version, flags, Provided);
  bool strict = driver.effective_version() >= 13000 && version > driver.effective_version();
  if (strict) {
    if (rc != CUDA_ERROR_INVALID_VALUE || fn != nullptr) __builtin_trap();
  } else if (expected.index >= 0) {
    if (rc != CUDA_SUCCESS || fn != cudyn::ShimTrampoline(expected.index)) __builtin_trap();
  } else if (rc != CUDA_ERROR_NOT_FOUND || fn != nullptr) {
    __builtin_trap();
  }
#if CUDA_VERSION >= 12000
  fn = reinterpret_cast<void*>(0x1);
  CUdriverProcAddressQueryResult status = static_cast<CUdriverProcAddressQueryResult>(77);
  rc = cuGetProcAddress_v2(symbol.c_str(), &fn, version, flags, &status);
  if (!strict) {
    if (rc != CUDA_SUCCESS) __builtin_trap();
    if (expected.index >= 0) {
      if (status != CU_GET_PROC_ADDRESS_SUCCESS || fn != cudyn::ShimTrampoline(expected.index)) {
        __builtin_trap();
      }
    } else if (fn != nullptr || (status != CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND &&
                                 status != CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)) {
      __builtin_trap();
    }
  }
  // NULL arguments are answered, not dereferenced.
  if (cuGetProcAddress_v2(symbol.c_str(), &fn, version, flags, nullptr) > CUDA_ERROR_INVALID_VALUE) {
    __builtin_trap();
  }
#endif
  if (cuGetProcAddress(nullptr, &fn, version, flags) != CUDA_ERROR_INVALID_VALUE) __builtin_trap();
  if (cuGetProcAddress(symbol.c_str(), nullptr, version, flags) != CUDA_ERROR_INVALID_VALUE) {
    __builtin_trap();
  }
  return 0;
}
