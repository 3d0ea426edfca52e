// What the GPU probes of tests/gpu share (family_probe.cc, nvrtc_probe.cc, served_probe.cu):
// the key=value failure line and the CUDA library files the process has mapped. No CUDA headers:
// each probe is built on the GPU machine by its run_*.sh with nvcc or g++, this folder next to it.
#ifndef CUDYN_TESTS_GPU_PROBE_UTIL_H_
#define CUDYN_TESTS_GPU_PROBE_UTIL_H_

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

namespace probe {

// Prints `STEP_rc=RC` and `result=FAIL`; returns the probe's exit status (1).
inline int Fail(const char* step, int rc) {
  std::printf("%s_rc=%d\nresult=FAIL\n", step, rc);
  return 1;
}

// The paths of the files mapped into this process whose name contains `part` ("cudart") or,
// with `prefix`, starts with it ("libcuda.").
inline std::set<std::string> MappedFiles(const std::string& part, bool prefix = false) {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> files;
  for (std::string line; std::getline(maps, line);) {
    const size_t path = line.find('/');
    if (path == std::string::npos) continue;
    const std::string file = line.substr(path);
    const std::string name = file.substr(file.rfind('/') + 1);
    if (prefix ? name.compare(0, part.size(), part) == 0 : name.find(part) != std::string::npos) {
      files.insert(file);
    }
  }
  return files;
}

}  // namespace probe

#endif  // CUDYN_TESTS_GPU_PROBE_UTIL_H_
