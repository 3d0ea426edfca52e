/* A client that loads libcudyn_cuda.so as a CUDA 13.0 runtime would and probes every entry
 * point by name with cuGetProcAddress_v2 at version 13000 (flags 0 and 2) and cuGetProcAddress.
 * Prints "found N not_found M" on stdout; cudyn must write nothing to stderr at its default log
 * level (run_gpu.sh checks that, natively and with CUDYN_MAX_CUDA_VERSION=12020, where many
 * answers are "not found"). Plain C, no dependencies: built with gcc by tests/gpu/stage.sh.
 *   probe_silence /path/to/libcudyn_cuda.so */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*GetProcAddressV1)(const char*, void**, int, unsigned long long);
typedef int (*GetProcAddressV2)(const char*, void**, int, unsigned long long, int*);

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stdout, "usage: probe_silence LIBCUDYN_CUDA_SO\n");
    return 2;
  }
  void* shim = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (shim == NULL) {
    fprintf(stdout, "dlopen failed: %s\n", dlerror());
    return 2;
  }
  GetProcAddressV1 v1 = (GetProcAddressV1)dlsym(shim, "cuGetProcAddress");
  GetProcAddressV2 v2 = (GetProcAddressV2)dlsym(shim, "cuGetProcAddress_v2");
  int (*count)(void) = (int (*)(void))dlsym(shim, "cudynEntryCount");
  const char* (*symbol)(int) = (const char* (*)(int))dlsym(shim, "cudynEntrySymbol");
  if (!v1 || !v2 || !count || !symbol) {
    fprintf(stdout, "not a cudyn drop-in: %s\n", argv[1]);
    return 2;
  }
  int found = 0, not_found = 0;
  for (int i = 0; i < count(); ++i) {
    for (unsigned long long flags = 0; flags <= 2; flags += 2) {
      void* fn = NULL;
      int status = -1;
      int rc = v2(symbol(i), &fn, 13000, flags, &status);
      if (rc == 0 && status == 0 && fn != NULL) ++found; else ++not_found;
      fn = NULL;
      rc = v1(symbol(i), &fn, 13000, flags);
      if (rc == 0 && fn != NULL) ++found; else ++not_found;
    }
  }
  printf("found %d not_found %d\n", found, not_found);
  return 0;
}
