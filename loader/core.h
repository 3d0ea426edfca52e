// The loader core: the mechanism every library cudyn binds shares, written once. Internal to
// loader/ (not installed, not part of the API); see loader/DESIGN.md, "One mechanism, many
// libraries".
//
// A library (the driver in driver.cc, the runtime in cudart.cc, the next one the same way) brings
//   * its generated table (entry count, names, per-entry facts) and
//   * a policy: which candidate files to try in which order, how to accept one (version, family),
//     and how to bind one entry (native variant, adapter, or missing) — a LibraryPolicy below.
// The core brings everything else:
//   * EntryTable: the slot array the trampolines read, per-entry status/via, bind modes (a call
//     warns once, BindAll records quietly, a probe stays at debug), the last error (a missing
//     entry's text built only when asked), "an adapter cannot express this" notes, and the same
//     out-of-memory behaviour for every library (Create returns null; nothing else allocates on
//     the call path; every slow path catches).
//   * OpenCandidate: checking a file before dlopen (missing, directory, FIFO, truncated, other
//     architecture), dlopen, and refusing cudyn itself or a file that is not the library.
//   * ChooseExplicitPath: the option / environment / AT_SECURE / absolute-path rule.
//   * DefaultInstance<Library>(): the process-wide instance, leaked, never null.
// Nothing here aborts, exits or lets an exception escape.
#ifndef CUDYN_LOADER_CORE_H_
#define CUDYN_LOADER_CORE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>


namespace spdlog {
class logger;
}

namespace cudyn {

// Defined here so the core stands alone; declared for users in loader/cudyn.h.
std::optional<int> ParseCudaVersion(const std::string& text);
std::optional<bool> ParseBool(const std::string& text);

namespace internal {

// An entry's binding state; the same values as cudyn::EntryStatus (loader/cudyn.h asserts it),
// which the core does not include: it sits below the libraries' public headers.
// A CUDA version (1000*major + 10*minor) a library reports outside these is nonsense.
inline constexpr int kMinPlausibleCudaVersion = 1000;
inline constexpr int kMaxPlausibleCudaVersion = 99999;
inline bool IsPlausibleCudaVersion(int version) {
  return version >= kMinPlausibleCudaVersion && version <= kMaxPlausibleCudaVersion;
}

enum class SlotState : uint8_t { kUnbound, kNative, kAdapter, kMissing };

// Who asks for a binding decides what a missing entry logs: a call warns once and sets the last
// error, BindAll() records it for last_error() only, a probe (a client asking whether an entry
// exists) logs at debug level and leaves the last error alone.
enum class BindMode : uint8_t { kCall, kBindAll, kProbe };

// What a library's policy found for one entry.
struct Binding {
  void* fn = nullptr;  // nullptr: missing
  SlotState status = SlotState::kMissing;
  uint8_t via = 0;  // the library's own record of how (driver: BindVia; runtime: rule candidate)
};

// A library's binding rules, called on the slow path only. `self` is the library object.
struct LibraryPolicy {
  // Binds `index` (may call EntryTable::ResolveSlow for other entries, e.g. an adapter's
  // fallback). May throw (std::bad_alloc): the table catches.
  Binding (*bind)(void* self, int index, BindMode mode);
  // "cudyn: <symbol> ... is not provided by <path> ..." for a missing entry.
  std::string (*missing_text)(const void* self, int index);
  // The info line logged once when an entry is served by an adapter.
  std::string (*adapter_text)(const void* self, int index);
};

class EntryTable {
 public:
  // `slots`: an array of `count` the caller keeps (the default instance's global array, which
  // trampolines reach with one RIP-relative load), or null for a table-owned one. Returns null
  // when out of memory.
  static std::unique_ptr<EntryTable> Create(int count, std::atomic<void*>* slots,
                                            const LibraryPolicy* policy, void* self) noexcept;
  ~EntryTable();
  EntryTable(const EntryTable&) = delete;
  EntryTable& operator=(const EntryTable&) = delete;

  std::atomic<void*>* slots() const { return slots_; }
  int count() const { return count_; }
  // Set once discovery accepted a library; until then every entry binds as missing.
  void set_open(bool open) { open_ = open; }

