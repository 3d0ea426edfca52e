// Driver discovery, version, strategy and per-entry binding. See cudyn.h for the contract.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "loader/cudyn.h"
#include "loader/cudart_family.h"
#include "loader/internal.h"

namespace cudyn {

static_assert(static_cast<int>(EntryStatus::kUnbound) == static_cast<int>(internal::SlotState::kUnbound) &&
                  static_cast<int>(EntryStatus::kNative) == static_cast<int>(internal::SlotState::kNative) &&
                  static_cast<int>(EntryStatus::kAdapter) == static_cast<int>(internal::SlotState::kAdapter) &&
                  static_cast<int>(EntryStatus::kMissing) == static_cast<int>(internal::SlotState::kMissing),
              "the core's slot states are the public entry statuses");

namespace {

using DriverGetVersionFn = int (*)(int*);
using GetProcAddressFn = int (*)(const char*, void**, int, unsigned long long);
using GetProcAddressV2Fn = int (*)(const char*, void**, int, unsigned long long, int*);

constexpr unsigned long long kPerThreadFlag = 2;  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
constexpr int kFirstGetProcAddress = 11030;       // cuGetProcAddress appeared in CUDA 11.3
constexpr int kFirstGetProcAddressV2 = 12000;     // cuGetProcAddress_v2 in CUDA 12.0

}  // namespace

const char kWslDriverPath[] = "/usr/lib/wsl/lib/libcuda.so.1";

namespace {
const char kDriverSoname[] = "libcuda.so.1";
const internal::LibraryIdentity kDriverIdentity = {"cuDriverGetVersion", "cudynEntryCount"};

// Builds "cuMemAdvise" from an entry into a NUL-terminated buffer without allocating.
bool CopyBase(int index, char* buffer, size_t size) {
  std::string_view base = EntryBase(index);
  if (base.size() + 1 > size) return false;
  std::memcpy(buffer, base.data(), base.size());
  buffer[base.size()] = '\0';
  return true;
}

// The per-thread sibling of a legacy entry: cuMemcpyHtoD_v2 -> cuMemcpyHtoD_v2_ptds.
int PerThreadSibling(int index) {
  std::string symbol(EntrySymbol(index));
  int sibling = FindEntry(symbol + "_ptds");
  return sibling >= 0 ? sibling : FindEntry(symbol + "_ptsz");
}

}  // namespace

std::optional<bool> ParseClampMode(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (t == "versions") return false;
  if (t == "emulate") return true;
  return std::nullopt;
}

const char* EntryStatusName(EntryStatus status) {
  switch (status) {
    case EntryStatus::kUnbound: return "unbound";
    case EntryStatus::kNative: return "native";
    case EntryStatus::kAdapter: return "adapter";
    case EntryStatus::kMissing: return "missing";
  }
  return "?";
}

const char* BindViaName(BindVia via) {
  switch (via) {
    case BindVia::kNone: return "none";
    case BindVia::kGetProcAddressV2: return "cuGetProcAddress_v2";
    case BindVia::kGetProcAddress: return "cuGetProcAddress";
    case BindVia::kDlsym: return "dlsym";
    case BindVia::kAdapter: return "adapter";
  }
  return "?";
}

const char* CandidateSourceName(CandidateSource source) {
  switch (source) {
    case CandidateSource::kOption: return "option";
    case CandidateSource::kEnvironment: return "CUDYN_DRIVER_PATH";
    case CandidateSource::kAlreadyLoaded: return "already loaded";
    case CandidateSource::kWsl: return "wsl";
    case CandidateSource::kDefaultSearch: return "default search";
    case CandidateSource::kWellKnownDirectory: return "well-known directory";
    case CandidateSource::kSearchPath: return "search path";
  }
  return "?";
}

const char* RejectionName(Rejection rejection) {
  switch (rejection) {
    case Rejection::kNone: return "accepted";
    case Rejection::kIgnoredSecure: return "ignored_secure";
    case Rejection::kNotAbsolute: return "not_absolute";
    case Rejection::kUnloadableFile: return "unloadable_file";
    case Rejection::kNotLoaded: return "not_loaded";
    case Rejection::kDlopenFailed: return "dlopen_failed";
    case Rejection::kIsCudyn: return "is_cudyn";
    case Rejection::kNotADriver: return "not_a_driver";
    case Rejection::kStubLibrary: return "stub_library";
    case Rejection::kVersionFailed: return "version_failed";
    case Rejection::kAbsurdVersion: return "absurd_version";
  }
  return "?";
}

const char* StrategyName(Strategy strategy) {
  switch (strategy) {
    case Strategy::kNone: return "none";
    case Strategy::kGetProcAddressV2: return "cuGetProcAddress_v2";
    case Strategy::kGetProcAddress: return "cuGetProcAddress";
    case Strategy::kDlsym: return "dlsym";
  }
  return "?";
}

std::atomic<void*> g_default_slots[kEntryCount];

// The driver's binding rules, for the core's entry table (loader/core.h).
struct DriverPolicy {
  static internal::Binding Bind(void* self, int index, internal::BindMode mode);
  static internal::Binding BindPlain(void* self, int index, internal::BindMode mode);
  static std::string MissingText(const void* self, int index) {
    return static_cast<const Driver*>(self)->MissingText(index);
  }
  static std::string AdapterText(const void* self, int index);
};

const internal::LibraryPolicy Driver::kPolicy = {&DriverPolicy::Bind, &DriverPolicy::MissingText,
                                                &DriverPolicy::AdapterText};

Driver::Driver() : slots_(g_default_slots) {}

Driver::~Driver() {
  if (adapter_instance_ >= 0) internal::ReleaseAdapterInstance(adapter_instance_);
  if (handle_ != nullptr) dlclose(handle_);
}

std::unique_ptr<Driver> Driver::Open(const DriverOptions& options) {
  return internal::OpenLibrary<Driver>(options, nullptr);
}


void Driver::Discover(const DriverOptions& options) {
  if (options.use_environment) {
    std::string log_warning = internal::ConfigureLogFromEnvironment();
    if (!log_warning.empty()) warnings_.push_back(log_warning);
  }
  // Clamp and per-thread settings: explicit options win over the environment.
  const std::optional<int> clamp =
      internal::ChooseClamp(options.max_cuda_version, options.use_environment, &warnings_);
  std::optional<bool> per_thread = options.per_thread_default_stream;
  if (!per_thread && options.use_environment) {
    std::string value = internal::GetEnv("CUDYN_PER_THREAD_DEFAULT_STREAM");
    if (!value.empty()) {
      per_thread = ParseBool(value);
      if (!per_thread) {
        warnings_.push_back("CUDYN_PER_THREAD_DEFAULT_STREAM='" + value +
                            "' is not one of 0/1/true/false/on/off/yes/no; using legacy streams");
      }
    }
  }
  per_thread_ = per_thread.value_or(false);
  std::optional<bool> emulate = options.emulate_driver;
  if (!emulate && options.use_environment) {
    std::string value = internal::GetEnv("CUDYN_CLAMP_MODE");
    if (!value.empty()) {
      emulate = ParseClampMode(value);
      if (!emulate) {
        warnings_.push_back("CUDYN_CLAMP_MODE='" + value +
                            "' is not one of versions/emulate; driver emulation is off");
      }
    }
  }
  for (const std::string& w : warnings_) internal::Warn(w);

  // Candidate order: explicit path (option, then CUDYN_DRIVER_PATH) alone; otherwise the
  // already-loaded driver, WSL, the default search and well-known directories.
  const std::optional<bool> explicit_accepted = internal::TryExplicitPath(
      options.driver_path, options.use_environment, "CUDYN_DRIVER_PATH", &candidates_, &warnings_,
      [this](const std::string& path, CandidateSource source) {
        return TryCandidate(path, source, false);
      });
  bool accepted = explicit_accepted.value_or(false);
  if (explicit_accepted) {
    // An explicit path is all that is tried.
  } else if (options.search_paths) {
    for (const std::string& p : *options.search_paths) {
      if ((accepted = TryCandidate(p, CandidateSource::kSearchPath, false))) break;
    }
  } else {
    for (CandidateSource step : kDriverSearchPlan) {
      if (accepted) break;
      struct stat st;
      switch (step) {
        case CandidateSource::kAlreadyLoaded:
          accepted = TryCandidate(kDriverSoname, step, true);
          break;
        case CandidateSource::kWsl:
          if (stat(kWslDriverPath, &st) == 0) accepted = TryCandidate(kWslDriverPath, step, false);
          break;
        case CandidateSource::kDefaultSearch:
          accepted = TryCandidate(kDriverSoname, step, false);
          break;
        case CandidateSource::kWellKnownDirectory:
          for (int i = 0; !accepted && i < kWellKnownDriverDirCount; ++i) {
            const std::string path = std::string(kWellKnownDriverDirs[i]) + "/" + kDriverSoname;
            if (stat(path.c_str(), &st) == 0) accepted = TryCandidate(path, step, false);
          }
          break;
        default:
          break;  // the explicit and search-path sources are not steps of the plan
      }
    }
  }

  if (!accepted) {
    bool stub_seen = false;
    for (const DriverCandidate& c : candidates_) stub_seen |= c.rejection == Rejection::kStubLibrary;
    error_ = stub_seen ? kCudaErrorStubLibrary : kCudaErrorSharedObjectInitFailed;
    table_->SetLastError(
        std::string(stub_seen ? "cudyn: only the CUDA toolkit's stub libcuda was found "
                                "(it cannot run anything); install the NVIDIA driver"
                              : "cudyn: no loadable NVIDIA driver (libcuda.so.1)") +
        "; tried:" + internal::TriedText(candidates_, CandidateSourceName));
    internal::Warn(table_->last_error());
    return;
  }

  effective_version_ = cuda_version_;
  if (clamp && *clamp < cuda_version_) effective_version_ = *clamp;
  // Emulation follows a clamp (even one at the driver's own version: the emulated driver then
  // is this version's, which the tests use); without one there is nothing to emulate.
  emulating_ = emulate.value_or(false) && clamp.has_value();
  if (emulate.value_or(false) && !emulating_) {
    internal::LogAt(internal::LogLevel::kInfo, "driver emulation asked for, but no clamp is set: off");
  }
  ChooseStrategy();
  driver_code_ = internal::ModuleCodeRanges(dlsym(handle_, "cuDriverGetVersion"));
  adapter_instance_ = internal::AcquireAdapterInstance(this);
  if (adapter_instance_ < 0) {
    warnings_.push_back("more than 16 drivers open at once: custom adapters are unavailable for "
                        "this one");
    internal::Warn(warnings_.back());
  }
  error_ = kCudaSuccess;
  if (emulating_ && adapter_instance_ >= 0) internal::ResetEmulation(adapter_instance_);
  if (emulating_ && adapter_instance_ < 0) {
    emulating_ = false;
    warnings_.push_back("driver emulation needs an adapter instance: off for this driver");
    internal::Warn(warnings_.back());
  }
  internal::LogAt(internal::LogLevel::kInfo, "driver ", path_, " (found by ",
                  CandidateSourceName(found_by_), "), CUDA ", cuda_version_, ", effective ",
                  effective_version_, ", strategy ", StrategyName(strategy_),
                  emulating_ ? ", emulating the older driver" : "");
}

void Driver::Reject(std::string path, CandidateSource source, Rejection rejection,
                    std::string reason) {
  internal::AddCandidate(&candidates_, std::move(path), source, rejection, std::move(reason));
}

bool Driver::TryCandidate(const std::string& path, CandidateSource source, bool noload) {
  internal::OpenedLibrary opened = internal::OpenCandidate(path, noload, kDriverIdentity);
  if (opened.failure == internal::OpenFailure::kNotTheLibrary) {
    Reject(opened.loaded_path, source, Rejection::kNotADriver,
           "exports no cuDriverGetVersion: not a CUDA driver");
    return false;
  }
  if (opened.handle == nullptr) {
    Reject(opened.failure == internal::OpenFailure::kIsCudyn ? opened.loaded_path : path, source,
           internal::RejectionFor<Rejection>(opened.failure), std::move(opened.reason));
    return false;
  }
  void* const handle = opened.handle;
  const std::string& loaded_path = opened.loaded_path;
  auto get_version = reinterpret_cast<DriverGetVersionFn>(opened.version_function);
  int version = 0;
  int rc = get_version(&version);
  Rejection rejection = Rejection::kNone;
  std::string reason;
  if (rc == kCudaErrorStubLibrary) {
    rejection = Rejection::kStubLibrary;
    reason = "the CUDA toolkit's stub library (cuDriverGetVersion returned 34 "
             "CUDA_ERROR_STUB_LIBRARY)";
  } else if (rc != kCudaSuccess) {
    rejection = Rejection::kVersionFailed;
    reason = "cuDriverGetVersion failed with CUresult " + std::to_string(rc);
  } else if (!internal::IsPlausibleCudaVersion(version)) {
    rejection = Rejection::kAbsurdVersion;
    reason = "cuDriverGetVersion reports an absurd CUDA version " + std::to_string(version);
  }
  if (rejection != Rejection::kNone) {
    Reject(loaded_path, source, rejection, std::move(reason));
    dlclose(handle);
    return false;
  }
  internal::AddCandidate(&candidates_, loaded_path, source, Rejection::kNone, "accepted")
      .cuda_version = version;
  handle_ = handle;
  path_ = loaded_path;
  found_by_ = source;
  cuda_version_ = version;
  return true;
}

void Driver::ChooseStrategy() {
  get_proc_address_ = dlsym(handle_, "cuGetProcAddress");
  get_proc_address_v2_ = dlsym(handle_, "cuGetProcAddress_v2");
  if (effective_version_ >= kFirstGetProcAddressV2 && get_proc_address_v2_ != nullptr) {
    strategy_ = Strategy::kGetProcAddressV2;
  } else if (effective_version_ >= kFirstGetProcAddress && get_proc_address_ != nullptr) {
    strategy_ = Strategy::kGetProcAddress;
  } else {
    strategy_ = Strategy::kDlsym;
  }
}

void* Driver::LookUp(int index, int version, bool per_thread, BindVia* via) {
  const EntryInfo& e = kEntries[index];
  char base[128];
  if (e.gpa_reachable && strategy_ != Strategy::kDlsym && CopyBase(index, base, sizeof(base))) {
    void* fn = nullptr;
    unsigned long long flags = per_thread ? kPerThreadFlag : 0;
    if (strategy_ == Strategy::kGetProcAddressV2) {
      int symbol_status = -1;
      int rc = reinterpret_cast<GetProcAddressV2Fn>(get_proc_address_v2_)(base, &fn, version, flags,
                                                                          &symbol_status);
      if (rc == kCudaSuccess && symbol_status == 0) {
        if (!IsCode(fn)) {
          NoteUnusableProcAddress(base, fn);
        } else if (!internal::IsCudynFunction(fn)) {
          *via = BindVia::kGetProcAddressV2;
          return fn;
        }
      }
    } else {
      int rc = reinterpret_cast<GetProcAddressFn>(get_proc_address_)(base, &fn, version, flags);
      if (rc == kCudaSuccess) {
        if (!IsCode(fn)) {
          NoteUnusableProcAddress(base, fn);
        } else if (!internal::IsCudynFunction(fn)) {
          *via = BindVia::kGetProcAddress;
          return fn;
        }
      }
    }
  }
  // Before 11.3, for symbols cuGetProcAddress never returns, and when it declines (or answers
  // with an unusable pointer): the exact exported name.
  void* fn = dlsym(handle_, EntrySymbol(index).data());
  if (!IsCode(fn) || internal::IsCudynFunction(fn)) return nullptr;
  *via = BindVia::kDlsym;
  return fn;
}

bool Driver::IsCode(const void* fn) const {
  uintptr_t p = reinterpret_cast<uintptr_t>(fn);
  for (const auto& range : driver_code_) {
    if (p >= range.first && p < range.second) return true;
  }
  return internal::IsLoadedCode(fn);  // another object (an interposer's wrapper), or not code at all
}

void* Driver::BindNative(int index, BindVia* via) {
  const EntryInfo& e = kEntries[index];
  if (e.abi_version > effective_version_) return nullptr;  // never ask above the driver
  if (per_thread_ && e.stream == StreamClass::kLegacy) {
    int sibling = PerThreadSibling(index);
    if (sibling >= 0 && kEntries[sibling].abi_version <= effective_version_) {
      if (void* fn = LookUp(sibling, kEntries[sibling].abi_version, true, via)) return fn;
    }
  }
  return LookUp(index, e.abi_version, e.stream != StreamClass::kLegacy, via);
}

void Driver::NoteUnusableProcAddress(const char* base, const void* fn) {
  if (bad_proc_address_logged_.exchange(true)) return;
  internal::Warn(std::string(StrategyName(strategy_)) + " of " + path_ +
                 " reported success for " + base + " but returned " +
                 (fn == nullptr ? "a NULL" : "a non-code (unmapped or non-executable)") +
                 " pointer; using dlsym of the exact symbol instead (further cases are not "
                 "logged)");
}

void* Driver::ResolveSlow(int index) {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kCall) : nullptr;
}

