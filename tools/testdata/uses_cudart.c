// Links the stand-in libcudart.so.11.0 (DT_NEEDED), like a program built with -cudart shared
// by CUDA 11.0.
int cudaRuntimeGetVersion(int* version);

int main(void) {
  int v = 0;
  return cudaRuntimeGetVersion(&v) == 0 && v > 0 ? 0 : 1;
}
