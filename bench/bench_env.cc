#include "bench/bench_env.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

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

void* ReferenceSymbolIn(void* handle, const char* name) {
  return handle != nullptr ? dlsym(handle, name) : nullptr;
}

void* ReferenceSymbol(const char* name) { return ReferenceSymbolIn(ReferenceDriver(), name); }

void* LibraryNamedBy(const char* variable) {
  static std::mutex mutex;
  static std::map<std::string, void*> opened;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = opened.find(variable);
  if (it != opened.end()) return it->second;
  const char* path = std::getenv(variable);
  void* handle = path != nullptr && path[0] != '\0' ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  opened[variable] = handle;
  return handle;
}

int RunDropinComparison(int argc, char** argv, const char* program, const char* variable,
                        const char* what, void (*bind_first)()) {
  if (LibraryNamedBy(variable) == nullptr) {
    const char* error = dlerror();
    std::fprintf(stderr, "%s: set %s to %s (%s)\n", program, variable, what,
                 error != nullptr ? error : "unset");
    return 2;
  }
  bind_first();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
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