void* Driver::ProbeSlow(int index) {
  return table_ != nullptr ? table_->ResolveSlow(index, internal::BindMode::kProbe) : nullptr;
}

EntryStatus Driver::status(int index) const {
  if (table_ != nullptr) return static_cast<EntryStatus>(table_->status(index));
  return index >= 0 && index < kEntryCount ? EntryStatus::kMissing : EntryStatus::kUnbound;
}

BindVia Driver::via(int index) const {
  return table_ != nullptr ? static_cast<BindVia>(table_->via(index)) : BindVia::kNone;
}

internal::Binding DriverPolicy::Bind(void* self, int index, internal::BindMode mode) {
  internal::Binding binding = BindPlain(self, index, mode);
  Driver& d = *static_cast<Driver*>(self);
  // Driver emulation (loader/emulate.cc): a module-load entry, cuInit or cuDeviceGetCount gets
  // the wrapper, which calls what was bound. Decided here, once per entry: the slot still holds
  // one function and the call path stays one jmp.
  if (d.emulating_ && binding.fn != nullptr) {
    if (void* wrapper = internal::EmulationWrapper(index, d.adapter_instance_, binding.fn)) {
      binding.fn = wrapper;
    }
  }
  return binding;
}

internal::Binding DriverPolicy::BindPlain(void* self, int index, internal::BindMode mode) {
  Driver& d = *static_cast<Driver*>(self);
  const EntryInfo& e = kEntries[index];
  internal::Binding binding;
  BindVia via = BindVia::kNone;
  if ((binding.fn = d.BindNative(index, &via)) != nullptr) {
    binding.status = internal::SlotState::kNative;
    binding.via = static_cast<uint8_t>(via);
    return binding;
  }
  void* fallback = nullptr;
  if (e.fallback >= 0) fallback = d.table_->ResolveSlow(e.fallback, mode);
  if (fallback != nullptr) {
    if (e.adapter == AdapterKind::kSameSignature) {
      binding.fn = fallback;
    } else if (e.adapter == AdapterKind::kCustom && d.adapter_instance_ >= 0) {
      binding.fn = internal::CustomAdapter(index, d.adapter_instance_);
    }
  }
  binding.status = binding.fn != nullptr ? internal::SlotState::kAdapter : internal::SlotState::kMissing;
  binding.via = static_cast<uint8_t>(binding.fn != nullptr ? BindVia::kAdapter : BindVia::kNone);
  return binding;
}

