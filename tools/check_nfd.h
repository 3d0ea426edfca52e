// `cudyn-check report --nfd`: the node's facts as a Kubernetes node-feature-discovery (NFD)
// local feature file (nfd-worker reads /etc/kubernetes/node-feature-discovery/features.d/*:
// one `<namespace>/<name>[=<value>]` per line, `#` comments), so a scheduler can place a workload
// by the rules `cudyn-check binary` applies. Labels (namespace feature.node.kubernetes.io, which
// nfd-master always accepts; values are label-safe and integers where a node affinity compares
// with Gt/Lt):
//   cudyn.driver=usable|none
//   cudyn.cuda-driver-version=13000        the effective version (after a clamp), integer
//   cudyn.cuda-driver-major=13, cudyn.cuda-driver-minor=0
//   cudyn.ptx-isa-max=90                   newest PTX ISA the driver JITs, major*10+minor
//   cudyn.gpu-count=N                      devices (0 when cuInit fails)
//   cudyn.gpu.sm_90=true                   one per distinct compute capability
//   cudyn.cudart.13=true, cudyn.cudart.12=true, cudyn.cudart.11.0=true, cudyn.cudart.10.2=true ...
//                                          the runtime families (libcudart SONAMEs) the driver runs
// A workload's `binary --json` answer (`set.minimum_driver.version`, the GPUs it was judged for)
// maps to `cudyn.cuda-driver-version Gt <version - 1>` and `cudyn.gpu.sm_XY In [true]`.
#ifndef CUDYN_TOOLS_CHECK_NFD_H_
#define CUDYN_TOOLS_CHECK_NFD_H_

#include <string>
#include <vector>

#include "tools/layers/kernel_layer.h"

namespace cudyn {
namespace check {

struct NodeFacts {
  bool driver_usable = false;
  int cuda_version = 0;      // the driver's own
  int effective_version = 0; // after --max-cuda-version / CUDYN_MAX_CUDA_VERSION
  std::string driver_path;
  std::vector<layers::GpuArch> gpus;  // distinct compute capabilities
  int gpu_count = 0;
  std::string gpu_note;      // why there are none ("cuInit(0) returned 100 ...")
  std::string no_driver_reason;
};

constexpr char kNfdNamespace[] = "feature.node.kubernetes.io/";

// The feature file's text (comment header with the source and the facts, then the labels).
std::string NfdFeatureFile(const NodeFacts& facts);

// Writes `text` to `path` as NFD asks: to a dot file in the same directory, then rename (nfd-worker
// ignores dot files and never sees a half-written file). False and *error on failure.
bool WriteFeatureFileAtomically(const std::string& path, const std::string& text,
                                std::string* error);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_NFD_H_
