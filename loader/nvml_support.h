// What NVML adds to the toolkit template (loader/nvml.cc): the rows of its generated facts
// (version_tables/generated_nvml/, one per real NVML driver branch) and what cudyn answers
// without a library.
//
// NVML ships with the driver (libnvidia-ml.so.1), so its releases are driver branches, not CUDA
// releases: a Toolkit over kNvmlTraits reports release() 535 for an NVML of the 535 branch, and a
// clamp to CUDA V (CUDYN_MAX_CUDA_VERSION) binds by the rules of the newest branch whose driver
// reports at most V (NvmlBranchOfCuda), as that driver's NVML would answer.
#ifndef CUDYN_LOADER_NVML_SUPPORT_H_
#define CUDYN_LOADER_NVML_SUPPORT_H_

#include <string>

namespace cudyn {

// A real NVML branch of the facts: the CUDA version its driver reports and one function it was
// the first to export (every newer branch exports it too): dlsym tells a library's branch.
struct NvmlBranchRow {
  int branch;
  int cuda_version;
  const char* marker;  // "" for the oldest
};

// An entry and an older variant of it that fills another struct (an adapter converts).
struct NvmlAdapterRow {
  int index;
  int older;
  const char* why;
};

struct NvmlErrorStringRow {
  int code;
  const char* text;
};

// The newest real NVML's nvmlErrorString answer for `code` (for a code it does not know too):
// what cudyn's drop-in answers when no NVML is found. Never null.
const char* NvmlErrorStringOf(int code) noexcept;

// The newest branch of the facts whose driver reports at most CUDA `cuda_version`; 0 when even
// the oldest is newer.
int NvmlBranchOfCuda(int cuda_version) noexcept;

// The CUDA version the driver of `branch` reports (the facts'), 0 for a branch they do not know.
int NvmlBranchCudaVersion(int branch) noexcept;

// "535.261.03" for 53526103 (major * 100000 + minor * 100 + patch).
std::string NvmlVersionText(int version);

}  // namespace cudyn

#endif  // CUDYN_LOADER_NVML_SUPPORT_H_
