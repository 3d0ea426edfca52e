// cudyn runtime loader: finds a CUDA runtime (libcudart) the driver in front of it can run, reads
// its family and version, and binds every runtime-API entry of the compiling headers (CUDA 13.0;
// see version_tables/cudart_table.h) to the runtime's own variant or to an adapter.
//
// Contract:
//  * Nothing here aborts, exits or lets an exception escape. Failures are cudaError_t codes:
//      303 cudaErrorSharedObjectInitFailed  no loadable runtime (every path tried is recorded)
//      35 cudaErrorInsufficientDriver  an entry no path serves on this runtime, where the driver
//         is older than the first that runs a runtime serving it natively (what that runtime
//         answers here); 801 cudaErrorNotSupported where it is not (missing_result(index))
//      801 cudaErrorNotSupported  an adapter cannot express the caller's arguments
//    Errors of the runtime itself (35 insufficient driver, 100 no device, ...) pass through.
//    What a path cudyn serves itself answers is the thread's last error, as the runtime records
//    its own: cudaGetLastError / cudaPeekAtLastError report the most recent of the two.
//  * Choice: an explicit path (option, then CUDYN_CUDART_PATH; absolute only, ignored under
//    AT_SECURE) is taken as it is. Otherwise an already-loaded libcudart the driver supports,
//    then the newest family the driver supports (13 needs a 13.0 driver, 12 a 12.0, 11 an 11.0,
//    10.x its own minor; CUDYN_MAX_CUDA_VERSION clamps the driver as for the driver side) searched
//    in: the default search, $CUDA_HOME / $CUDA_PATH, Python wheel layouts (site-packages/nvidia/
//    cu13/lib, nvidia/cuda_runtime/lib; site-packages found from $VIRTUAL_ENV, $CONDA_PREFIX and the
//    objects already loaded), well-known toolkit directories. Without any driver the newest
//    family found is taken (its own calls then answer 35, as the real runtime does).
//  * Version: cudaRuntimeGetVersion when it answers; 11.x answers 35 without a usable driver, so
//    otherwise the SONAME's family and the symbols present (generated markers) decide.
//  * Binding per entry (generated rules, one per family): the runtime's own symbols whose
//    prototype and struct sizes equal the compiling headers' (e.g. cudaMemAdvise_v2 on 12.x for
//    13.0's cudaMemAdvise), tried in order by dlsym; else the entry's adapter; else missing.
//    Lazy and thread-safe: Resolve() costs one acquire load once an entry is bound.
#ifndef CUDYN_LOADER_CUDART_H_
#define CUDYN_LOADER_CUDART_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "loader/cudyn.h"
#include "version_tables/cudart_table.h"

namespace cudyn {

extern std::atomic<void*> g_default_cudart_slots[];

// cudaError_t values cudyn itself produces (same numbers as driver_types.h).
inline constexpr int kCudartSuccess = 0;
inline constexpr int kCudartErrorInvalidValue = 1;
inline constexpr int kCudartErrorInsufficientDriver = 35;
inline constexpr int kCudartErrorSymbolNotFound = 302;
inline constexpr int kCudartErrorInitFailed = 303;
inline constexpr int kCudartErrorNotSupported = 801;

// Where a runtime candidate came from, in discovery order.
enum class RuntimeSource : uint8_t {
  kOption,              // RuntimeOptions::runtime_path
  kEnvironment,         // CUDYN_CUDART_PATH
  kAlreadyLoaded,       // a libcudart already loaded in the process (RTLD_NOLOAD)
  kDefaultSearch,       // dlopen("libcudart.so.N"): LD_LIBRARY_PATH, ld.so.cache, trusted dirs
  kCudaHome,            // $CUDA_HOME / $CUDA_PATH lib64
  kPythonWheel,         // site-packages/nvidia/cu13/lib, nvidia/cuda_runtime/lib
  kWellKnownDirectory,  // /usr/local/cuda/lib64, /usr/local/cuda-X.Y/lib64, distro lib dirs
  kSearchPath,          // RuntimeOptions::search_paths (tests)
  kFamilyPolicy,        // not a path: a family skipped because the driver cannot run it
};

enum class RuntimeRejection : uint8_t {
  kNone,
  kIgnoredSecure,    // CUDYN_CUDART_PATH under AT_SECURE
  kNotAbsolute,      // an explicit path that is not absolute
  kUnloadableFile,   // missing, a directory, truncated, another architecture
  kNotLoaded,        // the already-loaded step: none in the process
  kDlopenFailed,     // dlopen() refused it (dlerror() in the reason)
  kIsCudyn,          // cudyn's own libcudyn_cudart.so under the runtime's name
  kNotARuntime,      // exports no cudaRuntimeGetVersion
  kUnknownFamily,    // neither its SONAME nor its version names a runtime family
  kDriverTooOld,     // the driver (after the clamp) does not support this family
};

const char* RuntimeSourceName(RuntimeSource source);  // "option", "CUDYN_CUDART_PATH", ...
const char* RuntimeRejectionName(RuntimeRejection rejection);  // "accepted", "driver_too_old", ...

struct RuntimeCandidate {
  std::string path;
  RuntimeSource source = RuntimeSource::kOption;
  RuntimeRejection rejection = RuntimeRejection::kNone;
  int family = 0;   // 10, 11, 12, 13 when known
  int version = 0;  // e.g. 12050 when known
  std::string reason;

