// Runtime (libcudart) discovery, family, version and per-entry binding. See cudart.h.
#include "loader/cudart.h"

#include "loader/cudart_family.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "loader/internal.h"
#include "loader/kernel_rule.h"
#include "version_tables/cuda_driver_api.h"

namespace cudyn {
namespace {

using RuntimeGetVersionFn = int (*)(int*);

const internal::LibraryIdentity& kRuntimeIdentity = internal::kCudaRuntimeIdentity;

// A driver version newer than every family: CudartSonamesForDriver() of it lists them all.
constexpr int kAnyDriver = 99999;

// Every SONAME a runtime family has had, newest first, with the driver each needs (the rule is
// loader/cudart_family.h's).
struct RuntimeSoname {
  std::string soname;
  int family;
  int min_driver;  // CUDA version of the oldest driver that runs it
};
std::vector<RuntimeSoname> AllRuntimeSonames() {
  std::vector<RuntimeSoname> out;
  for (std::string& name : CudartSonamesForDriver(kAnyDriver)) {
    int family = 0, minor = -1;
    ParseCudartSoname(name, &family, &minor);
    out.push_back({std::move(name), family, CudartFamilyMinDriver(family, minor)});
  }
  return out;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// DT_SONAME of a loaded object ("" if none).
std::string LoadedSoname(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_ld == nullptr) {
    return "";
  }
  const char* strtab = nullptr;
  long soname = -1;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
    if (d->d_tag == DT_SONAME) soname = static_cast<long>(d->d_un.d_val);
  }
  return strtab != nullptr && soname >= 0 ? std::string(strtab + soname) : std::string();
}

}  // namespace

RuntimeSearchInputs ReadRuntimeSearchInputs(const std::string& root) {
  internal::SearchInputs found = internal::ReadSearchInputs(root);
  RuntimeSearchInputs in;
  in.root = std::move(found.root);
  in.cuda_home = std::move(found.cuda_home);
  in.cuda_path = std::move(found.cuda_path);
  in.conda_prefix = std::move(found.conda_prefix);
  in.site_packages = std::move(found.site_packages);
  in.toolkits = std::move(found.toolkits);
  return in;
}

std::vector<PlannedRuntime> RuntimeSearchPlan(const RuntimeSearchInputs& in, int driver_version) {
  const internal::SearchInputs inputs = {in.root, in.cuda_home, in.cuda_path, in.conda_prefix,
                                         in.site_packages, in.toolkits};
  std::vector<PlannedRuntime> plan;
  for (const std::string& soname : CudartSonamesForDriver(driver_version > 0 ? driver_version
                                                                              : kAnyDriver)) {
    int family = 0, minor = -1;
    ParseCudartSoname(soname, &family, &minor);
    // The runtime wheels: nvidia-cuda-runtime-cu11/-cu12 install nvidia/cuda_runtime/lib, the
    // CUDA 13 ones nvidia/cu13/lib.
    const std::string wheel = family >= 13 ? "/nvidia/cu" + std::to_string(family) + "/lib"
                                           : "/nvidia/cuda_runtime/lib";
    for (const internal::SearchDirectory& d : internal::SearchDirectories(inputs, wheel)) {
      switch (d.place) {
        case internal::SearchPlace::kDefaultSearch:
          plan.push_back({soname, RuntimeSource::kDefaultSearch, family});
          break;
        case internal::SearchPlace::kCudaHome:
          plan.push_back({d.dir + "/" + soname, RuntimeSource::kCudaHome, family});
          break;
        case internal::SearchPlace::kPythonWheel:
          plan.push_back({d.dir + "/" + soname, RuntimeSource::kPythonWheel, family});
          break;
        case internal::SearchPlace::kWellKnownDirectory:
          plan.push_back({d.dir + "/" + soname, RuntimeSource::kWellKnownDirectory, family});
          break;
      }
    }
  }
  return plan;
}

