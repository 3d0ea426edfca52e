// The loader core (see core.h): entry table, candidate opening, explicit paths, logging.
#include "loader/core.h"

#include <dlfcn.h>
#include <glob.h>
#include <fcntl.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "loader/runtime_fingerprint.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace cudyn {
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
  if (!internal::IsPlausibleCudaVersion(value)) return std::nullopt;
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

namespace internal {
namespace {

// --- Logging -----------------------------------------------------------------------------------

// spdlog and fmt are compiled in header-only, so the loader carries no runtime dependency on
// them; the logger is private (not in spdlog's registry) so a host process using spdlog, or a
// second copy of cudyn, never collides with it.
spdlog::logger* MakeLogger() {
  try {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* logger = new spdlog::logger("cudyn", std::move(sink));
    logger->set_pattern("[cudyn] %l: %v");
    logger->set_level(spdlog::level::warn);
    logger->set_error_handler([](const std::string&) {});  // a failed log line is dropped
    return logger;
  } catch (...) {
    return nullptr;
  }
}

// Texts start with "cudyn: " (they are also last-error texts); the log pattern names cudyn.
const char* WithoutPrefix(const std::string& text) {
  static constexpr char kPrefix[] = "cudyn: ";
  return text.compare(0, sizeof(kPrefix) - 1, kPrefix) == 0 ? text.c_str() + sizeof(kPrefix) - 1
                                                             : text.c_str();
}

// --- The object cudyn is linked into -----------------------------------------------------------

// A lookup must never hand back one of cudyn's own functions: that happens when a library
// interposes cudyn's exported symbols over the real library's, or when cudyn's drop-in is
// installed under the library's name, and calling it would recurse forever.
struct OwnModule {
  uintptr_t begin = 0, end = 0;
};
const char g_own_probe = 0;  // any object of this library: its address names the module

int FindOwnModule(struct dl_phdr_info* info, size_t, void* data) {
  auto* own = static_cast<OwnModule*>(data);
  uintptr_t probe = reinterpret_cast<uintptr_t>(&g_own_probe);
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

// True when the probed address lies in an executable PT_LOAD segment of a loaded object. A
// lookup can hand back anything; a pointer that fails this (NULL, a wild address, data) is never
// bound: calling it would crash the host.
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

// --- Checking a file before dlopen -------------------------------------------------------------

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

// Returns "" when dlopen may try `path`, else why not. dlopen() itself blocks forever on a FIFO,
// dies of SIGBUS on a file whose loadable segments are cut short (a truncated copy: glibc maps
// past the end of the file), and calls an ELF for another architecture "No such file or
// directory"; those are caught here. Everything else that dlopen rejects cleanly (empty, not
// ELF, 32-bit) is left to its own message.
std::string CheckLibraryFile(const std::string& path) {
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
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32)) {
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
    if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
        static_cast<ssize_t>(sizeof(ph))) {
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

// Reads [offset, offset + size) of fd; false if the file is shorter.
bool ReadAt(int fd, void* out, size_t size, uint64_t offset) {
  return pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
}

}  // namespace

namespace {

// The DT_SONAME and DT_NEEDED names of an ELF shared library of this process's class (empty when
// the file has none or cannot be read).
void ReadElfDynamicNames(const std::string& path, std::string* soname_out,
                         std::vector<std::string>* needed_out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return;
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  ElfW(Ehdr) eh;
  if (!ReadAt(fd, &eh, sizeof(eh), 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) ||
      eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 || eh.e_phnum > 512) {
    return;
  }
  // The dynamic segment, and the load segments that map string-table addresses to file offsets.
  ElfW(Phdr) dynamic{};
  std::vector<ElfW(Phdr)> loads;
  for (int i = 0; i < eh.e_phnum; ++i) {
    ElfW(Phdr) ph;
    if (!ReadAt(fd, &ph, sizeof(ph), eh.e_phoff + static_cast<uint64_t>(i) * sizeof(ph))) return;
    if (ph.p_type == PT_DYNAMIC) dynamic = ph;
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
  }
  if (dynamic.p_type != PT_DYNAMIC || dynamic.p_offset > size ||
      size - dynamic.p_offset < dynamic.p_filesz || dynamic.p_filesz > (1u << 20)) {
    return;
  }
  uint64_t strtab = 0, soname = 0;
  bool has_soname = false;
  std::vector<uint64_t> needed;
  for (uint64_t off = 0; off + sizeof(ElfW(Dyn)) <= dynamic.p_filesz; off += sizeof(ElfW(Dyn))) {
    ElfW(Dyn) dyn;
    if (!ReadAt(fd, &dyn, sizeof(dyn), dynamic.p_offset + off) || dyn.d_tag == DT_NULL) break;
    if (dyn.d_tag == DT_STRTAB) strtab = dyn.d_un.d_ptr;
    if (dyn.d_tag == DT_SONAME) {
      soname = dyn.d_un.d_val;
      has_soname = true;
    }
    if (dyn.d_tag == DT_NEEDED && needed.size() < 256) needed.push_back(dyn.d_un.d_val);
  }
  if (strtab == 0) return;
  // The NUL-terminated string at `offset` of the string table ("" when it cannot be read).
  auto read_string = [&](uint64_t offset) -> std::string {
    for (const ElfW(Phdr)& load : loads) {
      if (strtab < load.p_vaddr || strtab - load.p_vaddr >= load.p_filesz) continue;
      const uint64_t start = load.p_offset + (strtab - load.p_vaddr) + offset;
      std::string name;
      char chunk[64];
      for (uint64_t at = start; at < size && name.size() < 256; at += sizeof(chunk)) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof(chunk), size - at));
        if (!ReadAt(fd, chunk, n, at)) return "";
        const void* nul = std::memchr(chunk, '\0', n);
        if (nul != nullptr) return name + std::string(chunk, static_cast<const char*>(nul) - chunk);
        name.append(chunk, n);
      }
      return "";
    }
    return "";
  };
  if (has_soname && soname_out != nullptr) *soname_out = read_string(soname);
  if (needed_out != nullptr) {
    for (uint64_t offset : needed) {
      std::string name = read_string(offset);
      if (!name.empty()) needed_out->push_back(std::move(name));
    }
  }
}

}  // namespace

