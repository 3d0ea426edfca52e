// The toolkit library template: discovery, release, acceptance and binding of every library a
// ToolkitTraits describes. See toolkit.h.
#include "loader/toolkit.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "loader/core.h"
#include "loader/cudart_family.h"

namespace cudyn {
namespace {

// The default driver's effective version, 0 without a usable one.
int DefaultDriverVersion() {
  Driver& driver = DefaultDriver();
  return driver.ok() ? driver.effective_version() : 0;
}

bool IsExplicit(ToolkitSource source) {
  return source == ToolkitSource::kOption || source == ToolkitSource::kEnvironment;
}

}  // namespace

std::string CudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

const char* ToolkitEntryStatusText(Toolkit& library, const char* symbol) noexcept {
  const int index = symbol != nullptr ? FindToolkitEntry(library.traits(), symbol) : -1;
  if (index < 0) return "unknown";
  library.Probe(index);
  return EntryStatusName(library.status(index));
}

std::string ToolkitReleaseText(const ToolkitTraits& traits, int release) {
  if (traits.release_text != nullptr) return traits.release_text(release);
  return "CUDA " + CudaVersionText(release);
}

namespace {

void ReadRuntimeVersion(const ToolkitTraits& traits, void* handle, ToolkitVersion* out) {
  if (traits.runtime_version_symbol == nullptr) return;
  using RuntimeVersionFn = size_t (*)();
  if (auto fn = reinterpret_cast<RuntimeVersionFn>(dlsym(handle, traits.runtime_version_symbol))) {
    out->runtime_version = static_cast<int>(fn());
  }
}

bool PlausibleLibraryVersion(int version) { return version > 0 && version < 10000000; }

}  // namespace

bool ReadPropertyVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                         ToolkitVersion* out, std::string* answer) {
  using GetPropertyFn = int (*)(int, int*);
  auto get_property = reinterpret_cast<GetPropertyFn>(version_function);
  int major = -1, minor = -1, patch = -1;
  const int rc0 = get_property(0, &major), rc1 = get_property(1, &minor),
            rc2 = get_property(2, &patch);
  *answer = std::to_string(rc0) + "/" + std::to_string(rc1) + "/" + std::to_string(rc2) + " (" +
            std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) +
            ")";
  if (rc0 != 0 || rc1 != 0 || rc2 != 0 || major < 1 || major > 99 || minor < 0 || minor > 99 ||
      patch < 0 || patch > 99 || (traits.version_scale == 1000 && minor > 9)) {
    return false;
  }
  out->version = major * traits.version_scale + minor * 100 + patch;
  ReadRuntimeVersion(traits, handle, out);
  return true;
}

bool ReadIntVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                    ToolkitVersion* out, std::string* answer) {
  int version = -1;
  const int rc = reinterpret_cast<int (*)(int*)>(version_function)(&version);
  *answer = std::to_string(rc) + " (" + std::to_string(version) + ")";
  if (rc != 0 || !PlausibleLibraryVersion(version)) return false;
  out->version = version;
  ReadRuntimeVersion(traits, handle, out);
  return true;
}

bool ReadSizeVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                     ToolkitVersion* out, std::string* answer) {
  const size_t version = reinterpret_cast<size_t (*)()>(version_function)();
  *answer = std::to_string(version);
  if (version == 0 || version >= 10000000) return false;
  out->version = static_cast<int>(version);
  ReadRuntimeVersion(traits, handle, out);
  return true;
}

bool ReadMajorMinorVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                           ToolkitVersion* out, std::string* answer) {
  int major = 0, minor = 0;
  const int rc = reinterpret_cast<int (*)(int*, int*)>(version_function)(&major, &minor);
  out->version = major * 1000 + minor * 10;
  *answer = std::to_string(rc) + " (" + std::to_string(major) + "." + std::to_string(minor) + ")";
  if (rc != 0 || minor < 0 || minor > 99 || !internal::IsPlausibleCudaVersion(out->version)) {
    return false;
  }
  ReadRuntimeVersion(traits, handle, out);
  return true;
}

std::string PropertyVersionText(int version) {
  return std::to_string(version / 10000) + "." + std::to_string(version % 10000 / 100) + "." +
         std::to_string(version % 100);
}

