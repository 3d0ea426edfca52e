// cudyn NVRTC loader: finds the newest NVRTC (libnvrtc) whose PTX the driver in front of the
// program can JIT, reads its version and binds every entry of the compiling nvrtc.h (CUDA 13.0;
// version_tables/nvrtc_api_table.tsv) to that NVRTC's own function.
//
// Contract:
//  * Nothing here aborts, exits or lets an exception escape. Failures are nvrtcResult codes:
//      NVRTC_ERROR_INTERNAL_ERROR (11)  no acceptable NVRTC (every path tried is recorded, last_error)
//      NVRTC_ERROR_INVALID_INPUT (3)    an entry the chosen NVRTC does not export (an older NVRTC:
//                                       nvrtcGetLTOIR before 12.x here, the PCH functions and
//                                       nvrtcSetFlowCallback before 13.0). Chosen because the call
//                                       cannot be carried out with what the caller passed on this
//                                       NVRTC, which every caller already handles as a refusal of
//                                       its request, and because it never means success or "retry";
//                                       last_error() names the entry, the NVRTC and why.
//    NVRTC's own results pass through. With no NVRTC at all, the drop-in's nvrtcGetErrorString
//    answers cudyn's own text (stubs/nvrtc_shim.cc).
//  * Choice: an explicit path (option, then CUDYN_NVRTC_PATH; absolute only, ignored under
//    AT_SECURE) is taken as it is, whatever the driver. Otherwise the SONAMEs (libnvrtc.so.13,
//    .12, .11.2: from the generated facts) newest first, each searched where the runtime is
//    (loader/core.h SearchDirectories: default search, $CUDA_HOME / $CUDA_PATH, the wheel layout
//    nvidia/cu13/lib from 13 on and nvidia/cuda_nvrtc/lib before, $CONDA_PREFIX/lib, toolkits,
//    the distribution's directories), and the first NVRTC whose PTX the driver JITs is taken
//    (loader/nvrtc_rule.h: its version's PTX ISA was introduced at or before the driver's CUDA
//    version). The driver version is DefaultDriver()'s effective one (CUDYN_MAX_CUDA_VERSION
//    clamps it, as for the other libraries). Without a driver the newest NVRTC found is taken
//    (compiling needs no GPU). Every candidate is recorded with why it was taken or refused.
//  * Version: nvrtcVersion (it answers without a GPU).
//  * Builtins: NVRTC dlopens libnvrtc-builtins.so.<major.minor> by bare name at its first compile
//    (no RUNPATH in the real libraries), so the copy beside the chosen NVRTC is loaded at open;
//    otherwise a compile of an NVRTC found outside the linker's search fails with
//    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7). builtins() says what was done.
//  * Binding per entry (generated rules, one per real NVRTC version; an NVRTC between two known
//    versions uses the older one's): its own exported names with the 13.0 prototype, tried in
//    order by dlsym (version-named variants first where one exists: none does up to 13.0); else
//    missing. Lazy and thread-safe; the default instance opens nothing before the first call.
#ifndef CUDYN_LOADER_NVRTC_H_
#define CUDYN_LOADER_NVRTC_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/cudyn.h"
#include "version_tables/generated_nvrtc/nvrtc_entry_count.h"

namespace cudyn {

// nvrtcResult values cudyn itself produces (same numbers as nvrtc.h).
inline constexpr int kNvrtcSuccess = 0;
inline constexpr int kNvrtcErrorInvalidInput = 3;
inline constexpr int kNvrtcErrorInternalError = 11;

// Entry indices: kNvrtc_nvrtcVersion, ... (generated).
enum NvrtcEntryIndex : int {
#define CUDYN_NVRTC_ENTRY(index, ret, symbol, params, args) kNvrtc_##symbol = index,
#include "version_tables/generated_nvrtc/nvrtc_entries.inc"
#undef CUDYN_NVRTC_ENTRY
};
std::string_view NvrtcSymbol(int index);  // "nvrtcVersion"; "" out of range

enum class NvrtcSource : uint8_t {
  kOption,              // NvrtcOptions::nvrtc_path
  kEnvironment,         // CUDYN_NVRTC_PATH
  kDefaultSearch,       // dlopen("libnvrtc.so.N")
  kCudaHome,            // $CUDA_HOME / $CUDA_PATH
  kPythonWheel,         // site-packages/nvidia/cu13/lib, nvidia/cuda_nvrtc/lib, $CONDA_PREFIX/lib
  kWellKnownDirectory,  // /usr/local/cuda*/lib64, distro lib dirs
  kSearchPath,          // NvrtcOptions::search_paths (tests)
};

enum class NvrtcRejection : uint8_t {
  kNone,
  kIgnoredSecure,   // CUDYN_NVRTC_PATH under AT_SECURE
  kNotAbsolute,     // an explicit path that is not absolute
  kUnloadableFile,  // missing, a directory, truncated, another architecture
  kNotLoaded,       // (unused: the shared open step's name)
  kDlopenFailed,    // dlopen() refused it (dlerror() in the reason)
  kIsCudyn,         // cudyn's own libcudyn_nvrtc.so under NVRTC's name
  kNotNvrtc,        // exports no nvrtcVersion, or it fails
  kPtxTooNew,       // the driver cannot JIT the PTX ISA this NVRTC emits
};

const char* NvrtcSourceName(NvrtcSource source);           // "option", "CUDYN_NVRTC_PATH", ...
const char* NvrtcRejectionName(NvrtcRejection rejection);  // "accepted", "ptx_too_new", ...

struct NvrtcCandidate {
  std::string path;
  NvrtcSource source = NvrtcSource::kOption;
  NvrtcRejection rejection = NvrtcRejection::kNone;
  int version = 0;  // nvrtcVersion, when it was read
  int ptx_isa = 0;  // the ISA it emits (10*major + minor), when known
  // The oldest driver (CUDA version) that JITs its PTX, when known: from its version, or for a
  // candidate refused by its SONAME alone (version 0: never loaded; a file, or the bare name of
  // the default search, e.g. "libnvrtc.so.12") from the oldest release of it.
  int min_driver = 0;
  std::string reason;