  bool accepted() const { return rejection == RuntimeRejection::kNone; }
};

// ---- The search plan: where the loader looks for a runtime, as data -------------------------
// One function decides the order; Runtime's discovery walks it and `cudyn-check runtimes` lists
// it, so the CLI never reports a runtime the loader would not find, or in another order.

// What the search depends on besides the driver. ReadRuntimeSearchInputs() reads it from the
// environment ($CUDA_HOME, $CUDA_PATH, $CONDA_PREFIX, $VIRTUAL_ENV, $HOME: all ignored under
// AT_SECURE) and the file system; tests and `cudyn-check runtimes --root` give a root.
struct RuntimeSearchInputs {
  std::string root;  // prefix of every system directory ("" : this machine's own)
  std::string cuda_home, cuda_path, conda_prefix;
  // Python site-packages directories in sight, in search order: $VIRTUAL_ENV's, $CONDA_PREFIX's,
  // those of objects already loaded (a framework imported first), the user's and the system's.
  std::vector<std::string> site_packages;
  std::vector<std::string> toolkits;  // <root>/usr/local/cuda-X.Y directories, any order
};
RuntimeSearchInputs ReadRuntimeSearchInputs(const std::string& root = std::string());

struct PlannedRuntime {
  std::string path;  // the bare SONAME for the default search, else an absolute file path
  RuntimeSource source = RuntimeSource::kDefaultSearch;
  int family = 0;
};

// Every file the loader tries, in order, for a driver of `driver_version` (0: none known, every
// family): for each SONAME that driver runs, newest first — the dynamic linker's default search
// (not under a root: it searches this machine),
// $CUDA_HOME and $CUDA_PATH (lib64, lib), that family's wheel layout in each site-packages
// (nvidia/cu<F>/lib from 13 on, nvidia/cuda_runtime/lib before), $CONDA_PREFIX/lib,
// /usr/local/cuda then /usr/local/cuda-X.Y newest first (lib64, targets/<arch>/lib), and the
// distribution's directories (/usr/lib/<multiarch>, /usr/lib64, /opt/cuda/lib64). Pure: the
// files need not exist (the loader skips those that do not).
std::vector<PlannedRuntime> RuntimeSearchPlan(const RuntimeSearchInputs& inputs,
                                              int driver_version);

struct RuntimeOptions {
  // An absolute path to a libcudart (any name). When set (here or via CUDYN_CUDART_PATH) nothing
  // else is tried, whatever the driver supports.
  std::string runtime_path;
  // The driver version that decides the family (after any clamp); unset: ask DefaultDriver().
  std::optional<int> driver_version;
  // Behave as a driver of at most this CUDA version. Overrides the environment.
  std::optional<int> max_cuda_version;
  // Read CUDYN_CUDART_PATH / CUDYN_MAX_CUDA_VERSION / CUDA_HOME / ... (DefaultRuntime() does).
  bool use_environment = false;
  // Replaces every search step after the explicit path when set (tests): files or directories
  // (a directory is searched for each family's SONAME).
  std::optional<std::vector<std::string>> search_paths;
  // Replaces the search plan's inputs (tests and cudyn-check on another root); unset: read them
  // with ReadRuntimeSearchInputs().
  std::optional<RuntimeSearchInputs> search_inputs;
};

class Runtime {
 public:
  static std::unique_ptr<Runtime> Open(const RuntimeOptions& options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  bool ok() const { return error_ == kCudartSuccess; }
  int error() const { return error_; }  // 0 or 303
  // What a call of entry `index` answers when no path serves it (303 when no runtime is open):
  // 35 where the driver (after the clamp; none counts as older) is older than the entry's
  // needs_driver (version_tables/cudart_table.h), else 801. The one place that decides.
  int missing_result(int index) const;
  // The same for a name that is no entry (the drop-in's untyped forwards): 302.
  int missing_result() const { return ok() ? kCudartErrorSymbolNotFound : error_; }

  const std::string& path() const { return path_; }
  RuntimeSource found_by() const { return found_by_; }
  const std::vector<RuntimeCandidate>& candidates() const { return candidates_; }
  int family() const { return family_; }    // 10, 11, 12, 13
  int version() const { return version_; }  // 1000*major + 10*minor
  // How version() was learnt: "cudaRuntimeGetVersion" or "SONAME and symbols (...)".
  const std::string& version_source() const { return version_source_; }
  int driver_version() const { return driver_version_; }  // the one the choice used (0: none)
  void* handle() const { return handle_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  void* Resolve(int index) {
    void* fn = slots_[index].load(std::memory_order_acquire);
    return fn != nullptr ? fn : ResolveSlow(index);
  }
  // Like Resolve(), for a lookup that only asks whether the entry can be served: a missing entry
  // is logged at debug level only and leaves last_error() alone; a later call still logs once.
  void* Probe(int index) {
    void* fn = slots_[index].load(std::memory_order_acquire);
    return fn != nullptr ? fn : ProbeSlow(index);
  }
  int BindAll();  // returns the number of missing entries
  EntryStatus status(int index) const;
  // The runtime's exported name that serves `index` ("" unbound/missing; for an adapter, "").
  std::string bound_symbol(int index) const noexcept;
  std::string last_error() const noexcept;

  // dlsym in the runtime (adapters' older variants, nvcc's host-stub ABI); cached per name by
  // the caller. nullptr when absent or when no runtime is open.
  void* Symbol(const char* name) const noexcept;
  // Adapters that cannot express their caller's arguments: last error + one log line.
  void NoteAdapterCannotExpress(int index, const char* why) noexcept;
  int adapter_instance() const { return adapter_instance_; }

 private:
  template <class Library>
  friend Library& internal::DefaultInstance();
  friend void* ResolveDefaultCudartSlow(int index);
  friend struct RuntimePolicy;
  Runtime();  // unopened: every entry missing, error() 303 (out of memory at open)
  // What the loader core needs to open one (loader/core.h: OpenLibrary, DefaultInstance).
  template <class Library>
  friend std::unique_ptr<Library> internal::OpenLibrary(const typename Library::Options&,
                                                        std::atomic<void*>*) noexcept;
  using Options = RuntimeOptions;
  static constexpr int kTableSize = kCudartEntryCount;
  static constexpr int kNoLibraryError = kCudartErrorInitFailed;
  static constexpr const char* kDiscoveryFailed =
      "cudyn: runtime discovery failed (out of memory)";
  static const internal::LibraryPolicy kPolicy;
  static std::atomic<void*>* DefaultSlots() { return g_default_cudart_slots; }
  void Discover(const RuntimeOptions& options);
  bool TryCandidate(const std::string& path, RuntimeSource source, bool noload, int want_family);
  void Reject(std::string path, RuntimeSource source, RuntimeRejection rejection,
              std::string reason, int family = 0);
  void ReadVersion(int soname_family, int soname_minor);
  void* ResolveSlow(int index);  // binds as a call (loader/core.h: BindMode::kCall)
  void* ProbeSlow(int index);    // binds as a probe
  std::string MissingText(int index) const;

  // The default runtime's slots are g_default_cudart_slots (one RIP-relative load for a
  // trampoline); other runtimes' tables own theirs. Never null.
  std::atomic<void*>* slots_;
  // Status, bind modes, last error (loader/core.h); null only for the unopened runtime. Its
  // per-entry via is the index of the rule candidate that bound the entry.
  std::unique_ptr<internal::EntryTable> table_;

  int error_ = kCudartErrorInitFailed;
  void* handle_ = nullptr;
  std::string path_;
  RuntimeSource found_by_ = RuntimeSource::kOption;
  std::vector<RuntimeCandidate> candidates_;
  std::vector<std::string> warnings_;
  int family_ = 0;
  int version_ = 0;
  std::string version_source_;
  int driver_version_ = 0;
  bool clamped_ = false;  // driver_version_ is below the real driver's (a clamp)
  int adapter_instance_ = -1;
};

// The process-wide runtime, opened on first use from the environment (and DefaultDriver()'s
// effective version). Never fails to return; check ok(). Thread-safe.
Runtime& DefaultRuntime();

// nvcc's registration code as the runtime drop-in forwards it (__cudaRegisterFunction,
// __cudaUnregisterFatBinary): host stub -> device name, which serves cudaFuncGetName on runtimes
// before 12.3. The name is the program's own string, alive while its module is registered.
void NoteCudartFunction(void** module, const void* host_function, const char* device_name) noexcept;
void ForgetCudartModule(void** module) noexcept;
// The device name registered for `host_function`, or nullptr.
const char* RegisteredCudartFunctionName(const void* host_function) noexcept;

// Driver emulation (CUDYN_CLAMP_MODE=emulate under a clamp) of a fatbin the program registers with
// the runtime (the drop-in's __cudaRegisterFatBinary): the wrapper to hand the runtime instead of
// `fat_cubin`, pointing to the fatbin kernel_rule::RegistrationFatbin makes, so that the real
// driver answers the runtime's later loads as the emulated one would; `fat_cubin` itself when
// emulation is off or nothing changes. Never fails.
void* EmulateRegisteredFatbin(void* fat_cubin) noexcept;

// The drop-in answered `result` (35 or 801) for an entry no path serves on this thread: recorded
// in the default runtime's last-error overlay, as every failing path cudyn serves itself records
// its error (driver-served and composed entries, an adapter's refusal), so cudaGetLastError /
// cudaPeekAtLastError report it (on runtimes before 13.0, where such paths exist) until a later
// error replaces it or cudaGetLastError resets it.
void NoteCudartMissingAnswer(int result) noexcept;

// The default runtime's slots and slow path, for the drop-in's trampolines.
extern std::atomic<void*> g_default_cudart_slots[kCudartEntryCount];
void* ResolveDefaultCudartSlow(int index);

}  // namespace cudyn

#endif  // CUDYN_LOADER_CUDART_H_