std::string ThousandsVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 100) + "." +
         std::to_string(version % 100);
}

int SonameMajorRelease(const std::string& soname) {
  const size_t dot = soname.rfind(".so.");
  if (dot == std::string::npos) return 0;
  const int major = std::atoi(soname.c_str() + dot + 4);
  return major >= 1 && major <= 99 ? major * 1000 : 0;
}

const char* ToolkitSourceName(const ToolkitTraits& traits, ToolkitSource source) {
  switch (source) {
    case ToolkitSource::kOption: return "option";
    case ToolkitSource::kEnvironment: return traits.env_name;
    case ToolkitSource::kDefaultSearch: return "default search";
    case ToolkitSource::kCudaHome: return "CUDA_HOME";
    case ToolkitSource::kPythonWheel: return "python wheel";
    case ToolkitSource::kWellKnownDirectory: return "well-known directory";
    case ToolkitSource::kSearchPath: return "search path";
    case ToolkitSource::kLibraryPath: return "LD_LIBRARY_PATH";
  }
  return "unknown";
}

const char* ToolkitRejectionName(const ToolkitTraits& traits, ToolkitRejection rejection) {
  switch (rejection) {
    case ToolkitRejection::kNone: return "accepted";
    case ToolkitRejection::kIgnoredSecure: return "ignored_secure";
    case ToolkitRejection::kNotAbsolute: return "not_absolute";
    case ToolkitRejection::kUnloadableFile: return "unloadable_file";
    case ToolkitRejection::kNotLoaded: return "not_loaded";
    case ToolkitRejection::kDlopenFailed: return "dlopen_failed";
    case ToolkitRejection::kIsCudyn: return "is_cudyn";
    case ToolkitRejection::kNotTheLibrary: return traits.not_the_library;
    case ToolkitRejection::kDriverTooOld: return traits.too_new;
  }
  return "unknown";
}

std::vector<std::string> ToolkitSonames(const ToolkitTraits& traits) {
  std::vector<std::string> out;
  for (int i = traits.release_count; i-- > 0;) {
    const std::string soname = traits.releases[i].soname;
    if (std::find(out.begin(), out.end(), soname) == out.end()) out.push_back(soname);
  }
  return out;
}

namespace {

// A library the driver ships, where the driver is: the default search, each LD_LIBRARY_PATH
// directory by path, the chosen driver's own directory, then the driver's well-known directories.
std::vector<PlannedToolkit> DriverLibraryPlan(const ToolkitTraits& traits,
                                              const std::vector<std::string>& library_path,
                                              const std::string& root) {
  std::vector<PlannedToolkit> plan;
  std::vector<std::string> dirs = library_path;
  // The directory of the libcuda.so.1 the process has already loaded (never loaded for this).
  if (root.empty()) {
    if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      struct link_map* map = nullptr;
      if (dlinfo(driver, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
          std::strchr(map->l_name, '/') != nullptr) {
        const std::string real = internal::RealPath(map->l_name);
        dirs.push_back(real.substr(0, real.rfind('/')));
      }
      dlclose(driver);
    }
  }
  for (int i = 0; i < kWellKnownDriverDirCount; ++i) dirs.push_back(root + kWellKnownDriverDirs[i]);
  for (const std::string& soname : ToolkitSonames(traits)) {
    if (root.empty()) plan.push_back({soname, ToolkitSource::kDefaultSearch});
    for (size_t i = 0; i < dirs.size(); ++i) {
      plan.push_back({dirs[i] + "/" + soname, i < library_path.size()
                                                   ? ToolkitSource::kLibraryPath
                                                   : ToolkitSource::kWellKnownDirectory});
    }
  }
  return plan;
}

}  // namespace

