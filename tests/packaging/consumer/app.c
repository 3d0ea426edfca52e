/* A consumer of the installed cudyn, built with CMake or Make + pkg-config and no Bazel: it uses
 * the driver API as a program linked with -lcuda would (prototypes as in cuda.h, so it needs no
 * CUDA toolkit here) and cudyn's C introspection API from the installed headers. */
#include <stdio.h>

#include <cudyn/cudyn_c.h>
#include <cudyn/cudyn_version.h>

typedef int CUresult;
CUresult cuDriverGetVersion(int* version);
CUresult cuInit(unsigned int flags);
CUresult cuGetErrorName(CUresult error, const char** name);

int main(void) {
  int version = 0;
  CUresult rc = cuDriverGetVersion(&version);
  printf("cuDriverGetVersion: rc=%d version=%d\n", rc, version);
  const char* name = "?";
  cuGetErrorName(cuInit(0), &name);
  printf("cuInit: %s\n", name);
  printf("cudyn %s: driver=%s driver_version=%d effective=%d strategy=%s\n", CUDYN_VERSION_STRING,
         cudynDriverPath(), cudynDriverCudaVersion(), cudynEffectiveCudaVersion(), cudynStrategy());
  return rc == 0 ? 0 : 1;
}
