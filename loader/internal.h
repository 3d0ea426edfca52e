// Loader internals: the adapter registries of driver.cc/adapters.cc and cudart.cc/cudart_adapters.cc
// (the shared mechanism is core.h). Not part of the public API.
#ifndef CUDYN_LOADER_INTERNAL_H_
#define CUDYN_LOADER_INTERNAL_H_

#include <cstddef>
#include <string>

#include "loader/core.h"
#include "loader/cudyn.h"
#include "loader/kernel_rule.h"

namespace cudyn {
namespace internal {

// Custom adapters are plain C functions with the variant's exact signature, so they cannot take
// the Driver as an argument: each is instantiated once per instance id and finds its Driver
// through this registry. Ids are handed out at Open and returned by ~Driver.
inline constexpr int kMaxAdapterInstances = 16;
int AcquireAdapterInstance(Driver* driver);
void ReleaseAdapterInstance(int id);
// The Driver holding instance `id`, or nullptr.
Driver* AdapterInstanceDriver(int id);

// The custom adapter of entry `index` for instance `id`, or nullptr when this build has none
// (the compiling CUDA headers lack the variant's types, or the entry needs no custom adapter).
void* CustomAdapter(int index, int id);

// Driver emulation (emulate.cc): the wrapper of entry `index` for instance `id`, which calls
// `bound` (what the entry was bound to); nullptr when the entry is not emulated (or this build's
// headers lack it). Records `bound` for the wrapper.
void* EmulationWrapper(int index, int id, void* bound);
// The compute capability of the GPU the emulated driver loads a registered fatbin for: device 0
// (a runtime's default device; registration precedes any context), through `driver`'s cuInit
// and cuDeviceGetAttribute. False when the emulated driver offers no GPU (its cuInit answers 100)
// or the driver does not answer.
bool EmulatedDevice0Arch(Driver& driver, kernel_rule::GpuArch* out);
// What the wrapper of entry `index` for instance `id` calls; nullptr when it has none.
void* EmulationBound(int index, int id);
// Forgets what instance `id` recorded (a new Driver took the id).
void ResetEmulation(int id);

// Adapters report arguments they cannot express (801) through this; logs once per entry.
inline void AdapterCannotExpress(Driver* driver, int index, const char* why) {
  if (driver != nullptr) driver->NoteAdapterCannotExpress(index, why);
}

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
// cudaDriverGetVersion for instance `id` under a clamp: the runtime's answer, capped at the
// clamped driver version (the runtime itself reaches the real driver). nullptr: bad id.
void* CudartClampedDriverGetVersion(int id);
// cudaGetLastError (reset) / cudaPeekAtLastError for instance `id`: the runtime's own error when
// it recorded one after cudyn's, else the last error a path cudyn serves itself answered on this
// thread (RecordCudartServedError); Get clears both. nullptr: bad id.
void* CudartLastErrorFunction(bool reset, int id);
// Records `error` (a cudaError_t a cudyn-served path of `runtime` answers) as the calling thread's
// last error of that runtime, as a real runtime records its failing calls' errors: nothing for
// cudaSuccess or cudaErrorNotReady; the runtime's own (older) last error is cleared; a sticky error
// already recorded stays. The overlay lives in cudart_adapters.cc.
void RecordCudartServedError(Runtime* runtime, int error) noexcept;

}  // namespace internal
}  // namespace cudyn

#endif  // CUDYN_LOADER_INTERNAL_H_
