// `cudyn-check binary`, the analysis layer: one file -> BinaryAnalysis (see binary_analysis.h).
#include "tools/binary_analysis.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "loader/toolkit_libraries.h"
#include "tools/check_common.h"
#include "tools/deps/library_search.h"
#include "tools/elf/elf_reader.h"
#include "tools/layers/analyze.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// cuInit, cuMemAdvise_v2, ...: "cu" then an upper-case letter (excludes cuda*, cublas*, cufft*).
bool IsDriverApiName(const std::string& name) {
  if (FindEntry(name) >= 0) return true;
  return name.size() > 2 && name[0] == 'c' && name[1] == 'u' &&
         std::isupper(static_cast<unsigned char>(name[2]));
}

std::string TypeName(const elf::ElfInfo& info) {
  switch (info.elf_type) {
    case 1: return "relocatable";
    case 2: return "executable";
    case 3: return info.interpreter.empty() ? "shared object" : "executable (PIE)";
    case 4: return "core";
    default: return "unknown (" + std::to_string(info.elf_type) + ")";
  }
}

// The ELF-level facts (imports, NEEDED, SONAME ...) of a parsed file.
void FillFromElf(const elf::ElfInfo& info, BinaryAnalysis* a) {
  a->elf_class = info.elf_class;
  a->elf_machine = info.machine;
  a->machine = info.machine_name;
  a->type = TypeName(info);
  a->is_dynamic = info.is_dynamic;
  a->soname = info.soname;
  a->needed = info.needed;
  a->rpath = info.rpath;
  a->runpath = info.runpath;
  a->warnings = info.warnings;
  for (const std::string& needed : info.needed) {
    if (StartsWith(needed, "libcuda.so")) a->libcuda_needed.push_back(needed);
    if (StartsWith(needed, "libcudart.so")) a->cudart_needed.push_back(needed);
    if (StartsWith(needed, "libcudyn_cuda.so")) a->cudyn_needed.push_back(needed);
    if (StartsWith(needed, "libnvidia-ml.so")) a->nvml_needed.push_back(needed);
    if (StartsWith(needed, "libcudyn_nvml.so")) a->links_cudyn_nvml = true;
  }
  a->is_driver_library = StartsWith(info.soname, "libcuda.so");
  for (const std::string& name : info.defined) {
    if (FindEntry(name) >= 0) ++a->defined_driver_symbols;
    if (name == "cudynNvmlEntryCount") a->links_cudyn_nvml = true;
  }
  for (const elf::ImportedSymbol& sym : info.undefined) {
    if (!StartsWith(sym.name, "nvml")) continue;
    ImportedApi api;
    api.symbol = sym.name;
    api.weak = sym.weak;
    a->nvml_imports.push_back(std::move(api));
  }
  std::map<std::string, size_t> seen;
  for (const elf::ImportedSymbol& sym : info.undefined) {
    if (!IsDriverApiName(sym.name)) continue;
    auto it = seen.find(sym.name);
    if (it != seen.end()) {
      // Listed twice: weak only if every occurrence is weak.
      a->imports[it->second].weak = a->imports[it->second].weak && sym.weak;
      continue;
    }
    ImportedApi api;
    api.symbol = sym.name;
    api.weak = sym.weak;
    api.entry = FindEntry(sym.name);
    if (api.entry >= 0) {
      api.base = std::string(EntryBase(api.entry));
      api.abi_version = kEntries[api.entry].abi_version;
    }
    if (api.entry < 0 && a->libcuda_needed.empty() && a->cudyn_needed.empty()) {
      // Not the driver's: nothing this file links could provide a driver entry point.
      a->other_cu_imports.push_back(sym.name);
      continue;
    }
    seen[sym.name] = a->imports.size();
    a->imports.push_back(std::move(api));
  }
}

