// A shared library with device code that uses the CUDA runtime (for `binary --deps` tests):
// built -cudart shared, sm_90 SASS only; the program app_kern.cpp needs it.
__global__ void Scale(float* x, float a) { x[threadIdx.x] *= a; }

extern "C" int cudyn_test_scale(float* device_x, int n) {
  Scale<<<1, n>>>(device_x, 2.0f);
  return static_cast<int>(cudaGetLastError());
}
