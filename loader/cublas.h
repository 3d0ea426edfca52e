// cudyn cuBLAS loader: finds the newest cuBLAS (libcublas) whose CUDA major the driver in front of
// the program runs, reads its version and binds every entry of the compiling cublas_v2.h (CUDA
// 13.0; version_tables/cublas_api_table.tsv) to that cuBLAS's own function.
//
// Contract:
//  * Nothing here aborts, exits or lets an exception escape. Failures are cublasStatus_t codes:
//      CUBLAS_STATUS_NOT_INITIALIZED (1)   no acceptable cuBLAS (every path tried is recorded,
//                                          last_error): what cublasCreate answers when the CUDA
//                                          side cannot start, which every caller handles
//      CUBLAS_STATUS_NOT_SUPPORTED (15)    an entry the chosen cuBLAS does not export (an older
//                                          cuBLAS: the _64 variants before 12.x, the 13.x
//                                          emulation functions before 13); last_error() names the
//                                          entry, the cuBLAS and why.
//    cuBLAS's own results pass through.
//  * Choice: an explicit path (option, then CUDYN_CUBLAS_PATH; absolute only, ignored under
//    AT_SECURE) is taken as it is, whatever the driver (a warning when the driver cannot run it).
//    Otherwise the SONAMEs (libcublas.so.13, .12, .11: from the generated facts) newest first,
//    each searched where the runtime is (loader/core.h SearchDirectories, with the wheel layouts
//    nvidia/cu13/lib from 13 on and nvidia/cublas/lib before), and the first cuBLAS whose major
//    the driver runs is taken. The rule is the runtime's (loader/cudart_family.h): cuBLAS of
//    major M embeds the CUDA M runtime (it does not link libcudart: the real 11/12/13 need none),
//    which runs on any driver of CUDA M.0 or later (minor-version compatibility): a 12.2 driver
//    (535) runs every 12.x cuBLAS, whichever the search meets first. The driver version is
//    DefaultDriver()'s effective one (CUDYN_MAX_CUDA_VERSION clamps it). Without a driver the
//    newest cuBLAS found is taken (nothing runs on a GPU then anyway). Every candidate is
//    recorded with why it was taken or refused.
//  * Version: cublasGetProperty(MAJOR_VERSION/MINOR_VERSION/PATCH_LEVEL) and
//    cublasGetCudartVersion (both answer without a GPU).
//  * libcublasLt: every real libcublas needs libcublasLt.so.<major> by bare name, and its RUNPATH
//    $ORIGIN comes after LD_LIBRARY_PATH: the libcublasLt.so.<major> beside a cuBLAS file is
//    dlopen'ed by its path first, so the cuBLAS binds its own (the dynamic linker matches the
//    loaded one by SONAME); a bare name of the default search gets the dynamic linker's.
//    cublaslt() (and the accepted candidate's record) says which one the process has, with a
//    warning when it is not the one beside the cuBLAS (one of that SONAME was loaded before).
//  * Binding per entry (generated rules, one per real version; a cuBLAS between two known versions
//    uses the older one's): its own exported names with the 13.0 prototype, tried in order by
//    dlsym (the version-named _v2 and the _64 names are entries of their own, bound natively
//    where exported); an entry the rules call not exported by an older version is still looked up
//    by its own name on a newer cuBLAS than the facts know; else missing. Lazy and thread-safe.
#ifndef CUDYN_LOADER_CUBLAS_H_
#define CUDYN_LOADER_CUBLAS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/cudyn.h"
#include "version_tables/generated_cublas/cublas_entry_count.h"

namespace cudyn {

// cublasStatus_t values cudyn itself produces (same numbers as cublas_api.h).
inline constexpr int kCublasSuccess = 0;
inline constexpr int kCublasStatusNotInitialized = 1;
inline constexpr int kCublasStatusNotSupported = 15;

// Entry indices: kCublas_cublasCreate_v2, ... (generated).
enum CublasEntryIndex : int {
#define CUDYN_CUBLAS_ENTRY(index, ret, symbol, params, args) kCublas_##symbol = index,
#include "version_tables/generated_cublas/cublas_entries.inc"
#undef CUDYN_CUBLAS_ENTRY
};
std::string_view CublasSymbol(int index);  // "cublasCreate_v2"; "" out of range

enum class CublasSource : uint8_t {
  kOption,              // CublasOptions::cublas_path
  kEnvironment,         // CUDYN_CUBLAS_PATH
  kDefaultSearch,       // dlopen("libcublas.so.N")
  kCudaHome,            // $CUDA_HOME / $CUDA_PATH
  kPythonWheel,         // site-packages/nvidia/cu13/lib, nvidia/cublas/lib, $CONDA_PREFIX/lib
  kWellKnownDirectory,  // /usr/local/cuda*/lib64, distro lib dirs
  kSearchPath,          // CublasOptions::search_paths (tests)
};

enum class CublasRejection : uint8_t {
  kNone,
  kIgnoredSecure,    // CUDYN_CUBLAS_PATH under AT_SECURE
  kNotAbsolute,      // an explicit path that is not absolute
  kUnloadableFile,   // missing, a directory, truncated, another architecture
  kNotLoaded,        // (unused: the shared open step's name)
  kDlopenFailed,     // dlopen() refused it (dlerror() in the reason: a missing libcublasLt, ...)
  kIsCudyn,          // cudyn's own drop-in under cuBLAS's name
  kNotCublas,        // exports no cublasGetProperty, or it fails
  kDriverTooOld,     // the driver does not run this cuBLAS's CUDA major
};

const char* CublasSourceName(CublasSource source);           // "option", "CUDYN_CUBLAS_PATH", ...
const char* CublasRejectionName(CublasRejection rejection);  // "accepted", "driver_too_old", ...

struct CublasCandidate {
  std::string path;
  CublasSource source = CublasSource::kOption;
  CublasRejection rejection = CublasRejection::kNone;
  int version = 0;         // cuBLAS's own, 10000*major + 100*minor + patch, when read
  int cudart_version = 0;  // cublasGetCudartVersion, when read
  // The oldest driver (CUDA version) that runs it, when known: from its version, or for a
  // candidate refused by its SONAME alone (version 0: never loaded; a file, or the bare name of
  // the default search, e.g. "libcublas.so.12") from that SONAME's major.
  int min_driver = 0;
  std::string reason;
  // The accepted one's libcublasLt: the file the process has for libcublasLt.so.<major> (the one
  // beside it, loaded first by its path, unless one of that SONAME was loaded before).
  std::string cublaslt;

