// Start-up cost of reaching the driver: cudyn's Driver::Open (+ BindAll, or + one lazy Resolve and
// the first call) against what a hand-rolled loader must do at least: dlopen the driver, ask its
// version (and dlsym + call the one function). Each iteration opens and closes the driver, so
// every variant includes one dlopen and one dlclose of the same library (warm: page cache).
//
// Also: "BindFloor/driver_lookups": the lookups bind-all cannot avoid — one cuGetProcAddress
// (or dlsym, on drivers before 11.3) per table entry the driver can serve, on a driver opened
// once — to tell cudyn's own binding overhead from the driver's.
//
// Driver: see bench_env.h (CUDYN_DRIVER_PATH, else libcuda.so.1 from the default search).
#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <string>

#include "bench/bench_env.h"
#include "benchmark/benchmark.h"
#include "loader/cudyn.h"

namespace {

using DriverGetVersionFn = int (*)(int*);
using CtxGetCurrentFn = int (*)(void**);
using GetProcAddressFn = int (*)(const char*, void**, int, unsigned long long);
using GetProcAddressV2Fn = int (*)(const char*, void**, int, unsigned long long, int*);

cudyn::DriverOptions Options() {
  cudyn::DriverOptions options;
  if (cudyn_bench::DriverPathIsExplicit()) options.driver_path = cudyn_bench::DriverPath();
  // else: cudyn's own search (already loaded, WSL, default search, well-known directories).
  return options;
}

enum class BareWork { kVersionOnly, kDlsymCall, kProcAddressCall };

// dlopen + cuDriverGetVersion (+ one call of cuCtxGetCurrent, looked up with dlsym or, as the
// binding rules require on 11.3+ drivers, with cuGetProcAddress(_v2)) + dlclose.
void BareOpen(benchmark::State& state, BareWork work) {
  const std::string path = cudyn_bench::DriverPath();
  for (auto _ : state) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      state.SkipWithError("dlopen failed");
      break;
    }
    int version = 0;
    auto get_version = reinterpret_cast<DriverGetVersionFn>(dlsym(handle, "cuDriverGetVersion"));
    benchmark::DoNotOptimize(get_version(&version));
    if (work != BareWork::kVersionOnly) {
      void* ctx = nullptr;
      void* fn = nullptr;
      auto gpa_v2 = reinterpret_cast<GetProcAddressV2Fn>(dlsym(handle, "cuGetProcAddress_v2"));
      auto gpa = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress"));
      const int abi = cudyn::kEntries[cudyn::kEntry_cuCtxGetCurrent].abi_version;
      if (work == BareWork::kProcAddressCall && version >= 12000 && gpa_v2 != nullptr) {
        int status = 0;
        gpa_v2("cuCtxGetCurrent", &fn, abi, 0, &status);
      } else if (work == BareWork::kProcAddressCall && version >= 11030 && gpa != nullptr) {
        gpa("cuCtxGetCurrent", &fn, abi, 0);
      } else {
        fn = dlsym(handle, "cuCtxGetCurrent");
      }
      benchmark::DoNotOptimize(reinterpret_cast<CtxGetCurrentFn>(fn)(&ctx));
    }
    dlclose(handle);
  }
}

void BM_BareDlopenVersion(benchmark::State& state) { BareOpen(state, BareWork::kVersionOnly); }
void BM_BareDlopenVersionFirstCall(benchmark::State& state) {
  BareOpen(state, BareWork::kDlsymCall);
}
void BM_BareDlopenVersionProcAddressCall(benchmark::State& state) {
  BareOpen(state, BareWork::kProcAddressCall);
}

enum class CudynWork { kOpenOnly, kBindAll, kLazyFirstCall };

