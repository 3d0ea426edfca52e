// cudyn loader: finds the NVIDIA driver, reads its version and binds every driver-API entry
// (one per exported ABI variant, see version_tables/api_table.h) to the right function.
//
// Contract:
//  * Nothing here aborts, exits or lets an exception escape. Failures are CUresult codes:
//      303 CUDA_ERROR_SHARED_OBJECT_INIT_FAILED  no loadable driver (every path tried is recorded)
//       34 CUDA_ERROR_STUB_LIBRARY               only the toolkit's stub libcuda was found
//      302 CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND  an entry has no native variant and no adapter
//    and a last-error text that names the symbol, the versions and the driver path.
//  * Binding rules (measured on drivers 418..580): each entry is requested by its *base* name at
//    its *own* ABI version, never above the driver's effective version, with flags 2 for
//    per-thread variants; cuGetProcAddress_v2 on 12.0+ drivers, cuGetProcAddress on 11.3+, exact
//    dlsym before that and for the symbols cuGetProcAddress never returns.
//  * Binding is lazy and thread-safe: Resolve() costs one acquire load once an entry is bound.
//    BindAll() binds everything eagerly.
//  * Several Driver objects may be open at once; DefaultDriver() is the process-wide one the
//    drop-in stubs use, configured from the environment (CUDYN_DRIVER_PATH,
//    CUDYN_MAX_CUDA_VERSION, CUDYN_PER_THREAD_DEFAULT_STREAM, CUDYN_LOG).
#ifndef CUDYN_LOADER_CUDYN_H_
#define CUDYN_LOADER_CUDYN_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "version_tables/api_table.h"

namespace cudyn {

class Driver;
extern std::atomic<void*> g_default_slots[];
namespace internal {  // loader/core.h
class EntryTable;
struct LibraryPolicy;
template <class Library>
Library& DefaultInstance();
template <class Library>
std::unique_ptr<Library> OpenLibrary(const typename Library::Options& options,
                                     std::atomic<void*>* slots) noexcept;
}  // namespace internal

// CUresult values cudyn itself produces (same numbers as cuda.h; no cuda.h needed here).
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorInvalidValue = 1;
inline constexpr int kCudaErrorNotInitialized = 3;
inline constexpr int kCudaErrorStubLibrary = 34;
inline constexpr int kCudaErrorNoDevice = 100;
inline constexpr int kCudaErrorNotFound = 500;
inline constexpr int kCudaErrorSharedObjectSymbolNotFound = 302;
inline constexpr int kCudaErrorSharedObjectInitFailed = 303;
inline constexpr int kCudaErrorNotSupported = 801;

enum class EntryStatus : uint8_t { kUnbound, kNative, kAdapter, kMissing };
enum class BindVia : uint8_t { kNone, kGetProcAddressV2, kGetProcAddress, kDlsym, kAdapter };
enum class Strategy : uint8_t { kNone, kGetProcAddressV2, kGetProcAddress, kDlsym };

const char* EntryStatusName(EntryStatus status);  // "unbound", "native", "adapter", "missing"
const char* BindViaName(BindVia via);  // "cuGetProcAddress_v2", "cuGetProcAddress", "dlsym", ...
const char* StrategyName(Strategy strategy);

// Where a driver candidate came from, in discovery order.
enum class CandidateSource : uint8_t {
  kOption,              // DriverOptions::driver_path
  kEnvironment,         // CUDYN_DRIVER_PATH
  kAlreadyLoaded,       // a libcuda.so.1 already loaded in the process (RTLD_NOLOAD)
  kWsl,                 // /usr/lib/wsl/lib/libcuda.so.1
  kDefaultSearch,       // dlopen("libcuda.so.1"): LD_LIBRARY_PATH, ld.so.cache, trusted dirs
  kWellKnownDirectory,  // kWellKnownDriverDirs
  kSearchPath,          // DriverOptions::search_paths
};

// Why a candidate was not used (kNone: it was accepted).
enum class Rejection : uint8_t {
  kNone,
  kIgnoredSecure,   // CUDYN_DRIVER_PATH under AT_SECURE (setuid/setgid)
  kNotAbsolute,     // an explicit path that is not absolute
  kUnloadableFile,  // checked before dlopen: missing, a directory, a FIFO, truncated, other arch
  kNotLoaded,       // the already-loaded step: no libcuda.so.1 in the process
  kDlopenFailed,    // dlopen() refused it (dlerror() in the reason)
  kIsCudyn,         // cudyn's own drop-in (libcudyn_cuda.so) under the driver's name
  kNotADriver,      // exports no cuDriverGetVersion
  kStubLibrary,     // the toolkit's stub: cuDriverGetVersion returned 34
  kVersionFailed,   // cuDriverGetVersion returned another error
  kAbsurdVersion,   // cuDriverGetVersion reported a version outside 1000..99999
};

// "option", "CUDYN_DRIVER_PATH", "already loaded", "wsl", "default search",
// "well-known directory", "search path".
const char* CandidateSourceName(CandidateSource source);
// "accepted", "ignored_secure", "not_absolute", "unloadable_file", "not_loaded", "dlopen_failed",
// "is_cudyn", "not_a_driver", "stub_library", "version_failed", "absurd_version".
const char* RejectionName(Rejection rejection);

// One place the loader looked for the driver.
struct DriverCandidate {
  std::string path;  // as given to dlopen (after loading: the loaded object's name)
  CandidateSource source = CandidateSource::kOption;
  Rejection rejection = Rejection::kNone;
  int cuda_version = 0;  // when cuDriverGetVersion answered
  std::string reason;    // for people: why it was rejected (with details), or "accepted"

