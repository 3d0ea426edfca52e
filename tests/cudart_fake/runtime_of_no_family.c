/* A library that answers cudaRuntimeGetVersion like a runtime but whose SONAME (set by the BUILD
 * rule) names no family cudyn binds: a CUDA 9.2 runtime, or no libcudart name at all. */
int cudaRuntimeGetVersion(int* version) {
  *version = REPORTED_VERSION;
  return 0;
}
