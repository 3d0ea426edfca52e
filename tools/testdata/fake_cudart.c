// A stand-in for a CUDA 11.0 runtime (built with SONAME libcudart.so.11.0): only the name
// matters to cudyn-check's runtime layer.
int cudaRuntimeGetVersion(int* version) {
  *version = 11000;
  return 0;
}