  bool accepted() const { return rejection == Rejection::kNone; }
};

struct DriverOptions {
  // An absolute path to libcuda.so.1 (or a copy). Relative paths are rejected. When set (here or
  // via CUDYN_DRIVER_PATH) nothing else is tried.
  std::string driver_path;
  // Behave as a driver of at most this CUDA version (e.g. 11040). Overrides the environment.
  std::optional<int> max_cuda_version;
  // Serve legacy-stream entries with their per-thread variants. Overrides the environment.
  std::optional<bool> per_thread_default_stream;
  // Under a clamp, also emulate the older driver's choice of device code (CUDYN_CLAMP_MODE=emulate,
  // loader/DESIGN.md "Driver emulation"): module loads get only the image that driver would
  // pick, or its error; a GPU it does not know is not offered. Overrides the environment.
  std::optional<bool> emulate_driver;
  // Read CUDYN_* variables (DefaultDriver() does).
  bool use_environment = false;
  // Replaces the already-loaded/WSL/default-search/well-known-directory steps when set (tests).
  std::optional<std::vector<std::string>> search_paths;
};

// Parses a CUDA version as written in CUDYN_MAX_CUDA_VERSION: "11040", or "11.4" / "12.2".
// Returns nullopt for anything else (including absurd values outside 1000..99999).
std::optional<int> ParseCudaVersion(const std::string& text);
// Parses CUDYN_CLAMP_MODE: "versions" (the default: the clamp changes versions and binding)
// -> false, "emulate" -> true; nullopt for anything else.
std::optional<bool> ParseClampMode(const std::string& text);
// Parses a boolean as CUDYN_PER_THREAD_DEFAULT_STREAM accepts: 0/1/true/false/on/off/yes/no.
std::optional<bool> ParseBool(const std::string& text);

class Driver {
 public:
  // Check ok(). Never throws; returns null only when the Driver object itself cannot be allocated.
  static std::unique_ptr<Driver> Open(const DriverOptions& options);
  // dlcloses the driver. A driver that ran cuInit may keep threads of its own; destroy such a
  // Driver only when nothing runs in it any more (DefaultDriver() is never destroyed).
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  bool ok() const { return error_ == kCudaSuccess; }
  int error() const { return error_; }  // 0, 303 or 34
  // The CUresult a call of a missing entry returns: 302 when the driver is open, else error().
  int missing_result() const { return ok() ? kCudaErrorSharedObjectSymbolNotFound : error_; }

  const std::string& path() const { return path_; }
  // How the driver in use was found; meaningful only when ok().
  CandidateSource found_by() const { return found_by_; }
  const std::vector<DriverCandidate>& candidates() const { return candidates_; }
  int cuda_version() const { return cuda_version_; }          // what the driver reports
  int effective_version() const { return effective_version_; }  // after the clamp
  Strategy strategy() const { return strategy_; }
  bool per_thread_default_stream() const { return per_thread_; }
  // Driver emulation is on: asked for (option or CUDYN_CLAMP_MODE=emulate) and a clamp is set
  // (the emulated driver is one of effective_version()). Module-load entries, cuInit and cuDeviceGetCount are then bound to wrappers
  // (loader/emulate.cc); otherwise nothing differs.
  bool emulating() const { return emulating_; }
  void* handle() const { return handle_; }
  // The driver's own cuGetProcAddress / cuGetProcAddress_v2 (nullptr where it has none), looked up
  // once at open: what the drop-in hands a CUDA runtime under a clamp (stubs/shim.cc).
  void* real_get_proc_address() const { return get_proc_address_; }
  void* real_get_proc_address_v2() const { return get_proc_address_v2_; }
  // Problems with the configuration (rejected environment values, ignored overrides).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The function to call for `index`, binding it on first use; nullptr when missing.
  void* Resolve(int index) {
    void* fn = slots_[index].load(std::memory_order_acquire);
    return fn != nullptr ? fn : ResolveSlow(index);
  }
  // Like Resolve(), for a lookup that only asks whether the entry can be served (the shim's
  // cuGetProcAddress answering a client's probe): a missing entry is normal there, so it is
  // logged at debug level only and leaves last_error() alone. A later call still logs once.
  void* Probe(int index) {
    void* fn = slots_[index].load(std::memory_order_acquire);
    return fn != nullptr ? fn : ProbeSlow(index);
  }
  // Binds every entry. Returns the number of missing entries.
  int BindAll();