std::string ReadElfSoname(const std::string& path) {
  std::string soname;
  ReadElfDynamicNames(path, &soname, nullptr);
  return soname;
}

std::vector<std::string> ReadElfNeeded(const std::string& path) {
  std::vector<std::string> needed;
  ReadElfDynamicNames(path, nullptr, &needed);
  return needed;
}

std::string CandidateSoname(const std::string& path, bool default_search) {
  // dlopen searches for a name without a slash; one with a slash is a file.
  if (default_search && path.find('/') == std::string::npos) return path;
  return ReadElfSoname(path);
}

namespace {

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

}  // namespace

// --- EntryTable --------------------------------------------------------------------------------

std::unique_ptr<EntryTable> EntryTable::Create(int count, std::atomic<void*>* slots,
                                               const LibraryPolicy* policy, void* self) noexcept {
  std::unique_ptr<EntryTable> table(new (std::nothrow) EntryTable());
  if (table == nullptr || count <= 0) return nullptr;
  table->count_ = count;
  table->policy_ = policy;
  table->self_ = self;
  if (slots == nullptr) {
    table->owned_slots_.reset(new (std::nothrow) std::atomic<void*>[count]);
    if (table->owned_slots_ == nullptr) return nullptr;
    slots = table->owned_slots_.get();
  }
  table->flags_.reset(new (std::nothrow) std::atomic<uint8_t>[kBytesPerEntry * count]);
  if (table->flags_ == nullptr) return nullptr;
  table->slots_ = slots;
  table->status_ = table->flags_.get();
  table->via_ = table->status_ + count;
  table->logged_ = table->via_ + count;
  table->logged_unsupported_ = table->logged_ + count;
  for (int i = 0; i < count; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
  for (size_t i = 0; i < kBytesPerEntry * count; ++i) {
    table->flags_[i].store(0, std::memory_order_relaxed);  // kUnbound, via 0, nothing logged
  }
  static_assert(static_cast<uint8_t>(SlotState::kUnbound) == 0, "flags start zeroed");
  return table;
}

EntryTable::~EntryTable() = default;

SlotState EntryTable::status(int index) const noexcept {
  if (index < 0 || index >= count_) return SlotState::kUnbound;
  return static_cast<SlotState>(status_[index].load(std::memory_order_acquire));
}

uint8_t EntryTable::via(int index) const noexcept {
  if (index < 0 || index >= count_) return 0;
  return via_[index].load(std::memory_order_acquire);
}

void EntryTable::Publish(int index, const Binding& binding) {
  via_[index].store(binding.via, std::memory_order_relaxed);
  status_[index].store(static_cast<uint8_t>(binding.status), std::memory_order_release);
  if (binding.fn != nullptr) slots_[index].store(binding.fn, std::memory_order_release);
}

void* EntryTable::ResolveSlow(int index, BindMode mode) noexcept {
  // The boundary of every lazy bind (trampolines, adapters, the C API): nothing escapes. Out of
  // memory while building a text leaves the entry unbound, so a later call tries again.
  try {
    return Bind(index, mode);
  } catch (...) {
    return nullptr;
  }
}

void* EntryTable::Bind(int index, BindMode mode) {
  if (index < 0 || index >= count_) return nullptr;
  if (void* fn = slots_[index].load(std::memory_order_acquire)) return fn;
  if (status(index) == SlotState::kMissing) {
    // Bound quietly by BindAll() or a probe: each real call of it is the last failure (its text
    // is built on demand), and the first gets its one warning.
    if (mode == BindMode::kCall && open_) {
      {
        std::lock_guard<std::mutex> lock(error_mutex_);
        last_missing_ = index;
      }
      if (logged_[index].exchange(1) == 0) Warn(policy_->missing_text(self_, index));
    }
    return nullptr;
  }
  if (!open_) {
    Publish(index, Binding{});
    return nullptr;
  }
  Binding binding = policy_->bind(self_, index, mode);
  if (binding.fn == nullptr) binding = Binding{};
  Publish(index, binding);
  if (binding.fn != nullptr) {
    if (binding.status == SlotState::kAdapter && logged_[index].exchange(1) == 0) {
      Log().info("{}", WithoutPrefix(policy_->adapter_text(self_, index)));
    }
    return binding.fn;
  }
  switch (mode) {
    case BindMode::kProbe:
      // A client asking whether the library has a symbol is normal (runtimes probe dozens).
      Log().debug("probe: {}", WithoutPrefix(policy_->missing_text(self_, index)));
      break;
    case BindMode::kBindAll: {
      // The text is built only if someone asks for it (last_error()): building ~100 of them
      // was a third of BindAll's time.
      std::lock_guard<std::mutex> lock(error_mutex_);
      last_missing_ = index;
      break;
    }
    case BindMode::kCall: {
      std::string text = policy_->missing_text(self_, index);
      if (logged_[index].exchange(1) == 0) Warn(text);
      SetLastError(std::move(text));
      break;
    }
  }
  return nullptr;
}

int EntryTable::BindAll() noexcept {
  int missing = 0;
  for (int i = 0; i < count_; ++i) {
    void* fn = slots_[i].load(std::memory_order_acquire);
    missing += (fn != nullptr ? fn : ResolveSlow(i, BindMode::kBindAll)) == nullptr;
  }
  return missing;
}

void EntryTable::SetLastError(std::string text) noexcept {
  try {
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_error_ = std::move(text);
    last_missing_ = -1;
  } catch (...) {
  }
}

void EntryTable::SetLastError(const char* text) noexcept {
  try {
    SetLastError(std::string(text));
  } catch (...) {
  }
}

std::string EntryTable::last_error() const noexcept {
  try {
    std::lock_guard<std::mutex> lock(error_mutex_);
    return last_missing_ >= 0 ? policy_->missing_text(self_, last_missing_) : last_error_;
  } catch (...) {
    return std::string();
  }
}

void EntryTable::NoteCannotExpress(int index, const std::string& text) noexcept {
  if (index < 0 || index >= count_) return;
  try {
    SetLastError(text);
    if (logged_unsupported_[index].exchange(1) == 0) Warn(text);
  } catch (...) {
  }
}

// --- Discovery helpers -------------------------------------------------------------------------

ExplicitPath ChooseExplicitPath(const std::string& option, bool use_environment,
                                const char* env_name) {
  ExplicitPath chosen;
  chosen.path = option;
  if (option.empty() && use_environment) {
    std::string value = GetEnv(env_name);
    if (!value.empty() && IsSecureExecution()) {
      chosen.ignored_secure = value;
    } else if (!value.empty()) {
      chosen.path = value;
      chosen.from_environment = true;
    }
  }
  chosen.not_absolute = !chosen.path.empty() && chosen.path[0] != '/';
  return chosen;
}

std::optional<int> ChooseClamp(const std::optional<int>& option, bool use_environment,
                               std::vector<std::string>* warnings) {
  if (option || !use_environment) return option;
  std::string value = GetEnv("CUDYN_MAX_CUDA_VERSION");
  if (value.empty()) return std::nullopt;
  std::optional<int> clamp = ParseCudaVersion(value);
  if (!clamp && warnings != nullptr) {
    warnings->push_back("CUDYN_MAX_CUDA_VERSION='" + value +
                        "' is not a CUDA version (e.g. 11040 or 11.4); ignored");
  }
  return clamp;
}

Binding BindFirstExported(void* handle, const char* candidates) {
  Binding binding;
  int k = 0;
  for (const char* c = candidates; *c != '\0'; c += std::strlen(c) + 1, ++k) {
    void* fn = dlsym(handle, c);
    if (fn != nullptr && !IsCudynFunction(fn)) {
      binding.fn = fn;
      binding.status = SlotState::kNative;
      binding.via = static_cast<uint8_t>(k);
      return binding;
    }
  }
  return binding;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string RealPath(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string out(real);
  free(real);
  return out;
}

OpenedLibrary OpenCandidate(const std::string& path, bool noload,
                            const LibraryIdentity& identity) {
  OpenedLibrary opened;
  if (!noload && !path.empty() && path[0] == '/') {
    opened.reason = CheckLibraryFile(path);
    if (!opened.reason.empty()) {
      opened.failure = OpenFailure::kUnloadableFile;
      return opened;
    }
  }
  dlerror();
  // Lazy binding, as the dynamic linker loads the libraries of a program linked with them:
  // binding the driver's ~200 imports up front cost more than the rest of cudyn's start-up.
  // Symbol versions are still checked here (LD_BIND_NOW=1 restores eager binding).
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL | (noload ? RTLD_NOLOAD : 0));
  if (handle == nullptr) {
    opened.failure = noload ? OpenFailure::kNotLoaded : OpenFailure::kDlopenFailed;
    opened.reason = noload ? "not loaded in this process" : "dlopen failed: " + DlError();
    return opened;
  }
  opened.loaded_path = LoadedPath(handle, path);
  // Nothing of the library is called before its policy accepts it: a runtime that has run
  // registers exit handlers, so a refused one must be closed untouched.
  void* version = dlsym(handle, identity.version_symbol);
  if (dlsym(handle, identity.cudyn_marker) != nullptr ||
      (version != nullptr && IsCudynFunction(version))) {
    opened.failure = OpenFailure::kIsCudyn;
    opened.reason = "is cudyn itself (cudyn's drop-in installed or preloaded as the library?)";
  } else if (version == nullptr) {
    opened.failure = OpenFailure::kNotTheLibrary;
    opened.reason = std::string("exports no ") + identity.version_symbol;
  }
  if (opened.failure != OpenFailure::kNone) {
    dlclose(handle);
    return opened;
  }
  opened.handle = handle;
  opened.version_function = version;
  return opened;
}

bool IsCudynFunction(const void* fn) {
  uintptr_t p = reinterpret_cast<uintptr_t>(fn);
  return p >= Own().begin && p < Own().end;
}

bool IsLoadedCode(const void* fn) {
  if (fn == nullptr) return false;
  CodeProbe probe;
  probe.address = reinterpret_cast<uintptr_t>(fn);
  dl_iterate_phdr(FindCode, &probe);
  return probe.executable;
}

std::vector<std::pair<uintptr_t, uintptr_t>> ModuleCodeRanges(const void* address) {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  ModuleCode module;
  module.address = reinterpret_cast<uintptr_t>(address);
  module.ranges = &ranges;
  if (address != nullptr) dl_iterate_phdr(CollectModuleCode, &module);
  return ranges;
}

namespace {

// The defining object of `address` is the library `identity` names (uncached).
bool ClassifyLibraryCode(const void* address, const LibraryIdentity& identity) {
  Dl_info where{};
  if (dladdr(address, &where) == 0 || where.dli_fname == nullptr || where.dli_fname[0] == '\0') {
    return false;
  }
  // RTLD_NOLOAD: a handle to the object already mapped (the main program has no name to open).
  void* handle = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  bool is_library = false;
  if (dlsym(handle, identity.cudyn_marker) == nullptr) {
    void* version = dlsym(handle, identity.version_symbol);
    Dl_info defined{};
    // Its own definition, not one of its dependencies'.
    is_library = version != nullptr && dladdr(version, &defined) != 0 &&
                 defined.dli_fbase == where.dli_fbase;
  }
  dlclose(handle);
  return is_library;
}

// Whether `symbol` is visible from the loaded object containing `address` (its own or a
// dependency's); false for the main program.
bool ObjectSees(const void* address, const char* symbol) {
  Dl_info where{};
  if (dladdr(address, &where) == 0 || where.dli_fname == nullptr || where.dli_fname[0] == '\0') {
    return false;
  }
  void* handle = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  const bool seen = dlsym(handle, symbol) != nullptr;
  dlclose(handle);
  return seen;
}

// The loaded shared object (never the main program) containing an address, and the newest version
// of the CUDA runtime table in its RELRO segment (runtime_fingerprint.h).
struct EmbeddedRuntimeProbe {
  uintptr_t address = 0;
  bool main_program = false;  // look in the main program only (MainProgramCudaRuntimeVersion)
  bool found = false;
  VersionTableScan table;
};

// Reads of a loaded object's RELRO segment and strings: valid mapped memory, but an instrumented
// object keeps redzones between its globals there, which AddressSanitizer would report.
__attribute__((no_sanitize("address"))) uint64_t LoadMappedU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

__attribute__((no_sanitize("address"))) bool MappedStartsWithCuda(const uint8_t* p) {
  return p[0] == 'c' && p[1] == 'u' && p[2] == 'd' && p[3] == 'a';
}

int ScanObjectForRuntime(struct dl_phdr_info* info, size_t, void* data) {
  auto* probe = static_cast<EmbeddedRuntimeProbe*>(data);
  auto in_load = [info](uintptr_t p, size_t n) {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info->dlpi_phdr[i];
      const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
      if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) != 0 && p >= start &&
          p - start <= ph.p_memsz && ph.p_memsz - (p - start) >= n) {
        return true;
      }
    }
    return false;
  };
  if (!in_load(probe->address, 1)) return 0;
  probe->found = true;
  // The main program (no name) keeps the program's view here: its own calls cannot be told from
  // its runtime's (MainProgramCudaRuntimeVersion asks about its table for lookups only).
  const bool is_main = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
  if (is_main != probe->main_program) return 1;
  // Where the table's pointers sit: RELRO in a shared object or a PIE program; a program linked
  // at a fixed address (no PIE: dlpi_addr 0; RHEL's gcc default) needs no relocation for them, so
  // its read-only data holds the table (with the code, where the linker does not separate them).
  const bool fixed_address_program = is_main && info->dlpi_addr == 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const bool read_only_data =
        ph.p_type == PT_LOAD && (ph.p_flags & PF_R) != 0 && (ph.p_flags & PF_W) == 0;
    if (ph.p_type != PT_GNU_RELRO && !(fixed_address_program && read_only_data)) continue;
    const auto* begin = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    ScanVersionTable(
        begin, ph.p_memsz,
        [&in_load](uint64_t pointer) {
          return in_load(static_cast<uintptr_t>(pointer), 4) &&
                 MappedStartsWithCuda(reinterpret_cast<const uint8_t*>(pointer));
        },
        &probe->table, LoadMappedU64);
  }
  return 1;
}

