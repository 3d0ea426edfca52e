// Per-call cost of the runtime drop-in: cudaGetDevice / cudaStreamQuery through cudyn's
// trampolines (//stubs:cudyn_cudart linked in place of libcudart) against the same runtime
// function called through a raw dlsym'd pointer, in one process and one run.
//
//   CUDYN_CUDART_PATH=/path/to/libcudart.so.N bazel-bin/bench/cudart_bench
//
// Without a GPU the runtime answers quickly with an error (35 or 100) — the same call on every
// iteration either way, which is what a dispatch comparison needs. Report the ratio
// BM_Cudyn_* / BM_Direct_* (bench/RESULTS.md).
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "loader/cudart_c.h"

namespace {

void* RuntimeHandle() {
  static void* handle = [] {
    const char* path = std::getenv("CUDYN_CUDART_PATH");
    return path != nullptr ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  }();
  return handle;
}

template <typename Fn>
Fn Direct(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RuntimeHandle(), name));
}

void BM_Direct_cudaGetDevice(benchmark::State& state) {
  auto fn = Direct<cudaError_t (*)(int*)>("cudaGetDevice");
  int device = 0;
  for (auto _ : state) benchmark::DoNotOptimize(fn(&device));
}

void BM_Cudyn_cudaGetDevice(benchmark::State& state) {
  int device = 0;
  for (auto _ : state) benchmark::DoNotOptimize(cudaGetDevice(&device));
}

void BM_Direct_cudaStreamQuery(benchmark::State& state) {
  auto fn = Direct<cudaError_t (*)(cudaStream_t)>("cudaStreamQuery");
  for (auto _ : state) benchmark::DoNotOptimize(fn(nullptr));
}

void BM_Cudyn_cudaStreamQuery(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(cudaStreamQuery(nullptr));
}

BENCHMARK(BM_Direct_cudaGetDevice);
BENCHMARK(BM_Cudyn_cudaGetDevice);
BENCHMARK(BM_Direct_cudaStreamQuery);
BENCHMARK(BM_Cudyn_cudaStreamQuery);

}  // namespace

int main(int argc, char** argv) {
  if (RuntimeHandle() == nullptr) {
    std::fprintf(stderr, "cudart_bench: set CUDYN_CUDART_PATH to a libcudart (%s)\n", dlerror());
    return 2;
  }
  // Bind before timing: the first call of each entry is the loader's, not the hot path.
  int device = 0;
  std::printf("runtime %s (CUDA %d); cudaGetDevice -> %d, cudaStreamQuery -> %d\n",
              cudynCudartPath(), cudynCudartVersion(), cudaGetDevice(&device),
              cudaStreamQuery(nullptr));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