std::string DriverPolicy::AdapterText(const void* self, int index) {
  const Driver& d = *static_cast<const Driver*>(self);
  const EntryInfo& e = kEntries[index];
  return std::string(EntrySymbol(index)) + " (ABI " + std::to_string(e.abi_version) +
         ") served by an adapter over " + std::string(EntrySymbol(e.fallback)) + " on " +
         d.path_ + " (CUDA " + std::to_string(d.effective_version_) + ")";
}

std::string Driver::MissingText(int index) const {
  const EntryInfo& e = kEntries[index];
  return "cudyn: " + std::string(EntrySymbol(index)) + " (ABI " + std::to_string(e.abi_version) +
         ") is not provided by " + path_ + " (CUDA " + std::to_string(cuda_version_) +
         ", effective " + std::to_string(effective_version_) + ")" +
         (e.fallback >= 0 ? " and its adapter over " + std::string(EntrySymbol(e.fallback)) +
                                " cannot be used"
                          : " and has no adapter");
}

void Driver::NoteAdapterCannotExpress(int index, const char* why) noexcept {
  if (index < 0 || index >= kEntryCount || table_ == nullptr) return;
  try {
    table_->NoteCannotExpress(
        index, "cudyn: " + std::string(EntrySymbol(index)) + " is adapted to " +
                   std::string(EntrySymbol(kEntries[index].fallback)) + " on " + path_ +
                   " (CUDA " + std::to_string(effective_version_) + "), which cannot express " +
                   why + ": returning 801 CUDA_ERROR_NOT_SUPPORTED");
  } catch (...) {
  }
}