  EntryStatus status(int index) const;
  BindVia via(int index) const;
  // The driver's exported name of the function that runs for `index` (dladdr of the bound
  // driver function; for a custom adapter, of the function the adapter calls). "" if unbound.
  std::string driver_symbol(int index) const noexcept;
  // Text of the last failure: symbol, versions, path.
  std::string last_error() const noexcept;

  // Heap bytes one Driver's entry table takes (loader/core.h: status, via and log flags per
  // entry, the table object; the slot array too when the Driver owns it, i.e. all but the
  // default driver, whose slots are g_default_slots). For footprint accounting.
  static size_t TableBytes(bool owns_slots);

  // The instance id custom adapters use to reach this driver, or -1 if none was free.
  int adapter_instance() const { return adapter_instance_; }
  // Called by an adapter that cannot express its caller's arguments on this driver (it then
  // returns 801): sets the last error and logs once per entry.
  void NoteAdapterCannotExpress(int index, const char* why) noexcept;

 private:
  template <class Library>
  friend Library& internal::DefaultInstance();
  friend void* ResolveDefaultSlow(int index);
  friend struct DriverPolicy;
  Driver();  // unopened: every entry missing, error() 303 (out of memory at open)
  // What the loader core needs to open one (loader/core.h: OpenLibrary, DefaultInstance).
  template <class Library>
  friend std::unique_ptr<Library> internal::OpenLibrary(const typename Library::Options&,
                                                        std::atomic<void*>*) noexcept;
  using Options = DriverOptions;
  static constexpr int kTableSize = kEntryCount;
  static constexpr int kNoLibraryError = kCudaErrorSharedObjectInitFailed;
  static constexpr const char* kDiscoveryFailed =
      "cudyn: driver discovery failed (out of memory)";
  static const internal::LibraryPolicy kPolicy;
  static std::atomic<void*>* DefaultSlots() { return g_default_slots; }
  void* ResolveSlow(int index);  // binds as a call (loader/core.h: BindMode::kCall)
  void* ProbeSlow(int index);    // binds as a probe
  void Discover(const DriverOptions& options);
  bool TryCandidate(const std::string& path, CandidateSource source, bool noload);
  void Reject(std::string path, CandidateSource source, Rejection rejection, std::string reason);
  void ChooseStrategy();
  std::string MissingText(int index) const;
  std::string DriverSymbol(int index) const;
  // cuGetProcAddress answered success with a NULL or non-code pointer: logs once per driver.
  void NoteUnusableProcAddress(const char* base, const void* fn);
  void* BindNative(int index, BindVia* via);
  void* LookUp(int index, int version, bool per_thread, BindVia* via);
  bool IsCode(const void* fn) const;  // in the driver's code, else in any loaded object's code

  // The default driver's slots are a global array (g_default_slots) so a stub reaches its slot
  // with one RIP-relative load; other drivers' tables own theirs. Never null.
  std::atomic<void*>* slots_;
  // Status, bind modes, last error (loader/core.h); null only for the unopened driver.
  std::unique_ptr<internal::EntryTable> table_;
  std::atomic<bool> bad_proc_address_logged_{false};

