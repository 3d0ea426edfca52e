// Kernels for the cudyn examples.  Compiled ONCE to PTX (vector_add.ptx, checked in) with:
//
//   nvcc -ptx -arch=compute_75 -fmad=false -o vector_add.ptx vector_add.cu
//
// (CUDA 13.0's nvcc; compute_75 is the oldest virtual architecture it accepts, so the driver JITs the
// PTX for any GPU from Turing on.)  The examples embed the PTX text and load it with cuModuleLoadData;
// they need no CUDA runtime and no nvcc at build time.  -fmad=false keeps a*x+b as two rounded
// operations, so the host can compute bit-identical expected values.
//
// extern "C": the examples look the kernels up by these unmangled names (cuModuleGetFunction).

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// x[i] = x[i] * scale + offset
extern "C" __global__ void scale_offset(float* x, float scale, float offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * scale + offset;
}

// x[i] = (unsigned)i * mul + add   (integer pattern; wraps modulo 2^32)
extern "C" __global__ void fill_pattern(unsigned int* x, unsigned int mul, unsigned int add, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (unsigned int)i * mul + add;
}
