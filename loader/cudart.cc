// Runtime (libcudart) discovery, family, version and per-entry binding. See cudart.h.
#include "loader/cudart.h"

#include "loader/cudart_family.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "loader/internal.h"
#include "spdlog/spdlog.h"

namespace cudyn {
namespace {

using RuntimeGetVersionFn = int (*)(int*);

constexpr int kMinPlausibleVersion = 1000;
constexpr int kMaxPlausibleVersion = 99999;

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

// Toolkit and distribution directories searched last, after the default search and CUDA_HOME.
const char* const kWellKnownRuntimeDirs[] = {
    "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
    "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/opt/cuda/lib64",
};

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

// site-packages directories of the Python environments in sight: $VIRTUAL_ENV, and those of
// objects already loaded (a framework imported before cudyn was reached).
struct SitePackagesScan {
  std::vector<std::string>* dirs;
};
int CollectSitePackages(struct dl_phdr_info* info, size_t, void* data) {
  auto* scan = static_cast<SitePackagesScan*>(data);
  if (info->dlpi_name == nullptr) return 0;
  std::string name = info->dlpi_name;
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    size_t at = name.find(marker);
    if (at == std::string::npos) continue;
    std::string dir = name.substr(0, at + std::strlen(marker) - 1);
    if (std::find(scan->dirs->begin(), scan->dirs->end(), dir) == scan->dirs->end()) {
      scan->dirs->push_back(dir);
    }
  }
  return 0;
}

std::vector<std::string> SitePackagesDirs() {
  std::vector<std::string> dirs;
  std::string venv = internal::GetEnv("VIRTUAL_ENV");
  if (!venv.empty()) {
    std::string lib = venv + "/lib";
    if (DIR* d = opendir(lib.c_str())) {
      while (struct dirent* e = readdir(d)) {
        if (std::strncmp(e->d_name, "python3", 7) == 0) {
          std::string site = lib + "/" + e->d_name + "/site-packages";
          if (IsDirectory(site)) dirs.push_back(site);
        }
      }
      closedir(d);
    }
  }
  SitePackagesScan scan{&dirs};
  dl_iterate_phdr(CollectSitePackages, &scan);
  return dirs;
}

// /usr/local/cuda-X.Y/lib64 directories, newest first.
std::vector<std::string> VersionedToolkitDirs() {
  std::vector<std::string> dirs;
  if (DIR* d = opendir("/usr/local")) {
    while (struct dirent* e = readdir(d)) {
      if (std::strncmp(e->d_name, "cuda-", 5) == 0) {
        std::string lib = std::string("/usr/local/") + e->d_name + "/lib64";
        if (IsDirectory(lib)) dirs.push_back(lib);
      }
    }
    closedir(d);
  }
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return strverscmp(a.c_str(), b.c_str()) > 0;
  });
  return dirs;
}

}  // namespace

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

Runtime::Runtime(std::atomic<void*>* slots) : slots_(slots) {
  if (slots_ == nullptr) {
    owned_slots_.reset(new (std::nothrow) std::atomic<void*>[kCudartEntryCount]);
    slots_ = owned_slots_.get();
    if (slots_ != nullptr) {
      for (int i = 0; i < kCudartEntryCount; ++i) slots_[i].store(nullptr);
    }
  }
  for (int i = 0; i < kCudartEntryCount; ++i) {
    status_[i].store(static_cast<uint8_t>(EntryStatus::kUnbound), std::memory_order_relaxed);
    logged_[i].store(0, std::memory_order_relaxed);
    rule_index_[i].store(-1, std::memory_order_relaxed);
  }
}

Runtime::~Runtime() {
  internal::ReleaseCudartAdapterInstance(adapter_instance_);
  // The runtime stays loaded: once called it has exit handlers and threads of its own, and
  // unloading it under them would crash the process at exit.
}

std::unique_ptr<Runtime> Runtime::Open(const RuntimeOptions& options) {
  return OpenInto(options, nullptr);
}

