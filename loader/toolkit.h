// The toolkit library template: one loader for every CUDA library chosen by the driver in front of
// the program (NVRTC, cuBLAS, cuBLASLt, cuFFT, cuRAND, cuSPARSE, cuSOLVER, nvJitLink, ...). A
// library is a ToolkitTraits (its names, its version call, its status codes, its acceptance rule)
// plus its generated table (version_tables/generated_<lib>/: entries, per-release rules, releases);
// loader/DESIGN.md, "One mechanism, many libraries".
//
// Contract (every library alike):
//  * Nothing here aborts, exits or lets an exception escape. Failures are the library's own status
//    codes: `no_library_status` when no acceptable file was found (every path tried is recorded,
//    last_error), `not_supported_status` for an entry the chosen release does not export
//    (last_error names the entry, the file and why). The library's own results pass through.
//  * Choice: an explicit path (the option, then CUDYN_<LIB>_PATH; absolute only, ignored under
//    AT_SECURE) is taken as it is, whatever the driver (a warning when the driver cannot run it).
//    Otherwise every SONAME of the releases the facts know, newest first, each in every place of
//    the shared search (loader/core.h SearchDirectories: default search, then each LD_LIBRARY_PATH
//    directory by path, $CUDA_HOME/$CUDA_PATH, the wheel layouts, $CONDA_PREFIX, toolkits,
//    distribution directories), each file judged once
//    (realpath), and the first release the driver runs is taken. A SONAME every known release of
//    which the driver cannot run is refused before dlopen (recorded, never loaded). The driver
//    version is DefaultDriver()'s effective one (CUDYN_MAX_CUDA_VERSION clamps it). Without a
//    driver the newest file found is taken. Every candidate is recorded with why.
//  * Release: a SONAME does not name the CUDA release (libcurand.so.10 spans 11.x-13.0); the
//    library's own version call, mapped through the generated release facts, does.
//  * Binding per entry: the generated rules of the release (a release between two known ones uses
//    the older one's): its own exported names with the newest header's prototype, tried in order;
//    an entry the facts call not exported is still looked up by its own name (a newer release
//    than the facts know); else missing. Lazy and thread-safe; a default instance opens nothing
//    before its first call.
#ifndef CUDYN_LOADER_TOOLKIT_H_
#define CUDYN_LOADER_TOOLKIT_H_

#include <atomic>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/cudyn.h"

