// cuBLAS (libcublas) discovery, version, acceptance by the driver's CUDA major and per-entry
// binding. See cublas.h.
#include "loader/cublas.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "loader/core.h"
#include "loader/cudart_family.h"

namespace cudyn {
namespace {

// cuBLAS's identity for the core's open step: every real libcublas exports cublasGetProperty;
// a cudyn drop-in would also export cudynCublasEntryCount.
constexpr internal::LibraryIdentity kCublasIdentity = {"cublasGetProperty",
                                                       "cudynCublasEntryCount"};

// cublasGetProperty(libraryPropertyType, int*): MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2.
using CublasGetPropertyFn = int (*)(int, int*);
using CublasGetCudartVersionFn = size_t (*)();

constexpr std::string_view kSymbols[] = {
#define CUDYN_CUBLAS_ENTRY(index, ret, symbol, params, args) #symbol,
#include "version_tables/generated_cublas/cublas_entries.inc"
#undef CUDYN_CUBLAS_ENTRY
};
static_assert(sizeof(kSymbols) / sizeof(kSymbols[0]) == kCublasEntryCount, "cublas_entries.inc");

struct CublasRule {
  int index;
  int version;             // the real cuBLAS (by its CUDA release) these facts are of
  const char* candidates;  // "a\0b\0" (ends at the empty string)
  const char* reason;      // why missing ("" when candidates exist)
};
constexpr CublasRule kRules[] = {
#define CUDYN_CUBLAS_RULE(index, version, candidates, reason) {index, version, candidates, reason},
#include "version_tables/generated_cublas/cublas_rules.inc"
#undef CUDYN_CUBLAS_RULE
};

struct CublasVersionFact {
  int version;
  const char* soname;
};
constexpr CublasVersionFact kVersions[] = {
#define CUDYN_CUBLAS_VERSION(version, soname) {version, soname},
#include "version_tables/generated_cublas/cublas_versions.inc"
#undef CUDYN_CUBLAS_VERSION
};

// The real version whose rules a cuBLAS of `major`.`minor` binds with: the newest CUDA release of
// the facts at or below 1000*major + 10*minor (cuBLAS 11.11 of CUDA 11.8 -> 11.8, 13.1 of the 13.0
// toolkit -> 13.0), else the oldest.
int RulesVersionFor(int major, int minor) {
  const int version = major * 1000 + minor * 10;
  int best = 0;
  for (const CublasVersionFact& v : kVersions) {
    if (v.version <= version && v.version > best) best = v.version;
  }
  return best != 0 ? best : kVersions[0].version;
}

const CublasRule* RuleFor(int index, int rules_version) {
  for (const CublasRule& r : kRules) {
    if (r.index == index && r.version == rules_version) return &r;
  }
  return nullptr;
}

std::string CudaText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string CublasText(int version) {
  return std::to_string(version / 10000) + "." + std::to_string(version % 10000 / 100) + "." +
         std::to_string(version % 100);
}

// The default driver's effective version, 0 without a usable one.
int DefaultDriverVersion() {
  Driver& driver = DefaultDriver();
  return driver.ok() ? driver.effective_version() : 0;
}

}  // namespace

std::string_view CublasSymbol(int index) {
  return index >= 0 && index < kCublasEntryCount ? kSymbols[index] : std::string_view();
}

int CublasMinDriver(int major) { return CudartFamilyMinDriver(major, 0); }

std::vector<std::string> CublasSonames() { return internal::SonamesNewestFirst(kVersions); }

std::vector<PlannedCublas> CublasSearchPlan(const std::string& root) {
  // The nvidia-cublas-cu11/-cu12 wheels install nvidia/cublas/lib, the CUDA 13 ones nvidia/cu13/lib.
  return internal::ToolkitSearchPlan<PlannedCublas>(root, CublasSonames(), "libcublas.so.",
                                                   "/nvidia/cublas/lib");
}

const char* CublasSourceName(CublasSource source) {
  switch (source) {
    case CublasSource::kOption:
      return "option";
    case CublasSource::kEnvironment:
      return "CUDYN_CUBLAS_PATH";
    case CublasSource::kDefaultSearch:
      return "default search";
    case CublasSource::kCudaHome:
      return "CUDA_HOME";
    case CublasSource::kPythonWheel:
      return "python wheel";
    case CublasSource::kWellKnownDirectory:
      return "well-known directory";
    case CublasSource::kSearchPath:
      return "search path";
  }
  return "unknown";
}

const char* CublasRejectionName(CublasRejection rejection) {
  switch (rejection) {
    case CublasRejection::kNone:
      return "accepted";
    case CublasRejection::kIgnoredSecure:
      return "ignored_secure";
    case CublasRejection::kNotAbsolute:
      return "not_absolute";
    case CublasRejection::kUnloadableFile:
      return "unloadable_file";
    case CublasRejection::kNotLoaded:
      return "not_loaded";
    case CublasRejection::kDlopenFailed:
      return "dlopen_failed";
    case CublasRejection::kIsCudyn:
      return "is_cudyn";
    case CublasRejection::kNotCublas:
      return "not_cublas";
    case CublasRejection::kDriverTooOld:
      return "driver_too_old";
  }
  return "unknown";
}

// cuBLAS's binding rules, for the core's entry table (loader/core.h).
struct CublasPolicy {
  static internal::Binding Bind(void* self, int index, internal::BindMode) {
    Cublas& b = *static_cast<Cublas*>(self);
    const CublasRule* rule = RuleFor(index, b.rules_version_);
    if (rule == nullptr) return internal::Binding();
    internal::Binding binding = internal::BindFirstExported(b.handle_, rule->candidates);
    // Not exported by the real version whose facts apply: a newer cuBLAS than the facts know may
    // export it under its own name (never one the facts say is declared otherwise).
    if (rule->candidates[0] == '\0' && std::strncmp(rule->reason, "not exported", 12) == 0) {
      const std::string own(CublasSymbol(index));
      void* fn = dlsym(b.handle_, own.c_str());
      if (fn != nullptr && !internal::IsCudynFunction(fn)) {
        binding.fn = fn;
        binding.status = internal::SlotState::kNative;
      }
    }
    return binding;
  }
  static std::string MissingText(const void* self, int index) {
    return static_cast<const Cublas*>(self)->MissingText(index);
  }
  static std::string AdapterText(const void*, int) { return std::string(); }
};

const internal::LibraryPolicy Cublas::kPolicy = {&CublasPolicy::Bind, &CublasPolicy::MissingText,
                                                &CublasPolicy::AdapterText};

std::atomic<void*> g_default_cublas_slots[kCublasEntryCount];

std::atomic<void*>* Cublas::DefaultSlots() { return g_default_cublas_slots; }

Cublas::Cublas() : slots_(g_default_cublas_slots) {}

// cuBLAS stays loaded (as NVRTC: a refused or released one would leak its libstdc++'s pool).
Cublas::~Cublas() = default;

std::unique_ptr<Cublas> Cublas::Open(const CublasOptions& options) {
  return internal::OpenLibrary<Cublas>(options, nullptr);
}

// A candidate loaded and judged by its version: a searched one whose SONAME RefuseCublasSoname
// refused never gets here (the core recorded it unloaded), an explicit one always does.
bool Cublas::TryCandidate(const std::string& path, CublasSource source) {
  const bool is_explicit = source == CublasSource::kOption || source == CublasSource::kEnvironment;
  // Its own libcublasLt first, by its path: the cuBLAS's DT_NEEDED then matches it by SONAME
  // (LD_LIBRARY_PATH, searched before its RUNPATH $ORIGIN, would otherwise give it another's).
  // Our handle is closed whatever the outcome: an accepted (or refused but loaded) cuBLAS holds
  // its Lt as a dependency; a file refused and closed takes the Lt with it.
  struct LtHandle {
    void* handle;
    ~LtHandle() {
      if (handle != nullptr) dlclose(handle);
    }
  } lt{OpenCublasLtBeside(path)};
  internal::OpenedLibrary opened = internal::OpenCandidate(path, false, kCublasIdentity);
  if (internal::RecordOpenRefusal(&opened, path, source, CublasRejection::kNotCublas,
                                  "exports no cublasGetProperty: not a cuBLAS library",
                                  &candidates_)) {
    return false;
  }
  auto get_property = reinterpret_cast<CublasGetPropertyFn>(opened.version_function);
  int major = -1, minor = -1, patch = -1;
  const int rc0 = get_property(0, &major), rc1 = get_property(1, &minor),
            rc2 = get_property(2, &patch);
  if (rc0 != 0 || rc1 != 0 || rc2 != 0 || major < 1 || major > 99 || minor < 0 || minor > 99 ||
      patch < 0 || patch > 99) {
    internal::AddCandidate(&candidates_, opened.loaded_path, source, CublasRejection::kNotCublas,
                           "cublasGetProperty answered " + std::to_string(rc0) + "/" +
                               std::to_string(rc1) + "/" + std::to_string(rc2) + " (" +
                               std::to_string(major) + "." + std::to_string(minor) + "." +
                               std::to_string(patch) + ")");
    return false;
  }
  const int version = major * 10000 + minor * 100 + patch;
  int cudart = 0;
  if (auto cv = reinterpret_cast<CublasGetCudartVersionFn>(
          dlsym(opened.handle, "cublasGetCudartVersion"))) {
    cudart = static_cast<int>(cv());
  }
  const int needs = CublasMinDriver(major);
  const std::string what = "cuBLAS " + CublasText(version) + " (CUDA " + std::to_string(major) +
                           " runtime inside" +
                           (cudart > 0 ? ", built with " + CudaText(cudart) : std::string()) +
                           ") runs on CUDA " + CudaText(needs) + "+ drivers";
  if (driver_version_ > 0 && driver_version_ < needs) {
    const std::string why = what + ": the driver (CUDA " + CudaText(driver_version_) +
                            ") is too old for it";
    if (!is_explicit) {
      CublasCandidate& c = internal::AddCandidate(&candidates_, opened.loaded_path, source,
                                                  CublasRejection::kDriverTooOld, why);
      c.version = version;
      c.cudart_version = cudart;
      c.min_driver = needs;
      return false;  // stays loaded, unused (RTLD_LOCAL: nothing binds to it)
    }
    warnings_.push_back("explicit cuBLAS taken although " + why);
    internal::Warn(warnings_.back());
  }
  handle_ = opened.handle;
  path_ = opened.loaded_path;
  found_by_ = source;
  version_ = version;
  cudart_version_ = cudart;
  rules_version_ = RulesVersionFor(major, minor);
  NoteCublasLt(lt.handle != nullptr);
  CublasCandidate& c = internal::AddCandidate(
      &candidates_, path_, source, CublasRejection::kNone,
      "accepted: " + what +
          (driver_version_ > 0 ? ", the driver is CUDA " + CudaText(driver_version_)
                               : std::string(", no driver to compare with")));
  c.version = version;
  c.cudart_version = cudart;
  c.min_driver = needs;
  c.cublaslt = cublaslt_;
  return true;
}

// The libcublasLt.so.<major> beside a cuBLAS file (its SONAME libcublas.so.<major>), dlopen'ed by
// its path when it is one (its own SONAME says so); null for a bare name of the default search
// (no directory: the dynamic linker's own search decides), a file of another SONAME, or no Lt
// beside it.
void* Cublas::OpenCublasLtBeside(const std::string& path) {
  static constexpr char kPrefix[] = "libcublas.so.";
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return nullptr;
  const std::string soname = internal::ReadElfSoname(path);
  if (soname.rfind(kPrefix, 0) != 0) return nullptr;
  const std::string lt_name = "libcublasLt.so." + soname.substr(sizeof(kPrefix) - 1);
  const std::string lt = path.substr(0, slash + 1) + lt_name;
  if (internal::ReadElfSoname(lt) != lt_name) return nullptr;
  return dlopen(lt.c_str(), RTLD_LAZY | RTLD_LOCAL);
}

// The real libcublas needs libcublasLt.so.<major> by bare name: the one beside it when
// TryCandidate loaded that first (`own_lt`), else whatever the dynamic linker found
// (LD_LIBRARY_PATH, its RUNPATH $ORIGIN, or one of that SONAME already loaded). Which file the
// process has is recorded, with a warning when it is not the chosen cuBLAS's neighbour (one of
// that SONAME was loaded before: the dynamic linker matches the first).
void Cublas::NoteCublasLt(bool own_lt) {
  const std::string name = "libcublasLt.so." + std::to_string(major());
  void* lt = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (lt == nullptr) {
    cublaslt_ = name + " (not loaded)";
    return;
  }
  struct link_map* map = nullptr;
  if (dlinfo(lt, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    cublaslt_ = map->l_name;
  } else {
    cublaslt_ = name;
  }
  dlclose(lt);
  const std::string beside = path_.substr(0, path_.rfind('/') + 1) + name;
  if (path_.find('/') != std::string::npos && internal::FileExists(beside) &&
      internal::RealPath(beside) != internal::RealPath(cublaslt_)) {
    warnings_.push_back("cuBLAS " + path_ + " uses " + cublaslt_ + ", not the " + name +
                        " beside it (one of that name was loaded first)");
  } else if (own_lt) {
    internal::LogAt(internal::LogLevel::kDebug, "cuBLAS ", path_, ": its own ", cublaslt_,
                    " loaded first, by its path");
  }
}

namespace {

// cuBLAS's rule on a SONAME alone (the core asks before dlopen, for a file or a bare name of the
// default search): libcublas.so.M carries the CUDA M runtime, which needs a CUDA M.0 driver. A
// cuBLAS dlopen'ed to be refused (with its libcublasLt) costs ~0.6 s and hundreds of MB of
// mappings, and stays mapped.
std::optional<internal::SonameRefusal> RefuseCublasSoname(const std::string& soname,
                                                          int driver_version) {
  static constexpr char kPrefix[] = "libcublas.so.";
  if (soname.rfind(kPrefix, 0) != 0) return std::nullopt;
  const int major = std::atoi(soname.c_str() + sizeof(kPrefix) - 1);
  if (major < 1 || major > 99 || driver_version >= CublasMinDriver(major)) return std::nullopt;
  internal::SonameRefusal refusal;
  refusal.reason = "cuBLAS " + std::to_string(major) + ".x (SONAME " + soname + ": the CUDA " +
                   std::to_string(major) + " runtime inside) runs on CUDA " +
                   CudaText(CublasMinDriver(major)) + "+ drivers: the driver (CUDA " +
                   CudaText(driver_version) + ") is too old for it (not loaded)";
  refusal.min_driver = CublasMinDriver(major);
  return refusal;
}

}  // namespace

// cuBLAS's policy for the core's toolkit discovery (loader/core.h).
constexpr internal::ToolkitSearch<PlannedCublas, CublasCandidate> kCublasSearch = {
    "CUDYN_CUBLAS_PATH", "cuBLAS", &CublasSonames, &CublasSearchPlan, &DefaultDriverVersion,
    &RefuseCublasSoname, CublasRejection::kDriverTooOld};

void Cublas::Discover(const CublasOptions& options) {
  const bool accepted = internal::DiscoverToolkitLibrary(
      kCublasSearch, options, options.cublas_path, &driver_version_, &candidates_, &warnings_,
      [this](const std::string& path, CublasSource source) { return TryCandidate(path, source); });
  if (!accepted) {
    error_ = kCublasStatusNotInitialized;
    table_->SetLastError("cudyn: no usable cuBLAS (libcublas) for this driver (CUDA " +
                         CudaText(driver_version_) +
                         ": a cuBLAS of major M needs a CUDA M.0+ driver); tried:" +
                         internal::TriedText(candidates_, CublasSourceName));
    internal::Warn(table_->last_error());
    return;
  }
  error_ = kCublasSuccess;
  internal::LogAt(internal::LogLevel::kInfo, "cuBLAS ", path_, " (found by ",
                  CublasSourceName(found_by_), "), version ", CublasText(version_), ", runtime ",
                  cudart_version_, ", driver ", driver_version_, ", cublasLt ", cublaslt_);
}

void* Cublas::ResolveSlow(int index) {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kCall) : nullptr;
}

int Cublas::BindAll() { return table_ != nullptr ? table_->BindAll() : kCublasEntryCount; }

EntryStatus Cublas::status(int index) const {
  if (table_ != nullptr) return static_cast<EntryStatus>(table_->status(index));
  return index >= 0 && index < kCublasEntryCount ? EntryStatus::kMissing : EntryStatus::kUnbound;
}

std::string Cublas::MissingText(int index) const {
  const CublasRule* rule = RuleFor(index, rules_version_);
  return "cudyn: " + std::string(CublasSymbol(index)) + " is not provided by " + path_ +
         " (cuBLAS " + CublasText(version_) + "): " +
         (rule != nullptr && rule->reason[0] != '\0' ? rule->reason : "not exported") +
         "; answering CUBLAS_STATUS_NOT_SUPPORTED";
}

std::string Cublas::last_error() const noexcept {
  return table_ != nullptr ? table_->last_error() : std::string();
}

Cublas& DefaultCublas() { return internal::DefaultInstance<Cublas>(); }

void* ResolveDefaultCublasSlow(int index) { return DefaultCublas().ResolveSlow(index); }

}  // namespace cudyn