std::vector<PlannedToolkit> ToolkitSearchPlan(const ToolkitTraits& traits,
                                              const std::string& root) {
  const internal::SearchInputs inputs = internal::ReadSearchInputs(root);
  // LD_LIBRARY_PATH's directories, tried by path after the default search's bare name: when cudyn's
  // own drop-in holds a SONAME (`cudyn run` preloads it under the 13.0 release's, which cuRAND 10
  // and cuSPARSE 12 share with older releases), that name answers the drop-in, and the release the
  // user offers there is reached only by its path. The dynamic linker ignores the variable under
  // AT_SECURE; so does this.
  std::vector<std::string> library_path;
  if (root.empty() && !internal::IsSecureExecution()) {
    const std::string value = internal::GetEnv("LD_LIBRARY_PATH");
    for (size_t start = 0; start <= value.size();) {
      const size_t end = std::min(value.find_first_of(":;", start), value.size());
      const std::string dir = value.substr(start, end - start);
      if (!dir.empty() && dir[0] == '/') library_path.push_back(dir);
      start = end + 1;
    }
  }
  if (traits.driver_library) return DriverLibraryPlan(traits, library_path, root);
  std::vector<PlannedToolkit> plan;
  for (const std::string& soname : ToolkitSonames(traits)) {
    // The wheels of CUDA 13 install nvidia/cu13/lib, the older ones their own directory: a SONAME
    // held by releases of both (libcurand.so.10) is looked for in both.
    std::vector<std::string> wheels;
    for (int i = traits.release_count; i-- > 0;) {
      const ToolkitReleaseRow& row = traits.releases[i];
      if (soname != row.soname) continue;
      const std::string wheel = row.release >= 13000
                                    ? "/nvidia/cu" + std::to_string(row.release / 1000) + "/lib"
                                    : std::string(traits.wheel_before_13);
      if (std::find(wheels.begin(), wheels.end(), wheel) == wheels.end()) wheels.push_back(wheel);
    }
    for (size_t w = 0; w < wheels.size(); ++w) {
      for (const internal::SearchDirectory& d : internal::SearchDirectories(inputs, wheels[w])) {
        // The places other than the wheel are the same for every wheel layout: listed once.
        if (w > 0 && d.place != internal::SearchPlace::kPythonWheel) continue;
        PlannedToolkit planned{
            d.place == internal::SearchPlace::kDefaultSearch ? soname : d.dir + "/" + soname,
            internal::SourceFor<ToolkitSource>(d.place)};
        if (d.place == internal::SearchPlace::kDefaultSearch) {
          plan.push_back(std::move(planned));
          for (const std::string& dir : library_path) {
            plan.push_back({dir + "/" + soname, ToolkitSource::kLibraryPath});
          }
          continue;
        }
        if (w > 0) {
          // After the first layout's wheel directories, before whatever follows them.
          auto after = std::find_if(plan.rbegin(), plan.rend(), [&](const PlannedToolkit& p) {
            return p.source == ToolkitSource::kPythonWheel;
          });
          plan.insert(after.base(), std::move(planned));
        } else {
          plan.push_back(std::move(planned));
        }
      }
    }
  }
  return plan;
}

const ToolkitReleaseRow* FindToolkitRelease(const ToolkitTraits& traits, int release) {
  for (int i = 0; i < traits.release_count; ++i) {
    if (traits.releases[i].release == release) return &traits.releases[i];
  }
  return nullptr;
}

int FindToolkitEntry(const ToolkitTraits& traits, std::string_view symbol) {
  for (int i = 0; i < traits.entry_count; ++i) {
    if (traits.symbols[i] == symbol) return i;
  }
  return -1;
}

const ToolkitRuleRow* FindToolkitRule(const ToolkitTraits& traits, int index, int release) {
  for (int i = 0; i < traits.rule_count; ++i) {
    const ToolkitRuleRow& r = traits.rules[i];
    if (r.index == index && r.release == release) return &r;
  }
  return nullptr;
}

int ToolkitMinDriver(const ToolkitTraits& traits, int release) {
  if (traits.driver_library) return 0;
  if (traits.min_driver != nullptr) return traits.min_driver(release);
  return CudartFamilyMinDriver(release / 1000, 0);
}

