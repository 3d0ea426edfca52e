// `cudyn-check binary FILE...`: every layer that decides whether an ELF file runs on a driver
// version (--target-version, or the driver's effective version) and a GPU (--gpu, or the
// driver's devices). Readers (one mmap per file: ELF reader, fatbin reader, layer analyses,
// named entry points) -> one verdict per layer -> one verdict per file (layers::Decide) ->
// printers (check_binary_print.cc).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <set>

#include "tools/check.h"
#include "tools/check_binary.h"
#include "tools/check_inputs.h"
#include "tools/deps/library_search.h"
#include "tools/elf/elf_reader.h"
#include "tools/fatbin/fatbin_reader.h"
#include "tools/layers/analyze.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

// A string every build of the cudyn loader carries (the documented environment variable it
// reads), used to recognise a binary with cudyn compiled in statically: an executable does not
// export the drop-in's cu* symbols, so its dynamic symbol table cannot tell.
constexpr char kStaticCudynMarker[] = "CUDYN_DRIVER_PATH";

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// cuInit, cuMemAdvise_v2, ...: "cu" then an upper-case letter (excludes cuda*, cublas*, cufft*).
bool IsDriverApiName(const std::string& name) {
  if (FindEntry(name) >= 0) return true;
  return name.size() > 2 && name[0] == 'c' && name[1] == 'u' &&
         std::isupper(static_cast<unsigned char>(name[2]));
}

// A whole file mapped read-only (the ELF reader's caveat applies: a concurrent truncation of
// the file delivers SIGBUS).

bool IsIdentChar(uint8_t c) { return std::isalnum(c) || c == '_'; }

// Table entry points named as NUL-terminated strings in the read-only data and the dynamic
// string table: "cu" + an upper-case letter + identifier characters, starting at the section
// start or after a NUL. Skips imports and definitions (`skip`).
std::vector<NamedApi> FindNamedApis(const uint8_t* data, size_t size,
                                    const std::set<std::string>& skip) {
  std::vector<NamedApi> out;
  std::vector<fatbin::SectionInfo> sections;
  if (!fatbin::ReadElfSections(data, size, &sections)) return out;
  std::set<std::string> seen;
  for (const fatbin::SectionInfo& sec : sections) {
    if (sec.type == 0 || sec.type == 8 /* NOBITS */) continue;
    if (sec.name != ".dynstr" && sec.name.compare(0, 7, ".rodata") != 0) continue;
    if (sec.offset > size || sec.size > size - sec.offset) continue;
    const uint8_t* p = data + sec.offset;
    const size_t n = static_cast<size_t>(sec.size);
    for (size_t i = 0; i + 3 < n; ++i) {
      if (p[i] != 'c' || p[i + 1] != 'u' || !std::isupper(p[i + 2])) continue;
      if (i > 0 && p[i - 1] != 0) continue;
      size_t j = i + 3;
      while (j < n && j - i < 128 && IsIdentChar(p[j])) ++j;
      if (j >= n || p[j] != 0) continue;
      std::string name(reinterpret_cast<const char*>(p + i), j - i);
      i = j;
      if (skip.count(name) != 0 || !seen.insert(name).second) continue;
      int e = FindEntry(name);
      if (e < 0) continue;
      out.push_back({name, kEntries[e].abi_version});
    }
  }
  std::sort(out.begin(), out.end(), [](const NamedApi& x, const NamedApi& y) {
    if (x.abi_version != y.abi_version) return x.abi_version > y.abi_version;
    return x.symbol < y.symbol;
  });
  return out;
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

}  // namespace

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

namespace {

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
  }
  a->is_driver_library = StartsWith(info.soname, "libcuda.so");
  for (const std::string& name : info.defined) {
    if (FindEntry(name) >= 0) ++a->defined_driver_symbols;
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

// The rest reads the whole image: the static-cudyn marker, the named entry points and the
// runtime and kernel layers (no size limit).
void FillFromImage(const elf::ElfInfo& info, const uint8_t* data, size_t size,
                   BinaryAnalysis* a) {
  if (a->imports.empty() && a->libcuda_needed.empty() && a->cudyn_needed.empty() &&
      a->defined_driver_symbols == 0 && !a->is_driver_library) {
    a->static_cudyn_marker =
        memmem(data, size, kStaticCudynMarker, sizeof kStaticCudynMarker - 1) != nullptr;
  }
  layers::FileLayers fl = layers::AnalyzeImage(data, size);
  if (!fl.ok) {
    a->error = a->path + ": " + fl.error;
    return;
  }
  a->runtime = std::move(fl.runtime);
  a->kernels = std::move(fl.kernels);
  for (const std::string& w : a->kernels.warnings) a->warnings.push_back("fatbin: " + w);
  std::set<std::string> skip(info.defined.begin(), info.defined.end());
  for (const ImportedApi& api : a->imports) skip.insert(api.symbol);
  a->named = FindNamedApis(data, size, skip);
}

}  // namespace