  bool accepted() const { return rejection == NvrtcRejection::kNone; }
};

// The NVRTC SONAMEs, newest first ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2").
std::vector<std::string> NvrtcSonames();

struct PlannedNvrtc {
  std::string path;  // the bare SONAME for the default search, else an absolute file path
  NvrtcSource source = NvrtcSource::kDefaultSearch;
};
// Every file the loader tries after an explicit path, in order: for each SONAME newest first, the
// directories of loader/core.h's SearchDirectories with NVRTC's wheel layout, the inputs read from
// the environment and the file system under `root` ("": this machine; the default search only
// then). Files need not exist (the loader skips those that do not).
std::vector<PlannedNvrtc> NvrtcSearchPlan(const std::string& root = std::string());

struct NvrtcOptions {
  // An absolute path to a libnvrtc. When set (here or via CUDYN_NVRTC_PATH) nothing else is tried.
  std::string nvrtc_path;
  // The driver version that decides (after any clamp); unset: ask DefaultDriver().
  std::optional<int> driver_version;
  // Behave as a driver of at most this CUDA version. Overrides the environment.
  std::optional<int> max_cuda_version;
  // Read CUDYN_NVRTC_PATH / CUDYN_MAX_CUDA_VERSION / CUDA_HOME / ... (DefaultNvrtc() does).
  bool use_environment = false;
  // Replaces the search after the explicit path (tests): for each SONAME newest first, each
  // directory in order.
  std::optional<std::vector<std::string>> search_paths;
};

class Nvrtc {
 public:
  static std::unique_ptr<Nvrtc> Open(const NvrtcOptions& options);
  ~Nvrtc();
  Nvrtc(const Nvrtc&) = delete;
  Nvrtc& operator=(const Nvrtc&) = delete;

  bool ok() const { return error_ == kNvrtcSuccess; }
  int error() const { return error_; }  // 0 or NVRTC_ERROR_INTERNAL_ERROR
  int missing_result() const { return ok() ? kNvrtcErrorInvalidInput : error_; }

  const std::string& path() const { return path_; }
  NvrtcSource found_by() const { return found_by_; }
  const std::vector<NvrtcCandidate>& candidates() const { return candidates_; }
  int version() const { return version_; }  // 1000*major + 10*minor
  int ptx_isa() const { return ptx_isa_; }  // 10*major + minor of the PTX it emits
  int driver_version() const { return driver_version_; }  // the one the choice used (0: none)
  const std::string& builtins() const { return builtins_; }  // the builtins loaded, or why not
  const std::vector<std::string>& warnings() const { return warnings_; }

  void* Resolve(int index) {
    void* fn = slots_[index].load(std::memory_order_acquire);
    return fn != nullptr ? fn : ResolveSlow(index);
  }
  int BindAll();  // returns the number of missing entries
  EntryStatus status(int index) const;
  std::string last_error() const noexcept;

 private:
  template <class Library>
  friend Library& internal::DefaultInstance();
  template <class Library>
  friend std::unique_ptr<Library> internal::OpenLibrary(const typename Library::Options&,
                                                        std::atomic<void*>*) noexcept;
  friend void* ResolveDefaultNvrtcSlow(int index);
  friend struct NvrtcPolicy;
  Nvrtc();
  using Options = NvrtcOptions;
  static constexpr int kTableSize = kNvrtcEntryCount;
  static constexpr int kNoLibraryError = kNvrtcErrorInternalError;
  static constexpr const char* kDiscoveryFailed = "cudyn: NVRTC discovery failed (out of memory)";
  static const internal::LibraryPolicy kPolicy;
  static std::atomic<void*>* DefaultSlots();
  void Discover(const NvrtcOptions& options);
  bool TryCandidate(const std::string& path, NvrtcSource source);
  void LoadBuiltins(int major, int minor);
  void* ResolveSlow(int index);
  std::string MissingText(int index) const;

  std::atomic<void*>* slots_;
  std::unique_ptr<internal::EntryTable> table_;
  int error_ = kNvrtcErrorInternalError;
  void* handle_ = nullptr;
  std::string path_;
  NvrtcSource found_by_ = NvrtcSource::kOption;
  std::vector<NvrtcCandidate> candidates_;
  std::vector<std::string> warnings_;
  int version_ = 0;
  int ptx_isa_ = 0;
  int rules_version_ = 0;  // the real version whose generated rules bind the entries
  std::string builtins_;
  int driver_version_ = 0;
};

// The process-wide NVRTC, opened on first use from the environment (and DefaultDriver()'s
// effective version). Never fails to return; check ok(). Thread-safe.
Nvrtc& DefaultNvrtc();

// The default instance's slots and slow path, for the drop-in's trampolines.
extern std::atomic<void*> g_default_nvrtc_slots[kNvrtcEntryCount];
void* ResolveDefaultNvrtcSlow(int index);

}  // namespace cudyn

#endif  // CUDYN_LOADER_NVRTC_H_