const char* RuntimeSourceName(RuntimeSource source) {
  switch (source) {
    case RuntimeSource::kOption:
      return "option";
    case RuntimeSource::kEnvironment:
      return "CUDYN_CUDART_PATH";
    case RuntimeSource::kAlreadyLoaded:
      return "already loaded";
    case RuntimeSource::kDefaultSearch:
      return "default search";
    case RuntimeSource::kCudaHome:
      return "CUDA_HOME";
    case RuntimeSource::kPythonWheel:
      return "python wheel";
    case RuntimeSource::kWellKnownDirectory:
      return "well-known directory";
    case RuntimeSource::kSearchPath:
      return "search path";
    case RuntimeSource::kFamilyPolicy:
      return "family policy";
  }
  return "unknown";
}

const char* RuntimeRejectionName(RuntimeRejection rejection) {
  switch (rejection) {
    case RuntimeRejection::kNone:
      return "accepted";
    case RuntimeRejection::kIgnoredSecure:
      return "ignored_secure";
    case RuntimeRejection::kNotAbsolute:
      return "not_absolute";
    case RuntimeRejection::kUnloadableFile:
      return "unloadable_file";
    case RuntimeRejection::kNotLoaded:
      return "not_loaded";
    case RuntimeRejection::kDlopenFailed:
      return "dlopen_failed";
    case RuntimeRejection::kIsCudyn:
      return "is_cudyn";
    case RuntimeRejection::kNotARuntime:
      return "not_a_runtime";
    case RuntimeRejection::kUnknownFamily:
      return "unknown_family";
    case RuntimeRejection::kDriverTooOld:
      return "driver_too_old";
  }
  return "unknown";
}

// The runtime's binding rules, for the core's entry table (loader/core.h).
struct RuntimePolicy {
  static internal::Binding Bind(void* self, int index, internal::BindMode mode);
  static std::string MissingText(const void* self, int index) {
    return static_cast<const Runtime*>(self)->MissingText(index);
  }
  static std::string AdapterText(const void* self, int index);
};

const internal::LibraryPolicy Runtime::kPolicy = {&RuntimePolicy::Bind, &RuntimePolicy::MissingText,
                                                &RuntimePolicy::AdapterText};

Runtime::Runtime() : slots_(g_default_cudart_slots) {}

Runtime::~Runtime() {
  internal::ReleaseCudartAdapterInstance(adapter_instance_);
  // The runtime stays loaded: once called it has exit handlers and threads of its own, and
  // unloading it under them would crash the process at exit.
}

std::unique_ptr<Runtime> Runtime::Open(const RuntimeOptions& options) {
  return internal::OpenLibrary<Runtime>(options, nullptr);
}


void Runtime::Reject(std::string path, RuntimeSource source, RuntimeRejection rejection,
                     std::string reason, int family) {
  internal::AddCandidate(&candidates_, std::move(path), source, rejection, std::move(reason))
      .family = family;
}

