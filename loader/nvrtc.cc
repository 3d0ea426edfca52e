// NVRTC (libnvrtc) discovery, version, acceptance by the driver's PTX ISA and per-entry binding.
// See nvrtc.h.
#include "loader/nvrtc.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "loader/core.h"
#include "loader/nvrtc_rule.h"

namespace cudyn {
namespace {

// NVRTC's identity for the core's open step: every real libnvrtc exports nvrtcVersion; cudyn's
// own drop-in (libcudyn_nvrtc.so) also exports cudynNvrtcEntryCount.
constexpr internal::LibraryIdentity kNvrtcIdentity = {"nvrtcVersion", "cudynNvrtcEntryCount"};

using NvrtcVersionFn = int (*)(int*, int*);

constexpr std::string_view kSymbols[] = {
#define CUDYN_NVRTC_ENTRY(index, ret, symbol, params, args) #symbol,
#include "version_tables/generated_nvrtc/nvrtc_entries.inc"
#undef CUDYN_NVRTC_ENTRY
};
static_assert(sizeof(kSymbols) / sizeof(kSymbols[0]) == kNvrtcEntryCount, "nvrtc_entries.inc");

struct NvrtcRule {
  int index;
  int version;             // the real NVRTC these facts are of
  const char* candidates;  // "a\0b\0" (ends at the empty string)
  const char* reason;      // why missing ("" when candidates exist)
};
constexpr NvrtcRule kRules[] = {
#define CUDYN_NVRTC_RULE(index, version, candidates, reason) {index, version, candidates, reason},
#include "version_tables/generated_nvrtc/nvrtc_rules.inc"
#undef CUDYN_NVRTC_RULE
};

struct NvrtcVersionFact {
  int version;
  const char* soname;
};
constexpr NvrtcVersionFact kVersions[] = {
#define CUDYN_NVRTC_VERSION(version, soname) {version, soname},
#include "version_tables/generated_nvrtc/nvrtc_versions.inc"
#undef CUDYN_NVRTC_VERSION
};

// The real version whose rules an NVRTC of `version` binds with: the newest known one at or below
// it, else the oldest.
int RulesVersionFor(int version) {
  int best = 0;
  for (const NvrtcVersionFact& v : kVersions) {
    if (v.version <= version && v.version > best) best = v.version;
  }
  return best != 0 ? best : kVersions[0].version;
}

const NvrtcRule* RuleFor(int index, int rules_version) {
  for (const NvrtcRule& r : kRules) {
    if (r.index == index && r.version == rules_version) return &r;
  }
  return nullptr;
}

std::string IsaText(int isa) { return std::to_string(isa / 10) + "." + std::to_string(isa % 10); }

std::string CudaText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The default driver's effective version, 0 without a usable one.
int DefaultDriverVersion() {
  Driver& driver = DefaultDriver();
  return driver.ok() ? driver.effective_version() : 0;
}

}  // namespace

std::string_view NvrtcSymbol(int index) {
  return index >= 0 && index < kNvrtcEntryCount ? kSymbols[index] : std::string_view();
}

std::vector<std::string> NvrtcSonames() { return internal::SonamesNewestFirst(kVersions); }

std::vector<PlannedNvrtc> NvrtcSearchPlan(const std::string& root) {
  // The nvidia-cuda-nvrtc-cu11/-cu12 wheels install nvidia/cuda_nvrtc/lib, the CUDA 13 ones
  // nvidia/cu13/lib.
  return internal::ToolkitSearchPlan<PlannedNvrtc>(root, NvrtcSonames(), "libnvrtc.so.",
                                                   "/nvidia/cuda_nvrtc/lib");
}

const char* NvrtcSourceName(NvrtcSource source) {
  switch (source) {
    case NvrtcSource::kOption:
      return "option";
    case NvrtcSource::kEnvironment:
      return "CUDYN_NVRTC_PATH";
    case NvrtcSource::kDefaultSearch:
      return "default search";
    case NvrtcSource::kCudaHome:
      return "CUDA_HOME";
    case NvrtcSource::kPythonWheel:
      return "python wheel";
    case NvrtcSource::kWellKnownDirectory:
      return "well-known directory";
    case NvrtcSource::kSearchPath:
      return "search path";
  }
  return "unknown";
}

const char* NvrtcRejectionName(NvrtcRejection rejection) {
  switch (rejection) {
    case NvrtcRejection::kNone:
      return "accepted";
    case NvrtcRejection::kIgnoredSecure:
      return "ignored_secure";
    case NvrtcRejection::kNotAbsolute:
      return "not_absolute";
    case NvrtcRejection::kUnloadableFile:
      return "unloadable_file";
    case NvrtcRejection::kNotLoaded:
      return "not_loaded";
    case NvrtcRejection::kDlopenFailed:
      return "dlopen_failed";
    case NvrtcRejection::kIsCudyn:
      return "is_cudyn";
    case NvrtcRejection::kNotNvrtc:
      return "not_nvrtc";
    case NvrtcRejection::kPtxTooNew:
      return "ptx_too_new";
  }
  return "unknown";
}

// NVRTC's binding rules, for the core's entry table (loader/core.h).
struct NvrtcPolicy {
  static internal::Binding Bind(void* self, int index, internal::BindMode) {
    Nvrtc& n = *static_cast<Nvrtc*>(self);
    const NvrtcRule* rule = RuleFor(index, n.rules_version_);
    return rule != nullptr ? internal::BindFirstExported(n.handle_, rule->candidates)
                           : internal::Binding();
  }
  static std::string MissingText(const void* self, int index) {
    return static_cast<const Nvrtc*>(self)->MissingText(index);
  }
  static std::string AdapterText(const void*, int) { return std::string(); }
};

const internal::LibraryPolicy Nvrtc::kPolicy = {&NvrtcPolicy::Bind, &NvrtcPolicy::MissingText,
                                               &NvrtcPolicy::AdapterText};

std::atomic<void*> g_default_nvrtc_slots[kNvrtcEntryCount];

std::atomic<void*>* Nvrtc::DefaultSlots() { return g_default_nvrtc_slots; }

Nvrtc::Nvrtc() : slots_(g_default_nvrtc_slots) {}

// NVRTC stays loaded: its compiles leave threads and builtins behind (and see TryCandidate).
Nvrtc::~Nvrtc() = default;

std::unique_ptr<Nvrtc> Nvrtc::Open(const NvrtcOptions& options) {
  return internal::OpenLibrary<Nvrtc>(options, nullptr);
}

// A candidate loaded and judged by its version: a searched one whose SONAME RefuseNvrtcSoname
// refused never gets here (the core recorded it unloaded), an explicit one always does.
bool Nvrtc::TryCandidate(const std::string& path, NvrtcSource source) {
  const bool is_explicit = source == NvrtcSource::kOption || source == NvrtcSource::kEnvironment;
  internal::OpenedLibrary opened = internal::OpenCandidate(path, false, kNvrtcIdentity);
  if (internal::RecordOpenRefusal(&opened, path, source, NvrtcRejection::kNotNvrtc,
                                  "exports no nvrtcVersion: not an NVRTC library", &candidates_)) {
    return false;
  }
  int major = 0, minor = 0;
  const int rc = reinterpret_cast<NvrtcVersionFn>(opened.version_function)(&major, &minor);
  const int version = major * 1000 + minor * 10;
  if (rc != 0 || !internal::IsPlausibleCudaVersion(version)) {
    internal::AddCandidate(&candidates_, opened.loaded_path, source, NvrtcRejection::kNotNvrtc,
                           "nvrtcVersion answered " + std::to_string(rc) + " (" +
                               std::to_string(major) + "." + std::to_string(minor) + ")");
    return false;  // stays loaded: see below
  }
  const int isa = NvrtcPtxIsa(version);
  const int needs = NvrtcMinDriver(version);
  const std::string emits = "NVRTC " + CudaText(version) + " emits PTX ISA " + IsaText(isa) +
                            " (JIT by CUDA " + CudaText(needs) + "+)";
  if (driver_version_ > 0 && !NvrtcUsableBy(version, driver_version_)) {
    const std::string why = emits + ": the driver (CUDA " + CudaText(driver_version_) +
                            ") cannot load it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)";
    if (!is_explicit) {
      NvrtcCandidate& c = internal::AddCandidate(&candidates_, opened.loaded_path, source,
                                                 NvrtcRejection::kPtxTooNew, why);
      c.version = version;
      c.ptx_isa = isa;
      c.min_driver = needs;
      // A refused NVRTC stays loaded, unused (RTLD_LOCAL: nothing binds to it). Each links its
      // own libstdc++, whose constructor allocates the 72 KiB exception emergency pool that
      // nothing frees: unloading it would leak that pool (LeakSanitizer reports one per refused
      // NVRTC of the real 11.2-13.0 libraries); what stays is mostly untouched mappings.
      return false;
    }
    warnings_.push_back("explicit NVRTC taken although " + why);
    internal::Warn(warnings_.back());
  }
  handle_ = opened.handle;
  path_ = opened.loaded_path;
  LoadBuiltins(major, minor);
  found_by_ = source;
  version_ = version;
  ptx_isa_ = isa;
  rules_version_ = RulesVersionFor(version);
  NvrtcCandidate& c = internal::AddCandidate(
      &candidates_, path_, source, NvrtcRejection::kNone,
      "accepted: " + emits +
          (driver_version_ > 0 ? ", the driver is CUDA " + CudaText(driver_version_)
                               : std::string(", no driver to compare with")));
  c.version = version;
  c.ptx_isa = isa;
  c.min_driver = needs;
  return true;
}

// NVRTC dlopens libnvrtc-builtins.so.<major.minor> by its bare name at its first compile (the
// Debian 11.2-12.5 and the 13.0 toolkit libraries carry no RUNPATH): from anywhere but the
// dynamic linker's search it fails with NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7). The copy in
// the chosen NVRTC's own directory is loaded here first, so that name is then found loaded.
void Nvrtc::LoadBuiltins(int major, int minor) {
  const std::string name =
      "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
  if (void* loaded = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    dlclose(loaded);  // one is loaded already; NVRTC will find it
    builtins_ = name + " (already loaded)";
    return;
  }
  const std::string file = path_.substr(0, path_.rfind('/') + 1) + name;
  if (path_.find('/') == std::string::npos || !internal::FileExists(file)) {
    builtins_ = name + " (not beside " + path_ + ": left to NVRTC's own search)";
    return;
  }
  if (dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL) != nullptr) {
    builtins_ = file;
  } else {
    const char* why = dlerror();
    builtins_ = file + " (dlopen failed: " + (why != nullptr ? why : "?") + ")";
    warnings_.push_back("NVRTC's builtins " + builtins_);
  }
}

