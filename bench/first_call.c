/* Start-up cost: exec, one cuDriverGetVersion, exit. Built linked directly with libcuda.so.1
 * (first_call_direct) and with the shared drop-in (first_call_shared); bench/instructions.sh
 * counts both with callgrind and times both. A plain C program: nothing else is loaded. */
#include <cuda.h>

int main(void) {
  int version = 0;
  return cuDriverGetVersion(&version) == CUDA_SUCCESS && version > 0 ? 0 : 1;
}