// Unknown cu[A-Z]* imports of a file that links libcuda may still come from another library it
// needs (libcufile's cuFile*): look for them among the exports of its other DT_NEEDED libraries,
// found as the dynamic linker would from `path`.
void AttributeUnknownImports(const std::string& path, BinaryAnalysis* a) {
  if (a->unknown_symbols().empty()) return;
  deps::Requester r;
  r.path = path;
  r.elf_class = a->elf_class;
  r.machine = a->elf_machine;
  r.rpath = a->rpath;
  r.runpath = a->runpath;
  const deps::SearchEnvironment env = deps::SystemSearchEnvironment();
  std::set<std::string> elsewhere;
  for (const std::string& needed : a->needed) {
    if (StartsWith(needed, "libcuda.so") || StartsWith(needed, "libcudyn_cuda.so")) continue;
    const deps::SearchResult found = deps::FindLibrary(needed, r, env, [&](const std::string& p) {
      return deps::IsElfFor(p, r.elf_class, r.machine);
    });
    if (found.found_by == deps::FoundBy::kNotFound) continue;
    elf::ElfResult lib = elf::ReadElf(found.path);
    if (!lib.ok()) continue;
    elsewhere.insert(lib.value().defined.begin(), lib.value().defined.end());
  }
  std::vector<ImportedApi> kept;
  for (ImportedApi& api : a->imports) {
    if (api.entry < 0 && elsewhere.count(api.symbol) > 0) {
      a->other_cu_imports.push_back(api.symbol);
    } else {
      kept.push_back(std::move(api));
    }
  }
  a->imports = std::move(kept);
}

// What the one-mmap analysis read from the whole image: the runtime and kernel layers, the named
// entry points and the static-cudyn marker.
void FillFromLayers(layers::FileLayers&& fl, BinaryAnalysis* a) {
  a->static_cudyn_marker = fl.cudyn_loader_marker;
  a->runtime = std::move(fl.runtime);
  a->kernels = std::move(fl.kernels);
  for (const std::string& w : a->kernels.warnings) a->warnings.push_back("fatbin: " + w);
  a->named = std::move(fl.named_entry_points);
}

// A file without a runtime whose SONAME is a release of a library cudyn chooses by the driver
// (libcufft.so.12, libnvJitLink.so.13): it needs the driver of the oldest release the facts know
// under that SONAME, as the loader refuses it unloaded (loader/toolkit.h). Measured on an H200
// (tests/gpu/RESULTS.md): the 13.0 cuFFT answers cufftPlan1d with CUFFT_NOT_SUPPORTED under a
// 12.8 driver.
void JudgeLibraryRelease(const std::string& soname, layers::RuntimeLayer* runtime) {
  if (runtime->linkage != layers::RuntimeLinkage::kNone || soname.empty()) return;
  for (const ToolkitTraits* t : ToolkitLibraries()) {
    if (t->driver_library) continue;  // the driver's own (NVML): any driver runs it
    int oldest = 0;
    for (int i = 0; i < t->release_count; ++i) {
      const ToolkitReleaseRow& row = t->releases[i];
      if (soname == row.soname && (oldest == 0 || row.release < oldest)) oldest = row.release;
    }
    if (oldest == 0) continue;
    runtime->linkage = layers::RuntimeLinkage::kLibraryRelease;
    runtime->library = std::string(t->name) + " of CUDA " + layers::CudaVersionText(oldest) + "+ (" +
                       soname + ")";
    runtime->runtime_version = oldest;
    runtime->min_driver = ToolkitMinDriver(*t, oldest);
    runtime->evidence.push_back("DT_SONAME " + soname + ": a " + t->name + " release of CUDA " +
                                layers::CudaVersionText(oldest) +
                                " or later (loader/toolkit_library.bzl facts)");
    return;
  }
}

// One file's analysis from its layers; `error` set when they could not be read.
BinaryAnalysis FromLayers(const std::string& name, layers::FileLayers&& fl) {
  BinaryAnalysis a;
  a.path = name;
  if (!fl.ok) {
    a.error = name + ": " + fl.error;
    return a;
  }
  FillFromElf(fl.elf, &a);
  const std::string soname = fl.elf.soname;
  FillFromLayers(std::move(fl), &a);
  JudgeLibraryRelease(soname, &a.runtime);
  return a;
}

}  // namespace

int BinaryAnalysis::needs_version() const {
  int needs = 0;
  for (const ImportedApi& api : imports) {
    if (!api.weak && api.entry >= 0) needs = std::max(needs, api.abi_version);
  }
  return needs;
}

