/* A "framework" library as PyTorch ships libtorch_cuda.so: linked against libcudart.so.13 with a
 * DT_RPATH ($ORIGIN/fwlib) to a directory holding its own copy of the runtime. The RPATH is searched
 * before LD_LIBRARY_PATH, so only a runtime already loaded under SONAME libcudart.so.13 (cudyn's
 * preloaded drop-in) keeps the framework off its own copy. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef int cudaError_t;
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaGetDeviceCount(int* count);

/* cudaRuntimeGetVersion through the framework's own binding; *file: the object that defines it. */
int fw_runtime_version(int* version, const char** file) {
  Dl_info info;
  *file = dladdr((void*)&cudaRuntimeGetVersion, &info) != 0 && info.dli_fname != NULL
              ? info.dli_fname
              : "(unknown)";
  return cudaRuntimeGetVersion(version);
}

int fw_device_count(int* count) { return cudaGetDeviceCount(count); }