bool Runtime::TryCandidate(const std::string& path, RuntimeSource source, bool noload,
                           int want_family) {
  const bool is_explicit = source == RuntimeSource::kOption || source == RuntimeSource::kEnvironment;
  internal::OpenedLibrary opened = internal::OpenCandidate(path, noload, kRuntimeIdentity);
  if (opened.failure == internal::OpenFailure::kNotTheLibrary) {
    Reject(opened.loaded_path, source, RuntimeRejection::kNotARuntime,
           "exports no cudaRuntimeGetVersion: not a CUDA runtime");
    return false;
  }
  if (opened.handle == nullptr) {
    Reject(opened.failure == internal::OpenFailure::kIsCudyn ? opened.loaded_path : path, source,
           internal::RejectionFor<RuntimeRejection>(opened.failure), std::move(opened.reason));
    return false;
  }
  void* const handle = opened.handle;
  const std::string& loaded = opened.loaded_path;
  const std::string soname = LoadedSoname(handle);
  int family = 0, minor = -1;
  ParseCudartSoname(soname, &family, &minor);
  if (family == 0) {
    Reject(loaded, source, RuntimeRejection::kUnknownFamily,
           "its SONAME '" + soname + "' is not libcudart.so.<major>[.<minor>]");
    dlclose(handle);
    return false;
  }
  if (family < kOldestCudartFamily) {
    Reject(loaded, source, RuntimeRejection::kUnknownFamily,
           "its SONAME " + soname + " names a runtime older than 10.0, which cudyn does not bind",
           family);
    dlclose(handle);
    return false;
  }
  if (want_family != 0 && family != want_family) {
    Reject(loaded, source, RuntimeRejection::kUnknownFamily,
           "its SONAME " + soname + " is not of the family searched (" +
               std::to_string(want_family) + ")",
           family);
    dlclose(handle);
    return false;
  }
  const int needs = CudartFamilyMinDriver(family, minor);
  if (driver_version_ > 0 && driver_version_ < needs) {
    std::string why = "the driver (CUDA " + std::to_string(driver_version_) +
                      ") cannot run " + soname + " (needs " + std::to_string(needs) + ")";
    if (!is_explicit) {
      Reject(loaded, source, RuntimeRejection::kDriverTooOld, why, family);
      dlclose(handle);
      return false;
    }
    warnings_.push_back("explicit runtime taken although " + why + ": its calls will report 35");
    internal::Warn(warnings_.back());
  }
  handle_ = handle;
  path_ = loaded;
  found_by_ = source;
  family_ = family;
  ReadVersion(family, minor);
  RuntimeCandidate& c =
      internal::AddCandidate(&candidates_, loaded, source, RuntimeRejection::kNone, "accepted");
  c.family = family;
  c.version = version_;
  return true;
}

void Runtime::ReadVersion(int soname_family, int soname_minor) {
  int version = 0;
  auto get_version = reinterpret_cast<RuntimeGetVersionFn>(dlsym(handle_, "cudaRuntimeGetVersion"));
  int rc = get_version != nullptr ? get_version(&version) : -1;
  if (rc == 0 && internal::IsPlausibleCudaVersion(version) &&
      version / 1000 == soname_family) {
    version_ = version;
    version_source_ = "cudaRuntimeGetVersion";
    return;
  }
  // 11.x answers 35 (and writes nothing) without a usable driver: the SONAME gives the family,
  // the newest symbol it exports the minor.
  int best = CudartFamilyMinDriver(soname_family, soname_minor);
  for (int i = 0; i < kCudartMarkerCount; ++i) {
    const CudartMarker& m = kCudartMarkers[i];
    if (m.version / 1000 == soname_family && m.version > best && dlsym(handle_, m.symbol)) {
      best = m.version;
    }
  }
  version_ = best;
  version_source_ = "SONAME and symbols (cudaRuntimeGetVersion returned " +
                    std::to_string(rc) + "): at least";
}

