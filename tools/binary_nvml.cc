// `cudyn-check binary`'s NVML part (binary_nvml.h), from cudyn's NVML facts (loader/nvml.h).
#include "tools/binary_nvml.h"

#include "loader/nvml.h"
#include "loader/nvml_support.h"
#include "tools/binary_analysis.h"
#include "tools/check_common.h"

namespace cudyn {
namespace check {
NvmlFinding JudgeNvml(const BinaryAnalysis& a, int target) {
  NvmlFinding f;
  f.applies = !a.nvml_imports.empty() || !a.nvml_needed.empty();
  if (!f.applies) return f;
  f.through_cudyn = a.links_cudyn_nvml;
  f.imports = static_cast<int>(a.nvml_imports.size());
  if (target <= 0) {
    f.reason = "imports " + std::to_string(f.imports) +
               " NVML functions; no target version to judge them against";
    return f;
  }
  f.branch = NvmlBranchOfCuda(target);
  if (f.branch == 0) f.branch = kNvmlTraits.releases[0].release;
  for (const ImportedApi& api : a.nvml_imports) {
    const int index = FindToolkitEntry(kNvmlTraits, api.symbol);
    if (index < 0) {
      f.unknown.push_back(api.symbol);
      continue;
    }
    const ToolkitRuleRow* rule = FindToolkitRule(kNvmlTraits, index, f.branch);
    if (rule == nullptr || rule->exported || api.weak) continue;
    f.lacking.push_back(api.symbol);
    // cudyn binds it to an older variant of the same ABI the branch has.
    if (rule->candidates[0] != '\0') f.variant.push_back(api.symbol);
  }
  const std::string driver = "the NVML of driver branch " + std::to_string(f.branch) + " (CUDA " +
                             CudaVersionText(target) + ")";
  if (f.lacking.empty()) {
    f.reason = driver + " exports every one of its " + std::to_string(f.imports) +
               " NVML imports";
  } else if (f.through_cudyn) {
    f.reason = driver + " lacks " + Join(f.lacking, ", ") +
               ": through cudyn's NVML each answers as that NVML (a variant, an adapter or "
               "NVML_ERROR_FUNCTION_NOT_FOUND)";
  } else {
    f.reason = driver + " lacks " + Join(f.lacking, ", ") +
               ": linked with -lnvidia-ml the file does not start there (link cudyn's NVML)";
  }
  return f;
}

std::vector<int> NvmlBranchDriverVersions() {
  std::vector<int> out;
  for (int i = 0; i < kNvmlTraits.release_count; ++i) {
    out.push_back(NvmlBranchCudaVersion(kNvmlTraits.releases[i].release));
  }
  return out;
}

}  // namespace check
}  // namespace cudyn
