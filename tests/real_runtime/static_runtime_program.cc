// A stand-in for a program with the CUDA runtime linked in statically (nvcc's default
// -cudart static): built with embedded_runtime_lib.cc, the runtime's versioned entry-point table
// is in the program itself; built alone (-DNO_RUNTIME_TABLE) it is a plain driver-API program.
// Prints, for static_runtime_clamp_test.sh:
//   lookup_driver=<cuDriverGetVersion looked up through cuGetProcAddress, as a runtime does>
//   direct_driver=<the program's own call of the exported cuDriverGetVersion>
//   module_load_real=<1 when the cuModuleLoadData it looks up is not in the object that exports
//                     cuDriverGetVersion (cudyn's drop-in), i.e. the real driver's own>
//   wrapper_replaced=<1 when the fatbin its nvcc-style wrapper points to (an ISA 9.0 PTX fatbin,
//                     program_fatbin.h) was replaced by the time of its lookups: driver emulation
//                     of a runtime linked into the program>
// (-100 - rc on an error; exit 2 without a libcuda.so.1 or its cuGetProcAddress).
#include <dlfcn.h>

#include <cstdio>

#include "tests/real_runtime/program_fatbin.h"

#ifndef NO_RUNTIME_TABLE
extern "C" int embedded_runtime_driver_version();
#endif

namespace {

// nvcc's __fatBinC_Wrapper_t, in writable data as nvcc's .nvFatBinSegment keeps it.
struct Wrapper {
  int magic;
  int version;
  const void* data;
  void* filename_or_fatbins;
};
Wrapper g_wrapper = {0x466243B1, 1, kProgramFatbin, nullptr};

}  // namespace

int main() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (driver == nullptr) {
    std::fprintf(stderr, "libcuda.so.1: %s\n", dlerror());
    return 2;
  }
  using GetProcAddress = int (*)(const char*, void**, int, unsigned long long);
  using DriverGetVersion = int (*)(int*);
  auto lookup = reinterpret_cast<GetProcAddress>(dlsym(driver, "cuGetProcAddress"));
  auto direct = reinterpret_cast<DriverGetVersion>(dlsym(driver, "cuDriverGetVersion"));
  if (lookup == nullptr || direct == nullptr) return 2;
  void* found = nullptr;
  int rc = lookup("cuDriverGetVersion", &found, 11080, 0);
  int version = 0;
  if (rc == 0 && found != nullptr) rc = reinterpret_cast<DriverGetVersion>(found)(&version);
  std::printf("lookup_driver=%d\n", rc == 0 ? version : -100 - rc);
  rc = direct(&version);
  std::printf("direct_driver=%d\n", rc == 0 ? version : -100 - rc);
  void* module_load = nullptr;
  rc = lookup("cuModuleLoadData", &module_load, 11080, 0);
  Dl_info load_object{}, dropin_object{};
  if (rc != 0 || module_load == nullptr || dladdr(module_load, &load_object) == 0 ||
      dladdr(reinterpret_cast<void*>(direct), &dropin_object) == 0) {
    std::printf("module_load_real=%d\n", -100 - rc);
  } else {
    std::printf("module_load_real=%d\n", load_object.dli_fbase != dropin_object.dli_fbase ? 1 : 0);
  }
  const void* const volatile data = g_wrapper.data;
  std::printf("wrapper_replaced=%d\n", data != static_cast<const void*>(kProgramFatbin) ? 1 : 0);
#ifndef NO_RUNTIME_TABLE
  // Keeps the table in the link (embedded_runtime_lib.cc reads it).
  std::printf("table_user=%d\n", embedded_runtime_driver_version());
#endif
  return 0;
}