std::unique_ptr<Runtime> Runtime::OpenInto(const RuntimeOptions& options,
                                           std::atomic<void*>* slots) {
  std::unique_ptr<Runtime> runtime(new (std::nothrow) Runtime(slots));
  if (runtime == nullptr) return nullptr;
  if (runtime->slots_ == nullptr) {
    runtime->SetLastError("cudyn: out of memory opening the CUDA runtime");
    return runtime;
  }
  try {
    runtime->Discover(options);
  } catch (...) {
    runtime->error_ = kCudartErrorInitFailed;
    runtime->SetLastError("cudyn: out of memory while looking for the CUDA runtime");
  }
  return runtime;
}

void Runtime::Reject(std::string path, RuntimeSource source, RuntimeRejection rejection,
                     std::string reason, int family) {
  RuntimeCandidate c;
  c.path = std::move(path);
  c.source = source;
  c.rejection = rejection;
  c.family = family;
  c.reason = std::move(reason);
  candidates_.push_back(std::move(c));
}

bool Runtime::TryCandidate(const std::string& path, RuntimeSource source, bool noload,
                           int want_family) {
  const bool is_explicit = source == RuntimeSource::kOption || source == RuntimeSource::kEnvironment;
  internal::OpenedLibrary opened = internal::OpenCandidateLibrary(path, noload);
  if (opened.handle == nullptr) {
    const RuntimeRejection rejection =
        opened.failure == internal::OpenFailure::kUnloadableFile ? RuntimeRejection::kUnloadableFile
        : opened.failure == internal::OpenFailure::kNotLoaded    ? RuntimeRejection::kNotLoaded
                                                                 : RuntimeRejection::kDlopenFailed;
    Reject(path, source, rejection, std::move(opened.reason));
    return false;
  }
  void* const handle = opened.handle;
  const std::string& loaded = opened.loaded_path;
  // Nothing of the runtime is called before it is accepted: a runtime that has run registers
  // exit handlers, so a refused one is closed untouched.
  void* get_version = dlsym(handle, "cudaRuntimeGetVersion");
  if (dlsym(handle, "cudynCudartEntryCount") != nullptr ||
      (get_version != nullptr && internal::IsCudynFunction(get_version))) {
    Reject(loaded, source, RuntimeRejection::kIsCudyn,
           "is cudyn itself (libcudyn_cudart.so installed or preloaded as libcudart?)");
    dlclose(handle);
    return false;
  }
  if (get_version == nullptr) {
    Reject(loaded, source, RuntimeRejection::kNotARuntime,
           "exports no cudaRuntimeGetVersion: not a CUDA runtime");
    dlclose(handle);
    return false;
  }
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
    internal::Log().warn("cudyn: {}", warnings_.back());
  }
  RuntimeCandidate c;
  c.path = loaded;
  c.source = source;
  c.family = family;
  c.reason = "accepted";
  handle_ = handle;
  path_ = loaded;
  found_by_ = source;
  family_ = family;
  ReadVersion(family, minor);
  c.version = version_;
  candidates_.push_back(std::move(c));
  return true;
}