std::vector<std::string> BinaryAnalysis::unknown_symbols() const {
  std::vector<std::string> out;
  for (const ImportedApi& api : imports) {
    if (!api.weak && api.entry < 0) out.push_back(api.symbol);
  }
  return out;
}

BinaryAnalysis AnalyzeBinary(const std::string& path) {
  BinaryAnalysis a = FromLayers(path, layers::AnalyzeFile(path));
  if (a.error.empty()) AttributeUnknownImports(path, &a);
  return a;
}

BinaryAnalysis AnalyzeBinaryImage(const std::string& name, const uint8_t* data, size_t size) {
  return FromLayers(name, layers::AnalyzeImage(data, size));
}

std::string CudynEvidence(const BinaryAnalysis& a) {
  std::vector<std::string> parts;
  if (!a.cudyn_needed.empty()) parts.push_back("DT_NEEDED " + Join(a.cudyn_needed, ", "));
  if (a.defined_driver_symbols > 0) {
    parts.push_back("defines " + std::to_string(a.defined_driver_symbols) +
                    " driver-API symbols itself (static cudyn drop-in)");
  }
  if (a.static_cudyn_marker) parts.push_back("static: the cudyn loader is compiled in");
  return Join(parts, "; ");
}

std::string RuntimeFindingText(const layers::RuntimeLayer& r) {
  const std::string needs =
      r.min_driver > 0 ? " -> needs a " + layers::CudaVersionText(r.min_driver) + " driver" : "";
  switch (r.linkage) {
    case layers::RuntimeLinkage::kNone: return "none (no CUDA runtime linked or embedded)";
    case layers::RuntimeLinkage::kStatic:
      if (r.runtime_version == 0) return "embeds a CUDA runtime of unknown version (static)";
      return "embeds the CUDA runtime " + layers::CudaVersionText(r.runtime_version) +
             " (static)" + needs;
    case layers::RuntimeLinkage::kDynamic: return "links " + r.library + " (shared)" + needs;
    case layers::RuntimeLinkage::kIsRuntime:
      return "is the CUDA runtime " + r.library + " (shared)" + needs;
    case layers::RuntimeLinkage::kLibraryRelease:
      return "none inside; is " + r.library + ", which checks the driver itself" + needs;
  }
  return "?";
}

std::string IsaText(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> ImageArchs(const layers::KernelLayer& k, bool ptx) {
  std::vector<std::string> out;
  for (const layers::KernelImage& img : k.images) {
    if (img.ptx != ptx) continue;
    std::string name = img.arch.Name(ptx ? "compute_" : "sm_");
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::string KernelSummaryText(const layers::KernelLayer& k) {
  if (!k.has_device_code) return "none (no device code)";
  std::vector<std::string> parts;
  std::vector<std::string> sass = ImageArchs(k, false);
  std::vector<std::string> ptx = ImageArchs(k, true);
  if (!sass.empty()) parts.push_back(Join(sass, ", ") + " SASS");
  if (!ptx.empty()) {
    std::string isa = IsaText(k.min_isa_major, k.min_isa_minor);
    if (k.max_isa_major != k.min_isa_major || k.max_isa_minor != k.min_isa_minor) {
      isa += "-" + IsaText(k.max_isa_major, k.max_isa_minor);
    }
    parts.push_back(Join(ptx, ", ") + " PTX (ISA " + isa + ")");
  }
  if (sass.empty() && ptx.empty()) parts.push_back("no SASS or PTX");
  std::string text = Join(parts, ", ");
  if (k.entries > 1) {
    text += "; " + std::to_string(k.entries) + " fatbin entries";
    if (k.compressed_entries > 0) text += ", " + std::to_string(k.compressed_entries) + " compressed";
  }
  if (k.self_loaded) text += " (loaded by the file itself, not registered with a runtime)";
  return text;
}

bool HasCudaContent(const BinaryAnalysis& a) {
  return !a.imports.empty() || !a.libcuda_needed.empty() || a.links_cudyn() ||
         a.is_driver_library || a.runtime.linkage != layers::RuntimeLinkage::kNone ||
         a.kernels.has_device_code || !a.named.empty();
}

}  // namespace check
}  // namespace cudyn
