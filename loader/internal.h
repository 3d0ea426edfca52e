// Loader internals shared by driver.cc, adapters.cc and log.cc. Not part of the public API.
#ifndef CUDYN_LOADER_INTERNAL_H_
#define CUDYN_LOADER_INTERNAL_H_

#include <cstddef>
#include <string>

#include "loader/cudyn.h"

namespace spdlog {
class logger;
}

namespace cudyn {
namespace internal {

// Custom adapters are plain C functions with the variant's exact signature, so they cannot take
// the Driver as an argument: each is instantiated once per instance id and finds its Driver
// through this registry. Ids are handed out at Open and returned by ~Driver.
inline constexpr int kMaxAdapterInstances = 16;
int AcquireAdapterInstance(Driver* driver);
void ReleaseAdapterInstance(int id);

// The custom adapter of entry `index` for instance `id`, or nullptr when this build has none
// (the compiling CUDA headers lack the variant's types, or the entry needs no custom adapter).
void* CustomAdapter(int index, int id);

// Adapters report arguments they cannot express (801) through this; logs once per entry.
inline void AdapterCannotExpress(Driver* driver, int index, const char* why) {
  if (driver != nullptr) driver->NoteAdapterCannotExpress(index, why);
}

// The "cudyn" logger (stderr; level from CUDYN_LOG, default warn). Never throws.
spdlog::logger& Log();
// Applies CUDYN_LOG; returns a warning text for an unknown value, else "".
std::string ConfigureLogFromEnvironment();
// True when the process runs with AT_SECURE (setuid/setgid/capabilities).
bool IsSecureExecution();
// getenv that returns "" for unset.
std::string GetEnv(const char* name);

// The explicit library path of a discovery (driver or runtime): the option when set, else (with
// use_environment) the variable `env_name` (CUDYN_DRIVER_PATH, CUDYN_CUDART_PATH). A process with
// AT_SECURE never loads a library its caller names: the variable's value is then returned in
// `ignored_secure` instead, for the candidate list, and `path` stays empty.
struct ExplicitPath {
  std::string path;
  bool from_environment = false;
  std::string ignored_secure;
};
ExplicitPath ChooseExplicitPath(const std::string& option, bool use_environment,
                                const char* env_name);
inline constexpr const char* kIgnoredSecureReason =
    "ignored: the process runs with AT_SECURE (setuid/setgid)";
inline constexpr const char* kNotAbsoluteReason =
    "not an absolute path (relative paths are never searched)";

// The C APIs' string out-parameters: copies `text` into `buffer` (truncated, always
// NUL-terminated when size > 0) and returns its full length.
int CopyToBuffer(const std::string& text, char* buffer, size_t size);

// Shared by driver and runtime discovery (driver.cc).
// The first steps of trying a candidate library: an absolute path is checked first (missing,
// directory, truncated, other architecture: dlopen would say little or worse), then dlopen'ed
// (RTLD_NOLOAD: only when already loaded). Either `handle` or `failure` and `reason`.
enum class OpenFailure { kNone, kUnloadableFile, kNotLoaded, kDlopenFailed };
struct OpenedLibrary {
  void* handle = nullptr;
  std::string loaded_path;  // the loaded object's name (dlinfo), else the path tried
  OpenFailure failure = OpenFailure::kNone;
  std::string reason;
};
OpenedLibrary OpenCandidateLibrary(const std::string& path, bool noload);
// True for a function inside the object cudyn itself is linked into.
bool IsCudynFunction(const void* fn);

}  // namespace internal
class Runtime;
namespace internal {
// Runtime adapters (cudart_adapters.cc) find their Runtime by instance id, as driver adapters do.
int AcquireCudartAdapterInstance(Runtime* runtime);
void ReleaseCudartAdapterInstance(int id);
Runtime* CudartAdapterRuntime(int id);
// The adapter function for `adapter` (a CudartAdapter) bound to instance `id`, or nullptr when
// there is none or `runtime` lacks every older function the adapter could call.
void* CudartAdapterFunction(int adapter, int id, const Runtime& runtime);

}  // namespace internal
}  // namespace cudyn

#endif  // CUDYN_LOADER_INTERNAL_H_