namespace {

// NVRTC's rule on a SONAME alone (the core asks before dlopen, for a file or a bare name of the
// default search): refused when even the oldest release under it (libnvrtc.so.12: 12.0;
// libnvrtc.so.11.2: 11.2) emits PTX the driver cannot JIT, as every later release emits the same
// ISA or a newer one. Loading it would cost the dlopen and leave the refused library's libstdc++
// pool behind (see TryCandidate).
std::optional<internal::SonameRefusal> RefuseNvrtcSoname(const std::string& soname,
                                                         int driver_version) {
  static constexpr char kPrefix[] = "libnvrtc.so.";
  if (soname.rfind(kPrefix, 0) != 0) return std::nullopt;
  const char* digits = soname.c_str() + sizeof(kPrefix) - 1;
  char* end = nullptr;
  const long major = std::strtol(digits, &end, 10);
  long minor = 0;
  if (end != digits && *end == '.') minor = std::strtol(end + 1, nullptr, 10);
  const int oldest = static_cast<int>(major * 1000 + minor * 10);
  if (end == digits || major < 1 || major > 99 || minor < 0 || minor > 99 ||
      !internal::IsPlausibleCudaVersion(oldest) || NvrtcUsableBy(oldest, driver_version)) {
    return std::nullopt;
  }
  internal::SonameRefusal refusal;
  refusal.reason = "NVRTC " + CudaText(oldest) + "+ (SONAME " + soname + ") emits PTX ISA " +
                   IsaText(NvrtcPtxIsa(oldest)) + " or newer (JIT by CUDA " +
                   CudaText(NvrtcMinDriver(oldest)) + "+): the driver (CUDA " +
                   CudaText(driver_version) +
                   ") cannot load it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION; not loaded)";
  refusal.min_driver = NvrtcMinDriver(oldest);
  return refusal;
}

}  // namespace

