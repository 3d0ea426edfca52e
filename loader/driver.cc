// Driver discovery, version, strategy and per-entry binding. See cudyn.h for the contract.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "loader/cudyn.h"
#include "loader/internal.h"
#include "spdlog/spdlog.h"

namespace cudyn {
namespace {

using DriverGetVersionFn = int (*)(int*);
using GetProcAddressFn = int (*)(const char*, void**, int, unsigned long long);
using GetProcAddressV2Fn = int (*)(const char*, void**, int, unsigned long long, int*);

constexpr unsigned long long kPerThreadFlag = 2;  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
constexpr int kFirstGetProcAddress = 11030;       // cuGetProcAddress appeared in CUDA 11.3
constexpr int kFirstGetProcAddressV2 = 12000;     // cuGetProcAddress_v2 in CUDA 12.0
constexpr int kMinPlausibleVersion = 1000;        // cuDriverGetVersion below this is nonsense
constexpr int kMaxPlausibleVersion = 99999;

const char kWslDriver[] = "/usr/lib/wsl/lib/libcuda.so.1";
const char kDriverSoname[] = "libcuda.so.1";

std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown dlopen error");
}

std::string LoadedPath(void* handle, const std::string& fallback) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

// The address range of the object cudyn itself is linked into (an executable, libcudyn_cuda.so or
// an embedding library). A driver lookup must never hand back one of cudyn's own functions: that
// happens when a library interposes cudyn's exported cu* symbols over the driver's, or when
// libcudyn_cuda.so is installed as libcuda.so.1, and calling it would recurse forever.
struct OwnModule {
  uintptr_t begin = 0, end = 0;
};

int FindOwnModule(struct dl_phdr_info* info, size_t, void* data) {
  auto* own = static_cast<OwnModule*>(data);
  uintptr_t probe = reinterpret_cast<uintptr_t>(&g_default_slots);
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    lo = start < lo ? start : lo;
    hi = start + ph.p_memsz > hi ? start + ph.p_memsz : hi;
  }
  if (probe >= lo && probe < hi) {
    own->begin = lo;
    own->end = hi;
    return 1;
  }
  return 0;
}

const OwnModule& Own() {
  static const OwnModule own = [] {
    OwnModule m;
    dl_iterate_phdr(FindOwnModule, &m);
    return m;
  }();
  return own;
}

bool IsOwnFunction(const void* fn) {
  uintptr_t p = reinterpret_cast<uintptr_t>(fn);
  return p >= Own().begin && p < Own().end;
}

// True when `fn` lies in an executable PT_LOAD segment of an object loaded in this process. A
// driver's lookup can hand back anything; a pointer that fails this (NULL, a wild address, data)
// is never bound: calling it would crash the host. An executable pointer to the wrong function
// cannot be told apart from a right one (drivers return unexported internal entry points, and
// profilers interpose their own), so that is trusted.
struct CodeProbe {
  uintptr_t address = 0;
  bool executable = false;
};

int FindCode(struct dl_phdr_info* info, size_t, void* data) {
  auto* probe = static_cast<CodeProbe*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (probe->address >= start && probe->address - start < ph.p_memsz) {
      probe->executable = true;
      return 1;
    }
  }
  return 0;
}

// The executable PT_LOAD ranges of the object that contains `address` (the driver), so most
// lookups are checked against a few ranges instead of a walk over every loaded object.
struct ModuleCode {
  uintptr_t address = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>>* ranges = nullptr;
};

int CollectModuleCode(struct dl_phdr_info* info, size_t, void* data) {
  auto* module = static_cast<ModuleCode*>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    contains = ph.p_type == PT_LOAD && module->address >= start &&
               module->address - start < ph.p_memsz;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    module->ranges->emplace_back(start, start + ph.p_memsz);
  }
  return 1;
}

bool IsLoadedCode(const void* fn) {
  if (fn == nullptr) return false;
  CodeProbe probe;
  probe.address = reinterpret_cast<uintptr_t>(fn);
  dl_iterate_phdr(FindCode, &probe);
  return probe.executable;
}

#if defined(__x86_64__)
constexpr int kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kHostMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int kHostMachine = EM_PPC64;
#else
constexpr int kHostMachine = -1;  // unknown host: the machine check is left to dlopen
#endif

