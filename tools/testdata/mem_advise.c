/* A CUDA driver-API program as a user would write it: includes <cuda.h> and calls cuMemAdvise.
 * Built by tools/BUILD against the CUDA 13.0 headers (cuMemAdvise -> cuMemAdvise_v2, needs 12020)
 * and against the CUDA 11.8 headers (plain cuMemAdvise, needs 8000), linked like -lcuda (toolkit
 * stub), with //stubs:cudyn_cuda (static) and with //stubs:libcudyn_cuda.so. Never run by the
 * tests: `cudyn-check binary` only reads its ELF imports. */
#include <cuda.h>
#include <stdio.h>

int main(void) {
  CUresult rc = cuInit(0);
  if (rc != CUDA_SUCCESS) {
    printf("cuInit: %d\n", (int)rc);
    return 1;
  }
#if CUDA_VERSION >= 12020
  CUmemLocation location;
  location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  location.id = 0;
  rc = cuMemAdvise((CUdeviceptr)0, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, location);
#else
  rc = cuMemAdvise((CUdeviceptr)0, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, (CUdevice)0);
#endif
  printf("cuMemAdvise: %d\n", (int)rc);
  return 0;
}
