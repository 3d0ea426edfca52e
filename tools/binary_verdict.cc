// `cudyn-check binary`, the verdict layer (see binary_verdict.h).
#include "tools/binary_verdict.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "tools/check_common.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kError: return "error";
    case Verdict::kPortable: return "portable";
    case Verdict::kNotApplicable: return "not_applicable";
    case Verdict::kCompatible: return "compatible";
    case Verdict::kIncompatible: return "incompatible";
    case Verdict::kUndecided: return "undecided";
  }
  return "?";
}

BinaryVerdict Judge(const BinaryAnalysis& a, int target) {
  BinaryVerdict v;
  if (!a.error.empty()) {
    v.verdict = Verdict::kError;
    v.reason = a.error;
    return v;
  }
  if (a.is_driver_library) {
    v.verdict = Verdict::kNotApplicable;
    v.reason = "a CUDA driver library itself (SONAME " + a.soname + ")";
    return v;
  }
  if (a.links_cudyn()) {
    v.verdict = Verdict::kPortable;
    v.reason = "links cudyn (" + CudynEvidence(a) +
               "), which binds each entry at run time on any driver";
    return v;
  }
  std::vector<std::string> unknown = a.unknown_symbols();
  if (!unknown.empty()) {
    v.verdict = Verdict::kIncompatible;
    v.reason = "imports driver-API symbols the cudyn tables do not know (" + Join(unknown, ", ") +
               "): no known driver version provides them";
    return v;
  }
  int needs = a.needs_version();
  if (needs == 0) {
    v.verdict = Verdict::kCompatible;
    v.reason = "imports no CUDA driver API symbols";
    return v;
  }
  if (target <= 0) {
    v.verdict = Verdict::kUndecided;
    v.reason = "needs CUDA " + VersionText(needs) + "; no target version (no driver found and no "
               "--target-version)";
    return v;
  }
  for (const ImportedApi& api : a.imports) {
    if (!api.weak && api.abi_version > target) v.too_new.push_back(api.symbol);
  }
  if (v.too_new.empty()) {
    v.verdict = Verdict::kCompatible;
    v.reason = "CUDA " + VersionText(target) + " provides every import (the file needs " +
               VersionText(needs) + ")";
  } else {
    v.verdict = Verdict::kIncompatible;
    std::string list;
    for (size_t i = 0; i < v.too_new.size(); ++i) {
      int e = FindEntry(v.too_new[i]);
      if (i > 0) list += ", ";
      list += v.too_new[i] + " (needs " + ShortVersion(kEntries[e].abi_version) + ")";
    }
    v.reason = "CUDA " + VersionText(target) + " lacks " + list;
  }
  return v;
}

int ExitFor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kError: return kExitUsage;
    case Verdict::kIncompatible: return kExitIncompatible;
    case Verdict::kUndecided: return kExitNoDriver;
    default: return kExitOk;
  }
}

int ExitRank(int code) {
  switch (code) {
    case kExitUsage: return 3;
    case kExitNoDriver: return 2;
    case kExitIncompatible: return 1;
    default: return 0;
  }
}

std::string CudaErrorText(int error) {
  std::string name = layers::CudaErrorName(error);
  return std::to_string(error) + (name.empty() ? "" : " " + name);
}

