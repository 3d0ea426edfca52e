// Loader internals shared by driver.cc, adapters.cc and log.cc. Not part of the public API.
#ifndef CUDYN_LOADER_INTERNAL_H_
#define CUDYN_LOADER_INTERNAL_H_

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

// Shared by driver and runtime discovery (driver.cc).
// "" when `path` can be handed to dlopen, else why not (missing, directory, truncated, other arch).
std::string CheckLibraryFile(const std::string& path);
// The loaded object's name (dlinfo), or `fallback`.
std::string LoadedObjectPath(void* handle, const std::string& fallback);
std::string LastDlError();
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