BinaryAnalysis AnalyzeBinary(const std::string& path) {
  BinaryAnalysis a;
  a.path = path;
  elf::ElfResult result = elf::ReadElf(path);
  if (!result.ok()) {
    a.error = path + ": " + result.error().message;
    return a;
  }
  FillFromElf(result.value(), &a);
  AttributeUnknownImports(path, &a);
  MappedFile file;
  std::string map_error;
  if (!file.Open(path, &map_error)) {
    a.error = path + ": " + map_error;
    return a;
  }
  FillFromImage(result.value(), file.data(), file.size(), &a);
  return a;
}

BinaryAnalysis AnalyzeBinaryImage(const std::string& name, const uint8_t* data, size_t size) {
  BinaryAnalysis a;
  a.path = name;
  elf::ElfResult result = elf::ParseElf(data, size);
  if (!result.ok()) {
    a.error = name + ": " + result.error().message;
    return a;
  }
  FillFromElf(result.value(), &a);
  FillFromImage(result.value(), data, size, &a);
  return a;
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

namespace {

// Precedence of the per-file exit codes: 2 (an input could not be read) > 3 (undecided) >
// 1 (incompatible) > 0.
int Rank(int code) {
  switch (code) {
    case kExitUsage: return 3;
    case kExitNoDriver: return 2;
    case kExitIncompatible: return 1;
    default: return 0;
  }
}

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

BinaryVerdict JudgeFile(const BinaryAnalysis& a, const BinaryTarget& target) {
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

bool ParseGpuList(const std::string& text, std::vector<layers::GpuArch>* out, bool* none,
                  std::string* error) {
  *none = false;
  if (text == "none") {
    *none = true;
    return true;
  }
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    layers::GpuArch arch;
    bool chars_ok = !item.empty();
    for (char c : item) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') chars_ok = false;
    }
    if (!chars_ok || item.compare(0, 8, "compute_") == 0 || !layers::ParseGpuArch(item, &arch) ||
        arch.major > 20) {
      *error = "'" + item + "' is not a GPU architecture (e.g. sm_90, sm_80, 90 or 9.0; or none)";
      return false;
    }
    arch.variant = '\0';  // a GPU is sm_90; `a`/`f` name images, not devices
    if (std::find(out->begin(), out->end(), arch) == out->end()) out->push_back(arch);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

namespace {

// Plain C types of the driver functions asked for the devices' compute capabilities.
using CuInitFn = int (*)(unsigned);
using CuDeviceGetCountFn = int (*)(int*);
using CuDeviceGetFn = int (*)(int*, int);
using CuDeviceGetAttributeFn = int (*)(int*, int, int);
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;


}  // namespace

std::vector<layers::GpuArch> DriverGpus(Driver& d, std::string* note, int* device_count) {
  std::vector<layers::GpuArch> gpus;
  auto init = reinterpret_cast<CuInitFn>(d.Resolve(kEntry_cuInit));
  int rc = init != nullptr ? init(0) : -1;
  if (rc != 0) {
    *note = "cuInit(0) returned " + (rc < 0 ? std::string("nothing (no cuInit)")
                                           : std::to_string(rc) + " " + ResultNameText(rc));
    return gpus;
  }
  auto count_fn = reinterpret_cast<CuDeviceGetCountFn>(d.Resolve(kEntry_cuDeviceGetCount));
  auto get_fn = reinterpret_cast<CuDeviceGetFn>(d.Resolve(kEntry_cuDeviceGet));
  auto attr_fn = reinterpret_cast<CuDeviceGetAttributeFn>(d.Resolve(kEntry_cuDeviceGetAttribute));
  int count = 0;
  if (device_count != nullptr) *device_count = 0;
  if (count_fn == nullptr || get_fn == nullptr || attr_fn == nullptr || count_fn(&count) != 0) {
    *note = "cuDeviceGetCount failed";
    return gpus;
  }
  if (device_count != nullptr) *device_count = count;
  for (int ordinal = 0; ordinal < count && ordinal < 1024; ++ordinal) {
    int handle = 0, major = 0, minor = 0;
    if (get_fn(&handle, ordinal) != 0 ||
        attr_fn(&major, kAttrComputeCapabilityMajor, handle) != 0 ||
        attr_fn(&minor, kAttrComputeCapabilityMinor, handle) != 0 || major <= 0) {
      continue;
    }
    layers::GpuArch arch{major, minor, '\0'};
    if (std::find(gpus.begin(), gpus.end(), arch) == gpus.end()) gpus.push_back(arch);
  }
  if (gpus.empty()) *note = "the driver reports no device";
  return gpus;
}

MinimumDriver FindMinimumDriver(const BinaryAnalysis& a, const std::vector<layers::GpuArch>& gpus) {
  // Versions below which no rule changes; kFloor stands for "any driver".
  constexpr int kFloor = 1000;
  std::set<int> versions = {kFloor, a.needs_version(), a.runtime.min_driver};
  for (const layers::KernelImage& image : a.kernels.images) {
    if (image.ptx) versions.insert(layers::MinDriverForPtxIsa(image.isa_major, image.isa_minor));
  }
  MinimumDriver answer;
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
        case layers::Layer::kKernels: answer.reason = KernelSummaryText(a.kernels); break;
        default: break;
      }
      return answer;
    }
    answer.layer = v.deciding_layer;
    answer.reason = v.reason;  // kept when no version runs it: why it fails on the newest
  }
  return answer;
}

