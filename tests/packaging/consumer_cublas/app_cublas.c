/* A C program written against the CUDA 13.0 cublas_v2.h, built against the installed cudyn cuBLAS
 * drop-in (CMake cudyn::cublas / cudyn::cublas_static, pkg-config cudyn-cublas / cudyn-cublas-static)
 * instead of -lcublas: prints the cuBLAS version and what cublasCreate answers (no GPU here). */
#include <cublas_v2.h>
#include <stdio.h>

int main(void) {
  int version = -1;
  cublasStatus_t rc = cublasGetVersion(NULL, &version);
  printf("cublasGetVersion: rc=%d version=%d\n", (int)rc, version);
  cublasHandle_t handle = NULL;
  cublasStatus_t create_rc = cublasCreate(&handle);
  printf("cublasCreate: rc=%d\n", (int)create_rc);
  if (create_rc == CUBLAS_STATUS_SUCCESS) cublasDestroy(handle);
  return 0;
}
