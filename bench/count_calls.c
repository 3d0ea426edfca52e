/* Instructions per driver call, counted by callgrind (bench/instructions.sh): calls
 * cuCtxGetCurrent argv[1] times after one binding call. Built once per way of reaching the driver
 * (bench/BUILD: count_direct, count_stub_static, count_stub_shared, count_embed); the loop is the
 * same in each, so the difference between two ways is the difference in dispatch. */
#include <cuda.h>
#include <stdlib.h>

#if defined(CUDYN_BENCH_EMBED)
/* The embedding build's trampolines are hidden, but linked into this executable. */
CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) __attribute__((visibility("hidden")));
#endif

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 0;
  CUcontext ctx = NULL;
  /* The first call binds (cudyn) or resolves the PLT entry (direct): not part of the count. */
  int rc = cuCtxGetCurrent(&ctx);
  for (long i = 0; i < n; ++i) rc |= cuCtxGetCurrent(&ctx);
  return rc == CUDA_SUCCESS || rc == CUDA_ERROR_NOT_INITIALIZED ? 0 : 1;
}
