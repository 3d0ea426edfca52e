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

#include "bench/bench_env.h"
#include "benchmark/benchmark.h"
#include "loader/cudart_c.h"

namespace {

constexpr char kLibraryVariable[] = "CUDYN_CUDART_PATH";

template <typename Fn>
Fn Direct(const char* name) {
  return cudyn_bench::DirectFunction<Fn>(kLibraryVariable, name);
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

// The first call of each measured entry (the loader binds it), and what was bound.
void BindFirst() {
  int device = 0;
  std::printf("runtime %s (CUDA %d); cudaGetDevice -> %d, cudaStreamQuery -> %d\n",
              cudynCudartPath(), cudynCudartVersion(), cudaGetDevice(&device),
              cudaStreamQuery(nullptr));
}

}  // namespace

int main(int argc, char** argv) {
  return cudyn_bench::RunDropinComparison(argc, argv, "cudart_bench", kLibraryVariable,
                                          "a libcudart", &BindFirst);
}
