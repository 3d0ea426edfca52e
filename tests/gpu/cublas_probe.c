/* cuBLAS through cudyn on a GPU: an unchanged program built against the CUDA 13.0 cublas_v2.h and
 * libcublas.so.13 runs SGEMM and a GemmEx (FP16 inputs, FP32 accumulate) on 64x64 matrices and
 * compares both with the CPU. Prints which cuBLAS answered (cublasGetVersion, the libcublas files
 * mapped) and `result=ok` when every value matches; exit 1 otherwise.
 *   gcc -O2 -o cublas_probe tests/gpu/cublas_probe.c -I$CUDA/include -L$CUDA/lib64 -lcublas -lcudart
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 64 };

/* IEEE half of a float that half represents exactly (the inputs below: multiples of 1/8). */
static uint16_t ToHalf(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  if ((x & 0x7fffffffu) == 0) return sign;
  const int exponent = (int)((x >> 23) & 0xffu) - 127 + 15;
  return (uint16_t)(sign | (uint16_t)(exponent << 10) | (uint16_t)((x >> 13) & 0x3ffu));
}

static void PrintMapped(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096], seen[8][512];
  int count = 0;
  printf("mapped=");
  while (maps && fgets(line, sizeof line, maps)) {
    char* path = strchr(line, '/');
    if (!path || !strstr(path, "libcublas")) continue;
    path[strcspn(path, "\n")] = 0;
    int dup = 0;
    for (int i = 0; i < count; ++i) dup |= strcmp(seen[i], path) == 0;
    if (dup || count == 8) continue;
    snprintf(seen[count++], sizeof seen[0], "%s", path);
    printf("%s%s", count > 1 ? "," : "", strrchr(path, '/') + 1);
  }
  printf("\n");
  if (maps) fclose(maps);
}

int main(void) {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  printf("runtime_version=%d\ndriver_version=%d\n", runtime, driver);
  cublasHandle_t handle = NULL;
  cublasStatus_t st = cublasCreate(&handle);
  printf("cublasCreate=%d\n", (int)st);
  if (st != CUBLAS_STATUS_SUCCESS) {
    PrintMapped();
    printf("result=no_cublas\n");
    return 1;
  }
  int version = 0;
  cublasGetVersion(handle, &version);
  printf("cublas_version=%d\n", version);

  static float a[N * N], b[N * N], c[N * N], want[N * N];
  static uint16_t ah[N * N], bh[N * N];
  for (int i = 0; i < N * N; ++i) {
    a[i] = (float)((i * 7) % 13) / 8.0f - 0.75f; /* exact in FP16 */
    b[i] = (float)((i * 5) % 11) / 4.0f - 1.25f;
    ah[i] = ToHalf(a[i]);
    bh[i] = ToHalf(b[i]);
  }
  for (int col = 0; col < N; ++col) /* column-major C = A * B */
    for (int row = 0; row < N; ++row) {
      double s = 0;
      for (int k = 0; k < N; ++k) s += (double)a[k * N + row] * b[col * N + k];
      want[col * N + row] = (float)s;
    }
  float *da, *db, *dc;
  uint16_t *dah, *dbh;
  cudaMalloc((void**)&da, sizeof a);
  cudaMalloc((void**)&db, sizeof b);
  cudaMalloc((void**)&dc, sizeof c);
  cudaMalloc((void**)&dah, sizeof ah);
  cudaMalloc((void**)&dbh, sizeof bh);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaMemcpy(dah, ah, sizeof ah, cudaMemcpyHostToDevice);
  cudaMemcpy(dbh, bh, sizeof bh, cudaMemcpyHostToDevice);
  const float one = 1.0f, zero = 0.0f;
  int bad = 0;

  st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, da, N, db, N, &zero, dc, N);
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  double err = 0;
  for (int i = 0; i < N * N; ++i) err = fmax(err, fabs(c[i] - want[i]));
  printf("sgemm=%d max_error=%.2g\n", (int)st, err);
  bad |= st != CUBLAS_STATUS_SUCCESS || err > 1e-3;

  cudaMemset(dc, 0, sizeof c);
  st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, dah, CUDA_R_16F, N, dbh,
                    CUDA_R_16F, N, &zero, dc, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                    CUBLAS_GEMM_DEFAULT);
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  err = 0;
  for (int i = 0; i < N * N; ++i) err = fmax(err, fabs(c[i] - want[i]));
  printf("gemm_ex_fp16=%d max_error=%.2g\n", (int)st, err);
  bad |= st != CUBLAS_STATUS_SUCCESS || err > 1e-2;

  cublasDestroy(handle);
  PrintMapped();
  printf("result=%s\n", bad ? "WRONG" : "ok");
  return bad;
}