void Runtime::Discover(const RuntimeOptions& options) {
  if (options.use_environment) {
    std::string log_warning = internal::ConfigureLogFromEnvironment();
    if (!log_warning.empty()) warnings_.push_back(log_warning);
  }
  // The driver decides the family: its effective version (the clamp applies here as well; the
  // driver side warns about a value that is not a version).
  const std::optional<int> clamp =
      internal::ChooseClamp(options.max_cuda_version, options.use_environment, nullptr);
  int real_driver_version = 0;
  if (options.driver_version) {
    driver_version_ = real_driver_version = *options.driver_version;
  } else {
    Driver& driver = DefaultDriver();
    driver_version_ = driver.ok() ? driver.effective_version() : 0;
    real_driver_version = driver.ok() ? driver.cuda_version() : 0;
  }
  if (clamp && driver_version_ > 0 && *clamp < driver_version_) driver_version_ = *clamp;
  clamped_ = driver_version_ > 0 && driver_version_ < real_driver_version;
  adapter_instance_ = internal::AcquireCudartAdapterInstance(this);

  const std::optional<bool> explicit_accepted = internal::TryExplicitPath(
      options.runtime_path, options.use_environment, "CUDYN_CUDART_PATH", &candidates_,
      &warnings_, [this](const std::string& path, RuntimeSource source) {
        return TryCandidate(path, source, false, 0);
      });
  bool accepted = explicit_accepted.value_or(false);
  const int newest = NewestRuntimeFamilyFor(driver_version_ > 0 ? driver_version_ : kAnyDriver);
  const std::vector<RuntimeSoname> sonames = AllRuntimeSonames();
  if (!explicit_accepted) {  // an explicit path is all that is tried
    if (driver_version_ == 0) {
      warnings_.push_back("no usable NVIDIA driver: taking the newest CUDA runtime found (its "
                          "calls will report the missing driver themselves)");
    }
    for (const RuntimeSoname& s : sonames) {
      if (s.family > newest || (driver_version_ > 0 && s.min_driver > driver_version_)) {
        Reject(s.soname, RuntimeSource::kFamilyPolicy, RuntimeRejection::kDriverTooOld,
               "not searched: the driver (CUDA " + std::to_string(driver_version_) +
                   ") cannot run it (needs " + std::to_string(s.min_driver) + ")",
               s.family);
      }
    }
    // Already loaded (a framework got there first): used when the driver can run it.
    if (!options.search_paths) {
      for (const RuntimeSoname& s : sonames) {
        void* h = dlopen(s.soname.c_str(), RTLD_LAZY | RTLD_NOLOAD);
        if (h == nullptr) continue;
        dlclose(h);
        if ((accepted = TryCandidate(s.soname, RuntimeSource::kAlreadyLoaded, true, s.family))) {
          break;
        }
      }
    }
    if (options.search_paths) {
      for (const RuntimeSoname& s : sonames) {
        if (driver_version_ > 0 && s.min_driver > driver_version_) continue;
        for (const std::string& p : *options.search_paths) {
          const std::string file = p + "/" + s.soname;
          if (!accepted && IsDirectory(p) && Exists(file)) {
            accepted = TryCandidate(file, RuntimeSource::kSearchPath, false, s.family);
          }
        }
      }
    } else {
      const RuntimeSearchInputs inputs =
          options.search_inputs ? *options.search_inputs : ReadRuntimeSearchInputs();
      for (const PlannedRuntime& planned : RuntimeSearchPlan(inputs, driver_version_)) {
        if (accepted) break;
        if (planned.source != RuntimeSource::kDefaultSearch && !Exists(planned.path)) continue;
        accepted = TryCandidate(planned.path, planned.source, false, planned.family);
      }
    }
    if (!accepted && options.search_paths) {
      for (const std::string& p : *options.search_paths) {
        if (!IsDirectory(p) && (accepted = TryCandidate(p, RuntimeSource::kSearchPath, false, 0))) {
          break;
        }
      }
    }
  }
  for (const std::string& w : warnings_) internal::Warn(w);
  if (!accepted) {
    error_ = kCudartErrorInitFailed;
    table_->SetLastError("cudyn: no usable CUDA runtime (libcudart) for this driver (CUDA " +
                         std::to_string(driver_version_) + "); tried:" +
                         internal::TriedText(candidates_, RuntimeSourceName));
    internal::Warn(table_->last_error());
    return;
  }
  error_ = kCudartSuccess;
  internal::LogAt(internal::LogLevel::kInfo, "runtime ", path_, " (found by ",
                  RuntimeSourceName(found_by_), "), family ", family_, ", CUDA ", version_, " (",
                  version_source_, "), driver ", driver_version_);
}

void* Runtime::ResolveSlow(int index) {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kCall) : nullptr;
}

void* Runtime::ProbeSlow(int index) {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kProbe) : nullptr;
}

EntryStatus Runtime::status(int index) const {
  if (table_ != nullptr) return static_cast<EntryStatus>(table_->status(index));
  return index >= 0 && index < kCudartEntryCount ? EntryStatus::kMissing : EntryStatus::kUnbound;
}

