#include "common/host.h"

#include <cstdio>

namespace example {

uint64_t Fnv1a64(const void* data, size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

void PrintChecksum(const char* part, const void* data, size_t bytes) {
  std::printf("checksum %s %016llx\n", part, static_cast<unsigned long long>(Fnv1a64(data, bytes)));
  std::fflush(stdout);
}

std::string CudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

void VectorAddInputs(int n, std::vector<float>* a, std::vector<float>* b) {
  a->resize(n);
  b->resize(n);
  for (int i = 0; i < n; ++i) {
    (*a)[i] = static_cast<float>(i % 4096) * 0.5f;
    (*b)[i] = static_cast<float>((i * 7) % 1000) - 250.0f;
  }
}

long FirstVectorAddMismatch(const std::vector<float>& a, const std::vector<float>& b,
                            const std::vector<float>& c) {
  if (a.size() != c.size() || b.size() != c.size()) return 0;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] != a[i] + b[i]) return static_cast<long>(i);
  }
  return -1;
}

}  // namespace example