namespace {

// Layer 4 (DESIGN.md): a file fails when a library it needs, directly or through others, fails
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

int RunBinary(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.positional.empty()) {
    err << "cudyn-check binary: no FILE given\n"
        << "run 'cudyn-check binary --help'\n";
    return kExitUsage;
  }
  // The GPUs: --gpu (repeatable, comma lists), else the devices of a usable driver.
  BinaryTarget target;
  bool gpu_none = false;
  for (const std::string& value : args.get_all("--gpu")) {
    bool none = false;
    std::string error;
    if (!ParseGpuList(value, &target.gpus, &none, &error)) {
      err << "cudyn-check binary: --gpu " << error << "\n";
      return kExitUsage;
    }
    gpu_none = gpu_none || none;
  }
  if (gpu_none && !target.gpus.empty()) {
    err << "cudyn-check binary: --gpu none cannot be combined with GPU architectures\n";
    return kExitUsage;
  }
  std::string gpu_source = target.gpus.empty() ? "none" : "--gpu";
  std::string gpu_note = gpu_none ? "--gpu none" : "";
  const bool gpus_from_driver = target.gpus.empty() && !gpu_none;

  // The target: --target-version, else the driver's effective version.
  Json target_json;
  Json driver_json;
  std::string target_text;
  OpenedDriver opened;
  bool have_version_option = args.has("--target-version");
  if (have_version_option) {
    std::optional<int> v = ParseVersionOption(args.get("--target-version"));
    if (!v) {
      err << "cudyn-check binary: --target-version '" << args.get("--target-version")
          << "' is not a CUDA version (e.g. 11040 or 11.4)\n";
      return kExitUsage;
    }
    target.version = *v;
    target_text = "CUDA " + VersionText(target.version) + " (--target-version)";
    target_json = Json::object();
    target_json["version"] = target.version;
    target_json["version_text"] = ShortVersion(target.version);
    target_json["source"] = "--target-version";
  }
  if (!have_version_option || gpus_from_driver) {
    OpenRequest request;
    if (!ParseOpenRequest(args, "binary", &request, err)) return kExitUsage;
    opened = OpenDriverForCheck(request);
    const bool usable = opened.driver != nullptr && opened.driver->ok();
    if (usable && !have_version_option) {
      target.version = opened.driver->effective_version();
      target_text = "CUDA " + VersionText(target.version) + " (effective version of the driver " +
                    opened.driver->path() + ")";
      target_json = Json::object();
      target_json["version"] = target.version;
      target_json["version_text"] = ShortVersion(target.version);
      target_json["source"] = "driver";
      driver_json = DriverJson(opened);
    } else if (!have_version_option) {
      target_text = "none: no driver found and no --target-version";
      if (opened.driver != nullptr) {
        driver_json = Json::object();
        driver_json["error"] = DriverErrorJson(*opened.driver);
        driver_json["candidates"] = CandidatesJson(opened.driver->candidates());
      }
    }
    if (gpus_from_driver) {
      if (usable) {
        target.gpus = DriverGpus(*opened.driver, &gpu_note);
        if (!target.gpus.empty()) gpu_source = "driver";
      } else {
        gpu_note = "no usable driver to ask";
      }
    }
    if (usable) KeepDriverLoaded(std::move(opened.driver));
  }
  std::vector<std::string> gpu_names;
  for (const layers::GpuArch& g : target.gpus) gpu_names.push_back(g.Name("sm_"));

