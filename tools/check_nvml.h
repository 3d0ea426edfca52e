// What NVML knows and CUDA does not, for `cudyn-check report`: the NVML cudyn's loader takes
// (loader/nvml.cc: the driver's libnvidia-ml.so.1, CUDYN_NVML_PATH), its version and driver branch,
// how many entries of the newest nvml.h it serves, and per GPU the name, UUID, PCI bus, memory and
// MIG mode -- read through NVML alone, without creating a CUDA context.
#ifndef CUDYN_TOOLS_CHECK_NVML_H_
#define CUDYN_TOOLS_CHECK_NVML_H_

#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace cudyn {
namespace check {

// The "nvml" object of the report's JSON; `lines` gets the text report's lines. `max_cuda_version`
// (--max-cuda-version; else CUDYN_MAX_CUDA_VERSION) makes NVML answer as that driver's branch.
nlohmann::ordered_json NvmlReportJson(std::optional<int> max_cuda_version,
                                      std::vector<std::string>* lines);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_NVML_H_
