// `cudyn-check binary`'s NVML part: the nvml* functions a file imports, judged against the NVML of
// the target driver's branch (loader/nvml_support.h NvmlBranchOfCuda; the facts of
// version_tables/nvml_api_table.tsv). A file linked with -lnvidia-ml does not start on a driver
// whose NVML lacks one of them (the dynamic linker resolves every import); through cudyn's NVML it
// starts, and each such call is answered by an adapter or NVML_ERROR_FUNCTION_NOT_FOUND.
#ifndef CUDYN_TOOLS_BINARY_NVML_H_
#define CUDYN_TOOLS_BINARY_NVML_H_

#include <string>
#include <vector>

namespace cudyn {
namespace check {

struct BinaryAnalysis;

struct NvmlFinding {
  bool applies = false;       // the file imports nvml* functions or needs libnvidia-ml
  bool through_cudyn = false;  // it links cudyn's NVML (libcudyn_nvml, or cudyn's drop-in defines)
  int branch = 0;             // the NVML branch judged against (0: no target)
  int imports = 0;
  std::vector<std::string> lacking;  // non-weak imports that branch's NVML does not export
  std::vector<std::string> variant;  // of those, what cudyn binds to an older same-ABI variant
  std::vector<std::string> unknown;  // imports the facts do not know
  std::string reason;                // one line
};

// `target`: a CUDA driver version (0: none known).
NvmlFinding JudgeNvml(const BinaryAnalysis& analysis, int target);
// The CUDA version of each NVML branch's driver the facts know, oldest first: where a verdict on
// NVML imports can change.
std::vector<int> NvmlBranchDriverVersions();

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_BINARY_NVML_H_