namespace cudyn {

class Toolkit;

namespace internal {
class EntryTable;
}  // namespace internal

enum class ToolkitSource : uint8_t {
  kOption,              // ToolkitOptions::path
  kEnvironment,         // CUDYN_<LIB>_PATH
  kDefaultSearch,       // dlopen("<soname>")
  kCudaHome,            // $CUDA_HOME / $CUDA_PATH
  kPythonWheel,         // site-packages/nvidia/..., $CONDA_PREFIX/lib
  kWellKnownDirectory,  // /usr/local/cuda*/lib64, distribution directories
  kSearchPath,          // ToolkitOptions::search_paths (tests)
  kLibraryPath,         // a directory of LD_LIBRARY_PATH, by path: the default search's bare name
                        // may be cudyn's own drop-in (preloaded under the same SONAME)
};

enum class ToolkitRejection : uint8_t {
  kNone,
  kIgnoredSecure,   // the path variable under AT_SECURE
  kNotAbsolute,     // an explicit path that is not absolute
  kUnloadableFile,  // missing, a directory, truncated, another architecture
  kNotLoaded,       // (the shared open step's name; unused here)
  kDlopenFailed,    // dlopen() refused it (dlerror() in the reason)
  kIsCudyn,         // cudyn's own drop-in under the library's name
  kNotTheLibrary,   // no version function, or it answers nonsense
  kDriverTooOld,    // the driver cannot run this release
};

// The symbol every drop-in of a library on the template exports (stubs/toolkit_trampoline.h): how
// a loaded sibling is told to be cudyn's own.
inline constexpr char kToolkitDropinMarker[] = "cudynToolkitDropin";

// One row of a library's generated rules: how `index` binds on the real release `release`.
struct ToolkitRuleRow {
  int index;
  int release;             // CUDA release of the facts, 12040
  const char* candidates;  // "a\0b\0" (ends at the empty string)
  const char* reason;      // why missing ("" when candidates exist)
  bool exported;           // the release exports the symbol itself (perhaps declared otherwise)
};

// One real release the facts know: its CUDA release, SONAME, and the number its own version call
// answers (ToolkitTraits::read_version's encoding; 0 when the release is read off the call itself).
struct ToolkitReleaseRow {
  int release;
  const char* soname;
  int library_version;
};

// What a loaded library says of itself.
struct ToolkitVersion {
  int version = 0;          // its own number, read_version's encoding (cuBLAS 130100, NVRTC 13000)
  int runtime_version = 0;  // the CUDA runtime it was built with, when it says (0: unknown)
};

// A library's description: everything the template does not decide itself.
struct ToolkitTraits {
  const char* name;     // "cuBLAS": in texts
  const char* library;  // "cublas": cudyn-check's subcommand and JSON keys
  const char* file;     // "libcublas": SONAMEs are <file>.so.<n>
  const char* env_name;         // "CUDYN_CUBLAS_PATH"
  const char* wheel_before_13;  // "/nvidia/cublas/lib" (from CUDA 13 on: /nvidia/cu13/lib)
  const char* version_symbol;   // every real copy exports it: "cublasGetProperty"
  const char* cudyn_marker;     // only cudyn's drop-in of it exports it: "cudynCublasEntryCount"
  const char* not_the_library;  // kNotTheLibrary's name: "not_cublas"
  const char* too_new;          // kDriverTooOld's name: "driver_too_old" ("ptx_too_new")
  int no_library_status;        // CUBLAS_STATUS_NOT_INITIALIZED
  int not_supported_status;     // CUBLAS_STATUS_NOT_SUPPORTED
  const char* not_supported_name;  // "CUBLAS_STATUS_NOT_SUPPORTED"
  const char* dropin_soname;       // the 13.0 release's SONAME, the drop-in's for `cudyn run`

  // The generated table (version_tables/generated_<lib>/).
  int entry_count;
  const std::string_view* symbols;
  const ToolkitRuleRow* rules;
  int rule_count;
  const ToolkitReleaseRow* releases;  // oldest first
  int release_count;

  // The function that tells the CUDA runtime it was built with ("cublasGetCudartVersion",
  // size_t(void)), or null (then the runtime compiled into it, when one is, is read from its
  // code: core.h CudaRuntimeVersionOfCode).
  const char* runtime_version_symbol;
  // <lib>GetProperty's encoding for ReadPropertyVersion: 10000 (cuBLAS: major*10000 + minor*100
  // + patch) or 1000 (cuSPARSE, cuSOLVER: major*1000 + minor*100 + patch, their own macros').
  int version_scale;

  // Reads the version of an opened library through `version_function` (its version_symbol's
  // address) and `handle`: false, with `answer` saying what it answered, when it is nonsense.
  bool (*read_version)(const ToolkitTraits& traits, void* handle, void* version_function,
                       ToolkitVersion* out, std::string* answer);
  // "13.1.0": a version as people write it.
  std::string (*version_text)(int version);
  // The CUDA release whose facts bind a library of `version` (null: the release rows' numbers).
  int (*release_of)(const ToolkitTraits& traits, const ToolkitVersion& version);
  // The oldest driver (CUDA version) that runs a release (null: the runtime inside decides when
  // there is one, its family's M.0 driver; else the release's CUDA major, 12040 -> 12000).
  int (*min_driver)(int release);
  // Why a driver of `driver_version` cannot run it, after ": ", for texts (null: "the CUDA <M>
  // runtime inside").
  std::string (*requirement)(int release);
  // The oldest release a SONAME can hold (0: never refused unloaded); null: the oldest release
  // of the facts under it.
  int (*oldest_release_of_soname)(const std::string& soname);
  // The libraries of its own release it needs ("libcublasLt\0libcublas\0" for cuSOLVER's order:
  // what others need first), or null. Of a candidate file's DT_NEEDED names, those of these
  // libraries found beside it are opened by their path before it (the dynamic linker then matches
  // them by SONAME: LD_LIBRARY_PATH, searched before the file's RUNPATH $ORIGIN, would otherwise
  // give another release's), and after acceptance companion() names the file the process has for
  // each, with a warning when it is neither the one beside it nor cudyn's own drop-in (a file of
  // that SONAME was loaded first: the process mixes releases).
  const char* siblings;
  // Optional: after acceptance, loads or records what else the library needs next to it (NVRTC's
  // builtins); returns the text companion() reports (after the siblings').
  std::string (*after_accept)(Toolkit& library, bool opened_before);