size_t Driver::TableBytes(bool owns_slots) {
  return sizeof(internal::EntryTable) + internal::EntryTable::kBytesPerEntry * kEntryCount +
         (owns_slots ? sizeof(std::atomic<void*>) * kEntryCount : 0);
}

int Driver::BindAll() { return table_ != nullptr ? table_->BindAll() : kEntryCount; }

std::string Driver::driver_symbol(int index) const noexcept {
  try {
    return DriverSymbol(index);
  } catch (...) {
    return std::string();
  }
}

std::string Driver::DriverSymbol(int index) const {
  if (index < 0 || index >= kEntryCount) return "";
  EntryStatus s = status(index);
  if (s == EntryStatus::kAdapter && kEntries[index].adapter == AdapterKind::kCustom) {
    return DriverSymbol(kEntries[index].fallback);
  }
  void* fn = slots_[index].load(std::memory_order_acquire);
  if (fn == nullptr) return "";
  // Under driver emulation the slot holds a wrapper: name what it calls.
  if (emulating_) {
    if (void* bound = internal::EmulationBound(index, adapter_instance_)) fn = bound;
  }
  Dl_info info;
  if (dladdr(fn, &info) == 0 || info.dli_sname == nullptr) return "";
  return info.dli_sname;
}

std::string Driver::last_error() const noexcept {
  return table_ != nullptr ? table_->last_error() : std::string();
}