// NVRTC's policy for the core's toolkit discovery (loader/core.h).
constexpr internal::ToolkitSearch<PlannedNvrtc, NvrtcCandidate> kNvrtcSearch = {
    "CUDYN_NVRTC_PATH", "NVRTC", &NvrtcSonames, &NvrtcSearchPlan, &DefaultDriverVersion,
    &RefuseNvrtcSoname, NvrtcRejection::kPtxTooNew};

void Nvrtc::Discover(const NvrtcOptions& options) {
  const bool accepted = internal::DiscoverToolkitLibrary(
      kNvrtcSearch, options, options.nvrtc_path, &driver_version_, &candidates_, &warnings_,
      [this](const std::string& path, NvrtcSource source) { return TryCandidate(path, source); });
  if (!accepted) {
    error_ = kNvrtcErrorInternalError;
    table_->SetLastError("cudyn: no usable NVRTC (libnvrtc) for this driver (CUDA " +
                         CudaText(driver_version_) + ": an NVRTC's PTX must be JIT-able by it); tried:" +
                         internal::TriedText(candidates_, NvrtcSourceName));
    internal::Warn(table_->last_error());
    return;
  }
  error_ = kNvrtcSuccess;
  internal::LogAt(internal::LogLevel::kInfo, "NVRTC ", path_, " (found by ",
                  NvrtcSourceName(found_by_), "), CUDA ", version_, ", PTX ISA ", IsaText(ptx_isa_),
                  ", driver ", driver_version_, ", builtins ", builtins_);
}