std::string MachineName(int machine) {
  switch (machine) {
    case EM_386: return "i386";
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_PPC64: return "PowerPC64";
    case EM_RISCV: return "RISC-V";
    case EM_S390: return "s390";
    default: return "e_machine " + std::to_string(machine);
  }
}

// Checks an absolute candidate path before dlopen() sees it. Returns "" when dlopen may try it,
// else why not. dlopen() itself blocks forever on a FIFO, dies of SIGBUS on a file whose loadable
// segments are cut short (a truncated copy: glibc maps past the end of the file), and calls an
// ELF for another architecture "No such file or directory"; those are caught here. Everything
// else that dlopen rejects cleanly (empty, not ELF, 32-bit) is left to its own message.
std::string CheckDriverFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::string("cannot open: ") + std::strerror(errno);
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) return std::string("cannot stat: ") + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) {
    return "is not a regular file (a FIFO, socket or device; dlopen would block or fail)";
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  ElfW(Ehdr) eh;
  if (pread(fd, &eh, sizeof(eh), 0) != static_cast<ssize_t>(sizeof(eh)) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32)) {
    return "";  // too short, not ELF or the other ELF class: dlopen says so precisely
  }
  if (kHostMachine >= 0 && eh.e_machine != kHostMachine) {
    return "is an ELF for another architecture (" + MachineName(eh.e_machine) +
           "); this process is " + MachineName(kHostMachine);
  }
  if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 || eh.e_phoff > size ||
      (size - eh.e_phoff) / sizeof(ElfW(Phdr)) < eh.e_phnum) {
    return "is truncated or corrupt: its program headers lie beyond the end of the file (" +
           std::to_string(size) + " bytes)";
  }
  for (int i = 0; i < eh.e_phnum; ++i) {
    ElfW(Phdr) ph;
    if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != static_cast<ssize_t>(sizeof(ph))) {
      return std::string("cannot read its program headers: ") + std::strerror(errno);
    }
    if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC) continue;
    if (ph.p_offset > size || size - ph.p_offset < ph.p_filesz) {
      return "is truncated: a loadable segment ends at byte " +
             std::to_string(static_cast<uint64_t>(ph.p_offset) + ph.p_filesz) +
             " but the file has " + std::to_string(size) +
             " bytes (an incomplete copy or download?)";
    }
  }
  return "";
}

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

std::optional<int> ParseCudaVersion(const std::string& text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  int major = 0, minor = 0;
  size_t dot = text.find('.');
  auto digits = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() <= 5;
  };
  int value = 0;
  if (dot == std::string::npos) {
    if (!digits(text)) return std::nullopt;
    value = std::stoi(text);
  } else {
    std::string a = text.substr(0, dot), b = text.substr(dot + 1);
    if (!digits(a) || !digits(b) || a.size() > 2 || b.size() > 2) return std::nullopt;
    major = std::stoi(a);
    minor = std::stoi(b);
    value = major * 1000 + minor * 10;
  }
  if (value < kMinPlausibleVersion || value > kMaxPlausibleVersion) return std::nullopt;
  return value;
}

std::optional<bool> ParseBool(const std::string& text) {
  static const char* const kTrue[] = {"1", "true", "on", "yes", "TRUE", "ON", "YES", "True"};
  static const char* const kFalse[] = {"0", "false", "off", "no", "FALSE", "OFF", "NO", "False"};
  for (const char* t : kTrue) {
    if (text == t) return true;
  }
  for (const char* f : kFalse) {
    if (text == f) return false;
  }
  return std::nullopt;
}

std::atomic<void*> g_default_slots[kEntryCount];

Driver::Driver(std::atomic<void*>* slots) : slots_(slots) {
  if (slots_ == nullptr) {
    owned_slots_.reset(new (std::nothrow) std::atomic<void*>[kEntryCount]);
    slots_ = owned_slots_.get();
  }
  for (int i = 0; slots_ != nullptr && i < kEntryCount; ++i) {
    slots_[i].store(nullptr, std::memory_order_relaxed);
  }
  for (int i = 0; i < kEntryCount; ++i) {
    status_[i].store(static_cast<uint8_t>(EntryStatus::kUnbound), std::memory_order_relaxed);
    via_[i].store(static_cast<uint8_t>(BindVia::kNone), std::memory_order_relaxed);
    logged_[i].store(0, std::memory_order_relaxed);
    logged_unsupported_[i].store(0, std::memory_order_relaxed);
  }
}