// Where drivers live when the dynamic linker's default search does not find one: distro
// multiarch and lib64 dirs, Debian's alternatives dir, containers' /usr/local/nvidia, and the
// forward-compat package.
const char* const kWellKnownDriverDirs[] = {
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/x86_64-linux-gnu/nvidia/current",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/usr/local/cuda/compat",
};
const int kWellKnownDriverDirCount =
    static_cast<int>(sizeof(kWellKnownDriverDirs) / sizeof(kWellKnownDriverDirs[0]));

Driver& DefaultDriver() { return internal::DefaultInstance<Driver>(); }

bool IsCudaRuntimeCode(const void* address) {
  return internal::IsLibraryCode(address, internal::kCudaRuntimeIdentity);
}

bool RuntimeSeesRealDriver(const void* address, int effective_version) {
  const int runtime = internal::CudaRuntimeVersionOfCode(address);
  return runtime < 0 || (runtime > 0 && RuntimeVersionMinDriver(runtime) <= effective_version);
}

bool LookupSeesRealDriver(const void* caller, int effective_version) {
  if (RuntimeSeesRealDriver(caller, effective_version)) return true;
  const int program_runtime = internal::MainProgramCudaRuntimeVersion(caller);
  return program_runtime > 0 && RuntimeVersionMinDriver(program_runtime) <= effective_version;
}