namespace {

std::string Requirement(const ToolkitTraits& traits, int release, int runtime_version = 0) {
  if (traits.requirement != nullptr) return traits.requirement(release);
  if (runtime_version > 0) return "the CUDA " + CudaVersionText(runtime_version) + " runtime inside";
  return "the CUDA " + std::to_string(release / 1000) + " runtime inside";
}

// The release whose facts bind a library of `version`: the newest known release whose version
// is at or below it, else the oldest.
int ReleaseOf(const ToolkitTraits& traits, const ToolkitVersion& version) {
  if (traits.release_of != nullptr) return traits.release_of(traits, version);
  int best = 0, best_version = -1;
  for (int i = 0; i < traits.release_count; ++i) {
    const ToolkitReleaseRow& row = traits.releases[i];
    if (row.library_version <= version.version && row.library_version >= best_version) {
      best = row.release;
      best_version = row.library_version;
    }
  }
  return best != 0 ? best : traits.releases[0].release;
}

// Why no release under `soname` can serve a driver of `driver_version`, found without loading:
// every known release under it needs a newer driver (a SONAME the facts do not know: the oldest
// release the traits say it can hold).
std::optional<internal::SonameRefusal> RefuseSoname(const ToolkitTraits& traits,
                                                    const std::string& soname,
                                                    int driver_version) {
  int oldest = 0;
  if (traits.oldest_release_of_soname != nullptr) {
    oldest = traits.oldest_release_of_soname(soname);
  } else {
    for (int i = 0; i < traits.release_count; ++i) {
      const ToolkitReleaseRow& row = traits.releases[i];
      if (soname == row.soname && (oldest == 0 || row.release < oldest)) oldest = row.release;
    }
  }
  if (oldest == 0) return std::nullopt;
  const int needs = ToolkitMinDriver(traits, oldest);
  if (driver_version >= needs) return std::nullopt;
  internal::SonameRefusal refusal;
  refusal.reason = std::string(traits.name) + " of CUDA " + CudaVersionText(oldest) +
                   "+ (SONAME " + soname + ": " + Requirement(traits, oldest) +
                   ") runs on CUDA " + CudaVersionText(needs) + "+ drivers: the driver (CUDA " +
                   CudaVersionText(driver_version) + ") is too old for it (not loaded)";
  refusal.min_driver = needs;
  return refusal;
}

// The library's identity for the core's open step.
constexpr internal::LibraryIdentity IdentityOf(const ToolkitTraits& traits) {
  return {traits.version_symbol, traits.cudyn_marker};
}

}  // namespace

// The binding rules, for the core's entry table (loader/core.h).
struct Toolkit::Policy {
  static internal::Binding Bind(void* self, int index, internal::BindMode) {
    Toolkit& t = *static_cast<Toolkit*>(self);
    const ToolkitRuleRow* rule = t.RuleFor(index);
    if (rule == nullptr) return internal::Binding();
    internal::Binding binding = internal::BindFirstExported(t.handle_, rule->candidates);
    // Not exported by the release whose facts apply: a newer release than the facts know may
    // export it under its own name (never one the facts say is declared otherwise, nor past a
    // clamp's cap: the library then answers as the capped release).
    if (binding.fn == nullptr && rule->candidates[0] == '\0' && !rule->exported &&
        t.release_ == t.own_release_) {
      const std::string own(t.symbol(index));
      void* fn = dlsym(t.handle_, own.c_str());
      if (fn != nullptr && !internal::IsCudynFunction(fn)) {
        binding.fn = fn;
        binding.status = internal::SlotState::kNative;
      }
    }
    if (binding.fn == nullptr && t.traits_.adapter != nullptr) {
      if (void* adapter = t.traits_.adapter(t, index)) {
        binding.fn = adapter;
        binding.status = internal::SlotState::kAdapter;
      }
    }
    return binding;
  }
  static std::string MissingText(const void* self, int index) {
    return static_cast<const Toolkit*>(self)->MissingText(index);
  }
  static std::string AdapterText(const void*, int) { return std::string(); }
  static const internal::LibraryPolicy kPolicy;
};

const internal::LibraryPolicy Toolkit::Policy::kPolicy = {
    &Toolkit::Policy::Bind, &Toolkit::Policy::MissingText, &Toolkit::Policy::AdapterText};

Toolkit::Toolkit(const ToolkitTraits& traits)
    : traits_(traits), error_(traits.no_library_status) {}

// The library stays loaded: a refused or released one would leak its libstdc++'s pool, and
// threads or handlers it started may outlive us.
Toolkit::~Toolkit() = default;

std::unique_ptr<Toolkit> Toolkit::Open(const ToolkitTraits& traits,
                                       const ToolkitOptions& options) {
  return OpenWith(traits, options, nullptr);
}