Driver::~Driver() {
  if (adapter_instance_ >= 0) internal::ReleaseAdapterInstance(adapter_instance_);
  if (handle_ != nullptr) dlclose(handle_);
}

std::unique_ptr<Driver> Driver::Open(const DriverOptions& options) {
  return OpenInto(options, nullptr);
}

std::unique_ptr<Driver> Driver::OpenInto(const DriverOptions& options,
                                         std::atomic<void*>* slots) {
  std::unique_ptr<Driver> driver(new (std::nothrow) Driver(slots));
  if (driver == nullptr || driver->slots_ == nullptr) return nullptr;  // out of memory
  // Nothing may escape into the host (out of memory while building texts, mostly).
  try {
    driver->Discover(options);
  } catch (const std::exception& e) {
    driver->error_ = kCudaErrorSharedObjectInitFailed;
    try {
      driver->SetLastError(std::string("cudyn: driver discovery failed: ") + e.what());
    } catch (...) {
    }
  } catch (...) {
    driver->error_ = kCudaErrorSharedObjectInitFailed;
    driver->SetLastError("cudyn: driver discovery failed");
  }
  return driver;
}

void Driver::Discover(const DriverOptions& options) {
  if (options.use_environment) {
    std::string log_warning = internal::ConfigureLogFromEnvironment();
    if (!log_warning.empty()) warnings_.push_back(log_warning);
  }
  // Clamp and per-thread settings: explicit options win over the environment.
  std::optional<int> clamp = options.max_cuda_version;
  if (!clamp && options.use_environment) {
    std::string value = internal::GetEnv("CUDYN_MAX_CUDA_VERSION");
    if (!value.empty()) {
      clamp = ParseCudaVersion(value);
      if (!clamp) {
        warnings_.push_back("CUDYN_MAX_CUDA_VERSION='" + value +
                            "' is not a CUDA version (e.g. 11040 or 11.4); ignored");
      }
    }
  }
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
  for (const std::string& w : warnings_) internal::Log().error("{}", w);

  // Candidate order: explicit path (option, then CUDYN_DRIVER_PATH) alone; otherwise the
  // already-loaded driver, WSL, the default search and well-known directories.
  const internal::ExplicitPath chosen =
      internal::ChooseExplicitPath(options.driver_path, options.use_environment, "CUDYN_DRIVER_PATH");
  if (!chosen.ignored_secure.empty()) {
    Reject(chosen.ignored_secure, CandidateSource::kEnvironment, Rejection::kIgnoredSecure,
           internal::kIgnoredSecureReason);
    warnings_.push_back("CUDYN_DRIVER_PATH ignored in a setuid/setgid process");
  }
  const std::string& explicit_path = chosen.path;
  const CandidateSource explicit_source =
      chosen.from_environment ? CandidateSource::kEnvironment : CandidateSource::kOption;
  bool accepted = false;
  if (!explicit_path.empty()) {
    if (explicit_path[0] != '/') {
      Reject(explicit_path, explicit_source, Rejection::kNotAbsolute,
             internal::kNotAbsoluteReason);
    } else {
      accepted = TryCandidate(explicit_path, explicit_source, false);
    }
  } else if (options.search_paths) {
    for (const std::string& p : *options.search_paths) {
      if ((accepted = TryCandidate(p, CandidateSource::kSearchPath, false))) break;
    }
  } else {
    accepted = TryCandidate(kDriverSoname, CandidateSource::kAlreadyLoaded, true);
    if (!accepted) {
      struct stat st;
      if (stat(kWslDriver, &st) == 0) {
        accepted = TryCandidate(kWslDriver, CandidateSource::kWsl, false);
      }
    }
    if (!accepted) accepted = TryCandidate(kDriverSoname, CandidateSource::kDefaultSearch, false);
    for (int i = 0; !accepted && i < kWellKnownDriverDirCount; ++i) {
      std::string path = std::string(kWellKnownDriverDirs[i]) + "/" + kDriverSoname;
      struct stat st;
      if (stat(path.c_str(), &st) != 0) continue;
      accepted = TryCandidate(path, CandidateSource::kWellKnownDirectory, false);
    }
  }

  if (!accepted) {
    bool stub_seen = false;
    std::string tried;
    for (const DriverCandidate& c : candidates_) {
      if (c.rejection == Rejection::kStubLibrary) stub_seen = true;
      tried += "\n  " + c.path + " (" + CandidateSourceName(c.source) + "): " + c.reason;
    }
    if (candidates_.empty()) tried = "\n  (no candidate paths)";
    error_ = stub_seen ? kCudaErrorStubLibrary : kCudaErrorSharedObjectInitFailed;
    SetLastError(std::string(stub_seen ? "cudyn: only the CUDA toolkit's stub libcuda was found "
                                         "(it cannot run anything); install the NVIDIA driver"
                                       : "cudyn: no loadable NVIDIA driver (libcuda.so.1)") +
                 "; tried:" + tried);
    internal::Log().warn("{}", last_error());
    return;
  }

  effective_version_ = cuda_version_;
  if (clamp && *clamp < cuda_version_) effective_version_ = *clamp;
  ChooseStrategy();
  ModuleCode module;
  module.address = reinterpret_cast<uintptr_t>(dlsym(handle_, "cuDriverGetVersion"));
  module.ranges = &driver_code_;
  if (module.address != 0) dl_iterate_phdr(CollectModuleCode, &module);
  adapter_instance_ = internal::AcquireAdapterInstance(this);
  if (adapter_instance_ < 0) {
    warnings_.push_back("more than 16 drivers open at once: custom adapters are unavailable for "
                        "this one");
    internal::Log().warn("{}", warnings_.back());
  }
  error_ = kCudaSuccess;
  internal::Log().info("driver {} (found by {}), CUDA {}, effective {}, strategy {}", path_,
                       CandidateSourceName(found_by_), cuda_version_, effective_version_,
                       StrategyName(strategy_));
}

