/* One cuSPARSE CSR SpMV with every status printed (descriptor creation, buffer size, each SpMV
   algorithm), to tell what a cuSPARSE release itself answers from what cudyn does with it: built
   against the 13.0 headers and linked either to a real release directly or to -lcusparse for
   `cudyn run`. Build (GPU machine):
     gcc -O2 -o cusparse_spmv_probe tests/gpu/cusparse_spmv_probe.c -I$CUDA/include \
       <libcusparse.so.N and libcudart.so.N, or -L$CUDA/lib64 -lcusparse -lcudart> */
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <stdio.h>

int main(void) {
  /* y = A x, A = [[1,0,2,0],[0,3,0,0],[4,0,5,6],[0,0,0,7]]: y = 7,6,43,28. */
  int v = -1, rows[] = {0, 2, 3, 6, 7}, cols[] = {0, 2, 1, 0, 2, 3, 3};
  float vals[] = {1, 2, 3, 4, 5, 6, 7}, x[] = {1, 2, 3, 4}, y[4];
  int rc = (int)cusparseGetProperty(MAJOR_VERSION, &v);
  int minor = -1, patch = -1;
  cusparseGetProperty(MINOR_VERSION, &minor);
  cusparseGetProperty(PATCH_LEVEL, &patch);
  printf("property=%d version=%d.%d.%d\n", rc, v, minor, patch);
  int *drows, *dcols;
  float *dvals, *dx, *dy;
  cudaMalloc((void**)&drows, sizeof rows);
  cudaMalloc((void**)&dcols, sizeof cols);
  cudaMalloc((void**)&dvals, sizeof vals);
  cudaMalloc((void**)&dx, sizeof x);
  cudaMalloc((void**)&dy, sizeof y);
  cudaMemcpy(drows, rows, sizeof rows, cudaMemcpyHostToDevice);
  cudaMemcpy(dcols, cols, sizeof cols, cudaMemcpyHostToDevice);
  cudaMemcpy(dvals, vals, sizeof vals, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  cusparseHandle_t handle;
  printf("create=%d\n", (int)cusparseCreate(&handle));
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  printf("create_csr=%d\n", (int)cusparseCreateCsr(&a, 4, 4, 7, drows, dcols, dvals, CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  printf("create_vecs=%d,%d\n", (int)cusparseCreateDnVec(&vx, 4, dx, CUDA_R_32F),
         (int)cusparseCreateDnVec(&vy, 4, dy, CUDA_R_32F));
  float alpha = 1, beta = 0;
  const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  for (int i = 0; i < 3; ++i) {
    size_t size = 0;
    int brc = (int)cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta,
                                           vy, CUDA_R_32F, algs[i], &size);
    void* buffer = NULL;
    cudaMalloc(&buffer, size > 0 ? size : 1);
    cudaMemset(dy, 0, sizeof y);
    int src = (int)cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                                CUDA_R_32F, algs[i], buffer);
    cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
    printf("alg=%d buffer_size=%d size=%zu spmv=%d y=%g,%g,%g,%g\n", (int)algs[i], brc, size, src, y[0], y[1],
           y[2], y[3]);
    cudaFree(buffer);
  }
  return 0;
}