void Runtime::ReadVersion(int soname_family, int soname_minor) {
  int version = 0;
  auto get_version = reinterpret_cast<RuntimeGetVersionFn>(dlsym(handle_, "cudaRuntimeGetVersion"));
  int rc = get_version != nullptr ? get_version(&version) : -1;
  if (rc == 0 && version >= kMinPlausibleVersion && version <= kMaxPlausibleVersion &&
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
  // The driver decides the family: its effective version (the clamp applies here as well).
  std::optional<int> clamp = options.max_cuda_version;
  if (!clamp && options.use_environment) {
    std::string value = internal::GetEnv("CUDYN_MAX_CUDA_VERSION");
    if (!value.empty()) clamp = ParseCudaVersion(value);  // the driver side warns about junk
  }
  if (options.driver_version) {
    driver_version_ = *options.driver_version;
  } else {
    Driver& driver = DefaultDriver();
    driver_version_ = driver.ok() ? driver.effective_version() : 0;
  }
  if (clamp && driver_version_ > 0 && *clamp < driver_version_) driver_version_ = *clamp;
  adapter_instance_ = internal::AcquireCudartAdapterInstance(this);

  const internal::ExplicitPath chosen =
      internal::ChooseExplicitPath(options.runtime_path, options.use_environment, "CUDYN_CUDART_PATH");
  if (!chosen.ignored_secure.empty()) {
    Reject(chosen.ignored_secure, RuntimeSource::kEnvironment, RuntimeRejection::kIgnoredSecure,
           internal::kIgnoredSecureReason);
    warnings_.push_back("CUDYN_CUDART_PATH ignored in a setuid/setgid process");
  }
  const std::string& explicit_path = chosen.path;
  const RuntimeSource explicit_source =
      chosen.from_environment ? RuntimeSource::kEnvironment : RuntimeSource::kOption;
  bool accepted = false;
  const int newest = NewestRuntimeFamilyFor(driver_version_ > 0 ? driver_version_ : kAnyDriver);
  const std::vector<RuntimeSoname> sonames = AllRuntimeSonames();
  if (!explicit_path.empty()) {
    if (explicit_path[0] != '/') {
      Reject(explicit_path, explicit_source, RuntimeRejection::kNotAbsolute,
             internal::kNotAbsoluteReason);
    } else {
      accepted = TryCandidate(explicit_path, explicit_source, false, 0);
    }
  } else {
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
    std::vector<std::string> site = options.search_paths ? std::vector<std::string>()
                                                         : SitePackagesDirs();
    std::vector<std::string> toolkits = options.search_paths ? std::vector<std::string>()
                                                             : VersionedToolkitDirs();
    for (const RuntimeSoname& s : sonames) {
      if (accepted) break;
      if (driver_version_ > 0 && s.min_driver > driver_version_) continue;
      auto try_dir = [&](const std::string& dir, RuntimeSource source) {
        std::string p = dir + "/" + s.soname;
        if (!accepted && Exists(p)) accepted = TryCandidate(p, source, false, s.family);
      };
      if (options.search_paths) {
        for (const std::string& p : *options.search_paths) {
          if (IsDirectory(p)) try_dir(p, RuntimeSource::kSearchPath);
        }
        continue;
      }
      accepted = TryCandidate(s.soname, RuntimeSource::kDefaultSearch, false, s.family);
      for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        std::string home = internal::GetEnv(var);
        if (home.empty()) continue;
        try_dir(home + "/lib64", RuntimeSource::kCudaHome);
        try_dir(home + "/lib", RuntimeSource::kCudaHome);
      }
      for (const std::string& dir : site) {
        if (s.family >= 13) try_dir(dir + "/nvidia/cu" + std::to_string(s.family) + "/lib",
                                    RuntimeSource::kPythonWheel);
        try_dir(dir + "/nvidia/cuda_runtime/lib", RuntimeSource::kPythonWheel);
      }
      std::string conda = internal::GetEnv("CONDA_PREFIX");
      if (!conda.empty()) try_dir(conda + "/lib", RuntimeSource::kPythonWheel);
      for (const std::string& dir : toolkits) try_dir(dir, RuntimeSource::kWellKnownDirectory);
      for (const char* dir : kWellKnownRuntimeDirs) try_dir(dir, RuntimeSource::kWellKnownDirectory);
    }
    if (!accepted && options.search_paths) {
      for (const std::string& p : *options.search_paths) {
        if (!IsDirectory(p) && (accepted = TryCandidate(p, RuntimeSource::kSearchPath, false, 0))) {
          break;
        }
      }
    }
  }
  for (const std::string& w : warnings_) internal::Log().warn("cudyn: {}", w);
  if (!accepted) {
    std::string tried;
    for (const RuntimeCandidate& c : candidates_) {
      tried += "\n  " + c.path + " (" + RuntimeSourceName(c.source) + "): " + c.reason;
    }
    if (candidates_.empty()) tried = "\n  (no candidate paths)";
    error_ = kCudartErrorInitFailed;
    SetLastError("cudyn: no usable CUDA runtime (libcudart) for this driver (CUDA " +
                 std::to_string(driver_version_) + "); tried:" + tried);
    internal::Log().warn("{}", last_error());
    return;
  }
  error_ = kCudartSuccess;
  internal::Log().info("runtime {} (found by {}), family {}, CUDA {} ({}), driver {}", path_,
                       RuntimeSourceName(found_by_), family_, version_, version_source_,
                       driver_version_);
}

void Runtime::Publish(int index, void* fn, EntryStatus status) {
  status_[index].store(static_cast<uint8_t>(status), std::memory_order_release);
  if (fn != nullptr) slots_[index].store(fn, std::memory_order_release);
}