// The runtime version of the object containing `address` (uncached; CudaRuntimeVersionOfCode).
int ClassifyRuntimeCode(const void* address) {
  if (IsCudynFunction(address)) return 0;
  EmbeddedRuntimeProbe probe;
  probe.address = reinterpret_cast<uintptr_t>(address);
  dl_iterate_phdr(ScanObjectForRuntime, &probe);
  const bool has_table = probe.table.records >= kMinVersionTableRecords;
  int version = 0;
  if (ClassifyLibraryCode(address, kCudaRuntimeIdentity)) {
    version = has_table ? probe.table.version : -1;
  } else if (has_table && !ObjectSees(address, kCudaRuntimeIdentity.cudyn_marker)) {
    // (A table in cudyn's own runtime drop-in would be no runtime of NVIDIA's.)
    version = probe.table.version;
  }
  if (version != 0) {
    Dl_info where{};
    try {
      Log().debug("CUDA runtime {} in {} ({} entries in its versioned table)", version,
                  dladdr(address, &where) != 0 && where.dli_fname ? where.dli_fname : "?",
                  probe.table.records);
    } catch (...) {
    }
  }
  return version;
}

// Answers per (question, executable range); an object stays what it was while mapped (the
// libraries asked about are never unloaded). Lock-free reads: a slot is published by `used`
// (release) after its fields; writers serialise on `insert`. Full: answers stay uncached.
struct CodeAnswerCache {
  static constexpr int kSlots = 32;
  struct Slot {
    const void* question = nullptr;
    uintptr_t begin = 0, end = 0;
    int answer = 0;
  };
  Slot slots[kSlots];
  std::atomic<int> used{0};
  std::mutex insert;
};
CodeAnswerCache g_code_answer_cache;

