// A host-only program, built by nvcc with -cudart none (no runtime, no device code).
#include <cstdio>
int main() {
  std::printf("host only\n");
  return 0;
}
