#include "bench/bench_env.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

#include "benchmark/benchmark.h"

namespace cudyn_bench {

std::string DriverPath() {
  const char* env = std::getenv("CUDYN_DRIVER_PATH");
  return env != nullptr && env[0] != '\0' ? std::string(env) : std::string("libcuda.so.1");
}

bool DriverPathIsExplicit() { return DriverPath()[0] == '/'; }

void* ReferenceDriver() {
  static void* const handle = dlopen(DriverPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  return handle;
}

void* ReferenceSymbol(const char* name) {
  void* handle = ReferenceDriver();
  return handle != nullptr ? dlsym(handle, name) : nullptr;
}

int DriverVersion(void* handle) {
  if (handle == nullptr) return 0;
  auto get_version = reinterpret_cast<int (*)(int*)>(dlsym(handle, "cuDriverGetVersion"));
  int version = 0;
  return get_version != nullptr && get_version(&version) == 0 ? version : 0;
}

std::string LoadedPath(void* handle) {
  struct link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr ||
      map->l_name == nullptr) {
    return "";
  }
  return map->l_name;
}

void AddBenchContext(const char* variant, void* handle) {
  benchmark::AddCustomContext("variant", variant);
  std::string loaded = LoadedPath(handle);
  benchmark::AddCustomContext("driver_path", loaded.empty() ? DriverPath() : loaded);
  benchmark::AddCustomContext("driver_version", std::to_string(DriverVersion(handle)));
#if defined(__OPTIMIZE__)
  benchmark::AddCustomContext("optimized", "yes");
#else
  benchmark::AddCustomContext("optimized", "no");
#endif
}

}  // namespace cudyn_bench