namespace {

// The driver-API verdict (Judge) as the first layer of layers::Decide.
layers::LayerVerdict DriverApiLayer(const BinaryAnalysis& a, const BinaryVerdict& api) {
  layers::LayerVerdict l;
  l.layer = layers::Layer::kDriverApi;
  l.min_driver = a.unknown_symbols().empty() ? a.needs_version() : 0;
  l.reason = api.reason;
  switch (api.verdict) {
    case Verdict::kIncompatible: l.status = layers::Status::kFails; break;
    case Verdict::kUndecided: l.status = layers::Status::kUnknown; break;
    case Verdict::kPortable: l.status = layers::Status::kOk; l.min_driver = 0; break;
    default:
      l.status = a.needs_version() > 0 ? layers::Status::kOk : layers::Status::kNotApplicable;
      break;
  }
  return l;
}

// The oldest driver that JITs some PTX of a file whose only device code is PTX; 0 when it has
// SASS, no device code, or only PTX newer than the ISA table.
int PtxOnlyMinDriver(const layers::KernelLayer& k) {
  int least = 0;
  for (const layers::KernelImage& img : k.images) {
    if (!img.ptx) return 0;
    int d = layers::MinDriverForPtxIsa(img.isa_major, img.isa_minor);
    if (d > 0 && (least == 0 || d < least)) least = d;
  }
  return least;
}

// The runtime and kernel layers when there is no target version: nothing can be decided.
void LayersWithoutTarget(const BinaryAnalysis& a, BinaryVerdict* v) {
  layers::LayerVerdict rt;
  rt.layer = layers::Layer::kRuntime;
  rt.min_driver = a.runtime.min_driver;
  if (a.runtime.linkage == layers::RuntimeLinkage::kNone) {
    rt.status = layers::Status::kNotApplicable;
    rt.reason = "no CUDA runtime linked or embedded";
  } else {
    rt.status = layers::Status::kUnknown;
    rt.reason = (a.runtime.min_driver > 0
                     ? "needs a CUDA " + layers::CudaVersionText(a.runtime.min_driver) + " driver"
                     : std::string("a runtime of unknown version")) +
                "; no target version";
  }
  v->layers.push_back(rt);
  v->layer_gpus.push_back("");
  layers::LayerVerdict k;
  k.layer = layers::Layer::kKernels;
  k.status = a.kernels.has_device_code ? layers::Status::kUnknown : layers::Status::kNotApplicable;
  k.min_driver = PtxOnlyMinDriver(a.kernels);
  if (!a.kernels.has_device_code) {
    k.reason = "no device code";
  } else if (k.min_driver > 0) {
    k.reason = "only PTX, which needs a CUDA " + layers::CudaVersionText(k.min_driver) +
               " driver to JIT; no target version";
  } else {
    k.reason = "depends on the driver and the GPU (no target version)";
  }
  v->layers.push_back(k);
  v->layer_gpus.push_back("");
}

}  // namespace

namespace {

// The NVML imports after the other layers: a file linked with -lnvidia-ml whose imports the
// target's NVML lacks does not start there, whatever its CUDA side.
BinaryVerdict WithNvml(const BinaryAnalysis& a, int target, BinaryVerdict v) {
  v.nvml = JudgeNvml(a, target);
  if (!v.nvml.applies) return v;
  if (!v.nvml.lacking.empty() && !v.nvml.through_cudyn &&
      (v.verdict == Verdict::kCompatible || v.verdict == Verdict::kPortable)) {
    v.verdict = Verdict::kIncompatible;
    v.reason = "NVML: " + v.nvml.reason;
  } else if (v.verdict != Verdict::kError && v.verdict != Verdict::kNotApplicable) {
    v.reason += "; NVML: " + v.nvml.reason;
  }
  return v;
}

BinaryVerdict JudgeFileLayers(const BinaryAnalysis& a, const BinaryTarget& target);

}  // namespace

BinaryVerdict JudgeFile(const BinaryAnalysis& a, const BinaryTarget& target) {
  return WithNvml(a, target.version, JudgeFileLayers(a, target));
}

