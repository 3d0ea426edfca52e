// `cudyn-check binary`: the printers (see check_binary_print.h).
#include "tools/check_binary_print.h"

#include <algorithm>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace cudyn {
namespace check {

namespace {

const char* RuntimeLinkageJson(layers::RuntimeLinkage l) {
  switch (l) {
    case layers::RuntimeLinkage::kStatic: return "static";
    case layers::RuntimeLinkage::kDynamic:
    case layers::RuntimeLinkage::kIsRuntime: return "shared";
    case layers::RuntimeLinkage::kLibraryRelease: return "library_release";
    default: return "none";
  }
}

}  // namespace

namespace {

Json ImportJson(const ImportedApi& api, int target) {
  Json j = Json::object();
  j["symbol"] = api.symbol;
  j["base"] = api.entry >= 0 ? Json(api.base) : Json();
  j["known"] = api.entry >= 0;
  j["abi_version"] = api.entry >= 0 ? Json(api.abi_version) : Json();
  j["abi_version_text"] = api.entry >= 0 ? ShortVersion(api.abi_version) : "unknown";
  j["weak"] = api.weak;
  if (api.entry < 0) {
    j["satisfied"] = false;
  } else if (target > 0) {
    j["satisfied"] = api.abi_version <= target;
  } else {
    j["satisfied"] = Json();
  }
  return j;
}

Json StringList(const std::vector<std::string>& items) {
  Json j = Json::array();
  for (const std::string& s : items) j.push_back(s);
  return j;
}

Json RuntimeJson(const layers::RuntimeLayer& r) {
  Json j = Json::object();
  j["linkage"] = RuntimeLinkageJson(r.linkage);
  j["is_runtime"] = r.linkage == layers::RuntimeLinkage::kIsRuntime;
  j["library"] = r.library.empty() ? Json() : Json(r.library);
  j["version"] = r.runtime_version > 0 ? Json(r.runtime_version) : Json();
  j["version_text"] =
      r.runtime_version > 0 ? Json(layers::CudaVersionText(r.runtime_version)) : Json();
  j["min_driver"] = r.min_driver > 0 ? Json(r.min_driver) : Json();
  j["family"] = r.runtime_version > 0 ? Json(r.runtime_version / 1000) : Json();
  j["summary"] = RuntimeFindingText(r);
  j["evidence"] = StringList(r.evidence);
  return j;
}

Json KernelsJson(const layers::KernelLayer& k) {
  Json j = Json::object();
  j["entries"] = k.entries;
  j["compressed_entries"] = k.compressed_entries;
  j["containers"] = k.containers;
  j["sass"] = StringList(ImageArchs(k, false));
  j["ptx"] = StringList(ImageArchs(k, true));
  bool has_ptx = !ImageArchs(k, true).empty();
  j["ptx_isa_min"] = has_ptx ? Json(IsaText(k.min_isa_major, k.min_isa_minor)) : Json();
  j["ptx_isa_max"] = has_ptx ? Json(IsaText(k.max_isa_major, k.max_isa_minor)) : Json();
  j["toolkit_release"] = k.toolkit_release > 0 ? Json(k.toolkit_release) : Json();
  j["self_loaded"] = k.self_loaded;
  j["relocatable"] = k.relocatable;
  j["summary"] = KernelSummaryText(k);
  return j;
}

Json LayerJson(const layers::LayerVerdict& l, const std::string& gpu) {
  Json j = Json::object();
  j["layer"] = layers::LayerName(l.layer);
  j["status"] = layers::StatusName(l.status);
  j["gpu"] = gpu.empty() ? Json() : Json(gpu);
  j["cuda_error"] = l.cuda_error;
  j["cuda_error_name"] = l.cuda_error != 0 ? Json(layers::CudaErrorName(l.cuda_error)) : Json();
  j["min_driver"] = l.min_driver > 0 ? Json(l.min_driver) : Json();
  j["image"] = l.image.empty() ? Json() : Json(l.image);
  j["reason"] = l.reason;
  j["with_cudyn"] = l.with_cudyn.empty() ? Json() : Json(l.with_cudyn);
  // Kernels on a GPU: does the target driver offer it at all, and from which driver on.
  j["gpu_offered"] = gpu.empty() ? Json() : Json(!l.gpu_not_offered);
  j["gpu_min_driver"] = l.gpu_min_driver > 0 ? Json(l.gpu_min_driver) : Json();
  return j;
}

}  // namespace

Json BinaryFileJson(const BinaryAnalysis& a, const BinaryVerdict& v, int target) {
  Json j = Json::object();
  j["path"] = a.path;
  j["ok"] = a.error.empty();
  j["error"] = a.error.empty() ? Json() : Json(a.error);
  if (a.error.empty()) {
    j["elf_class"] = a.elf_class;
    j["machine"] = a.machine;
    j["type"] = a.type;
    j["dynamic"] = a.is_dynamic;
    j["soname"] = a.soname.empty() ? Json() : Json(a.soname);
    j["links_libcuda"] = !a.libcuda_needed.empty();
    j["links_cudart"] = !a.cudart_needed.empty();
    j["links_cudyn"] = a.links_cudyn();
    j["libcuda_needed"] = StringList(a.libcuda_needed);
    j["cudart_needed"] = StringList(a.cudart_needed);
    j["cudyn_needed"] = StringList(a.cudyn_needed);
    j["defined_driver_symbols"] = a.defined_driver_symbols;
    j["static_cudyn_marker"] = a.static_cudyn_marker;
    j["is_driver_library"] = a.is_driver_library;
    j["cudyn_evidence"] = a.links_cudyn() ? Json(CudynEvidence(a)) : Json();
    Json imports = Json::array();
    for (const ImportedApi& api : a.imports) imports.push_back(ImportJson(api, target));
    j["imports"] = std::move(imports);
    j["needs_version"] = a.needs_version();
    j["needs_version_text"] = ShortVersion(a.needs_version());
    j["unknown_symbols"] = StringList(a.unknown_symbols());
    j["other_cu_imports"] = StringList(a.other_cu_imports);
    Json named = Json::array();
    for (const NamedApi& n : a.named) {
      Json e = Json::object();
      e["symbol"] = n.symbol;
      e["needs"] = n.abi_version;
      e["needs_text"] = ShortVersion(n.abi_version);
      named.push_back(std::move(e));
    }
    j["named_symbols"] = std::move(named);
    j["runtime"] = RuntimeJson(a.runtime);
    j["kernels"] = KernelsJson(a.kernels);
    j["notes"] = Json::array();
    j["warnings"] = StringList(a.warnings);
  }
  Json layer_list = Json::array();
  for (size_t i = 0; i < v.layers.size(); ++i) {
    layer_list.push_back(LayerJson(v.layers[i], i < v.layer_gpus.size() ? v.layer_gpus[i] : ""));
  }
  j["layers"] = std::move(layer_list);
  j["deciding_layer"] = v.deciding_layer == layers::Layer::kNone
                            ? Json()
                            : Json(layers::LayerName(v.deciding_layer));
  j["cuda_error"] = v.cuda_error;
  j["cuda_error_name"] = v.cuda_error != 0 ? Json(layers::CudaErrorName(v.cuda_error)) : Json();
  j["verdict"] = VerdictName(v.verdict);
  j["reason"] = v.reason;
  j["too_new"] = StringList(v.too_new);
  if (v.nvml.applies) {
    j["nvml"] = {{"imports", v.nvml.imports},
                 {"through_cudyn", v.nvml.through_cudyn},
                 {"branch", v.nvml.branch > 0 ? Json(v.nvml.branch) : Json()},
                 {"lacking", StringList(v.nvml.lacking)},
                 {"bound_to_older_variant", StringList(v.nvml.variant)},
                 {"unknown", StringList(v.nvml.unknown)},
                 {"reason", v.nvml.reason}};
  }
  j["exit_code"] = ExitFor(v.verdict);
  return j;
}

namespace {

// "  runtime: <finding>" then, indented, what the layer's verdict is.
void PrintLayerVerdict(std::ostream& out, const layers::LayerVerdict& l, const std::string& gpu) {
  out << "    -> " << layers::StatusName(l.status);
  if (!gpu.empty()) out << " on " << gpu;
  if (l.status == layers::Status::kFails && l.cuda_error != 0) {
    out << " (" << CudaErrorText(l.cuda_error) << ")";
  }
  out << ": " << l.reason << "\n";
  if (!l.with_cudyn.empty()) out << "       with cudyn: " << l.with_cudyn << "\n";
}

}  // namespace

void PrintBinaryFile(std::ostream& out, const BinaryAnalysis& a, const BinaryVerdict& v,
                     int target, const MinimumDriver* minimum) {
  out << a.path << "\n";
  out << "  ELF" << a.elf_class << " " << a.machine << ", " << a.type
      << (a.is_dynamic ? ", dynamically linked" : ", no dynamic section")
      << (a.soname.empty() ? "" : ", SONAME " + a.soname) << "\n";
  std::vector<std::string> links;
  if (!a.libcuda_needed.empty()) links.push_back("libcuda (" + Join(a.libcuda_needed, ", ") + ")");
  if (!a.cudart_needed.empty()) links.push_back("libcudart (" + Join(a.cudart_needed, ", ") + ")");
  if (a.links_cudyn()) links.push_back("cudyn (" + CudynEvidence(a) + ")");
  out << "  links: " << (links.empty() ? "no libcuda, libcudart or cudyn" : Join(links, "; "))
      << "\n";
  if (!a.is_driver_library) {
    out << "  driver API imports: " << a.imports.size() << "\n";
    size_t width = 0;
    for (const ImportedApi& api : a.imports) width = std::max(width, api.symbol.size());
    for (const ImportedApi& api : a.imports) {
      out << "    " << api.symbol << std::string(width - api.symbol.size() + 2, ' ');
      if (api.entry < 0) {
        out << "unknown (not in the cudyn tables)";
      } else {
        std::string version = VersionText(api.abi_version);
        out << "needs " << version;
        if (api.weak) out << "  (weak: optional)";
        if (!api.weak && target > 0 && api.abi_version > target && !a.links_cudyn()) {
          out << std::string(version.size() < 14 ? 14 - version.size() : 0, ' ')
              << "  newer than the target";
        }
      }
      out << "\n";
    }
    if (a.needs_version() > 0) out << "  needs: CUDA " << VersionText(a.needs_version()) << "\n";
  }
  if (v.nvml.applies) out << "  NVML: " << v.nvml.reason << "\n";
  if (!a.other_cu_imports.empty()) {
    out << "  cu* imports of other libraries (not the driver's): " << Join(a.other_cu_imports, ", ")
        << "\n";
  }
  if (!a.named.empty()) {
    std::vector<std::string> newest;
    for (size_t i = 0; i < a.named.size() && i < kNamedShown; ++i) {
      newest.push_back(a.named[i].symbol + " (" + ShortVersion(a.named[i].abi_version) + ")");
    }
    // A file linking cudyn names the whole table: the loader binds every entry by name.
    out << "  named as strings (not required" << (a.links_cudyn() ? "; cudyn's own table" : "")
        << "): " << a.named.size() << " driver entry point"
        << (a.named.size() == 1 ? "" : "s") << (a.named.size() > newest.size() ? ", newest " : ": ")
        << Join(newest, ", ") << (a.named.size() > newest.size() ? ", ..." : "") << "\n";
  }
  // Each layer's finding on its own line, each followed by its verdict.
  for (size_t i = 0; i < v.layers.size(); ++i) {
    const layers::LayerVerdict& l = v.layers[i];
    const std::string gpu = i < v.layer_gpus.size() ? v.layer_gpus[i] : "";
    switch (l.layer) {
      case layers::Layer::kDriverApi:
        if (l.status == layers::Status::kFails) {
          out << "  driver API: ";
          out << "fails: " << l.reason << "\n";
        }
        break;
      case layers::Layer::kRuntime:
        out << "  runtime: " << RuntimeFindingText(a.runtime) << "\n";
        if (l.status != layers::Status::kNotApplicable) PrintLayerVerdict(out, l, gpu);
        break;
      case layers::Layer::kKernels:
        if (i == 0 || v.layers[i - 1].layer != layers::Layer::kKernels) {
          out << "  kernels: " << KernelSummaryText(a.kernels) << "\n";
        }
        if (l.status != layers::Status::kNotApplicable) PrintLayerVerdict(out, l, gpu);
        break;
      default: break;
    }
  }
  for (const std::string& w : a.warnings) out << "  warning: " << w << "\n";
  out << "  verdict: " << VerdictName(v.verdict) << ": " << v.reason << "\n";
  if (v.deciding_layer != layers::Layer::kNone) {
    out << "  deciding layer: " << layers::LayerName(v.deciding_layer);
    if (v.cuda_error != 0) out << ", CUDA error " << CudaErrorText(v.cuda_error);
    out << "\n";
  }
  if (minimum != nullptr && !a.is_driver_library) {
    out << "  minimum driver: ";
    if (minimum->version < 0) {
      out << "none runs it (" << minimum->reason << ")";
    } else if (minimum->version == 0) {
      out << "any";
    } else {
      out << "CUDA " << ShortVersion(minimum->version);
      if (minimum->layer != layers::Layer::kNone) {
        out << " (" << layers::LayerName(minimum->layer) << ": " << minimum->reason << ")";
      }
    }
    out << "\n";
  }
}

namespace {

Json MinimumJson(int version, layers::Layer layer, const std::string& reason) {
  Json j = Json::object();
  j["version"] = version;
  j["version_text"] = version > 0 ? Json(ShortVersion(version)) : Json();
  j["runs_on_no_driver"] = version < 0;
  j["layer"] = layer == layers::Layer::kNone ? Json() : Json(layers::LayerName(layer));
  j["reason"] = reason.empty() ? Json() : Json(reason);
  return j;
}

std::string MinimumText(int version) {
  if (version < 0) return "none: no driver runs it";
  if (version == 0) return "any";
  return "CUDA " + ShortVersion(version);
}

}  // namespace

void AddInputFields(const JudgedInput& f, Json* file_json) {
  Json& j = *file_json;
  j["origin"] = InputOriginName(f.input.origin);
  const bool dep = f.input.origin == InputOrigin::kDependency;
  j["needed_by"] = dep ? Json(f.input.needed_by) : Json();
  j["needed_as"] = dep ? Json(f.input.needed_as) : Json();
  j["found_by"] = dep ? Json(f.input.found_by) : Json();
  j["cuda_content"] = f.input.analysis.error.empty() && HasCudaContent(f.input.analysis);
  j["minimum_driver"] = f.input.analysis.error.empty()
                            ? MinimumJson(f.minimum.version, f.minimum.layer, f.minimum.reason)
                            : Json();
  j["error_kind"] = f.input.error_kind == InputErrorKind::kNone
                        ? Json()
                        : Json(InputErrorKindName(f.input.error_kind));
  j["zip_error"] = f.input.zip_error == zip::ZipErrorKind::kNone
                       ? Json()
                       : Json(zip::ZipErrorKindName(f.input.zip_error));
}

Json InputSetJson(const InputSet& set, const std::vector<JudgedInput>& files,
                  const SetMinimum& minimum) {
  Json j = Json::object();
  j["files"] = files.size();
  Json by_origin = Json::object();
  for (InputOrigin o : {InputOrigin::kArgument, InputOrigin::kDirectory, InputOrigin::kWheel,
                        InputOrigin::kDependency}) {
    size_t n = 0;
    for (const JudgedInput& f : files) n += f.input.origin == o;
    by_origin[InputOriginName(o)] = n;
  }
  j["by_origin"] = std::move(by_origin);
  Json m = MinimumJson(minimum.version, minimum.layer, minimum.reason);
  m["file"] = minimum.path.empty() ? Json() : Json(minimum.path);
  j["minimum_driver"] = std::move(m);
  Json unresolved = Json::array();
  for (const UnresolvedNeeded& u : set.unresolved) {
    Json x = Json::object();
    x["name"] = u.name;
    x["needed_by"] = u.needed_by;
    unresolved.push_back(std::move(x));
  }
  j["unresolved"] = std::move(unresolved);
  j["skipped_files"] = set.skipped_files;
  j["driver_needs_not_followed"] = set.driver_needs;
  j["note"] = set.search_note.empty() ? Json() : Json(set.search_note);
  return j;
}

void PrintInputSetSummary(std::ostream& out, const InputSet& set,
                          const std::vector<JudgedInput>& files, const SetMinimum& minimum) {
  std::vector<std::string> quiet;
  for (const JudgedInput& f : files) {
    if (f.input.analysis.error.empty() && !HasCudaContent(f.input.analysis) &&
        f.input.origin != InputOrigin::kArgument) {
      quiet.push_back(f.input.analysis.path);
    }
  }
  if (!quiet.empty()) {
    constexpr size_t kQuietShown = 8;
    std::vector<std::string> shown(quiet.begin(),
                                   quiet.begin() + std::min(quiet.size(), kQuietShown));
    out << "\n" << quiet.size() << " file" << (quiet.size() == 1 ? "" : "s")
        << " without CUDA content (no driver API, runtime, kernels or entry-point names), "
           "compatible with any driver: "
        << Join(shown, ", ");
    if (quiet.size() > shown.size()) out << ", ... (" << quiet.size() - shown.size() << " more)";
    out << "\n";
  }
  out << "\nminimum driver for all " << files.size() << " files: ";
  if (minimum.version < 0) {
    out << "none: no driver runs " << minimum.path << " (" << minimum.reason << ")";
  } else {
    out << MinimumText(minimum.version);
    if (!minimum.path.empty() && minimum.version > 0) {
      out << ", set by " << minimum.path;
      if (minimum.layer != layers::Layer::kNone) {
        out << " (" << layers::LayerName(minimum.layer) << ": " << minimum.reason << ")";
      }
    }
  }
  out << "\n";
  if (set.driver_needs > 0) {
    out << "libcuda.so.1 needed " << set.driver_needs
        << (set.driver_needs == 1 ? " time" : " times")
        << ": the driver, judged as the target, not followed\n";
  }
  for (const UnresolvedNeeded& u : set.unresolved) {
    out << "not found on this machine: " << u.name << " (needed by " << u.needed_by
        << "): the dynamic linker would refuse to load it here\n";
  }
  if (set.skipped_files > 0) {
    out << set.skipped_files << " other file" << (set.skipped_files == 1 ? "" : "s")
        << " (not ELF, or not shared objects in a wheel) not judged\n";
  }
  if (!set.search_note.empty()) out << "note: " << set.search_note << "\n";
}

namespace {

std::vector<std::string> GpuNames(const BinaryTarget& target) {
  std::vector<std::string> names;
  for (const layers::GpuArch& g : target.gpus) names.push_back(g.Name("sm_"));
  return names;
}

Json GpusJson(const BinaryAnswer& answer) {
  Json gpus = Json::object();
  Json archs = Json::array();
  for (const std::string& g : GpuNames(answer.target)) archs.push_back(g);
  gpus["archs"] = std::move(archs);
  gpus["source"] = answer.gpu_source;
  gpus["note"] = answer.gpu_note.empty() ? Json() : Json(answer.gpu_note);
  return gpus;
}

// "target: ...", the candidates of a driver that did not open, "gpu: ...".
void PrintTarget(std::ostream& out, const BinaryAnswer& answer) {
  out << "target: " << answer.target_text << "\n";
  if (answer.target.version == 0 && answer.failed_driver != nullptr) {
    out << "driver candidates tried:\n";
    PrintCandidates(out, answer.failed_driver->candidates(), "  ");
  }
  const std::vector<std::string> gpu_names = GpuNames(answer.target);
  if (!gpu_names.empty()) {
    out << "gpu: " << Join(gpu_names, ", ") << " (" << answer.gpu_source << ")\n";
  } else {
    out << "gpu: none (" << (answer.gpu_note.empty() ? "no --gpu" : answer.gpu_note)
        << "): kernel verdicts that depend on the GPU are unknown\n";
  }
}

// One block per file, but files without CUDA content that were not named as arguments (they are
// summarised in one line by PrintInputSetSummary).
void PrintFiles(std::ostream& out, const BinaryAnswer& answer) {
  for (const JudgedInput& r : answer.files) {
    const BinaryAnalysis& a = r.input.analysis;
    if (a.error.empty() && r.input.origin != InputOrigin::kArgument && !HasCudaContent(a)) {
      continue;
    }
    out << "\n";
    if (!a.error.empty()) {
      out << a.path << "\n  error: " << a.error << "\n";
    } else {
      PrintBinaryFile(out, a, r.verdict, answer.target.version, &r.minimum);
    }
    if (r.input.origin == InputOrigin::kDependency) {
      out << "  needed by " << r.input.needed_by << " as " << r.input.needed_as << " (found by "
          << r.input.found_by << ")\n";
    }
  }
}

// "3 files: 2 compatible, 1 incompatible (exit 1)".
void PrintCounts(std::ostream& out, const BinaryAnswer& answer) {
  int counts[6] = {0, 0, 0, 0, 0, 0};
  for (const JudgedInput& r : answer.files) ++counts[static_cast<int>(r.verdict.verdict)];
  const size_t n_files = answer.files.size();
  out << "\n" << n_files << (n_files == 1 ? " file: " : " files: ");
  std::vector<std::string> parts;
  const Verdict order[] = {Verdict::kCompatible, Verdict::kIncompatible, Verdict::kPortable,
                           Verdict::kUndecided, Verdict::kNotApplicable, Verdict::kError};
  for (Verdict verdict : order) {
    int n = counts[static_cast<int>(verdict)];
    if (n > 0) parts.push_back(std::to_string(n) + " " + VerdictName(verdict));
  }
  out << Join(parts, ", ") << " (exit " << answer.exit_code << ")\n";
}

}  // namespace

Json BinaryAnswerJson(const BinaryAnswer& answer) {
  Json j = Json::object();
  j["command"] = "binary";
  j["target"] = answer.target_json;
  j["driver"] = answer.driver_json;
  j["gpus"] = GpusJson(answer);
  Json files = Json::array();
  for (const JudgedInput& r : answer.files) {
    Json f = BinaryFileJson(r.input.analysis, r.verdict, answer.target.version);
    AddInputFields(r, &f);
    files.push_back(std::move(f));
  }
  j["files"] = std::move(files);
  j["set"] = InputSetJson(answer.inputs, answer.files, answer.set_minimum);
  j["exit_code"] = answer.exit_code;
  return j;
}

void PrintBinaryAnswer(std::ostream& out, const BinaryAnswer& answer) {
  PrintTarget(out, answer);
  PrintFiles(out, answer);
  if (answer.is_set) {
    PrintInputSetSummary(out, answer.inputs, answer.files, answer.set_minimum);
  }
  PrintCounts(out, answer);
}

}  // namespace check
}  // namespace cudyn
