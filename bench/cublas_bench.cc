// Per-call cost of the cuBLAS drop-in: cublasGetProperty / cublasGetStatusString through cudyn's
// trampolines (//stubs:cudyn_cublas linked in place of libcublas) against the same cuBLAS function
// called through a raw dlsym'd pointer, in one process and one run. Neither call needs a GPU: the
// comparison is the dispatch, which is the same with one.
//
//   CUDYN_CUBLAS_PATH=/path/to/libcublas.so.N bazel-bin/bench/cublas_bench
//
// Report the ratio BM_Cudyn_* / BM_Direct_* (bench/RESULTS.md).
#include <cublas_v2.h>
#include <dlfcn.h>
#include <library_types.h>

#include <cstdio>

#include "bench/bench_env.h"
#include "benchmark/benchmark.h"
#include "loader/cublas.h"

namespace {

constexpr char kLibraryVariable[] = "CUDYN_CUBLAS_PATH";

template <typename Fn>
Fn Direct(const char* name) {
  return cudyn_bench::DirectFunction<Fn>(kLibraryVariable, name);
}

void BM_Direct_cublasGetProperty(benchmark::State& state) {
  auto fn = Direct<cublasStatus_t (*)(libraryPropertyType, int*)>("cublasGetProperty");
  int value = 0;
  for (auto _ : state) benchmark::DoNotOptimize(fn(MAJOR_VERSION, &value));
}

void BM_Cudyn_cublasGetProperty(benchmark::State& state) {
  int value = 0;
  for (auto _ : state) benchmark::DoNotOptimize(cublasGetProperty(MAJOR_VERSION, &value));
}

void BM_Direct_cublasGetStatusString(benchmark::State& state) {
  auto fn = Direct<const char* (*)(cublasStatus_t)>("cublasGetStatusString");
  for (auto _ : state) benchmark::DoNotOptimize(fn(CUBLAS_STATUS_NOT_SUPPORTED));
}

void BM_Cudyn_cublasGetStatusString(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED));
}

BENCHMARK(BM_Direct_cublasGetProperty);
BENCHMARK(BM_Cudyn_cublasGetProperty);
BENCHMARK(BM_Direct_cublasGetStatusString);
BENCHMARK(BM_Cudyn_cublasGetStatusString);

// The first call of each measured entry (the loader binds it), and what was bound.
void BindFirst() {
  int major = 0;
  const cublasStatus_t rc = cublasGetProperty(MAJOR_VERSION, &major);
  std::printf("cuBLAS %s (version %d); cublasGetProperty -> %d (major %d), %s\n",
              cudyn::DefaultCublas().path().c_str(), cudyn::DefaultCublas().version(),
              static_cast<int>(rc), major, cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED));
}

}  // namespace

int main(int argc, char** argv) {
  return cudyn_bench::RunDropinComparison(argc, argv, "cublas_bench", kLibraryVariable,
                                          "a libcublas", &BindFirst);
}