void Driver::Reject(std::string path, CandidateSource source, Rejection rejection,
                    std::string reason) {
  DriverCandidate c;
  c.path = std::move(path);
  c.source = source;
  c.rejection = rejection;
  c.reason = std::move(reason);
  candidates_.push_back(std::move(c));
}

bool Driver::TryCandidate(const std::string& path, CandidateSource source, bool noload) {
  internal::OpenedLibrary opened = internal::OpenCandidateLibrary(path, noload);
  if (opened.handle == nullptr) {
    const Rejection rejection =
        opened.failure == internal::OpenFailure::kUnloadableFile ? Rejection::kUnloadableFile
        : opened.failure == internal::OpenFailure::kNotLoaded    ? Rejection::kNotLoaded
                                                                 : Rejection::kDlopenFailed;
    Reject(path, source, rejection, std::move(opened.reason));
    return false;
  }
  void* const handle = opened.handle;
  const std::string& loaded_path = opened.loaded_path;
  auto get_version = reinterpret_cast<DriverGetVersionFn>(dlsym(handle, "cuDriverGetVersion"));
  // libcudyn_cuda.so exports cudyn's C API beside the cu* symbols: binding to it would route every
  // call through a second cudyn (or, when it is this very copy, recurse forever).
  if (dlsym(handle, "cudynEntryCount") != nullptr ||
      (get_version != nullptr && IsOwnFunction(reinterpret_cast<void*>(get_version)))) {
    Reject(loaded_path, source, Rejection::kIsCudyn,
           "is cudyn itself (libcudyn_cuda.so installed or preloaded as the driver?)");
    dlclose(handle);
    return false;
  }
  if (get_version == nullptr) {
    Reject(loaded_path, source, Rejection::kNotADriver,
           "exports no cuDriverGetVersion: not a CUDA driver");
    dlclose(handle);
    return false;
  }
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
  } else if (version < kMinPlausibleVersion || version > kMaxPlausibleVersion) {
    rejection = Rejection::kAbsurdVersion;
    reason = "cuDriverGetVersion reports an absurd CUDA version " + std::to_string(version);
  }
  if (rejection != Rejection::kNone) {
    Reject(loaded_path, source, rejection, std::move(reason));
    dlclose(handle);
    return false;
  }
  DriverCandidate c;
  c.path = loaded_path;
  c.source = source;
  c.rejection = Rejection::kNone;
  c.cuda_version = version;
  c.reason = "accepted";
  candidates_.push_back(c);
  handle_ = handle;
  path_ = c.path;
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
        } else if (!IsOwnFunction(fn)) {
          *via = BindVia::kGetProcAddressV2;
          return fn;
        }
      }
    } else {
      int rc = reinterpret_cast<GetProcAddressFn>(get_proc_address_)(base, &fn, version, flags);
      if (rc == kCudaSuccess) {
        if (!IsCode(fn)) {
          NoteUnusableProcAddress(base, fn);
        } else if (!IsOwnFunction(fn)) {
          *via = BindVia::kGetProcAddress;
          return fn;
        }
      }
    }
  }
  // Before 11.3, for symbols cuGetProcAddress never returns, and when it declines (or answers
  // with an unusable pointer): the exact exported name.
  void* fn = dlsym(handle_, EntrySymbol(index).data());
  if (!IsCode(fn) || IsOwnFunction(fn)) return nullptr;
  *via = BindVia::kDlsym;
  return fn;
}