// `compute(address)` for the object containing `address`, cached under `question`.
template <typename Compute>
int CachedPerObject(const void* question, const void* address, Compute compute) {
  CodeAnswerCache& cache = g_code_answer_cache;
  const uintptr_t p = reinterpret_cast<uintptr_t>(address);
  const int used = cache.used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    const CodeAnswerCache::Slot& slot = cache.slots[i];
    if (slot.question == question && p >= slot.begin && p < slot.end) return slot.answer;
  }
  const int answer = compute(address);
  try {
    std::vector<std::pair<uintptr_t, uintptr_t>> ranges = ModuleCodeRanges(address);
    std::lock_guard<std::mutex> guard(cache.insert);
    for (const auto& range : ranges) {
      const int n = cache.used.load(std::memory_order_relaxed);
      if (n >= CodeAnswerCache::kSlots) break;
      cache.slots[n] = {question, range.first, range.second, answer};
      cache.used.store(n + 1, std::memory_order_release);
    }
  } catch (...) {  // no memory for the range list: the answer stays uncached
  }
  return answer;
}

const char kRuntimeVersionQuestion = 0;  // its address keys CudaRuntimeVersionOfCode's answers
const char kMainProgramRuntimeQuestion = 0;  // and MainProgramCudaRuntimeVersion's