internal::Binding RuntimePolicy::Bind(void* self, int index, internal::BindMode) {
  Runtime& rt = *static_cast<Runtime*>(self);
  const CudartRule& rule = CudartRuleFor(index, rt.family_);
  internal::Binding binding;
  if (index == kCudart_cudaDriverGetVersion && rt.clamped_ &&
      rt.Symbol("cudaDriverGetVersion") != nullptr) {
    // The chosen runtime reaches the real driver (stubs/shim.cc): cudyn reports the clamp.
    binding.fn = internal::CudartClampedDriverGetVersion(rt.adapter_instance_);
    if (binding.fn != nullptr) {
      binding.status = internal::SlotState::kAdapter;
      return binding;
    }
  }
  if ((index == kCudart_cudaGetLastError || index == kCudart_cudaPeekAtLastError) &&
      rt.family_ < 13 && rt.Symbol(CudartSymbol(index).data()) != nullptr) {
    // Before 13.0 entries can be missing, served from the driver or composed: what they answer
    // is the thread's last error too (the overlay, cudart_adapters.cc).
    binding.fn = internal::CudartLastErrorFunction(index == kCudart_cudaGetLastError,
                                                   rt.adapter_instance_);
    if (binding.fn != nullptr) {
      binding.status = internal::SlotState::kAdapter;
      return binding;
    }
  }
  int k = 0;
  for (const char* c = rule.candidates; *c != '\0'; c += std::strlen(c) + 1, ++k) {
    void* fn = dlsym(rt.handle_, c);
    if (fn != nullptr && !internal::IsCudynFunction(fn)) {
      binding.fn = fn;
      binding.status = internal::SlotState::kNative;
      binding.via = static_cast<uint8_t>(k);
      return binding;
    }
  }
  if (rule.adapter != CudartAdapter::kNone) {
    binding.fn = internal::CudartAdapterFunction(static_cast<int>(rule.adapter),
                                                 rt.adapter_instance_, rt);
    binding.status = internal::SlotState::kAdapter;
  }
  return binding;
}

std::string RuntimePolicy::AdapterText(const void* self, int index) {
  const Runtime& rt = *static_cast<const Runtime*>(self);
  if (index == kCudart_cudaDriverGetVersion && rt.clamped_) {
    return "cudaDriverGetVersion reports the clamp (CUDA " + std::to_string(rt.driver_version_) +
           ") over " + rt.path_;
  }
  if ((index == kCudart_cudaGetLastError || index == kCudart_cudaPeekAtLastError) &&
      CudartRuleFor(index, rt.family_).adapter == CudartAdapter::kNone) {
    return std::string(CudartSymbol(index)) + " reports the most recent of the runtime's last " +
           "error and the one of the paths cudyn serves itself, over " + rt.path_;
  }
  return std::string(CudartSymbol(index)) + " served by adapter " +
         CudartAdapterName(CudartRuleFor(index, rt.family_).adapter) + " on " + rt.path_ +
         " (CUDA " + std::to_string(rt.version_) + ")";
}

int Runtime::missing_result(int index) const {
  if (!ok()) return error_;
  if (index < 0 || index >= kCudartEntryCount) return kCudartErrorSymbolNotFound;
  return driver_version_ < CudartRuleFor(index, family_).needs_driver ? kCudartErrorInsufficientDriver
                                                                      : kCudartErrorNotSupported;
}

std::string Runtime::MissingText(int index) const {
  const CudartRule& rule = CudartRuleFor(index, family_);
  const int needs = rule.needs_driver;
  const std::string answer =
      missing_result(index) == kCudartErrorInsufficientDriver
          ? "; returning 35 cudaErrorInsufficientDriver: a runtime with it needs a CUDA " +
                std::to_string(needs / 1000) + ".0 driver, the driver is CUDA " +
                std::to_string(driver_version_)
          : "; returning 801 cudaErrorNotSupported: the driver (CUDA " +
                std::to_string(driver_version_) + ") runs a runtime with it (family " +
                std::to_string(needs / 1000) + "), the chosen one lacks it";
  return "cudyn: " + std::string(CudartSymbol(index)) + " is not provided by " + path_ +
         " (CUDA runtime " + std::to_string(version_) + ", family " + std::to_string(family_) +
         ")" + (rule.reason[0] != '\0' ? std::string(": ") + rule.reason : std::string()) + answer;
}

int Runtime::BindAll() { return table_ != nullptr ? table_->BindAll() : kCudartEntryCount; }