  int error_ = kCudaErrorSharedObjectInitFailed;
  void* handle_ = nullptr;
  std::string path_;
  CandidateSource found_by_ = CandidateSource::kOption;
  std::vector<DriverCandidate> candidates_;
  std::vector<std::string> warnings_;
  int cuda_version_ = 0;
  int effective_version_ = 0;
  bool per_thread_ = false;
  bool emulating_ = false;
  Strategy strategy_ = Strategy::kNone;
  void* get_proc_address_ = nullptr;     // cuGetProcAddress (v1)
  void* get_proc_address_v2_ = nullptr;  // cuGetProcAddress_v2
  int adapter_instance_ = -1;
  // Executable ranges of the driver object: pointers a lookup returns are checked here first.
  std::vector<std::pair<uintptr_t, uintptr_t>> driver_code_;
};

// The directories the last discovery step tries (libcuda.so.1 in each, in this order).
extern const char* const kWellKnownDriverDirs[];
extern const int kWellKnownDriverDirCount;
// The driver WSL provides (the kWsl step).
extern const char kWslDriverPath[];

// The discovery steps when neither an explicit path nor search paths are given, in order. The
// loader follows it, and cudyn-check's simulated search (--search-root) expands the same steps.
inline constexpr CandidateSource kDriverSearchPlan[] = {
    CandidateSource::kAlreadyLoaded,
    CandidateSource::kWsl,
    CandidateSource::kDefaultSearch,
    CandidateSource::kWellKnownDirectory,
};

// The process-wide driver, opened on first use from the environment. Never fails to return;
// check ok(). Thread-safe.
Driver& DefaultDriver();

// The default driver's slot array (kEntryCount entries, null until bound) and its slow path,
// for the drop-in stubs' hot path:  fn = slots[i].load(); if (!fn) fn = ResolveDefaultSlow(i);
extern std::atomic<void*> g_default_slots[kEntryCount];
void* ResolveDefaultSlow(int index);

// True when `address` is code of a CUDA runtime library that is not cudyn's (a loaded shared
// object defining cudaRuntimeGetVersion itself, with no cudyn marker; never the main program).
// The drop-in hands such a caller the real driver under a clamp (stubs/shim.cc says why).
// Cached per object after the first call from it.
bool IsCudaRuntimeCode(const void* address);

// Under a clamp to `effective_version`, whether the code at `address` is a CUDA runtime that must
// see the real driver: a runtime library or a runtime compiled into a shared object (cuBLAS's,
// cuFFT's, ...: internal::CudaRuntimeVersionOfCode) that a real driver of that version runs. A
// runtime it does not run (13.0 under a 12.x clamp) keeps the clamped view and fails as on such a
// driver; a runtime library whose version is unknown sees the real driver. Cached per object.
bool RuntimeSeesRealDriver(const void* address, int effective_version);

// The same question for a driver lookup (cuGetProcAddress) made by `caller`: RuntimeSeesRealDriver,
// or `caller` is code of a main program with a CUDA runtime linked in statically (nvcc's default)
// that a real driver of that version runs. Such a runtime looks up every driver entry, so the
// entries it is handed decide what it sees; the program's own direct calls keep the clamp.
bool LookupSeesRealDriver(const void* caller, int effective_version);

// Under driver emulation, whether `driver`'s drop-in answers a lookup of `symbol` (a base name) by
// `caller` with its own entry (the emulation wrapper) even where `caller` sees the real driver:
// cuInit, cuDeviceGetCount and cuGetProcAddress for every caller (a real driver of the emulated
// version offers none of the GPUs it does not know, to anyone), and the module loads for a runtime
// linked into the main program (loader/emulate.cc's list), whose fatbins no registration hook
// reaches. False without emulation.
bool EmulationAnswersLookup(const Driver& driver, const void* caller, std::string_view symbol);

// Under driver emulation, once per process: the fatbins a runtime linked into the main program
// registered (nvcc's wrappers, in the program's writable data) are pointed at what a real driver
// answers as the emulated one would (kernel_rule::RegistrationFatbin), as cudyn's runtime drop-in
// does at registration for a shared runtime. The drop-in calls it at lookups that see the real
// driver: it acts at the first by code of such a program (`caller`), before its runtime loads a
// module. No-op without emulation or for any other caller.
void EmulateMainProgramFatbins(Driver& driver, const void* caller);

// Under `cudyn run --cudart` (CUDYN_CUDART_PATH names the runtime cudyn's runtime layer uses): when
// `caller` is code of another CUDA runtime library (IsCudaRuntimeCode, in a file other than that
// one after realpath), warns once per process that this file's calls bypass cudyn. Without
// CUDYN_CUDART_PATH (or under AT_SECURE) it stays silent: which runtime is cudyn's is not known.
// The drop-in calls it for cuGetProcAddress / cuDriverGetVersion callers (a runtime calls one of
// them first). A few loads for callers already seen; never throws.
void WarnIfOtherCudaRuntime(const void* caller) noexcept;

// True when this build can serve entry `index` through an adapter on a driver that lacks it: a
// same-signature predecessor, or a custom adapter whose types the compiling CUDA headers declare
// (built against 11.8 headers, e.g., cuMemAdvise_v2's CUmemLocation adapter is compiled out).
bool AdapterCompiledIn(int index);

// CUresult names and strings as the real drivers' cuGetErrorName/cuGetErrorString answer them
// (version_tables/inputs/error_strings/, the newest driver's text per code); usable with no
// driver. Unknown code: return 1 (CUDA_ERROR_INVALID_VALUE) and store NULL into *out, like the
// drivers; a NULL out: return 1.
int ResultName(int result, const char** out);
int ResultString(int result, const char** out);

}  // namespace cudyn

#endif  // CUDYN_LOADER_CUDYN_H_