  // The function for `index`, binding it on first use; nullptr when missing or out of range.
  void* ResolveSlow(int index, BindMode mode) noexcept;
  // Binds every entry; returns the number missing.
  int BindAll() noexcept;
  SlotState status(int index) const noexcept;
  uint8_t via(int index) const noexcept;

  void SetLastError(std::string text) noexcept;
  void SetLastError(const char* text) noexcept;  // builds the string inside (out of memory)
  std::string last_error() const noexcept;

  // Runs a library's discovery so that nothing escapes (out of memory while building texts or
  // candidate records): returns false on an exception, with `failure_text` as the last error.
  template <class Discover>
  bool RunDiscovery(Discover&& discover, const char* failure_text) noexcept {
    try {
      discover();
      return true;
    } catch (...) {
      SetLastError(failure_text);
      return false;
    }
  }
  // An adapter cannot express its caller's arguments: `text` becomes the last error and is
  // logged once per entry.
  void NoteCannotExpress(int index, const std::string& text) noexcept;

  // Bytes this table holds per entry beyond the slot pointer (status, via, log flags).
  static constexpr size_t kBytesPerEntry = 4;

 private:
  EntryTable() = default;
  void* Bind(int index, BindMode mode);
  void Publish(int index, const Binding& binding);

  int count_ = 0;
  bool open_ = false;
  const LibraryPolicy* policy_ = nullptr;
  void* self_ = nullptr;
  std::atomic<void*>* slots_ = nullptr;
  std::unique_ptr<std::atomic<void*>[]> owned_slots_;
  // One allocation, kBytesPerEntry per entry: status, via, bind outcome logged, 801 logged.
  std::unique_ptr<std::atomic<uint8_t>[]> flags_;
  std::atomic<uint8_t>* status_ = nullptr;
  std::atomic<uint8_t>* via_ = nullptr;
  std::atomic<uint8_t>* logged_ = nullptr;
  std::atomic<uint8_t>* logged_unsupported_ = nullptr;