namespace {

BinaryVerdict JudgeFileLayers(const BinaryAnalysis& a, const BinaryTarget& target) {
  BinaryVerdict v = Judge(a, target.version);
  if (v.verdict == Verdict::kError || v.verdict == Verdict::kNotApplicable) return v;
  layers::LayerVerdict api = DriverApiLayer(a, v);
  if (target.version <= 0) {
    v.layers.push_back(api);
    v.layer_gpus.push_back("");
    LayersWithoutTarget(a, &v);
    if (v.verdict != Verdict::kIncompatible && v.verdict != Verdict::kUndecided) {
      // A file that needs a driver version through its runtime or its PTX-only kernels cannot
      // be judged without one.
      const int ptx_only = v.layers.back().min_driver;
      if (a.runtime.min_driver > 0 || ptx_only > 0) {
        v.verdict = Verdict::kUndecided;
        v.reason = a.runtime.min_driver > 0
                       ? "its CUDA runtime needs a CUDA " +
                             layers::CudaVersionText(a.runtime.min_driver) + " driver"
                       : "its PTX-only kernels need a CUDA " +
                             layers::CudaVersionText(ptx_only) + " driver";
        v.reason += "; no target version (no driver found and no --target-version)";
      } else if (a.kernels.has_device_code) {
        v.reason += "; kernels: depend on the driver and the GPU (no target version)";
      }
    }
    return v;
  }
  layers::Target first;
  first.cuda_version = target.version;
  first.uses_cuda = HasCudaContent(a);
  if (!target.gpus.empty()) {
    first.has_gpu = true;
    first.gpu = target.gpus[0];
  }
  // The kernels for every further GPU come after the first one's.
  std::vector<layers::LayerVerdict> later;
  for (size_t i = 1; i < target.gpus.size(); ++i) {
    layers::Target t = first;
    t.gpu = target.gpus[i];
    later.push_back(layers::JudgeKernels(a.kernels, t));
  }
  layers::FileVerdict f = layers::Decide(a.runtime, a.kernels, first, {api}, later);
  v.layers = f.layers;
  v.layer_gpus.assign(v.layers.size(), "");
  // Kernel layers sit at 2, 3, ... (driver API, runtime first).
  for (size_t i = 0; i < target.gpus.size() && 2 + i < v.layer_gpus.size(); ++i) {
    v.layer_gpus[2 + i] = target.gpus[i].Name("sm_");
  }
  if (!f.runs) {
    v.deciding_layer = f.deciding_layer;
    v.cuda_error = f.cuda_error;
    if (f.deciding_layer != layers::Layer::kDriverApi) {
      v.verdict = Verdict::kIncompatible;
      v.reason = std::string(layers::LayerName(f.deciding_layer)) + ": " + f.reason;
      if (f.cuda_error != 0) v.reason += " -> " + CudaErrorText(f.cuda_error);
    }
    return v;
  }
  // Runs: the driver-API reason, plus what the other layers found.
  for (size_t i = 1; i < v.layers.size(); ++i) {
    const layers::LayerVerdict& l = v.layers[i];
    if (l.status == layers::Status::kNotApplicable) continue;
    v.reason += std::string("; ") + layers::LayerName(l.layer) + ": " + l.reason;
  }
  return v;
}

}  // namespace

MinimumDriver FindMinimumDriver(const BinaryAnalysis& a, const std::vector<layers::GpuArch>& gpus) {
  // Versions below which no rule changes; kFloor stands for "any driver".
  constexpr int kFloor = 1000;
  std::set<int> versions = {kFloor, a.needs_version(), a.runtime.min_driver};
  for (const layers::KernelImage& image : a.kernels.images) {
    if (image.ptx) versions.insert(layers::MinDriverForPtxIsa(image.isa_major, image.isa_minor));
  }
  // Where its NVML imports' verdict changes: each NVML branch's driver.
  if (!a.nvml_imports.empty()) {
    for (int version : NvmlBranchDriverVersions()) versions.insert(version);
  }
  // A driver older than a GPU does not offer it (kernel_rule::MinDriverForGpu, gpu_arch.tsv).
  for (const layers::GpuArch& gpu : gpus) {
    versions.insert(kernel_rule::MinDriverForGpu(layers::GpuArch{gpu.major, gpu.minor, '\0'}));
  }
  MinimumDriver answer;
  std::string gpu_reason;  // the GPU the version just below does not offer, if that decided
  answer.version = -1;
  BinaryTarget target;
  target.gpus = gpus;
  for (int version : versions) {
    if (version < kFloor) continue;
    target.version = version;
    const BinaryVerdict v = JudgeFile(a, target);
    if (v.verdict != Verdict::kIncompatible && v.verdict != Verdict::kUndecided &&
        v.verdict != Verdict::kError) {
      answer.version = version == kFloor ? 0 : version;
      // What in the file asks for that version (the verdict's text names a target).
      switch (answer.layer) {
        case layers::Layer::kDriverApi:
          answer.reason = "imports driver-API entry points of CUDA " +
                          ShortVersion(a.needs_version());
          break;
        case layers::Layer::kRuntime: answer.reason = RuntimeFindingText(a.runtime); break;
        case layers::Layer::kKernels:
          answer.reason = gpu_reason.empty() ? KernelSummaryText(a.kernels) : gpu_reason;
          break;
        default: break;
      }
      return answer;
    }
    answer.layer = v.deciding_layer;
    answer.reason = v.reason;  // kept when no version runs it: why it fails on the newest
    gpu_reason.clear();
    if (v.deciding_layer == layers::Layer::kKernels &&
        v.cuda_error == layers::kCudaErrorNoDevice) {
      for (size_t i = 0; i < v.layers.size(); ++i) {
        const layers::LayerVerdict& l = v.layers[i];
        if (!l.gpu_not_offered || i >= v.layer_gpus.size()) continue;
        gpu_reason = v.layer_gpus[i] + " needs a CUDA " +
                     layers::CudaVersionText(l.gpu_min_driver) + " driver";
        break;
      }
    }
  }
  return answer;
}

