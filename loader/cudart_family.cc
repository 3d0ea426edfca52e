#include "loader/cudart_family.h"

#include <algorithm>

namespace cudyn {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

void ParseCudartSoname(const std::string& soname, int* family, int* minor) {
  *family = 0;
  *minor = -1;
  static const char kPrefix[] = "libcudart.so.";
  const size_t prefix_size = sizeof kPrefix - 1;
  if (soname.compare(0, prefix_size, kPrefix) != 0) return;
  size_t i = prefix_size;
  int major = 0;
  while (i < soname.size() && i < prefix_size + 2 && IsDigit(soname[i])) {
    major = major * 10 + (soname[i++] - '0');
  }
  if (i == prefix_size || major < 1) return;
  if (i < soname.size() && soname[i] != '.') return;  // "12abc", "100"
  *family = major;
  // A minor is one or two digits ("10.2", "11.0"); anything else ("10.-3", "10.999") is no minor,
  // so nothing downstream computes with a wild value.
  if (i < soname.size()) {
    const size_t start = ++i;
    int value = 0;
    while (i < soname.size() && IsDigit(soname[i])) {
      if (i - start == 2) return;
      value = value * 10 + (soname[i++] - '0');
    }
    if (i > start) *minor = value;
  }
}

int CudartFamilyMinDriver(int family, int minor) {
  if (family <= 0) return 0;
  if (family >= 11) return family * 1000;
  return family * 1000 + 10 * std::max(minor, 0);
}

int RuntimeVersionMinDriver(int runtime_version) {
  if (runtime_version <= 0) return 0;
  return CudartFamilyMinDriver(runtime_version / 1000, runtime_version % 1000 / 10);
}

int CudartSonameMinDriver(const std::string& soname) {
  int family = 0, minor = -1;
  ParseCudartSoname(soname, &family, &minor);
  return CudartFamilyMinDriver(family, minor);
}

int NewestRuntimeFamilyFor(int driver_version) {
  for (int family = kNewestCudartFamily; family >= kOldestCudartFamily; --family) {
    if (driver_version >= CudartFamilyMinDriver(family, 0)) return family;
  }
  return 0;
}

std::vector<std::string> CudartSonamesForDriver(int driver_version) {
  std::vector<std::string> out;
  for (int family = kNewestCudartFamily; family >= 11; --family) {
    // 11.x runtimes kept 11.0's SONAME; from 12 on it is the major alone.
    if (driver_version >= CudartFamilyMinDriver(family, 0)) {
      out.push_back("libcudart.so." + std::to_string(family) + (family == 11 ? ".0" : ""));
    }
  }
  // Before 11.0 each release had its own SONAME; the 10.x releases were 10.0, 10.1 and 10.2.
  for (int minor = 2; minor >= 0; --minor) {
    if (driver_version >= CudartFamilyMinDriver(10, minor)) {
      out.push_back("libcudart.so.10." + std::to_string(minor));
    }
  }
  return out;
}

}  // namespace cudyn