std::unique_ptr<Toolkit> Toolkit::OpenWith(const ToolkitTraits& traits,
                                           const ToolkitOptions& options,
                                           std::atomic<void*>* slots) noexcept {
  std::unique_ptr<Toolkit> t(new (std::nothrow) Toolkit(traits));
  if (t == nullptr) return nullptr;
  t->table_ = internal::EntryTable::Create(traits.entry_count, slots, &Policy::kPolicy, t.get());
  if (t->table_ == nullptr) return nullptr;
  t->slots_ = t->table_->slots();
  Toolkit* raw = t.get();
  if (!raw->table_->RunDiscovery([&] { raw->Discover(options); },
                                 "cudyn: library discovery failed (out of memory)")) {
    raw->error_ = traits.no_library_status;
  }
  raw->table_->set_open(raw->ok());
  return t;
}

Toolkit* Toolkit::OpenDefault(const ToolkitTraits& traits, std::atomic<void*>* slots,
                              void* unopened_storage) noexcept {
  ToolkitOptions options;
  options.use_environment = true;
  if (Toolkit* t = OpenWith(traits, options, slots).release()) return t;
  // Out of memory at open: every call answers the library's "no library" status. Leaked on
  // purpose, as the opened ones (trampolines may run from other libraries' destructors at exit).
  Toolkit* unopened = new (unopened_storage) Toolkit(traits);
  unopened->slots_ = slots;
  return unopened;
}

void Toolkit::AddWarning(std::string text) { warnings_.push_back(std::move(text)); }

// A searched candidate: refused by its SONAME, or by the runtime its file carries, before dlopen
// when there is a driver, else loaded and judged. An explicit one is always loaded (TryCandidate).
bool Toolkit::JudgeSearched(const std::string& path, ToolkitSource source) {
  if (driver_version_ > 0) {
    const std::string soname =
        internal::CandidateSoname(path, source == ToolkitSource::kDefaultSearch);
    std::optional<internal::SonameRefusal> refused;
    if (!soname.empty()) refused = RefuseSoname(traits_, soname, driver_version_);
    if (refused) {
      ToolkitCandidate& c = internal::AddCandidate(&candidates_, path, source,
                                                   ToolkitRejection::kDriverTooOld,
                                                   std::move(refused->reason));
      c.min_driver = refused->min_driver;
      return false;
    }
    // A SONAME several releases share (libcurand.so.10: 11.x, 12.x, 13.0): the runtime compiled
    // into the file says what TryCandidate would find after loading it, so the file is refused
    // unloaded. Only where that runtime decides (TryCandidate's rule: no min_driver hook, no
    // version call of its own for the runtime).
    if (traits_.min_driver == nullptr && traits_.runtime_version_symbol == nullptr &&
        !traits_.driver_library) {
      const int runtime = internal::CudaRuntimeVersionOfFile(path);
      const int needs = runtime > 0 ? RuntimeVersionMinDriver(runtime) : 0;
      if (needs > driver_version_) {
        ToolkitCandidate& c = internal::AddCandidate(
            &candidates_, path, source, ToolkitRejection::kDriverTooOld,
            std::string(traits_.name) + " carrying the CUDA " + CudaVersionText(runtime) +
                " runtime runs on CUDA " + CudaVersionText(needs) + "+ drivers: the driver (CUDA " +
                CudaVersionText(driver_version_) + ") is too old for it (not loaded)");
        c.runtime_version = runtime;
        c.min_driver = needs;
        return false;
      }
    }
  }
  return TryCandidate(path, source);
}

