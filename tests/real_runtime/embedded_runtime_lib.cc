// A stand-in for a library with a CUDA runtime compiled in (cuBLAS, cuFFT, cuDNN, ... carry
// libcudart_static): the runtime's versioned entry-point table (loader/runtime_fingerprint.h),
// one record per entry of the runtime table, each at EMBEDDED_RUNTIME_VERSION, and one function
// that calls cuDriverGetVersion through libcuda.so.1 from inside this library, as such a runtime's
// own driver calls do. Used by clamp_consistency_test.sh.
#include <dlfcn.h>

#include <cstdint>

namespace {

struct Record {
  uint64_t version;
  const char* name;
  uint64_t zero;
};

// Pointers in a shared object's constant data: .data.rel.ro, where the real runtime's table is.
__attribute__((used)) const Record kTable[] = {
#define CUDYN_CUDART_ENTRY(index, ret, symbol, params, args) {EMBEDDED_RUNTIME_VERSION, #symbol, 0},
#include "version_tables/generated_cudart/cudart_entries.inc"
#undef CUDYN_CUDART_ENTRY
};

}  // namespace

// cuDriverGetVersion as this library sees it; -1 without a libcuda.so.1, -100 - rc on an error.
extern "C" __attribute__((visibility("default"), noinline)) int embedded_runtime_driver_version() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == nullptr) return -1;
  auto fn = reinterpret_cast<int (*)(int*)>(dlsym(driver, "cuDriverGetVersion"));
  dlclose(driver);
  int version = 0;
  const int rc = fn != nullptr ? fn(&version) : -2;
  // Work after the call (no tail call): the driver sees this library as its caller.
  return rc == 0 ? version + static_cast<int>(kTable[0].zero) : -100 - rc;
}

// cuInit as this library's runtime reaches it: as a real runtime does, cuGetProcAddress (found in
// libcuda.so.1) looks up cuGetProcAddress itself, and that one cuInit, all from inside this
// library; then the call. Its result; -1 without a libcuda.so.1, -100 - rc when a lookup fails.
extern "C" __attribute__((visibility("default"), noinline)) int embedded_runtime_init() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == nullptr) return -1;
  using GetProcAddress = int (*)(const char*, void**, int, unsigned long long);
  auto lookup = reinterpret_cast<GetProcAddress>(dlsym(driver, "cuGetProcAddress"));
  dlclose(driver);
  if (lookup == nullptr) return -2;
  void* own = nullptr;
  int rc = lookup("cuGetProcAddress", &own, EMBEDDED_RUNTIME_VERSION, 0);
  if (rc != 0 || own == nullptr) return -100 - rc;
  void* fn = nullptr;
  rc = reinterpret_cast<GetProcAddress>(own)("cuInit", &fn, EMBEDDED_RUNTIME_VERSION, 0);
  if (rc != 0 || fn == nullptr) return -100 - rc;
  return reinterpret_cast<int (*)(unsigned)>(fn)(0) + static_cast<int>(kTable[0].zero);
}
