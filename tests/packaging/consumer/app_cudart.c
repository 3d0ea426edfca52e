/* A consumer of the installed runtime drop-in (cudyn::cudart, cudyn-cudart.pc): it uses the runtime
 * API as a program linked with -lcudart would (prototypes as in cuda_runtime_api.h, so it needs no
 * CUDA toolkit here) and cudyn's C introspection API for the runtime from the installed headers. */
#include <stdio.h>

#include <cudyn/cudart_c.h>
#include <cudyn/cudyn_version.h>

typedef int cudaError_t;
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaGetDeviceCount(int* count);

int main(void) {
  int version = 0;
  cudaError_t rc = cudaRuntimeGetVersion(&version);
  printf("cudaRuntimeGetVersion: rc=%d version=%d\n", rc, version);
  int count = -1;
  printf("cudaGetDeviceCount: rc=%d\n", cudaGetDeviceCount(&count));
  printf("cudyn %s: runtime=%s family=%d version=%d\n", CUDYN_VERSION_STRING, cudynCudartPath(),
         cudynCudartFamily(), cudynCudartVersion());
  return rc == 0 ? 0 : 1;
}