// The driver's version after the clamp decides, an explicit path is the only one tried, else the
// SONAMEs newest first are searched (the test-only search_paths, or the shared search plan, each
// file judged once) and the first acceptable file is taken. A searched candidate refused by its
// SONAME is never loaded (dlopen'ing it to judge it would map it for good: a cuBLAS is ~0.6 s and
// 550 MB of mappings, and its runtime may have registered exit handlers).
void Toolkit::Discover(const ToolkitOptions& options) {
  if (options.use_environment) {
    std::string log_warning = internal::ConfigureLogFromEnvironment();
    if (!log_warning.empty()) warnings_.push_back(log_warning);
  }
  const std::optional<int> clamp =
      internal::ChooseClamp(options.max_cuda_version, options.use_environment, nullptr);
  // A library the driver ships runs with any driver: the CUDA driver is not opened for it.
  driver_version_ = options.driver_version     ? *options.driver_version
                    : traits_.driver_library ? 0
                                             : DefaultDriverVersion();
  if (clamp && driver_version_ > 0 && *clamp < driver_version_) driver_version_ = *clamp;
  clamp_ = clamp.value_or(0);

  const std::optional<bool> explicit_accepted = internal::TryExplicitPath(
      options.path, options.use_environment, traits_.env_name, &candidates_, &warnings_,
      [this](const std::string& path, ToolkitSource source) { return TryCandidate(path, source); });
  bool accepted = explicit_accepted.value_or(false);
  if (!explicit_accepted) {
    if (driver_version_ == 0 && !traits_.driver_library) {
      warnings_.push_back(std::string("no usable NVIDIA driver: taking the newest ") +
                          traits_.name + " found");
    }
    if (options.search_paths) {
      for (const std::string& soname : ToolkitSonames(traits_)) {
        for (const std::string& dir : *options.search_paths) {
          const std::string file = dir + "/" + soname;
          if (!accepted && internal::FileExists(file)) {
            accepted = JudgeSearched(file, ToolkitSource::kSearchPath);
          }
        }
      }
    } else {
      // A file reached again under another name (/usr/local/cuda -> cuda-13.0, targets/...) was
      // already judged: it is not tried twice.
      std::vector<std::string> tried;
      for (const PlannedToolkit& planned : ToolkitSearchPlan(traits_)) {
        if (accepted) break;
        if (planned.source != ToolkitSource::kDefaultSearch) {
          if (!internal::FileExists(planned.path)) continue;
          const std::string real = internal::RealPath(planned.path);
          if (std::find(tried.begin(), tried.end(), real) != tried.end()) continue;
        }
        accepted = JudgeSearched(planned.path, planned.source);
        // (A bare name refused unloaded names no file.)
        if (!candidates_.empty() && candidates_.back().path.find('/') != std::string::npos) {
          tried.push_back(internal::RealPath(candidates_.back().path));
        }
      }
    }
  }
  for (const std::string& w : warnings_) internal::Warn(w);
  if (!accepted) {
    error_ = traits_.no_library_status;
    table_->SetLastError("cudyn: no usable " + std::string(traits_.name) + " (" + traits_.file +
                         (traits_.driver_library
                              ? std::string(") found")
                              : ") for this driver (CUDA " + CudaVersionText(driver_version_) +
                                    ")") +
                         "; tried:" +
                         internal::TriedText(candidates_, [this](ToolkitSource s) {
                           return ToolkitSourceName(traits_, s);
                         }));
    internal::Warn(table_->last_error());
    return;
  }
  error_ = 0;
  internal::LogAt(internal::LogLevel::kInfo, traits_.name, " ", path_, " (found by ",
                  ToolkitSourceName(traits_, found_by_), "), version ",
                  traits_.version_text(version_.version), ", ",
                  ToolkitReleaseText(traits_, release_),
                  driver_version_ > 0 ? ", driver CUDA " + CudaVersionText(driver_version_)
                                      : std::string(),
                  companion_.empty() ? std::string() : ", " + companion_);
}

namespace {

// The DT_NEEDED names of `path` that are siblings of the library, in the traits' order.
std::vector<std::string> NeededSiblings(const ToolkitTraits& traits, const std::string& path) {
  std::vector<std::string> out;
  if (traits.siblings == nullptr || path.find('/') == std::string::npos) return out;
  const std::vector<std::string> needed = internal::ReadElfNeeded(path);
  for (const char* s = traits.siblings; *s != '\0'; s += std::strlen(s) + 1) {
    for (const std::string& n : needed) {
      if (n.rfind(std::string(s) + ".so.", 0) == 0) out.push_back(n);
    }
  }
  return out;
}

// The file the process has for SONAME `name` ("" when none is loaded); `is_cudyn` when it is one
// of cudyn's drop-ins.
std::string LoadedFile(const std::string& name, bool* is_cudyn) {
  *is_cudyn = false;
  void* h = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return "";
  std::string file = name;
  struct link_map* map = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    file = map->l_name;
  }
  // The marker of that very object (dlsym also searches its dependencies, which may be drop-ins).
  void* marker = dlsym(h, kToolkitDropinMarker);
  Dl_info info;
  *is_cudyn = marker != nullptr && dladdr(marker, &info) != 0 && info.dli_fname != nullptr &&
              map != nullptr && map->l_name != nullptr &&
              internal::RealPath(info.dli_fname) == internal::RealPath(map->l_name);
  dlclose(h);
  return file;
}

}  // namespace