  mutable std::mutex error_mutex_;
  std::string last_error_;
  int last_missing_ = -1;  // a missing entry whose text is the last error, built on demand
};

// --- Discovery helpers -------------------------------------------------------------------------

// The explicit library path of a discovery: the option when set, else (with use_environment) the
// variable `env_name` (CUDYN_DRIVER_PATH, CUDYN_CUDART_PATH, ...). A process with AT_SECURE never
// loads a library its caller names: the variable's value is then returned in `ignored_secure`,
// for the candidate list, and `path` stays empty. A relative path is never searched:
// `not_absolute` is set and the caller records it as rejected.
struct ExplicitPath {
  std::string path;
  bool from_environment = false;
  bool not_absolute = false;
  std::string ignored_secure;
};
ExplicitPath ChooseExplicitPath(const std::string& option, bool use_environment,
                                const char* env_name);
inline constexpr const char* kIgnoredSecureReason =
    "ignored: the process runs with AT_SECURE (setuid/setgid)";
inline constexpr const char* kNotAbsoluteReason =
    "not an absolute path (relative paths are never searched)";

// Appends a candidate to a library's list (DriverCandidate, RuntimeCandidate, ...).
template <class Candidate, class Source, class Rejection>
Candidate& AddCandidate(std::vector<Candidate>* list, std::string path, Source source,
                        Rejection rejection, std::string reason) {
  Candidate c;
  c.path = std::move(path);
  c.source = source;
  c.rejection = rejection;
  c.reason = std::move(reason);
  list->push_back(std::move(c));
  return list->back();
}

// The explicit step every discovery starts with (ChooseExplicitPath): a value ignored under
// AT_SECURE or a relative path is recorded as rejected, an absolute one is tried with
// `try_path(path, source)`. Returns nullopt when there is no explicit path (the library's search
// runs), else whether it was accepted (nothing else is tried). Candidate's Source and Rejection
// enums name kOption, kEnvironment, kIgnoredSecure and kNotAbsolute alike.
template <class Candidate, class TryPath>
std::optional<bool> TryExplicitPath(const std::string& option, bool use_environment,
                                    const char* env_name, std::vector<Candidate>* candidates,
                                    std::vector<std::string>* warnings, TryPath try_path) {
  using Source = decltype(Candidate::source);
  using Rejection = decltype(Candidate::rejection);
  const ExplicitPath chosen = ChooseExplicitPath(option, use_environment, env_name);
  if (!chosen.ignored_secure.empty()) {
    AddCandidate(candidates, chosen.ignored_secure, Source::kEnvironment,
                 Rejection::kIgnoredSecure, kIgnoredSecureReason);
    warnings->push_back(std::string(env_name) + " ignored in a setuid/setgid process");
  }
  const Source source = chosen.from_environment ? Source::kEnvironment : Source::kOption;
  if (chosen.not_absolute) {
    AddCandidate(candidates, chosen.path, source, Rejection::kNotAbsolute, kNotAbsoluteReason);
    return false;
  }
  if (chosen.path.empty()) return std::nullopt;
  return try_path(chosen.path, source);
}

// The clamp (CUDYN_MAX_CUDA_VERSION) as both libraries read it: the option wins; a value that is
// not a CUDA version is ignored, with a warning appended when `warnings` is given.
std::optional<int> ChooseClamp(const std::optional<int>& option, bool use_environment,
                               std::vector<std::string>* warnings);

// How a library file is recognised: the function every real copy exports, and the C-API symbol
// only cudyn's own drop-in of it exports (installed or preloaded under the library's name,
// binding to it would recurse).
struct LibraryIdentity {
  const char* version_symbol;  // "cuDriverGetVersion", "cudaRuntimeGetVersion"
  const char* cudyn_marker;    // "cudynEntryCount", "cudynCudartEntryCount"
};
// The CUDA runtime's: its loader recognises candidates by it, the driver's drop-in its callers.
inline constexpr LibraryIdentity kCudaRuntimeIdentity = {"cudaRuntimeGetVersion",
                                                         "cudynCudartEntryCount"};

// The first steps of trying a candidate: an absolute path is checked first (missing, directory,
// FIFO, truncated, other architecture: dlopen would say little or worse), then dlopen'ed
// (RTLD_NOLOAD: only when already loaded), then recognised. Either `handle` (with
// `version_function`) or `failure` and `reason`; a refused file is closed untouched.
enum class OpenFailure : uint8_t {
  kNone,
  kUnloadableFile,
  kNotLoaded,
  kDlopenFailed,
  kIsCudyn,
  kNotTheLibrary,  // exports no version_symbol
};
struct OpenedLibrary {
  void* handle = nullptr;
  void* version_function = nullptr;
  std::string loaded_path;  // the loaded object's name (dlinfo), else the path tried
  OpenFailure failure = OpenFailure::kNone;
  std::string reason;
};
OpenedLibrary OpenCandidate(const std::string& path, bool noload, const LibraryIdentity& identity);

// The DT_SONAME of an ELF shared library of this process's class, read from the file without
// loading it ("" if the file has none or cannot be read). Lets a policy refuse a candidate by its
// SONAME before dlopen runs its constructors and relocations (a cuBLAS is ~0.6 s and 600 MB of
// mappings with its libcublasLt); CandidateSoname below also covers the default search's names.
std::string ReadElfSoname(const std::string& path);
// Its DT_NEEDED names, in order (empty when it has none or cannot be read).
std::vector<std::string> ReadElfNeeded(const std::string& path);

// Each library's Rejection enum names the shared failures alike; this maps an OpenFailure other
// than kNotTheLibrary (whose wording is the library's) to it.
template <class R>
R RejectionFor(OpenFailure failure) {
  switch (failure) {
    case OpenFailure::kUnloadableFile: return R::kUnloadableFile;
    case OpenFailure::kNotLoaded: return R::kNotLoaded;
    case OpenFailure::kIsCudyn: return R::kIsCudyn;
    default: return R::kDlopenFailed;
  }
}

// Records a candidate OpenCandidate refused and returns true, else false (it is open): a file
// without the version symbol as the library's own `not_the_library` rejection and reason, the
// shared failures by RejectionFor (cudyn itself under the name it was loaded as).
template <class Candidate>
bool RecordOpenRefusal(OpenedLibrary* opened, const std::string& path,
                       decltype(Candidate::source) source,
                       decltype(Candidate::rejection) not_the_library,
                       const char* not_the_library_reason, std::vector<Candidate>* candidates) {
  using Rejection = decltype(Candidate::rejection);
  if (opened->failure == OpenFailure::kNotTheLibrary) {
    AddCandidate(candidates, opened->loaded_path, source, not_the_library,
                 std::string(not_the_library_reason));
    return true;
  }
  if (opened->handle != nullptr) return false;
  AddCandidate(candidates, opened->failure == OpenFailure::kIsCudyn ? opened->loaded_path : path,
               source, RejectionFor<Rejection>(opened->failure), std::move(opened->reason));
  return true;
}

// The first of `candidates` ("a\0b\0", ending at the empty string) that `handle` exports and that
// is not cudyn's own function: a native binding whose via is its position; else missing.
Binding BindFirstExported(void* handle, const char* candidates);

// "\n  <path> (<source>): <reason>" per candidate, for the no-library error text.
template <class Candidate, class NameFn>
std::string TriedText(const std::vector<Candidate>& candidates, NameFn source_name) {
  if (candidates.empty()) return "\n  (no candidate paths)";
  std::string tried;
  for (const Candidate& c : candidates) {
    tried += "\n  " + c.path + " (" + source_name(c.source) + "): " + c.reason;
  }
  return tried;
}

// True for a function inside the object cudyn itself is linked into.
bool IsCudynFunction(const void* fn);
// True when `fn` lies in an executable segment of some loaded object.
bool IsLoadedCode(const void* fn);
// The executable ranges of the loaded object containing `address`.
std::vector<std::pair<uintptr_t, uintptr_t>> ModuleCodeRanges(const void* address);
// True when `address` is code of a loaded shared object that is the library `identity` names and
// not cudyn: it defines identity.version_symbol itself and exports no identity.cudyn_marker (as
// OpenCandidate recognises a candidate). The main program is never one: dlopen cannot name it.
// Answers are cached per object (a few loads after the first call from it); never throws.
bool IsLibraryCode(const void* address, const LibraryIdentity& identity);
// The CUDA runtime in the loaded shared object containing `address`: its version (12030) when the
// object is a CUDA runtime library (IsLibraryCode with kCudaRuntimeIdentity) or has one compiled
// in (cuBLAS, cuFFT, ...: found by the runtime's versioned entry-point table in its RELRO segment,
// runtime_fingerprint.h); -1 for a runtime library whose table tells no version; 0 for anything
// else, cudyn's own objects and the main program (whose own calls cannot be told from its
// runtime's). Cached per object like IsLibraryCode; never throws.
int CudaRuntimeVersionOfCode(const void* address);
// The same fingerprint read from a file without loading it: the newest version of the runtime
// entry-point table in the ELF file's .data.rel.ro (12050 for a 12.5 cuSOLVER), 0 when the file
// has none or is no readable ELF of this process's class. Lets a library policy refuse a file whose
// SONAME is shared across releases (libcurand.so.10: 11.x, 12.x and 13.0) before dlopen maps it for
// good. Bounds-checked against the file's size; never throws.
int CudaRuntimeVersionOfFile(const std::string& path);
// The CUDA runtime linked statically into the main program (nvcc's default, -cudart static) when
// `address` is code of the main program: its version from the runtime's versioned entry-point
// table in the program's RELRO segment; 0 for code of any other object, a program without such a
// table, and cudyn's own code. Its answer is for the program's driver lookups only (stubs/shim.cc:
// the program's direct calls cannot be told from its runtime's). Cached; never throws.
int MainProgramCudaRuntimeVersion(const void* address);
// `compute(address)` for the object containing `address`, answered once per object: the same
// cache as IsLibraryCode and CudaRuntimeVersionOfCode (per question and executable range, lock-free
// reads), keyed by `question`'s address (a caller's own static). `compute` must not throw; a
// full cache leaves later answers uncached.
int CachedObjectAnswer(const void* question, const void* address, int (*compute)(const void*));

// --- Where toolkit libraries are searched -------------------------------------------------------
// Every library found by SONAME (libcudart, libnvrtc, ...) is searched in the same places; each
// library crosses these directories with its own SONAMEs and wheel layout (cudart.h's
// RuntimeSearchPlan, toolkit.h's ToolkitSearchPlan).

// What the search depends on besides the library: read from the environment ($CUDA_HOME,
// $CUDA_PATH, $CONDA_PREFIX, $VIRTUAL_ENV, $HOME: all ignored under AT_SECURE) and the file system.
struct SearchInputs {
  std::string root;  // prefix of every system directory ("" : this machine's own)
  std::string cuda_home, cuda_path, conda_prefix;
  // Python site-packages directories in sight, in search order: $VIRTUAL_ENV's, $CONDA_PREFIX's,
  // those of objects already loaded (a framework imported first), the user's and the system's.
  std::vector<std::string> site_packages;
  std::vector<std::string> toolkits;  // <root>/usr/local/cuda-X.Y directories, any order
};
SearchInputs ReadSearchInputs(const std::string& root);

enum class SearchPlace : uint8_t { kDefaultSearch, kCudaHome, kPythonWheel, kWellKnownDirectory };
struct SearchDirectory {
  std::string dir;  // "" for the dynamic linker's default search
  SearchPlace place;
};
// The directories one SONAME is searched in, in order: the default search (not under a root),
// $CUDA_HOME and $CUDA_PATH (lib64, lib), `wheel_subdir` in each site-packages ("/nvidia/cu13/lib"),
// $CONDA_PREFIX/lib, /usr/local/cuda then /usr/local/cuda-X.Y newest first (lib64,
// targets/<arch>/lib), /usr/lib/<multiarch>, /usr/lib64, /opt/cuda/lib64. Pure.
std::vector<SearchDirectory> SearchDirectories(const SearchInputs& inputs,
                                               const std::string& wheel_subdir);

// True when `path` names something (stat succeeds).
bool FileExists(const std::string& path);
// realpath(3) of `path`, or `path` itself when it cannot be resolved.
std::string RealPath(const std::string& path);

// A library's Source for a place of the shared search; its Source enum names kDefaultSearch,
// kCudaHome, kPythonWheel and kWellKnownDirectory alike.
template <class Source>
Source SourceFor(SearchPlace place) {
  switch (place) {
    case SearchPlace::kDefaultSearch: return Source::kDefaultSearch;
    case SearchPlace::kCudaHome: return Source::kCudaHome;
    case SearchPlace::kPythonWheel: return Source::kPythonWheel;
    case SearchPlace::kWellKnownDirectory: break;
  }
  return Source::kWellKnownDirectory;
}

// --- Logging and environment -------------------------------------------------------------------

// The "cudyn" logger (stderr; level from CUDYN_LOG, default warn). Never throws. Only core.cc
// includes spdlog: header-only spdlog + {fmt} cost every file including them ~8 s of compile per
// configuration (most of a loader file's), so the other files log through LogAt below.
spdlog::logger& Log();

enum class LogLevel : uint8_t { kDebug, kInfo, kWarn };
// Whether the logger writes `level` now (CUDYN_LOG).
bool LogEnabled(LogLevel level) noexcept;
// Writes `text` at `level`.
void LogText(LogLevel level, const std::string& text) noexcept;

inline void AppendLogPiece(std::string* text, const std::string& piece) { *text += piece; }
inline void AppendLogPiece(std::string* text, const char* piece) {
  *text += piece != nullptr ? piece : "(null)";
}
template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
void AppendLogPiece(std::string* text, Integer piece) {
  *text += std::to_string(piece);
}
// Logs the concatenation of `pieces` (strings, C strings, integers) when `level` is enabled: no
// text is built otherwise. Never throws.
template <typename... Pieces>
void LogAt(LogLevel level, const Pieces&... pieces) noexcept {
  if (!LogEnabled(level)) return;
  try {
    std::string text;
    (AppendLogPiece(&text, pieces), ...);
    LogText(level, text);
  } catch (...) {  // no memory: nothing logged
  }
}
// Applies CUDYN_LOG; returns a warning text for an unknown value, else "".
std::string ConfigureLogFromEnvironment();
// Logs a cudyn text at warn level once, without doubling the "cudyn: " prefix the logger adds.
void Warn(const std::string& text) noexcept;
// True when the process runs with AT_SECURE (setuid/setgid/capabilities).
bool IsSecureExecution();
// getenv that returns "" for unset.
std::string GetEnv(const char* name);

// The C APIs' string out-parameters: copies `text` into `buffer` (truncated, always
// NUL-terminated when size > 0) and returns its full length.
int CopyToBuffer(const std::string& text, char* buffer, size_t size);

// --- The discovery of a toolkit library ---------------------------------------------------------
// Every library on the toolkit template (loader/toolkit.h) is discovered by the same code
// (Toolkit::Discover); these are the pieces it shares with the rest of the core.

// Why a library's rule refuses every release under one SONAME for a driver, found without
// loading any file (a toolkit library's `refuse_soname`).
struct SonameRefusal {
  std::string reason;  // the candidate's reason: says the file was not loaded
  int min_driver = 0;  // the oldest driver (CUDA version) that runs the oldest release of it
};

// The SONAME a candidate of the search will be loaded as, known before dlopen: a candidate of
// the dynamic linker's default search is the bare name dlopen is handed, and that name is the
// SONAME the dynamic linker matches (an object already loaded, ld.so.cache, the file of that name
// in LD_LIBRARY_PATH, the caller's RUNPATH or the default directories); a file's is read from its
// dynamic section (ReadElfSoname; "" when it has none or cannot be read).
std::string CandidateSoname(const std::string& path, bool default_search);

// --- Adapter instances ------------------------------------------------------------------------

// Adapters are plain C functions with the variant's exact signature, so they cannot take their
// library object as an argument: each is instantiated once per instance id and finds its object
// here. Ids are handed out at open and returned by the object's destructor; Get is lock-free (it
// runs on every adapted call).
template <class Library, int N>
class InstanceRegistry {
 public:
  static constexpr int kSize = N;
  int Acquire(Library* library) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < N; ++i) {
      if (slots_[i].load(std::memory_order_relaxed) == nullptr) {
        slots_[i].store(library, std::memory_order_release);
        return i;
      }
    }
    return -1;
  }
  void Release(int id) noexcept {
    if (id < 0 || id >= N) return;
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[id].store(nullptr, std::memory_order_release);
  }
  Library* Get(int id) const noexcept {
    return id >= 0 && id < N ? slots_[id].load(std::memory_order_acquire) : nullptr;
  }

