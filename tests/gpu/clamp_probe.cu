// A CUDA program of the shape whose runtime calls answered 103 (cudaErrorSoftwareValidityNotEstablished)
// under cudyn's clamp: runtime calls, optionally after driver-API calls in the same process
// (argv[1] == "mixed": cuInit, the primary context current, then the runtime). Prints what each call
// answered and the versions each API reports, then runs a kernel through the runtime. Built twice:
// with -lcuda (libcuda.so.1 loaded at start-up) and with -DCLAMP_PROBE_RUNTIME_ONLY without it.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void AddOne(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

int main(int argc, char** argv) {
  const bool mixed = argc > 1 && std::strcmp(argv[1], "mixed") == 0;
#ifndef CLAMP_PROBE_RUNTIME_ONLY  // built without it: linked with -lcuda (NEEDED libcuda.so.1)
  if (mixed) {
    CUresult r = cuInit(0);
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    if (r == CUDA_SUCCESS) r = cuDeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(ctx);
    int dv = 0;
    cuDriverGetVersion(&dv);
    std::printf("driver api: %d (cuDriverGetVersion %d)\n", static_cast<int>(r), dv);
  }
#else
  (void)mixed;
#endif
  int count = -1;
  cudaError_t e = cudaGetDeviceCount(&count);
  int driver_version = 0, runtime_version = 0;
  cudaDriverGetVersion(&driver_version);
  cudaRuntimeGetVersion(&runtime_version);
  std::printf("cudaGetDeviceCount: %d (count %d), cudaDriverGetVersion %d, cudaRuntimeGetVersion %d\n",
              static_cast<int>(e), count, driver_version, runtime_version);
  if (e != cudaSuccess) return 1;
  const int n = 1024;
  int* d = nullptr;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  e = cudaMalloc(&d, sizeof(h));
  if (e == cudaSuccess) e = cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    AddOne<<<(n + 255) / 256, 256>>>(d, n);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  std::printf("kernel: %d (sum %ld)\n", static_cast<int>(e), sum);
  return e == cudaSuccess && sum == 1024L * 1025 / 2 ? 0 : 1;
}