// The runtime version of the main program's table when `address` is main-program code (uncached).
int ClassifyMainProgramRuntime(const void* address) {
  if (IsCudynFunction(address)) return 0;  // cudyn linked into the program itself
  EmbeddedRuntimeProbe probe;
  probe.address = reinterpret_cast<uintptr_t>(address);
  probe.main_program = true;
  dl_iterate_phdr(ScanObjectForRuntime, &probe);
  if (probe.table.records < kMinVersionTableRecords) return 0;
  try {
    Log().debug("CUDA runtime {} linked into the main program ({} entries in its versioned table)",
                probe.table.version, probe.table.records);
  } catch (...) {
  }
  return probe.table.version;
}

}  // namespace

bool IsLibraryCode(const void* address, const LibraryIdentity& identity) {
  if (address == nullptr) return false;
  return CachedPerObject(&identity, address, [&identity](const void* a) {
           return ClassifyLibraryCode(a, identity) ? 1 : 0;
         }) != 0;
}

int CudaRuntimeVersionOfFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  struct stat st;
  const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  void* map = regular ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                      : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return 0;
  size_t records = 0;
  const int version = FindRuntimeVersionTableInElf(static_cast<const uint8_t*>(map),
                                                   static_cast<size_t>(st.st_size), ".data.rel.ro",
                                                   &records);
  munmap(map, static_cast<size_t>(st.st_size));
  return version;
}