bool Driver::IsCode(const void* fn) const {
  uintptr_t p = reinterpret_cast<uintptr_t>(fn);
  for (const auto& range : driver_code_) {
    if (p >= range.first && p < range.second) return true;
  }
  return IsLoadedCode(fn);  // another object (an interposer's wrapper), or not code at all
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

void Driver::Publish(int index, void* fn, EntryStatus status, BindVia via) {
  via_[index].store(static_cast<uint8_t>(via), std::memory_order_relaxed);
  status_[index].store(static_cast<uint8_t>(status), std::memory_order_release);
  if (fn != nullptr) slots_[index].store(fn, std::memory_order_release);
}

void Driver::NoteUnusableProcAddress(const char* base, const void* fn) {
  if (bad_proc_address_logged_.exchange(true)) return;
  internal::Log().warn("cudyn: {} of {} reported success for {} but returned {} pointer; using "
                       "dlsym of the exact symbol instead (further cases are not logged)",
                       StrategyName(strategy_), path_, base,
                       fn == nullptr ? "a NULL" : "a non-code (unmapped or non-executable)");
}

void* Driver::ResolveSlow(int index, BindMode mode) {
  // The boundary of every lazy bind (trampolines, adapters, the C API): nothing escapes. Out of
  // memory while building a text leaves the entry unbound, so a later call tries again.
  try {
    return Bind(index, mode);
  } catch (...) {
    return nullptr;
  }
}

void* Driver::Bind(int index, BindMode mode) {
  if (index < 0 || index >= kEntryCount) return nullptr;
  if (status(index) == EntryStatus::kMissing) {
    // Bound quietly by BindAll() or a probe; each real call of it is the last failure (its text
    // is built on demand), and the first gets its one warning.
    if (mode == BindMode::kCall && ok()) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      last_missing_ = index;
    }
    if (mode == BindMode::kCall && ok() && logged_[index].exchange(1) == 0) {
      internal::Log().warn("{}", MissingText(index));
    }
    return nullptr;
  }
  if (!ok()) {
    Publish(index, nullptr, EntryStatus::kMissing, BindVia::kNone);
    return nullptr;
  }
  const EntryInfo& e = kEntries[index];
  BindVia via = BindVia::kNone;
  if (void* fn = BindNative(index, &via)) {
    Publish(index, fn, EntryStatus::kNative, via);
    return fn;
  }
  void* fn = nullptr;
  void* fallback = nullptr;
  if (e.fallback >= 0) {
    fallback = slots_[e.fallback].load(std::memory_order_acquire);
    if (fallback == nullptr) fallback = ResolveSlow(e.fallback, mode);
  }
  if (fallback != nullptr) {
    if (e.adapter == AdapterKind::kSameSignature) {
      fn = fallback;
    } else if (e.adapter == AdapterKind::kCustom && adapter_instance_ >= 0) {
      fn = internal::CustomAdapter(index, adapter_instance_);
    }
  }
  if (fn != nullptr) {
    Publish(index, fn, EntryStatus::kAdapter, BindVia::kAdapter);
    if (logged_[index].exchange(1) == 0) {
      internal::Log().info("{} (ABI {}) served by an adapter over {} on {} (CUDA {})",
                           EntrySymbol(index), e.abi_version, EntrySymbol(e.fallback), path_,
                           effective_version_);
    }
    return fn;
  }
  Publish(index, nullptr, EntryStatus::kMissing, BindVia::kNone);
  if (mode == BindMode::kProbe) {
    // A client asking whether the driver has a symbol is normal (runtimes probe dozens at start).
    internal::Log().debug("cudyn: probe: {} (ABI {}) is not available on {} (effective CUDA {})",
                          EntrySymbol(index), e.abi_version, path_, effective_version_);
    return nullptr;
  }
  if (mode == BindMode::kBindAll) {
    // BindAll(): the text is built only if someone asks for it (last_error()); building ~100
    // of them was a third of BindAll's time.
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_missing_ = index;
    return nullptr;
  }
  std::string text = MissingText(index);
  SetLastError(text);
  if (logged_[index].exchange(1) == 0) internal::Log().warn("{}", text);
  return nullptr;
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
  if (index < 0 || index >= kEntryCount) return;
  try {
    NoteCannotExpress(index, why);
  } catch (...) {
  }
}