void* Runtime::ResolveSlow(int index, bool quiet) {
  try {
    return Bind(index, quiet);
  } catch (...) {
    return nullptr;
  }
}

void* Runtime::Bind(int index, bool quiet) {
  if (index < 0 || index >= kCudartEntryCount) return nullptr;
  if (status(index) == EntryStatus::kMissing) {
    if (!quiet && ok() && logged_[index].exchange(1) == 0) {
      internal::Log().warn("{}", last_error());
    }
    return nullptr;
  }
  if (!ok()) {
    Publish(index, nullptr, EntryStatus::kMissing);
    return nullptr;
  }
  const CudartRule& rule = CudartRuleFor(index, family_);
  int k = 0;
  for (const char* c = rule.candidates; *c != '\0'; c += std::strlen(c) + 1, ++k) {
    void* fn = dlsym(handle_, c);
    if (fn != nullptr && !internal::IsCudynFunction(fn)) {
      rule_index_[index].store(static_cast<int16_t>(k), std::memory_order_relaxed);
      Publish(index, fn, EntryStatus::kNative);
      return fn;
    }
  }
  if (rule.adapter != CudartAdapter::kNone) {
    if (void* fn = internal::CudartAdapterFunction(static_cast<int>(rule.adapter),
                                                   adapter_instance_, *this)) {
      Publish(index, fn, EntryStatus::kAdapter);
      internal::Log().info("{} served by adapter {} on {} (CUDA {})", CudartSymbol(index),
                           CudartAdapterName(rule.adapter), path_, version_);
      return fn;
    }
  }
  Publish(index, nullptr, EntryStatus::kMissing);
  std::string text = "cudyn: " + std::string(CudartSymbol(index)) + " is not provided by " +
                     path_ + " (CUDA runtime " + std::to_string(version_) + ", family " +
                     std::to_string(family_) + ")" +
                     (rule.reason[0] != '\0' ? std::string(": ") + rule.reason : std::string());
  SetLastError(text);
  if (!quiet && logged_[index].exchange(1) == 0) internal::Log().warn("{}", text);
  return nullptr;
}

int Runtime::BindAll() {
  int missing = 0;
  for (int i = 0; i < kCudartEntryCount; ++i) {
    void* fn = slots_[i].load(std::memory_order_acquire);
    missing += (fn != nullptr ? fn : ResolveSlow(i, /*quiet=*/true)) == nullptr;
  }
  return missing;
}

std::string Runtime::bound_symbol(int index) const noexcept {
  try {
    if (index < 0 || index >= kCudartEntryCount || status(index) != EntryStatus::kNative) {
      return std::string();
    }
    const char* c = CudartRuleFor(index, family_).candidates;
    for (int k = rule_index_[index].load(std::memory_order_relaxed); k > 0; --k) {
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
  try {
    std::string text = "cudyn: " + std::string(CudartSymbol(index)) + " on " + path_ +
                       " (CUDA runtime " + std::to_string(version_) + ") cannot express " + why +
                       ": returning 801 cudaErrorNotSupported";
    SetLastError(text);
    if (logged_[index].exchange(1) == 0) internal::Log().warn("{}", text);
  } catch (...) {
  }
}

void Runtime::SetLastError(std::string text) noexcept {
  try {
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_error_ = std::move(text);
  } catch (...) {
  }
}

std::string Runtime::last_error() const noexcept {
  try {
    std::lock_guard<std::mutex> lock(error_mutex_);
    return last_error_;
  } catch (...) {
    return std::string();
  }
}

std::atomic<void*> g_default_cudart_slots[kCudartEntryCount];

Runtime& DefaultRuntime() {
  // Leaked on purpose, like DefaultDriver(): stubs may be called from destructors at exit.
  static Runtime* const runtime = [] {
    RuntimeOptions options;
    options.use_environment = true;
    return Runtime::OpenInto(options, g_default_cudart_slots).release();
  }();
  if (runtime == nullptr) {
    static Runtime unopened(nullptr);
    return unopened;
  }
  return *runtime;
}

void* ResolveDefaultCudartSlow(int index) {
  return DefaultRuntime().ResolveSlow(index, /*quiet=*/false);
}

}  // namespace cudyn