namespace {

// The runtime `cudyn run` chose (CUDYN_CUDART_PATH, resolved); empty when unset, not absolute,
// unresolvable or ignored under AT_SECURE. Leaked: the drop-in may be called during static
// destruction.
const std::string& ChosenRuntimeRealPath() {
  static const std::string* chosen = [] {
    std::string resolved;
    const std::string env = internal::IsSecureExecution() ? std::string()
                                                           : internal::GetEnv("CUDYN_CUDART_PATH");
    if (!env.empty() && env[0] == '/') {
      if (char* real = realpath(env.c_str(), nullptr)) {
        resolved = real;
        free(real);
      }
    }
    return new std::string(std::move(resolved));
  }();
  return *chosen;
}

// The real path of the object containing `address` ("" when unknown).
std::string ObjectRealPath(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return std::string();
  char* real = realpath(info.dli_fname, nullptr);
  const std::string file = real != nullptr ? std::string(real) : std::string(info.dli_fname);
  free(real);
  return file;
}

// WarnIfOtherCudaRuntime's question to the core's per-object cache (internal::CachedObjectAnswer,
// keyed by this object's address): is the caller's object a CUDA runtime other than the one
// `cudyn run` chose?
const char kOtherRuntimeQuestion = 0;
int IsOtherCudaRuntime(const void* caller) {
  if (!IsCudaRuntimeCode(caller)) return 0;  // cached per object too
  try {
    const std::string& chosen = ChosenRuntimeRealPath();
    return !chosen.empty() && ObjectRealPath(caller) != chosen ? 1 : 0;
  } catch (...) {  // no memory: this object stays unreported
    return 0;
  }
}
std::atomic<bool> g_other_runtime_warned{false};

}  // namespace

void WarnIfOtherCudaRuntime(const void* caller) noexcept {
  if (caller == nullptr || g_other_runtime_warned.load(std::memory_order_relaxed)) return;
  if (internal::CachedObjectAnswer(&kOtherRuntimeQuestion, caller, &IsOtherCudaRuntime) == 0) {
    return;
  }
  if (g_other_runtime_warned.exchange(true)) return;
  try {
    internal::Warn("another CUDA runtime is loaded and calls the driver: " +
                   ObjectRealPath(caller) + " (not cudyn's runtime " + ChosenRuntimeRealPath() +
                   "); its calls bypass cudyn");
  } catch (...) {  // no memory: stay silent
  }
}

void* ResolveDefaultSlow(int index) { return DefaultDriver().ResolveSlow(index); }

}  // namespace cudyn