  bool accepted() const { return rejection == CublasRejection::kNone; }
};

// The oldest driver (CUDA version) that runs a cuBLAS of `major`: major*1000 (the runtime's rule).
int CublasMinDriver(int major);

// The cuBLAS SONAMEs, newest first ("libcublas.so.13", "libcublas.so.12", "libcublas.so.11").
std::vector<std::string> CublasSonames();

struct PlannedCublas {
  std::string path;  // the bare SONAME for the default search, else an absolute file path
  CublasSource source = CublasSource::kDefaultSearch;
};
// Every file the loader tries after an explicit path, in order (as NvrtcSearchPlan).
std::vector<PlannedCublas> CublasSearchPlan(const std::string& root = std::string());

struct CublasOptions {
  // An absolute path to a libcublas. When set (here or via CUDYN_CUBLAS_PATH) nothing else is tried.
  std::string cublas_path;
  // The driver version that decides (after any clamp); unset: ask DefaultDriver().
  std::optional<int> driver_version;
  // Behave as a driver of at most this CUDA version. Overrides the environment.
  std::optional<int> max_cuda_version;
  // Read CUDYN_CUBLAS_PATH / CUDYN_MAX_CUDA_VERSION / CUDA_HOME / ... (DefaultCublas() does).
  bool use_environment = false;
  // Replaces the search after the explicit path (tests): for each SONAME newest first, each
  // directory in order.
  std::optional<std::vector<std::string>> search_paths;
};

class Cublas {
 public:
  static std::unique_ptr<Cublas> Open(const CublasOptions& options);
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  bool ok() const { return error_ == kCublasSuccess; }
  int error() const { return error_; }  // 0 or CUBLAS_STATUS_NOT_INITIALIZED
  int missing_result() const { return ok() ? kCublasStatusNotSupported : error_; }

  const std::string& path() const { return path_; }
  CublasSource found_by() const { return found_by_; }
  const std::vector<CublasCandidate>& candidates() const { return candidates_; }
  int version() const { return version_; }  // 10000*major + 100*minor + patch (130100)
  int major() const { return version_ / 10000; }
  int cudart_version() const { return cudart_version_; }  // the runtime it was built with
  int driver_version() const { return driver_version_; }  // the one the choice used (0: none)
  const std::string& cublaslt() const { return cublaslt_; }  // the libcublasLt loaded, or why not
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
  friend void* ResolveDefaultCublasSlow(int index);
  friend struct CublasPolicy;
  Cublas();
  using Options = CublasOptions;
  static constexpr int kTableSize = kCublasEntryCount;
  static constexpr int kNoLibraryError = kCublasStatusNotInitialized;
  static constexpr const char* kDiscoveryFailed = "cudyn: cuBLAS discovery failed (out of memory)";
  static const internal::LibraryPolicy kPolicy;
  static std::atomic<void*>* DefaultSlots();
  void Discover(const CublasOptions& options);
  bool TryCandidate(const std::string& path, CublasSource source);
  static void* OpenCublasLtBeside(const std::string& path);
  void NoteCublasLt(bool own_lt);
  void* ResolveSlow(int index);
  std::string MissingText(int index) const;

  std::atomic<void*>* slots_;
  std::unique_ptr<internal::EntryTable> table_;
  int error_ = kCublasStatusNotInitialized;
  void* handle_ = nullptr;
  std::string path_;
  CublasSource found_by_ = CublasSource::kOption;
  std::vector<CublasCandidate> candidates_;
  std::vector<std::string> warnings_;
  int version_ = 0;
  int cudart_version_ = 0;
  int rules_version_ = 0;  // the real version (CUDA release) whose generated rules bind entries
  std::string cublaslt_;
  int driver_version_ = 0;
};

// The process-wide cuBLAS, opened on first use from the environment (and DefaultDriver()'s
// effective version). Never fails to return; check ok(). Thread-safe.
Cublas& DefaultCublas();

// The default instance's slots and slow path, for a drop-in's trampolines.
extern std::atomic<void*> g_default_cublas_slots[kCublasEntryCount];
void* ResolveDefaultCublasSlow(int index);

}  // namespace cudyn

#endif  // CUDYN_LOADER_CUBLAS_H_
