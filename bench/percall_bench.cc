// Per-call cost of one driver entry, cuCtxGetCurrent, through one way of reaching the driver.
//
// The same source is built once per way (see BUILD) because the ways cannot share a process:
// cudyn's drop-in stubs and a directly linked libcuda export the same cu* names.
//   CUDYN_BENCH_DIRECT       libcuda.so.1 linked with -l: the call goes through the PLT. Also
//                            hosts the hand-rolled alternatives (they need no cudyn).
//   CUDYN_BENCH_STUB_STATIC  //stubs:cudyn_cuda linked in: a direct call to the trampoline.
//   CUDYN_BENCH_STUB_SHARED  libcudyn_cuda.so linked with -l: PLT, then the trampoline.
//   CUDYN_BENCH_EMBED        //stubs:cudyn_cuda_embed linked in: the hidden trampolines, called
//                            the way an embedding binding calls them.
// Every binary also measures "raw_pointer" (a dlsym'd pointer to the same driver function) as an
// in-process reference, so runs of different binaries can be compared under the same load.
//
// Driver: see bench_env.h. With --gpu (H100 runs) the binary instead calls cuInit, makes the
// primary context current, creates a stream and measures tight loops of cuCtxGetCurrent and
// cuStreamQuery; on a machine without a GPU that mode reports one skipped benchmark and exits 0.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_env.h"
#include "benchmark/benchmark.h"

#if defined(CUDYN_BENCH_STUB_STATIC) || defined(CUDYN_BENCH_EMBED)
#include "loader/cudyn_c.h"
#elif defined(CUDYN_BENCH_STUB_SHARED)
// From loader/cudyn_c.h, exported by libcudyn_cuda.so. (Linking //loader:cudyn for the header
// would put a second copy of cudyn's C API in this executable, interposing the library's.)
extern "C" const char* cudynDriverPath(void);
#endif

namespace {

#if defined(CUDYN_BENCH_DIRECT)
constexpr char kVariant[] = "direct_plt";
#elif defined(CUDYN_BENCH_STUB_STATIC)
constexpr char kVariant[] = "stub_static";
#elif defined(CUDYN_BENCH_STUB_SHARED)
constexpr char kVariant[] = "stub_shared";
#elif defined(CUDYN_BENCH_EMBED)
constexpr char kVariant[] = "embed";
#else
#error "build with one of -DCUDYN_BENCH_DIRECT/_STUB_STATIC/_STUB_SHARED/_EMBED"
#endif

using CtxGetCurrentFn = CUresult (*)(CUcontext*);
using StreamQueryFn = CUresult (*)(CUstream);

// The reference: a pointer fetched once with dlsym.
CtxGetCurrentFn g_raw_ctx_get_current = nullptr;
StreamQueryFn g_raw_stream_query = nullptr;
CUstream g_stream = nullptr;

void BM_ViaVariant(benchmark::State& state) {
  CUcontext ctx = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cuCtxGetCurrent(&ctx));
    benchmark::ClobberMemory();
  }
}

void BM_RawPointer(benchmark::State& state) {
  CtxGetCurrentFn fn = g_raw_ctx_get_current;
  CUcontext ctx = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn);  // reload: the compiler may not hoist the target
    benchmark::DoNotOptimize(fn(&ctx));
    benchmark::ClobberMemory();
  }
}

#if defined(CUDYN_BENCH_DIRECT)
// The common hand-rolled pattern: a wrapper with a function-local static pointer, bound on first
// use. Out of line, as such a wrapper lives in its own translation unit.
__attribute__((noinline)) CUresult LazyCtxGetCurrent(CUcontext* ctx) {
  static const CtxGetCurrentFn fn =
      reinterpret_cast<CtxGetCurrentFn>(cudyn_bench::ReferenceSymbol("cuCtxGetCurrent"));
  return fn(ctx);
}

void BM_LazyStatic(benchmark::State& state) {
  CUcontext ctx = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(LazyCtxGetCurrent(&ctx));
    benchmark::ClobberMemory();
  }
}

void BM_DlsymEveryCall(benchmark::State& state) {
  void* handle = cudyn_bench::ReferenceDriver();
  CUcontext ctx = nullptr;
  for (auto _ : state) {
    auto fn = reinterpret_cast<CtxGetCurrentFn>(dlsym(handle, "cuCtxGetCurrent"));
    benchmark::DoNotOptimize(fn(&ctx));
    benchmark::ClobberMemory();
  }
}
#endif

void BM_GpuCtxGetCurrentVariant(benchmark::State& state) {
  CUcontext ctx = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cuCtxGetCurrent(&ctx));
    benchmark::ClobberMemory();
  }
  if (ctx == nullptr) state.SkipWithError("cuCtxGetCurrent returned no context");
}

void BM_GpuCtxGetCurrentRaw(benchmark::State& state) { BM_RawPointer(state); }

void BM_GpuStreamQueryVariant(benchmark::State& state) {
  CUstream stream = g_stream;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cuStreamQuery(stream));
    benchmark::ClobberMemory();
  }
}

void BM_GpuStreamQueryRaw(benchmark::State& state) {
  StreamQueryFn fn = g_raw_stream_query;
  CUstream stream = g_stream;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn);
    benchmark::DoNotOptimize(fn(stream));
    benchmark::ClobberMemory();
  }
}