  // A library the driver ships (NVML): found where the driver is (the default search, each
  // LD_LIBRARY_PATH directory, the chosen driver's directory, the driver's well-known
  // directories; never a toolkit or a wheel), any driver runs it (min_driver answers 0), it
  // carries no runtime, and its releases are the driver branches of its facts (release_text).
  bool driver_library;
  // "NVML 535" for a release (null: "CUDA 12.4").
  std::string (*release_text)(int release);
  // The release whose rules a clamp to CUDA `max_cuda_version` binds (the newest the facts say such
  // a driver has), or 0 for no cap; applied when it is older than the library's own release, and
  // then nothing newer than the cap's rules is looked up by its own name.
  int (*release_cap)(int max_cuda_version);
  // An entry no variant of which the release exports with the entry's ABI: the address of cudyn's
  // adapter over an older variant (bound through `library` by the same rules), or null (missing).
  void* (*adapter)(Toolkit& library, int index);
  // The library's own text for one of its status values (nvmlErrorString's), what its drop-in's
  // error-string function answers when no library is found; null: cudyn's own text.
  const char* (*status_text)(int status);
};

struct ToolkitCandidate {
  std::string path;
  ToolkitSource source = ToolkitSource::kOption;
  ToolkitRejection rejection = ToolkitRejection::kNone;
  int version = 0;          // its own version, when read
  int runtime_version = 0;  // the runtime it was built with, when it says
  int release = 0;          // the CUDA release it belongs to, when read (12040)
  // The oldest driver that runs it: from its release, or for one refused by its SONAME alone
  // (version 0: never loaded) from the oldest release under that SONAME.
  int min_driver = 0;
  std::string reason;
  std::string companion;  // the accepted one's companion (libcublasLt, builtins), else ""

