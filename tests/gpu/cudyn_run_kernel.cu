// An unmodified CUDA program for `cudyn run` on the GPU machine (tests/gpu/run_cudyn_run.sh):
// built there by nvcc with its defaults (static CUDA runtime) and linked with plain -lcuda. It
// asks the driver API and the runtime for the driver version, runs a kernel and checks its result.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

__global__ void Scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2.0f * x[i] + 1.0f;
}

int main() {
  int version = 0;
  CUresult drc = cuDriverGetVersion(&version);
  std::printf("cuDriverGetVersion: rc=%d version=%d\n", static_cast<int>(drc), version);
  int runtime_sees = 0;
  cudaError_t rc = cudaDriverGetVersion(&runtime_sees);
  std::printf("cudaDriverGetVersion: rc=%d version=%d\n", static_cast<int>(rc), runtime_sees);
  const int n = 1 << 20;
  float* device = nullptr;
  rc = cudaMalloc(&device, n * sizeof(float));
  if (rc != cudaSuccess) {
    std::printf("result: cudaMalloc failed: %d %s\n", static_cast<int>(rc), cudaGetErrorName(rc));
    return 1;
  }
  static float host[1 << 20];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000);
  cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
  Scale<<<(n + 255) / 256, 256>>>(device, n);
  rc = cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (rc != cudaSuccess) {
    std::printf("result: kernel/copy failed: %d %s\n", static_cast<int>(rc), cudaGetErrorName(rc));
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i] != 2.0f * static_cast<float>(i % 1000) + 1.0f;
  cudaFree(device);
  std::printf("result: %s (%d of %d elements wrong)\n", wrong == 0 ? "ok" : "WRONG", wrong, n);
  return wrong == 0 ? 0 : 1;
}
