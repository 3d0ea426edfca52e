// cuBLAS (libcublas) on the toolkit library template (loader/toolkit.h): the newest cuBLAS whose
// CUDA major the driver in front of the program runs, every entry of the 13.0 cublas_v2.h
// (version_tables/cublas_api_table.tsv) bound to that cuBLAS's own function.
//  * Status: CUBLAS_STATUS_NOT_INITIALIZED (1) when no cuBLAS the driver runs was found (what
//    cublasCreate answers when the CUDA side cannot start); CUBLAS_STATUS_NOT_SUPPORTED (15) for an
//    entry the chosen cuBLAS lacks (the _64 variants before 12.x, the 13.x emulation calls before 13).
//  * Version: cublasGetProperty (130100 for 13.1.0) and cublasGetCudartVersion; cuBLAS of major M
//    embeds the CUDA M runtime, so it runs on any CUDA M.0+ driver (loader/cudart_family.h).
//  * libcublasLt: every real libcublas needs libcublasLt.so.<major> by bare name, and its RUNPATH
//    $ORIGIN comes after LD_LIBRARY_PATH: the one beside a cuBLAS file is dlopen'ed by its path
//    first, so the cuBLAS binds its own. companion() names the libcublasLt the process has, with a
//    warning when it is not the one beside the cuBLAS (one of that SONAME was loaded before).
#ifndef CUDYN_LOADER_CUBLAS_H_
#define CUDYN_LOADER_CUBLAS_H_

#include "loader/toolkit.h"
#include "version_tables/generated_cublas/cublas_entry_count.h"

namespace cudyn {

// cublasStatus_t values cudyn itself produces (same numbers as cublas_api.h).
inline constexpr int kCublasSuccess = 0;
inline constexpr int kCublasStatusNotInitialized = 1;
inline constexpr int kCublasStatusNotSupported = 15;

// Entry indices: kCublas_cublasCreate_v2, ... (generated).
enum CublasEntryIndex : int {
#define CUDYN_CUBLAS_ENTRY(index, ret, symbol, params, args) kCublas_##symbol = index,
#include "version_tables/generated_cublas/cublas_entries.inc"
#undef CUDYN_CUBLAS_ENTRY
};

}  // namespace cudyn

CUDYN_DECLARE_TOOLKIT(Cublas, cublas, kCublasEntryCount)

#endif  // CUDYN_LOADER_CUBLAS_H_