bool Toolkit::TryCandidate(const std::string& path, ToolkitSource source) {
  // The siblings of its own release beside it, opened by their path first (ToolkitTraits::
  // siblings). Our handles are closed whatever the outcome: an accepted (or refused but loaded)
  // library holds them as dependencies.
  struct SiblingHandles {
    std::vector<void*> handles;
    ~SiblingHandles() {
      for (auto it = handles.rbegin(); it != handles.rend(); ++it) dlclose(*it);
    }
  } siblings;
  for (const std::string& name : NeededSiblings(traits_, path)) {
    bool is_cudyn = false;
    if (!LoadedFile(name, &is_cudyn).empty()) continue;  // the dynamic linker matches that one
    const std::string beside = path.substr(0, path.rfind('/') + 1) + name;
    if (internal::ReadElfSoname(beside) != name) continue;
    if (void* h = dlopen(beside.c_str(), RTLD_LAZY | RTLD_LOCAL)) siblings.handles.push_back(h);
  }
  internal::OpenedLibrary opened = internal::OpenCandidate(path, false, IdentityOf(traits_));
  if (internal::RecordOpenRefusal(
          &opened, path, source, ToolkitRejection::kNotTheLibrary,
          ("exports no " + std::string(traits_.version_symbol) + ": not a " + traits_.name +
           " library")
              .c_str(),
          &candidates_)) {
    return false;
  }
  ToolkitVersion version;
  std::string answer;
  if (!traits_.read_version(traits_, opened.handle, opened.version_function, &version, &answer)) {
    internal::AddCandidate(&candidates_, opened.loaded_path, source,
                           ToolkitRejection::kNotTheLibrary,
                           std::string(traits_.version_symbol) + " answered " + answer);
    return false;  // stays loaded, unused (RTLD_LOCAL: nothing binds to it)
  }
  // The runtime compiled into it, when its own call does not say (cuRAND, cuSPARSE, ...): what it
  // needs of the driver is that runtime's (a SONAME and the release facts cannot tell a 12.0
  // cuRAND from an 11.8 one).
  if (version.runtime_version == 0 && traits_.runtime_version_symbol == nullptr &&
      !traits_.driver_library) {
    version.runtime_version = std::max(0, internal::CudaRuntimeVersionOfCode(opened.version_function));
  }
  int release = ReleaseOf(traits_, version);
  if (version.runtime_version / 1000 > release / 1000) release = version.runtime_version / 1000 * 1000;
  const int own_release = release;
  // A clamp to an older driver binds by the rules of the release such a driver has.
  if (traits_.release_cap != nullptr && clamp_ > 0) {
    const int cap = traits_.release_cap(clamp_);
    if (cap > 0 && cap < release) release = cap;
  }
  const int needs = traits_.min_driver == nullptr && version.runtime_version > 0
                        ? RuntimeVersionMinDriver(version.runtime_version)
                        : ToolkitMinDriver(traits_, release);
  const std::string what =
      std::string(traits_.name) + " " + traits_.version_text(version.version) + " (" +
      ToolkitReleaseText(traits_, own_release) +
      (traits_.driver_library
           ? std::string(release != own_release ? ", answering as " +
                                                      ToolkitReleaseText(traits_, release)
                                                : std::string()) +
                 "): runs with any driver"
           : " release: " + Requirement(traits_, release, version.runtime_version) +
                 ") runs on CUDA " + CudaVersionText(needs) + "+ drivers");
  auto record = [&](ToolkitRejection rejection, std::string reason) -> ToolkitCandidate& {
    ToolkitCandidate& c = internal::AddCandidate(&candidates_, opened.loaded_path, source,
                                                 rejection, std::move(reason));
    c.version = version.version;
    c.runtime_version = version.runtime_version;
    c.release = release;
    c.min_driver = needs;
    return c;
  };
  if (driver_version_ > 0 && driver_version_ < needs) {
    const std::string why =
        what + ": the driver (CUDA " + CudaVersionText(driver_version_) + ") is too old for it";
    if (!IsExplicit(source)) {
      record(ToolkitRejection::kDriverTooOld, why);
      return false;  // stays loaded, unused
    }
    AddWarning("explicit " + std::string(traits_.name) + " taken although " + why);
  }
  handle_ = opened.handle;
  path_ = opened.loaded_path;
  found_by_ = source;
  version_ = version;
  release_ = release;
  own_release_ = own_release;
  NoteSiblings();
  if (traits_.after_accept != nullptr) {
    const std::string more = traits_.after_accept(*this, !siblings.handles.empty());
    companion_ += (companion_.empty() || more.empty() ? "" : "; ") + more;
  }
  record(ToolkitRejection::kNone,
         "accepted: " + what +
             (driver_version_ > 0 ? ", the driver is CUDA " + CudaVersionText(driver_version_)
                                  : std::string(", no driver to compare with")))
      .companion = companion_;
  return true;
}