int CudaRuntimeVersionOfCode(const void* address) {
  if (address == nullptr) return 0;
  return CachedPerObject(&kRuntimeVersionQuestion, address, ClassifyRuntimeCode);
}

int MainProgramCudaRuntimeVersion(const void* address) {
  if (address == nullptr) return 0;
  return CachedPerObject(&kMainProgramRuntimeQuestion, address, ClassifyMainProgramRuntime);
}

int CachedObjectAnswer(const void* question, const void* address, int (*compute)(const void*)) {
  if (address == nullptr) return 0;
  return CachedPerObject(question, address, compute);
}

// --- Logging and environment -------------------------------------------------------------------

spdlog::logger& Log() {
  // Leaked on purpose: adapters and stubs may log during static destruction of the host.
  static spdlog::logger* logger = MakeLogger();
  if (logger == nullptr) {
    static spdlog::logger silent("cudyn-silent");
    silent.set_level(spdlog::level::off);
    return silent;
  }
  return *logger;
}

namespace {

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarn: break;
  }
  return spdlog::level::warn;
}

}  // namespace

bool LogEnabled(LogLevel level) noexcept { return Log().should_log(SpdlogLevel(level)); }

void LogText(LogLevel level, const std::string& text) noexcept {
  try {
    Log().log(SpdlogLevel(level), "{}", text);
  } catch (...) {
  }
}

