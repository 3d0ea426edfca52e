/* A program as the CUDA toolkit builds it with `-cudart shared`: linked against libcudart.so.13
 * and knowing nothing of cudyn. Run with LD_LIBRARY_PATH=<prefix>/lib/cudyn/cudart it gets cudyn's
 * runtime drop-in in place of libcudart.so.13; it reports which library answered through dlsym. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef int cudaError_t;
cudaError_t cudaRuntimeGetVersion(int* version);

int main(void) {
  int version = 0;
  cudaError_t rc = cudaRuntimeGetVersion(&version);
  printf("cudaRuntimeGetVersion: rc=%d version=%d\n", rc, version);
  Dl_info info;
  if (dladdr((void*)&cudaRuntimeGetVersion, &info) != 0 && info.dli_fname != NULL) {
    printf("cudaRuntimeGetVersion from %s\n", info.dli_fname);
  }
  const char* (*cudyn_path)(void) = (const char* (*)(void))dlsym(RTLD_DEFAULT, "cudynCudartPath");
  printf("cudyn runtime: %s\n", cudyn_path != NULL ? cudyn_path() : "(cudyn not loaded)");
  int (*cudyn_error)(char*, size_t) = (int (*)(char*, size_t))dlsym(RTLD_DEFAULT, "cudynCudartLastError");
  char error[512] = "";
  if (cudyn_error != NULL && rc != 0) {
    cudyn_error(error, sizeof error);
    printf("cudyn error: %s\n", error);
  }
  return rc == 0 ? 0 : 1;
}