// Which file the process has for each sibling the accepted library needs: the one beside it, or
// cudyn's own drop-in (which serves the release its loader picks by the same rule); anything else
// is a release mix, warned about.
void Toolkit::NoteSiblings() {
  for (const std::string& name : NeededSiblings(traits_, path_)) {
    bool is_cudyn = false;
    const std::string loaded = LoadedFile(name, &is_cudyn);
    std::string note = name + ": " + (loaded.empty() ? std::string("not loaded") : loaded);
    if (is_cudyn) {
      note += " (cudyn's drop-in)";
    } else if (!loaded.empty()) {
      const std::string beside = path_.substr(0, path_.rfind('/') + 1) + name;
      if (internal::FileExists(beside) &&
          internal::RealPath(beside) != internal::RealPath(loaded)) {
        AddWarning(std::string(traits_.name) + " " + path_ + " uses " + loaded + ", not the " +
                   name + " beside it (one of that name was loaded first: releases mixed)");
      }
    }
    companion_ += (companion_.empty() ? "" : "; ") + note;
  }
}

const ToolkitRuleRow* Toolkit::RuleFor(int index) const {
  // The rules of the newest known release at or below the chosen one, else the oldest.
  int rules_release = 0;
  for (int i = 0; i < traits_.release_count; ++i) {
    const int r = traits_.releases[i].release;
    if (r <= release_ && r > rules_release) rules_release = r;
  }
  if (rules_release == 0 && traits_.release_count > 0) rules_release = traits_.releases[0].release;
  return FindToolkitRule(traits_, index, rules_release);
}

std::string_view Toolkit::symbol(int index) const {
  return index >= 0 && index < traits_.entry_count ? traits_.symbols[index] : std::string_view();
}

void* Toolkit::ResolveSlow(int index) noexcept {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kCall) : nullptr;
}

void* Toolkit::Probe(int index) noexcept {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kProbe) : nullptr;
}

int Toolkit::BindAll() { return table_ != nullptr ? table_->BindAll() : traits_.entry_count; }

EntryStatus Toolkit::status(int index) const {
  if (table_ != nullptr) return static_cast<EntryStatus>(table_->status(index));
  return index >= 0 && index < traits_.entry_count ? EntryStatus::kMissing : EntryStatus::kUnbound;
}

std::string Toolkit::MissingText(int index) const {
  const ToolkitRuleRow* rule = RuleFor(index);
  return "cudyn: " + std::string(symbol(index)) + " is not provided by " + path_ + " (" +
         traits_.name + " " + traits_.version_text(version_.version) + "): " +
         (rule != nullptr && rule->reason[0] != '\0' ? rule->reason : "not exported") +
         "; answering " + traits_.not_supported_name;
}

std::string Toolkit::last_error() const noexcept {
  return table_ != nullptr ? table_->last_error() : std::string();
}

}  // namespace cudyn