void BM_GpuSkipped(benchmark::State& state) {
  static std::string reason;
  reason = "no usable GPU on this machine (skipped)";
  state.SkipWithError(reason.c_str());
  for (auto _ : state) {
  }
}

// Checks that the variant really reaches the driver the way its name says. Returns "" or a reason.
std::string CheckWiring() {
  if (cudyn_bench::ReferenceDriver() == nullptr) {
    return "cannot dlopen the driver " + cudyn_bench::DriverPath() + ": " + dlerror();
  }
  void* raw = cudyn_bench::ReferenceSymbol("cuCtxGetCurrent");
  if (raw == nullptr) return "the driver exports no cuCtxGetCurrent";
  void* linked = reinterpret_cast<void*>(&cuCtxGetCurrent);
#if defined(CUDYN_BENCH_DIRECT)
  if (linked != raw) {
    return "the directly linked libcuda.so.1 (" +
           cudyn_bench::LoadedPath(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) +
           ") is not the driver under test (" + cudyn_bench::DriverPath() +
           "): set LD_LIBRARY_PATH to its directory";
  }
#else
  if (linked == raw) return "cuCtxGetCurrent resolves to the driver, not to cudyn's stub";
  CUcontext ctx = nullptr;
  CUresult via_cudyn = cuCtxGetCurrent(&ctx);  // binds the entry (and opens the driver)
  if (via_cudyn == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED ||
      via_cudyn == CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND) {
    return "cudyn could not bind cuCtxGetCurrent: CUresult " + std::to_string(via_cudyn);
  }
  std::string cudyn_path = cudynDriverPath() != nullptr ? cudynDriverPath() : "";
  std::string reference_path = cudyn_bench::LoadedPath(cudyn_bench::ReferenceDriver());
  if (cudyn_path != reference_path) {
    return "cudyn opened " + cudyn_path + " but the reference is " + reference_path;
  }
#endif
  return "";
}

// --gpu: cuInit, primary context, a stream. Returns "" or why the GPU loops cannot run.
std::string SetUpGpu() {
  CUresult rc = cuInit(0);
  if (rc != CUDA_SUCCESS) return "cuInit returned " + std::to_string(rc);
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  if ((rc = cuDeviceGet(&device, 0)) != CUDA_SUCCESS) return "cuDeviceGet: " + std::to_string(rc);
  if ((rc = cuDevicePrimaryCtxRetain(&ctx, device)) != CUDA_SUCCESS) {
    return "cuDevicePrimaryCtxRetain: " + std::to_string(rc);
  }
  if ((rc = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) return "cuCtxSetCurrent: " + std::to_string(rc);
  if ((rc = cuStreamCreate(&g_stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
    return "cuStreamCreate: " + std::to_string(rc);
  }
  g_raw_stream_query =
      reinterpret_cast<StreamQueryFn>(cudyn_bench::ReferenceSymbol("cuStreamQuery"));
  if (g_raw_stream_query == nullptr) return "the driver exports no cuStreamQuery";
  if (g_raw_stream_query(g_stream) != CUDA_SUCCESS) return "cuStreamQuery on an idle stream failed";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  bool gpu = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--gpu") == 0) {
      gpu = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int bench_argc = static_cast<int>(args.size());
  benchmark::Initialize(&bench_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, args.data())) return 2;

  std::string wiring = CheckWiring();
  if (!wiring.empty()) {
    std::fprintf(stderr, "percall_%s: %s\n", kVariant, wiring.c_str());
    return 2;
  }
  g_raw_ctx_get_current =
      reinterpret_cast<CtxGetCurrentFn>(cudyn_bench::ReferenceSymbol("cuCtxGetCurrent"));
  cudyn_bench::AddBenchContext(kVariant, cudyn_bench::ReferenceDriver());
  const std::string variant = kVariant;

  if (gpu) {
    std::string why = SetUpGpu();
    if (!why.empty()) {
      std::fprintf(stderr, "percall_%s --gpu: skipping the GPU loops: %s\n", kVariant, why.c_str());
      benchmark::RegisterBenchmark("GpuLoop/skipped", BM_GpuSkipped)->Iterations(1);
    } else {
      benchmark::RegisterBenchmark(("GpuLoop/cuCtxGetCurrent/" + variant).c_str(),
                                   BM_GpuCtxGetCurrentVariant);
      benchmark::RegisterBenchmark("GpuLoop/cuCtxGetCurrent/raw_pointer", BM_GpuCtxGetCurrentRaw);
      benchmark::RegisterBenchmark(("GpuLoop/cuStreamQuery/" + variant).c_str(),
                                   BM_GpuStreamQueryVariant);
      benchmark::RegisterBenchmark("GpuLoop/cuStreamQuery/raw_pointer", BM_GpuStreamQueryRaw);
    }
  } else {
    benchmark::RegisterBenchmark(("PerCall/" + variant).c_str(), BM_ViaVariant);
    benchmark::RegisterBenchmark("PerCall/raw_pointer", BM_RawPointer);
#if defined(CUDYN_BENCH_DIRECT)
    benchmark::RegisterBenchmark("PerCall/lazy_static", BM_LazyStatic);
    benchmark::RegisterBenchmark("PerCall/dlsym_every_call", BM_DlsymEveryCall);
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
