/* A CUDA 13.0 cublas_v2.h program linked with cudyn's static cuBLAS drop-in (//stubs:cudyn_cublas)
   instead of -lcublas: calls that need no GPU, through the drop-in's trampolines. Prints key=value. */
#include <cublas_v2.h>
#include <stdio.h>

int cudynCublasEntryCount(void); /* the drop-in's marker */

int main(void) {
  int version = -1, major = -1;
  cublasStatus_t rc = cublasGetVersion(NULL, &version); /* the cublasGetVersion_v2 entry */
  printf("get_version_rc=%d\nget_version=%d\n", (int)rc, version);
  rc = cublasGetProperty(MAJOR_VERSION, &major);
  printf("property_rc=%d\nproperty_major=%d\n", (int)rc, major);
  printf("cudart=%zu\n", cublasGetCudartVersion());
  printf("status_string=%s\n", cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED));
  /* A _64 entry with n = 0 (no GPU touched): a real cuBLAS that has it answers its own result (13.x:
     success), one without it (11.x) gets cudyn's NOT_SUPPORTED, no cuBLAS at all NOT_INITIALIZED. */
  rc = cublasSetVector_64(0, 4, NULL, 1, NULL, 1);
  printf("set_vector_64_rc=%d\n", (int)rc);
  printf("cudyn_entries=%d\n", cudynCublasEntryCount());
  return 0;
}