std::string Runtime::bound_symbol(int index) const noexcept {
  try {
    if (index < 0 || index >= kCudartEntryCount || status(index) != EntryStatus::kNative) {
      return std::string();
    }
    const char* c = CudartRuleFor(index, family_).candidates;
    for (int k = table_->via(index); k > 0; --k) {
      c += std::strlen(c) + 1;
    }
    return c;
  } catch (...) {
    return std::string();
  }
}

void* Runtime::Symbol(const char* name) const noexcept {
  if (handle_ == nullptr || name == nullptr) return nullptr;
  void* fn = dlsym(handle_, name);
  return fn != nullptr && !internal::IsCudynFunction(fn) ? fn : nullptr;
}

void Runtime::NoteAdapterCannotExpress(int index, const char* why) noexcept {
  if (index < 0 || index >= kCudartEntryCount || table_ == nullptr) return;
  try {
    table_->NoteCannotExpress(index, "cudyn: " + std::string(CudartSymbol(index)) + " on " +
                                         path_ + " (CUDA runtime " + std::to_string(version_) +
                                         ") cannot express " + why +
                                         ": returning 801 cudaErrorNotSupported");
  } catch (...) {
  }
}

std::string Runtime::last_error() const noexcept {
  return table_ != nullptr ? table_->last_error() : std::string();
}

std::atomic<void*> g_default_cudart_slots[kCudartEntryCount];

Runtime& DefaultRuntime() { return internal::DefaultInstance<Runtime>(); }

void* ResolveDefaultCudartSlow(int index) { return DefaultRuntime().ResolveSlow(index); }

// ---- driver emulation of the runtime's fatbin registration (loader/DESIGN.md, "Driver emulation")

namespace {

// A wrapper handed to the runtime in place of the program's, with the fatbin it points to; kept
// for the process's life (the runtime reads it whenever it loads the module).
struct EmulatedFatbin {
  kernel_rule::FatbinWrapper wrapper;
  std::string fatbin;
};
std::mutex g_emulated_mutex;
std::vector<std::unique_ptr<EmulatedFatbin>>* g_emulated = nullptr;  // never destroyed

}  // namespace

void* EmulateRegisteredFatbin(void* fat_cubin) noexcept {
  try {
    Driver& driver = DefaultDriver();
    if (fat_cubin == nullptr || !driver.ok() || !driver.emulating()) return fat_cubin;
    kernel_rule::FatbinWrapper w;
    std::memcpy(&w, fat_cubin, sizeof w);
    if (static_cast<uint32_t>(w.magic) != kernel_rule::kFatbinWrapperMagic || w.data == nullptr)
      return fat_cubin;
    kernel_rule::GpuArch gpu;
    if (!internal::EmulatedDevice0Arch(driver, &gpu)) return fat_cubin;
    auto e = std::make_unique<EmulatedFatbin>();
    const kernel_rule::Registration how = kernel_rule::RegistrationFatbin(
        static_cast<const uint8_t*>(w.data), UINT64_MAX, driver.effective_version(),
        driver.cuda_version(), gpu, &e->fatbin);
    if (how == kernel_rule::Registration::kKeep) return fat_cubin;
    internal::LogAt(internal::LogLevel::kInfo, "driver emulation: a registered fatbin on ",
                    gpu.Name(), ": the runtime gets ",
                    how == kernel_rule::Registration::kOnlyChosen
                        ? "only the image a CUDA "
                        : "a PTX no driver JITs, as only PTX too new for a CUDA ",
                    driver.effective_version(),
                    how == kernel_rule::Registration::kOnlyChosen ? " driver chooses"
                                                                  : " driver fits (222)");
    e->wrapper = w;
    e->wrapper.data = e->fatbin.data();
    void* replaced = &e->wrapper;
    std::lock_guard<std::mutex> lock(g_emulated_mutex);
    if (g_emulated == nullptr) g_emulated = new std::vector<std::unique_ptr<EmulatedFatbin>>();
    g_emulated->push_back(std::move(e));
    return replaced;
  } catch (...) {  // no memory: registered as it is
    return fat_cubin;
  }
}

}  // namespace cudyn
