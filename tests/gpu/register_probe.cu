// A `-cudart shared` program whose kernels reach the GPU only through the runtime's own fatbin
// registration (issue 23: driver emulation of the runtime's registered kernels). Built by
// tests/gpu/run_register_emulate.sh for several -gencode choices; prints what each runtime call
// answers, in one of two orders:
//   register_probe launch   cudaMalloc, the launch, cudaGetLastError x2, cudaDeviceSynchronize,
//                           cudaFuncGetAttributes, the copy back and what the kernel wrote
//   register_probe attr     cudaMalloc, cudaFuncGetAttributes, cudaGetLastError, the launch, ...
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void fill(int* p) { p[threadIdx.x] = threadIdx.x + 1; }

int main(int argc, char** argv) {
  const bool attr_first = argc > 1 && std::strcmp(argv[1], "attr") == 0;
  int* d = nullptr;
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  std::printf("runtime=%d driver=%d\n", rt, drv);
  std::printf("cudaMalloc=%d\n", static_cast<int>(cudaMalloc(&d, 64)));
  cudaFuncAttributes fa;
  if (attr_first) {
    std::printf("cudaFuncGetAttributes=%d\n", static_cast<int>(cudaFuncGetAttributes(&fa, fill)));
    std::printf("cudaGetLastError=%d\n", static_cast<int>(cudaGetLastError()));
  }
  void* args[] = {&d};
  std::printf("cudaLaunchKernel=%d\n", static_cast<int>(cudaLaunchKernel(
                                           reinterpret_cast<const void*>(fill), dim3(1),
                                           dim3(4), args, 0, nullptr)));
  std::printf("cudaGetLastError=%d\n", static_cast<int>(cudaGetLastError()));
  std::printf("cudaGetLastError=%d\n", static_cast<int>(cudaGetLastError()));
  fill<<<1, 4>>>(d);
  std::printf("chevron cudaPeekAtLastError=%d\n", static_cast<int>(cudaPeekAtLastError()));
  std::printf("cudaGetLastError=%d\n", static_cast<int>(cudaGetLastError()));
  std::printf("cudaDeviceSynchronize=%d\n", static_cast<int>(cudaDeviceSynchronize()));
  if (!attr_first) {
    std::printf("cudaFuncGetAttributes=%d\n", static_cast<int>(cudaFuncGetAttributes(&fa, fill)));
    std::printf("cudaGetLastError=%d\n", static_cast<int>(cudaGetLastError()));
  }
  int h[4] = {0, 0, 0, 0};
  const int c = static_cast<int>(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("cudaMemcpy=%d out=%d%d%d%d\n", c, h[0], h[1], h[2], h[3]);
  std::printf("cudaFree=%d\n", static_cast<int>(cudaFree(d)));
  return 0;
}