namespace {

// Layer 4 (loader/DESIGN.md): a file fails when a library it needs, directly or through others, fails
// on its own; the nearest such library (breadth-first) decides, named with its own reason. The
// file's minimum driver is also the highest of its libraries'.
void ApplyDependencyLayer(const InputSet& inputs, std::vector<JudgedInput>* results) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < results->size(); ++i) index[(*results)[i].input.analysis.path] = i;
  std::map<std::string, std::vector<std::string>> needs;
  for (const auto& edge : inputs.edges) needs[edge.first].push_back(edge.second);
  std::vector<BinaryVerdict> own;
  std::vector<MinimumDriver> own_minimum;
  for (const JudgedInput& r : *results) {
    own.push_back(r.verdict);
    own_minimum.push_back(r.minimum);
  }
  for (JudgedInput& r : *results) {
    const std::string& path = r.input.analysis.path;
    if (!r.input.analysis.error.empty()) continue;
    std::deque<std::string> queue(needs[path].begin(), needs[path].end());
    std::set<std::string> visited = {path};
    size_t decider = results->size();
    while (!queue.empty()) {
      const std::string dep = queue.front();
      queue.pop_front();
      if (!visited.insert(dep).second) continue;
      auto it = index.find(dep);
      if (it == index.end()) continue;
      const size_t d = it->second;
      if (decider == results->size() && own[d].verdict == Verdict::kIncompatible) decider = d;
      const MinimumDriver& m = own_minimum[d];
      if (r.minimum.version >= 0 && (m.version < 0 || m.version > r.minimum.version)) {
        r.minimum.version = m.version;
        r.minimum.layer = layers::Layer::kDependencies;
        r.minimum.reason = dep + " (" + layers::LayerName(m.layer) + ": " + m.reason + ")";
      }
      for (const std::string& next : needs[dep]) queue.push_back(next);
    }
    const Verdict v = r.verdict.verdict;
    if (decider == results->size() || v == Verdict::kIncompatible || v == Verdict::kError ||
        v == Verdict::kNotApplicable || v == Verdict::kUndecided) {
      continue;
    }
    const BinaryVerdict& failing = own[decider];
    layers::LayerVerdict layer;
    layer.layer = layers::Layer::kDependencies;
    layer.status = layers::Status::kFails;
    layer.cuda_error = failing.cuda_error;
    layer.reason = (*results)[decider].input.analysis.path + ": " + failing.reason;
    r.verdict.layers.push_back(layer);
    r.verdict.layer_gpus.push_back("");
    r.verdict.verdict = Verdict::kIncompatible;
    r.verdict.deciding_layer = layers::Layer::kDependencies;
    r.verdict.cuda_error = failing.cuda_error;
    r.verdict.reason = "dependencies: " + layer.reason;
  }
}

}  // namespace

std::vector<JudgedInput> JudgeInputs(InputSet* inputs, const BinaryTarget& target, bool deps) {
  std::vector<JudgedInput> results;
  results.reserve(inputs->files.size());
  for (InputFile& f : inputs->files) {
    JudgedInput r;
    r.verdict = JudgeFile(f.analysis, target);
    if (f.analysis.error.empty()) r.minimum = FindMinimumDriver(f.analysis, target.gpus);
    r.input = std::move(f);
    results.push_back(std::move(r));
  }
  if (deps) ApplyDependencyLayer(*inputs, &results);
  return results;
}

SetMinimum FindSetMinimum(const std::vector<JudgedInput>& files) {
  SetMinimum m;
  for (const JudgedInput& f : files) {
    if (!f.input.analysis.error.empty()) continue;
    if (m.version < 0) break;  // a file no driver runs decides the set
    const MinimumDriver& d = f.minimum;
    // A minimum that comes from a dependency is that dependency's own, which is in the set too.
    if (d.layer == layers::Layer::kDependencies) continue;
    if (d.version < 0 || d.version > m.version) {
      m.version = d.version;
      m.path = f.input.analysis.path;
      m.layer = d.layer;
      m.reason = d.reason;
    }
  }
  return m;
}

}  // namespace check
}  // namespace cudyn