void* Nvrtc::ResolveSlow(int index) {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kCall) : nullptr;
}

int Nvrtc::BindAll() { return table_ != nullptr ? table_->BindAll() : kNvrtcEntryCount; }

EntryStatus Nvrtc::status(int index) const {
  if (table_ != nullptr) return static_cast<EntryStatus>(table_->status(index));
  return index >= 0 && index < kNvrtcEntryCount ? EntryStatus::kMissing : EntryStatus::kUnbound;
}

std::string Nvrtc::MissingText(int index) const {
  const NvrtcRule* rule = RuleFor(index, rules_version_);
  return "cudyn: " + std::string(NvrtcSymbol(index)) + " is not provided by " + path_ +
         " (NVRTC " + CudaText(version_) + "): " +
         (rule != nullptr && rule->reason[0] != '\0' ? rule->reason : "not exported") +
         "; answering NVRTC_ERROR_INVALID_INPUT";
}

std::string Nvrtc::last_error() const noexcept {
  return table_ != nullptr ? table_->last_error() : std::string();
}

Nvrtc& DefaultNvrtc() { return internal::DefaultInstance<Nvrtc>(); }

void* ResolveDefaultNvrtcSlow(int index) { return DefaultNvrtc().ResolveSlow(index); }

}  // namespace cudyn