  bool accepted() const { return rejection == ToolkitRejection::kNone; }
};

struct PlannedToolkit {
  std::string path;  // the bare SONAME for the default search, else an absolute file path
  ToolkitSource source = ToolkitSource::kDefaultSearch;
};

struct ToolkitOptions {
  // An absolute path to the library. When set (here or via CUDYN_<LIB>_PATH) nothing else is tried.
  std::string path;
  // The driver version that decides (after any clamp); unset: ask DefaultDriver().
  std::optional<int> driver_version;
  // Behave as a driver of at most this CUDA version. Overrides the environment.
  std::optional<int> max_cuda_version;
  // Read CUDYN_<LIB>_PATH / CUDYN_MAX_CUDA_VERSION / CUDA_HOME / ... (the default instance does).
  bool use_environment = false;
  // Replaces the search after the explicit path (tests): for each SONAME newest first, each
  // directory in order.
  std::optional<std::vector<std::string>> search_paths;
};

const char* ToolkitSourceName(const ToolkitTraits& traits, ToolkitSource source);
const char* ToolkitRejectionName(const ToolkitTraits& traits, ToolkitRejection rejection);
// The library's SONAMEs, newest first, each once ("libcublas.so.13", ".12", ".11").
std::vector<std::string> ToolkitSonames(const ToolkitTraits& traits);
// Every file the loader tries after an explicit path, in order (files that may not exist).
std::vector<PlannedToolkit> ToolkitSearchPlan(const ToolkitTraits& traits,
                                              const std::string& root = std::string());
// The release facts of `release` (nullptr when the facts do not know it).
const ToolkitReleaseRow* FindToolkitRelease(const ToolkitTraits& traits, int release);
// The index of the entry named `symbol`, or -1.
int FindToolkitEntry(const ToolkitTraits& traits, std::string_view symbol);
// The rule of entry `index` on the known release `release` exactly (nullptr when there is none).
const ToolkitRuleRow* FindToolkitRule(const ToolkitTraits& traits, int index, int release);
// The oldest driver that runs `release` of the library.
int ToolkitMinDriver(const ToolkitTraits& traits, int release);
// How `symbol` is bound in `library` (bound now if it was not, quietly): "native", "adapter",
// "missing", or "unknown" when it is not one of the library's entries. Never null.
const char* ToolkitEntryStatusText(Toolkit& library, const char* symbol) noexcept;
// "12.4" for 12040.
std::string CudaVersionText(int version);
// "CUDA 12.4" for 12040, or the library's own words for a release ("NVML 535").
std::string ToolkitReleaseText(const ToolkitTraits& traits, int release);

// The version readers the libraries share (ToolkitTraits::read_version); each also reads the
// runtime_version_symbol when the traits name one.
//   <lib>GetProperty(libraryPropertyType, int*) (MAJOR 0, MINOR 1, PATCH 2), by version_scale.
bool ReadPropertyVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                         ToolkitVersion* out, std::string* answer);
//   int <lib>GetVersion(int*) (cuRAND, cuFFT: their own encoding, 10305 for 10.3.5).
bool ReadIntVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                    ToolkitVersion* out, std::string* answer);
//   size_t <lib>GetVersion(void) (cuBLASLt: 130100).
bool ReadSizeVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                     ToolkitVersion* out, std::string* answer);
//   int <lib>Version(int* major, int* minor) (NVRTC, nvJitLink): 1000*major + 10*minor.
bool ReadMajorMinorVersion(const ToolkitTraits& traits, void* handle, void* version_function,
                           ToolkitVersion* out, std::string* answer);
// "13.1.0" for 130100 (version_scale 10000).
std::string PropertyVersionText(int version);
// "10.3.5" for 10305 (version_scale 1000).
std::string ThousandsVersionText(int version);
// For a library whose SONAME number is its CUDA major (libcublas.so.12): 12000.
int SonameMajorRelease(const std::string& soname);

class Toolkit {
 public:
  static std::unique_ptr<Toolkit> Open(const ToolkitTraits& traits, const ToolkitOptions& options);
  explicit Toolkit(const ToolkitTraits& traits);  // unopened: every entry missing
  ~Toolkit();
  Toolkit(const Toolkit&) = delete;
  Toolkit& operator=(const Toolkit&) = delete;

  const ToolkitTraits& traits() const { return traits_; }
  bool ok() const { return error_ == 0; }
  int error() const { return error_; }  // 0 or the no-library status
  int missing_result() const { return ok() ? traits_.not_supported_status : error_; }

