// One kernel launched through the CUDA runtime: the test program of //tools/fatbin:nvcc_programs.
#include <cstdio>
__global__ void fill(int* p) { p[threadIdx.x] = threadIdx.x; }
int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 64) != cudaSuccess) return 1;
  fill<<<1, 4>>>(d);
  std::printf("%d\n", static_cast<int>(cudaDeviceSynchronize()));
  return 0;
}
