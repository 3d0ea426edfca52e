// cuBLAS (libcublas) on the toolkit library template (loader/toolkit.h): the newest cuBLAS whose
// CUDA major the driver in front of the program runs, every entry of the 13.0 cublas_v2.h
// (version_tables/cublas_api_table.tsv) bound to that cuBLAS's own function.
//  * Status: CUBLAS_STATUS_NOT_INITIALIZED (1) when no cuBLAS the driver runs was found (what
//    cublasCreate answers when the CUDA side cannot start); CUBLAS_STATUS_NOT_SUPPORTED (15) for an
//    entry the chosen cuBLAS lacks (the _64 variants before 12.x, the 13.x emulation calls before 13).
//  * Version: cublasGetProperty (130100 for 13.1.0) and cublasGetCudartVersion; cuBLAS of major M
//    embeds the CUDA M runtime, so it runs on any CUDA M.0+ driver (loader/cudart_family.h).
//  * libcublasLt: every real libcublas needs libcublasLt.so.<major> by bare name, and its RUNPATH
//    $ORIGIN comes after LD_LIBRARY_PATH: it is cuBLAS's sibling (TOOLKIT_LIBRARIES), opened
//    beside it first and named by companion() (loader/toolkit.h ToolkitTraits::siblings).
#include "loader/cublas.h"

#include "loader/core.h"

namespace cudyn {
namespace {

#include "version_tables/generated_cublas/cublas_table.inc"

// cuBLAS 11.11 is of CUDA 11.8, 13.1 of the 13.0 toolkit: the newest release of its major at or
// below 1000*major + 10*minor; a cuBLAS of a major the facts know no release of at or below it
// (12.2) is of M.0 (its runtime's driver rule; it binds by the older facts).
int CublasRelease(const ToolkitTraits& traits, const ToolkitVersion& version) {
  const int major = version.version / 10000;
  const int as_cuda = major * 1000 + version.version % 10000 / 100 * 10;
  int best = 0;
  for (int i = 0; i < traits.release_count; ++i) {
    const int r = traits.releases[i].release;
    if (r / 1000 == major && r <= as_cuda && r > best) best = r;
  }
  return best != 0 ? best : major * 1000;
}

CUDYN_TOOLKIT_TRAITS(Cublas,
                     t.release_of = &CublasRelease;)

}  // namespace

CUDYN_DEFINE_TOOLKIT(Cublas, cublas, kCublasEntryCount)

}  // namespace cudyn