void Warn(const std::string& text) noexcept {
  try {
    Log().warn("{}", WithoutPrefix(text));
  } catch (...) {
  }
}

std::string GetEnv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

bool IsSecureExecution() { return getauxval(AT_SECURE) != 0; }

int CopyToBuffer(const std::string& text, char* buffer, size_t size) {
  if (buffer != nullptr && size > 0) {
    size_t n = text.size() < size - 1 ? text.size() : size - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<int>(text.size());
}

std::string ConfigureLogFromEnvironment() {
  std::string value = GetEnv("CUDYN_LOG");
  if (value.empty()) return "";
  static const struct {
    const char* name;
    spdlog::level::level_enum level;
  } kLevels[] = {{"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
                 {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
                 {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
                 {"critical", spdlog::level::critical}, {"off", spdlog::level::off}};
  for (const auto& l : kLevels) {
    if (value == l.name) {
      Log().set_level(l.level);
      return "";
    }
  }
  return "CUDYN_LOG='" + value +
         "' is not one of trace, debug, info, warn, error, critical, off; using warn";
}


// --- Where toolkit libraries are searched ----------------------------------------------------------

namespace {

// The Debian multiarch directory and CUDA's targets/ name of this machine.
#if defined(__aarch64__)
constexpr const char* kMultiarch = "aarch64-linux-gnu";
constexpr const char* kCudaTarget = "sbsa-linux";
#elif defined(__powerpc64__)
constexpr const char* kMultiarch = "powerpc64le-linux-gnu";
constexpr const char* kCudaTarget = "ppc64le-linux";
#else
constexpr const char* kMultiarch = "x86_64-linux-gnu";
constexpr const char* kCudaTarget = "x86_64-linux";
#endif

std::vector<std::string> Glob(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g;
  if (glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  }
  globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

void AddUnique(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

// site-packages directories of objects already loaded (a framework imported before cudyn).
int CollectSitePackages(struct dl_phdr_info* info, size_t, void* data) {
  auto* dirs = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name == nullptr) return 0;
  std::string name = info->dlpi_name;
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    size_t at = name.find(marker);
    if (at != std::string::npos) AddUnique(dirs, name.substr(0, at + std::strlen(marker) - 1));
  }
  return 0;
}

}  // namespace

SearchInputs ReadSearchInputs(const std::string& root) {
  SearchInputs in;
  in.root = root;
  const bool secure = IsSecureExecution();  // never search where the caller points
  auto env = [secure](const char* name) { return secure ? std::string() : GetEnv(name); };
  in.cuda_home = env("CUDA_HOME");
  in.cuda_path = env("CUDA_PATH");
  in.conda_prefix = env("CONDA_PREFIX");
  auto add_prefix = [&in](const std::string& prefix) {
    if (prefix.empty()) return;
    for (const char* layout : {"/lib/python3*/site-packages", "/lib64/python3*/site-packages"}) {
      for (const std::string& dir : Glob(prefix + layout)) AddUnique(&in.site_packages, dir);
    }
  };
  add_prefix(env("VIRTUAL_ENV"));
  add_prefix(in.conda_prefix);
  dl_iterate_phdr(CollectSitePackages, &in.site_packages);
  const std::string home = env("HOME");
  if (!home.empty()) add_prefix(home + "/.local");
  for (const std::string& dir : Glob(root + "/usr/local/lib/python3*/dist-packages")) {
    AddUnique(&in.site_packages, dir);
  }
  for (const std::string& dir : Glob(root + "/usr/lib/python3/dist-packages")) {
    AddUnique(&in.site_packages, dir);
  }
  in.toolkits = Glob(root + "/usr/local/cuda-*");
  return in;
}

std::vector<SearchDirectory> SearchDirectories(const SearchInputs& in,
                                               const std::string& wheel_subdir) {
  std::vector<std::string> toolkits = in.toolkits;
  std::sort(toolkits.begin(), toolkits.end(), [](const std::string& a, const std::string& b) {
    return strverscmp(a.c_str(), b.c_str()) > 0;  // newest first
  });
  std::vector<SearchDirectory> dirs;
  auto add = [&](const std::string& dir, SearchPlace place) {
    if (!dir.empty()) dirs.push_back({dir, place});
  };
  // The dynamic linker searches this machine, not another root's tree.
  if (in.root.empty()) dirs.push_back({std::string(), SearchPlace::kDefaultSearch});
  for (const std::string* home : {&in.cuda_home, &in.cuda_path}) {
    if (home->empty()) continue;
    add(*home + "/lib64", SearchPlace::kCudaHome);
    add(*home + "/lib", SearchPlace::kCudaHome);
  }
  for (const std::string& site : in.site_packages) add(site + wheel_subdir, SearchPlace::kPythonWheel);
  if (!in.conda_prefix.empty()) add(in.conda_prefix + "/lib", SearchPlace::kPythonWheel);
  const std::string target = std::string("/targets/") + kCudaTarget + "/lib";
  add(in.root + "/usr/local/cuda/lib64", SearchPlace::kWellKnownDirectory);
  add(in.root + "/usr/local/cuda" + target, SearchPlace::kWellKnownDirectory);
  for (const std::string& toolkit : toolkits) {
    add(toolkit + "/lib64", SearchPlace::kWellKnownDirectory);
    add(toolkit + target, SearchPlace::kWellKnownDirectory);
  }
  add(in.root + "/usr/lib/" + kMultiarch, SearchPlace::kWellKnownDirectory);
  add(in.root + "/usr/lib64", SearchPlace::kWellKnownDirectory);
  add(in.root + "/opt/cuda/lib64", SearchPlace::kWellKnownDirectory);
  return dirs;
}

}  // namespace internal
}  // namespace cudyn
