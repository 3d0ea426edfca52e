// Shared by the cudyn benchmarks: which driver to measure and how the binary was built.
//
// Contract:
//  * The driver is CUDYN_DRIVER_PATH when set (an absolute path, the same variable cudyn's drop-in
//    reads), else "libcuda.so.1" from the dynamic linker's default search. Binaries that link a
//    libcuda directly get theirs from LD_LIBRARY_PATH; bench/run.sh sets both consistently.
//  * ReferenceDriver() is a dlopen(RTLD_NOW | RTLD_LOCAL) handle of that driver, opened once and
//    never closed; ReferenceSymbol() is dlsym on it. Neither aborts: they return nullptr.
//  * AddBenchContext() records the driver path, its CUDA version and whether this code was
//    compiled with optimisation in the benchmark JSON "context" (ratios.py warns on -O0 builds).
//    It reads them through `handle`, which the caller keeps or closes.
#ifndef CUDYN_BENCH_BENCH_ENV_H_
#define CUDYN_BENCH_BENCH_ENV_H_

#include <string>

namespace cudyn_bench {

// CUDYN_DRIVER_PATH, or "libcuda.so.1".
std::string DriverPath();
// True when CUDYN_DRIVER_PATH names an absolute path (else: default search).
bool DriverPathIsExplicit();
void* ReferenceDriver();
void* ReferenceSymbol(const char* name);
// cuDriverGetVersion of the driver behind `handle`, or 0.
int DriverVersion(void* handle);
// The path the dynamic linker actually loaded for `handle` ("" if unknown).
std::string LoadedPath(void* handle);
// Adds "driver_path", "driver_version", "variant" and "optimized" to the benchmark context.
void AddBenchContext(const char* variant, void* handle);

// The drop-in benchmarks (cudart_bench, cublas_bench) compare a call through cudyn's trampolines
// with the same library function called through a raw dlsym'd pointer, in one process and one run.
// The library behind the raw pointer: the one `variable` (CUDYN_CUDART_PATH, ...) names,
// dlopen(RTLD_NOW | RTLD_LOCAL)'ed once and never closed; nullptr when unset or not loadable.
void* LibraryNamedBy(const char* variable);
void* ReferenceSymbolIn(void* handle, const char* name);  // dlsym, nullptr for a null handle
// dlsym on LibraryNamedBy(variable), as a function pointer of type Fn (nullptr when missing).
template <typename Fn>
Fn DirectFunction(const char* variable, const char* name) {
  return reinterpret_cast<Fn>(ReferenceSymbolIn(LibraryNamedBy(variable), name));
}
// The main of such a benchmark: without a library named by `variable`, says so (naming
// `program` and `what`, "a libcudart") and returns 2; else runs `bind_first` (the first call of
// each measured entry is the loader's, not the hot path: it prints what was bound) and every
// registered benchmark, and returns 0.
int RunDropinComparison(int argc, char** argv, const char* program, const char* variable,
                        const char* what, void (*bind_first)());

}  // namespace cudyn_bench

#endif  // CUDYN_BENCH_BENCH_ENV_H_