  int exit_code = kExitOk;
  InputOptions input_options;
  input_options.deps = args.flag("--deps");
  InputSet inputs = CollectInputs(args.positional, input_options);
  std::vector<JudgedInput> results;
  results.reserve(inputs.files.size());
  for (InputFile& f : inputs.files) {
    JudgedInput r;
    r.verdict = JudgeFile(f.analysis, target);
    if (f.analysis.error.empty()) r.minimum = FindMinimumDriver(f.analysis, target.gpus);
    r.input = std::move(f);
    results.push_back(std::move(r));
  }
  if (input_options.deps) ApplyDependencyLayer(inputs, &results);
  for (const JudgedInput& r : results) {
    int code = ExitFor(r.verdict.verdict);
    if (Rank(code) > Rank(exit_code)) exit_code = code;
    if (!r.input.analysis.error.empty()) err << "cudyn-check: " << r.input.analysis.error << "\n";
  }
  // The set summary: when the files are more than the arguments named one by one.
  const bool is_set = input_options.deps || results.size() != args.positional.size() ||
                      std::any_of(results.begin(), results.end(), [](const JudgedInput& r) {
                        return r.input.origin != InputOrigin::kArgument;
                      });
  const SetMinimum set_minimum = FindSetMinimum(results);

  if (args.json) {
    Json j = Json::object();
    j["command"] = "binary";
    j["target"] = target_json;
    j["driver"] = have_version_option ? Json() : driver_json;
    Json gpus = Json::object();
    Json archs = Json::array();
    for (const std::string& g : gpu_names) archs.push_back(g);
    gpus["archs"] = std::move(archs);
    gpus["source"] = gpu_source;
    gpus["note"] = gpu_note.empty() ? Json() : Json(gpu_note);
    j["gpus"] = std::move(gpus);
    Json files = Json::array();
    for (const JudgedInput& r : results) {
      Json f = BinaryFileJson(r.input.analysis, r.verdict, target.version);
      AddInputFields(r, &f);
      files.push_back(std::move(f));
    }
    j["files"] = std::move(files);
    j["set"] = InputSetJson(inputs, results, set_minimum);
    j["exit_code"] = exit_code;
    out << JsonText(j);
    return exit_code;
  }
  out << "target: " << target_text << "\n";
  if (target.version == 0 && opened.driver != nullptr && !opened.driver->ok()) {
    out << "driver candidates tried:\n";
    PrintCandidates(out, opened.driver->candidates(), "  ");
  }
  if (!gpu_names.empty()) {
    out << "gpu: " << Join(gpu_names, ", ") << " (" << gpu_source << ")\n";
  } else {
    out << "gpu: none (" << (gpu_note.empty() ? "no --gpu" : gpu_note)
        << "): kernel verdicts that depend on the GPU are unknown\n";
  }
  int counts[6] = {0, 0, 0, 0, 0, 0};
  for (const JudgedInput& r : results) {
    ++counts[static_cast<int>(r.verdict.verdict)];
    const BinaryAnalysis& a = r.input.analysis;
    if (a.error.empty() && r.input.origin != InputOrigin::kArgument && !HasCudaContent(a)) {
      continue;  // summarised in one line below
    }
    out << "\n";
    if (!a.error.empty()) {
      out << a.path << "\n  error: " << a.error << "\n";
    } else {
      PrintBinaryFile(out, a, r.verdict, target.version, &r.minimum);
    }
    if (r.input.origin == InputOrigin::kDependency) {
      out << "  needed by " << r.input.needed_by << " as " << r.input.needed_as << " (found by "
          << r.input.found_by << ")\n";
    }
  }
  if (is_set) PrintInputSetSummary(out, inputs, results, set_minimum);
  out << "\n" << results.size() << (results.size() == 1 ? " file: " : " files: ");
  std::vector<std::string> parts;
  const Verdict order[] = {Verdict::kCompatible, Verdict::kIncompatible, Verdict::kPortable,
                           Verdict::kUndecided, Verdict::kNotApplicable, Verdict::kError};
  for (Verdict verdict : order) {
    int n = counts[static_cast<int>(verdict)];
    if (n > 0) parts.push_back(std::to_string(n) + " " + VerdictName(verdict));
  }
  out << Join(parts, ", ") << " (exit " << exit_code << ")\n";
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