  void* handle() const { return handle_; }
  const std::string& path() const { return path_; }
  ToolkitSource found_by() const { return found_by_; }
  const std::vector<ToolkitCandidate>& candidates() const { return candidates_; }
  int version() const { return version_.version; }
  int runtime_version() const { return version_.runtime_version; }
  int release() const { return release_; }  // the CUDA release whose facts bind (12040)
  // The library's own release before a clamp capped it (release_cap), else release().
  int own_release() const { return own_release_; }
  int driver_version() const { return driver_version_; }  // the one the choice used (0: none)
  const std::string& companion() const { return companion_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Appends a warning (a traits hook's, during discovery), logged once when discovery ends.
  void AddWarning(std::string text);

  void* Resolve(int index) {
    void* fn = slots_[index].load(std::memory_order_acquire);
    return fn != nullptr ? fn : ResolveSlow(index);
  }
  void* ResolveSlow(int index) noexcept;
  // Binds `index` as a client asking whether the release has it (nothing logged); nullptr: missing.
  void* Probe(int index) noexcept;
  int BindAll();  // returns the number of missing entries
  EntryStatus status(int index) const;
  std::string last_error() const noexcept;
  std::string_view symbol(int index) const;  // "" out of range

  // The process-wide instance of a library over `slots` (its global array), opened once from the
  // environment; never null: out of memory, an unopened one built in `unopened_storage` (static,
  // never destroyed). For the macro below.
  static Toolkit* OpenDefault(const ToolkitTraits& traits, std::atomic<void*>* slots,
                              void* unopened_storage) noexcept;

 private:
  struct Policy;
  static std::unique_ptr<Toolkit> OpenWith(const ToolkitTraits& traits,
                                           const ToolkitOptions& options,
                                           std::atomic<void*>* slots) noexcept;
  void Discover(const ToolkitOptions& options);
  bool TryCandidate(const std::string& path, ToolkitSource source);
  bool JudgeSearched(const std::string& path, ToolkitSource source);
  std::string MissingText(int index) const;
  const ToolkitRuleRow* RuleFor(int index) const;
  void NoteSiblings();

  const ToolkitTraits& traits_;
  std::atomic<void*>* slots_ = nullptr;
  std::unique_ptr<internal::EntryTable> table_;
  int error_;
  void* handle_ = nullptr;
  std::string path_;
  ToolkitSource found_by_ = ToolkitSource::kOption;
  std::vector<ToolkitCandidate> candidates_;
  std::vector<std::string> warnings_;
  ToolkitVersion version_;
  int release_ = 0;
  int own_release_ = 0;
  int clamp_ = 0;  // the clamp in effect (CUDA version), 0: none
  int driver_version_ = 0;
  std::string companion_;
};

}  // namespace cudyn

// A traits file sets the generated table's fields from its <lib>_table.inc arrays with this.
#define CUDYN_TOOLKIT_TABLE(t)                                      \
  (t).entry_count = static_cast<int>(std::size(kSymbols));          \
  (t).symbols = kSymbols;                                           \
  (t).rules = kRules;                                               \
  (t).rule_count = static_cast<int>(std::size(kRules));             \
  (t).releases = kReleases;                                         \
  (t).release_count = static_cast<int>(std::size(kReleases))

// Defines MakeTraits() in a traits file (inside its anonymous namespace, after its
// <lib>_table.inc): the library's base traits (loader/<lib>.h), its table, then `hooks`, statements
// on `t` ("t.release_of = &CublasRelease;").
#define CUDYN_TOOLKIT_TRAITS(Name, ...)       \
  constexpr ToolkitTraits MakeTraits() {      \
    ToolkitTraits t = Base##Name##Traits();   \
    CUDYN_TOOLKIT_TABLE(t);                   \
    __VA_ARGS__                               \
    return t;                                 \
  }

// Declares a library's traits, default instance and its slots (in its header):
//   CUDYN_DECLARE_TOOLKIT(Cublas, cublas, kCublasEntryCount)
// gives kCublasTraits, DefaultCublas(), g_default_cublas_slots and ResolveDefaultCublasSlow.
#define CUDYN_DECLARE_TOOLKIT(Name, lib, count)                       \
  namespace cudyn {                                                   \
  extern const ToolkitTraits k##Name##Traits;                         \
  Toolkit& Default##Name();                                           \
  extern std::atomic<void*> g_default_##lib##_slots[count];           \
  void* ResolveDefault##Name##Slow(int index);                        \
  }
// Defines them (in its traits file, inside namespace cudyn, after its MakeTraits()).
#define CUDYN_DEFINE_TOOLKIT(Name, lib, count)                                        \
  constexpr ToolkitTraits k##Name##Traits = MakeTraits();                             \
  static_assert(std::size(kSymbols) == (count), #lib "_table.inc");                   \
  std::atomic<void*> g_default_##lib##_slots[count];                                  \
  Toolkit& Default##Name() {                                                          \
    alignas(Toolkit) static unsigned char unopened[sizeof(Toolkit)];                  \
    static Toolkit* const instance =                                                  \
        Toolkit::OpenDefault(k##Name##Traits, g_default_##lib##_slots, unopened);     \
    return *instance;                                                                 \
  }                                                                                   \
  void* ResolveDefault##Name##Slow(int index) { return Default##Name().ResolveSlow(index); }

#endif  // CUDYN_LOADER_TOOLKIT_H_