 private:
  std::mutex mutex_;
  std::atomic<Library*> slots_[N] = {};
};

// --- Opening a library object ----------------------------------------------------------------

// What the core needs of a library class (Driver, Runtime, ...), as private members it befriends
// OpenLibrary and DefaultInstance for:
//   using Options = ...;                       with `bool use_environment`
//   static constexpr int kTableSize;           entries in its generated table
//   static const LibraryPolicy kPolicy;        its binding rules
//   static constexpr int kNoLibraryError;      what its calls answer when nothing was found
//   static constexpr const char* kDiscoveryFailed;  the last error when discovery ran out of memory
//   static std::atomic<void*>* DefaultSlots(); the global slot array of the default instance
//   Library();                                 an unopened object (no table: everything missing)
//   void Discover(const Options&);             its policy: candidates, acceptance, version
//   std::unique_ptr<EntryTable> table_; std::atomic<void*>* slots_; int error_; bool ok() const;

// Allocates the object and its table (null when out of memory: the same for every library), runs
// its discovery so that nothing escapes, and opens the table when discovery accepted a file.
template <class Library>
std::unique_ptr<Library> OpenLibrary(const typename Library::Options& options,
                                     std::atomic<void*>* slots) noexcept {
  std::unique_ptr<Library> library(new (std::nothrow) Library());
  if (library == nullptr) return nullptr;
  library->table_ = EntryTable::Create(Library::kTableSize, slots, &Library::kPolicy,
                                       library.get());
  if (library->table_ == nullptr) return nullptr;
  library->slots_ = library->table_->slots();
  Library* l = library.get();
  if (!l->table_->RunDiscovery([&] { l->Discover(options); }, Library::kDiscoveryFailed)) {
    l->error_ = Library::kNoLibraryError;
  }
  l->table_->set_open(l->ok());
  return library;
}

// The process-wide instance of a library, opened once (thread-safe) from the environment into
// its global slot array. Leaked on purpose: trampolines may be called from other libraries'
// destructors at exit. Out of memory at open gives an unopened instance (static storage) whose
// every call answers the library's "no library" error.
template <class Library>
Library& DefaultInstance() {
  static Library* const instance = [] {
    typename Library::Options options;
    options.use_environment = true;
    return OpenLibrary<Library>(options, Library::DefaultSlots()).release();
  }();
  if (instance == nullptr) {
    static Library unopened;
    return unopened;
  }
  return *instance;
}

}  // namespace internal
}  // namespace cudyn

#endif  // CUDYN_LOADER_CORE_H_