void Driver::NoteCannotExpress(int index, const char* why) {
  std::string text = "cudyn: " + std::string(EntrySymbol(index)) + " is adapted to " +
                     std::string(EntrySymbol(kEntries[index].fallback)) + " on " + path_ +
                     " (CUDA " + std::to_string(effective_version_) + "), which cannot express " +
                     why + ": returning 801 CUDA_ERROR_NOT_SUPPORTED";
  SetLastError(text);
  if (logged_unsupported_[index].exchange(1) == 0) internal::Log().warn("{}", text);
}

int Driver::BindAll() {
  int missing = 0;
  for (int i = 0; i < kEntryCount; ++i) {
    void* fn = slots_[i].load(std::memory_order_acquire);
    missing += (fn != nullptr ? fn : ResolveSlow(i, BindMode::kBindAll)) == nullptr;
  }
  return missing;
}

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
  Dl_info info;
  if (dladdr(fn, &info) == 0 || info.dli_sname == nullptr) return "";
  return info.dli_sname;
}

void Driver::SetLastError(std::string text) noexcept {
  try {
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_error_ = std::move(text);
    last_missing_ = -1;
  } catch (...) {
  }
}

std::string Driver::last_error() const noexcept {
  try {
    std::lock_guard<std::mutex> lock(error_mutex_);
    return last_missing_ >= 0 ? MissingText(last_missing_) : last_error_;
  } catch (...) {
    return std::string();
  }
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

namespace internal {
// The checks and helpers the runtime loader (cudart.cc) shares with driver discovery.
OpenedLibrary OpenCandidateLibrary(const std::string& path, bool noload) {
  OpenedLibrary opened;
  if (!noload && !path.empty() && path[0] == '/') {
    opened.reason = CheckDriverFile(path);
    if (!opened.reason.empty()) {
      opened.failure = OpenFailure::kUnloadableFile;
      return opened;
    }
  }
  dlerror();
  // Lazy binding, as the dynamic linker loads the libraries of a program linked with them:
  // binding the driver's ~200 imports up front cost more than the rest of cudyn's start-up.
  // Symbol versions are still checked here (LD_BIND_NOW=1 restores eager binding).
  opened.handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL | (noload ? RTLD_NOLOAD : 0));
  if (opened.handle == nullptr) {
    opened.failure = noload ? OpenFailure::kNotLoaded : OpenFailure::kDlopenFailed;
    opened.reason = noload ? "not loaded in this process" : "dlopen failed: " + DlError();
    return opened;
  }
  opened.loaded_path = LoadedPath(opened.handle, path);
  return opened;
}
bool IsCudynFunction(const void* fn) { return IsOwnFunction(fn); }
}  // namespace internal

Driver& DefaultDriver() {
  // Leaked on purpose: stubs may be called from other libraries' destructors at exit.
  static Driver* const driver = [] {
    DriverOptions options;
    options.use_environment = true;
    return Driver::OpenInto(options, g_default_slots).release();
  }();
  if (driver == nullptr) {
    static Driver unopened(nullptr);  // out of memory at open: every call reports 303
    return unopened;
  }
  return *driver;
}

void* ResolveDefaultSlow(int index) {
  return DefaultDriver().ResolveSlow(index, Driver::BindMode::kCall);
}

}  // namespace cudyn