void CudynOpen(benchmark::State& state, CudynWork work) {
  const cudyn::DriverOptions options = Options();
  int missing = 0;
  for (auto _ : state) {
    std::unique_ptr<cudyn::Driver> driver = cudyn::Driver::Open(options);
    if (driver == nullptr || !driver->ok()) {
      state.SkipWithError("cudyn could not open the driver");
      break;
    }
    if (work == CudynWork::kBindAll) {
      missing = driver->BindAll();
    } else if (work == CudynWork::kLazyFirstCall) {
      void* ctx = nullptr;
      auto fn = reinterpret_cast<CtxGetCurrentFn>(driver->Resolve(cudyn::kEntry_cuCtxGetCurrent));
      benchmark::DoNotOptimize(fn(&ctx));
    }
    driver.reset();  // dlclose, like the bare variant
  }
  if (work == CudynWork::kBindAll) {
    state.counters["entries"] = cudyn::kEntryCount;
    state.counters["missing"] = missing;
  }
}

void BM_CudynOpen(benchmark::State& state) { CudynOpen(state, CudynWork::kOpenOnly); }
void BM_CudynOpenBindAll(benchmark::State& state) { CudynOpen(state, CudynWork::kBindAll); }
void BM_CudynOpenLazyFirstCall(benchmark::State& state) {
  CudynOpen(state, CudynWork::kLazyFirstCall);
}

// One lookup per entry the driver can serve at its own version, the way cudyn's strategy asks
// (base name at the entry's ABI version; flags 2 for per-thread variants); the driver stays open.
void BM_DriverLookups(benchmark::State& state) {
  void* handle = dlopen(cudyn_bench::DriverPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    state.SkipWithError("dlopen failed");
    return;
  }
  const int version = cudyn_bench::DriverVersion(handle);
  auto gpa = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress"));
  auto gpa_v2 = reinterpret_cast<GetProcAddressV2Fn>(dlsym(handle, "cuGetProcAddress_v2"));
  const bool use_v2 = version >= 12000 && gpa_v2 != nullptr;
  const bool use_v1 = !use_v2 && version >= 11030 && gpa != nullptr;
  int lookups = 0;
  for (auto _ : state) {
    lookups = 0;
    for (int i = 0; i < cudyn::kEntryCount; ++i) {
      const cudyn::EntryInfo& e = cudyn::kEntries[i];
      if (e.abi_version > version) continue;
      void* fn = nullptr;
      char base[128];
      std::string_view b = cudyn::EntryBase(i);
      b.copy(base, sizeof(base) - 1);
      base[b.size() < sizeof(base) ? b.size() : sizeof(base) - 1] = '\0';
      unsigned long long flags = e.stream == cudyn::StreamClass::kLegacy ? 0 : 2;
      if (e.gpa_reachable && use_v2) {
        int status = 0;
        gpa_v2(base, &fn, e.abi_version, flags, &status);
      } else if (e.gpa_reachable && use_v1) {
        gpa(base, &fn, e.abi_version, flags);
      } else {
        fn = dlsym(handle, cudyn::EntrySymbol(i).data());
      }
      benchmark::DoNotOptimize(fn);
      ++lookups;
    }
  }
  state.counters["lookups"] = lookups;
  dlclose(handle);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  // Nothing may keep the driver loaded between iterations: every open here must really load it.
  void* handle = dlopen(cudyn_bench::DriverPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "open_bench: cannot dlopen %s: %s\n", cudyn_bench::DriverPath().c_str(),
                 dlerror());
    return 2;
  }
  cudyn_bench::AddBenchContext("open", handle);
  dlclose(handle);
  if (void* still = dlopen(cudyn_bench::DriverPath().c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(still);
    std::fprintf(stderr, "open_bench: warning: the driver stays loaded after dlclose; the open "
                         "benchmarks measure a reference-count bump, not a load\n");
  }
  benchmark::RegisterBenchmark("Open/bare_dlopen_version", BM_BareDlopenVersion)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Open/cudyn_open", BM_CudynOpen)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Open/cudyn_open_bind_all", BM_CudynOpenBindAll)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("FirstCall/bare_dlopen_version_dlsym_call",
                               BM_BareDlopenVersionFirstCall)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("FirstCall/bare_dlopen_version_procaddress_call",
                               BM_BareDlopenVersionProcAddressCall)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("FirstCall/cudyn_open_lazy_resolve_call", BM_CudynOpenLazyFirstCall)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BindFloor/driver_lookups", BM_DriverLookups)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
