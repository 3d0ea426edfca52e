// The entry points the drop-in shim answers itself:
//  * cuDriverGetVersion reports the effective (clamped) version.
//  * cuGetProcAddress / cuGetProcAddress_v2 look up cudyn's own table and return cudyn's
//    trampolines, so a client that loads libcudyn_cuda.so in place of libcuda.so.1 and looks
//    functions up by name gets adapters too. Semantics as NVIDIA documents and as measured on the
//    real drivers: the base name (suffixed names are not found), the newest variant whose ABI
//    version is at most the requested one, flag 2 (per-thread default stream) selecting the
//    _ptds/_ptsz variant where one exists, v2 reporting not-found as success + symbolStatus
//    (1 no such symbol, 2 version not sufficient), v1 as 500. Like a 13.x driver, a request above
//    an effective version of 13.0 or later is CUDA_ERROR_INVALID_VALUE.
//  * cuGetErrorName / cuGetErrorString work without any driver.
//  * Under a clamp, a CUDA runtime library that reached the drop-in as its libcuda.so.1 (the
//    program linked with -lcuda loads the drop-in first) gets the real driver's own
//    cuDriverGetVersion and cuGetProcAddress answers: a runtime checks the driver's version and
//    entry points against the driver's export tables, and a clamped answer fails its first call
//    with 103 (cudaErrorSoftwareValidityNotEstablished; measured with the real 11.8 and 12.5
//    runtimes on driver 580, where the same runtime answers 0 when it reaches the real driver).
//    The same holds for a runtime compiled into a library (cuBLAS 12.5 carries a 12.3 one: with
//    the clamped view its cublasCreate answered 1 on the GPU under an emulated 12.8, the same
//    program without -lcuda 0), recognised by the runtime's versioned entry-point table. A runtime
//    the clamped version cannot run (13.0 under 12.x) keeps the clamped view and fails as it would
//    on such a driver (RuntimeSeesRealDriver). The clamp still holds for the program's own driver
//    calls, and for its runtime calls through cudyn's runtime layer (loader/cudart.cc answers
//    cudaDriverGetVersion under a clamp).
//  * A runtime linked statically into the main program (nvcc's default) cannot be told from the
//    program by the caller's object; it looks up every driver entry through cuGetProcAddress, so
//    the program's lookups get the real driver's answers where a real driver of the clamped
//    version runs that runtime (LookupSeesRealDriver): an 11.8 static runtime answered 103 at its
//    first call under every clamp below 13.0 on the H100 before this rule. The program's direct
//    calls (cuDriverGetVersion included) keep the clamp.
//  * Under `cudyn run --cudart`, a CUDA runtime other than the one cudyn's runtime layer uses that
//    calls cuGetProcAddress (every 11.3+ runtime, at its first call) or the first
//    cuDriverGetVersion is reported once at warn (WarnIfOtherCudaRuntime): its calls bypass cudyn.
//    Checked off the hot path only: cuDriverGetVersion's answered-from-cache path stays as it is.
#include <cstring>
#include <string_view>

#include "stubs/shim.h"
#include "stubs/trampoline.h"

namespace cudyn {
namespace {

#define CUDYN_TRAMPOLINE_ADDRESS(index, symbol) reinterpret_cast<void*>(&symbol),
#define CUDYN_NO_TRAMPOLINE(index) nullptr,
// Generated: the trampoline of every entry (nullptr where the compiling headers lack it).
void* const kTrampolines[kEntryCount] = {
#include "stubs/trampoline_table.inc"
};
#undef CUDYN_TRAMPOLINE_ADDRESS
#undef CUDYN_NO_TRAMPOLINE

constexpr unsigned long long kPerThreadFlag = 2;  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
// CUdriverProcAddressQueryResult values (CUDA 12.0+ headers; spelled out for 11.x builds).
constexpr int kSymbolSuccess = 0;
constexpr int kSymbolNotFound = 1;
constexpr int kVersionNotSufficient = 2;

}  // namespace

ShimLookup ShimFindProc(std::string_view symbol, int version, unsigned long long flags,
                        ShimAvailability available) {
  ShimLookup result;
  if (symbol.empty()) return result;
  const bool per_thread = (flags & kPerThreadFlag) != 0;
  int best = -1, best_per_thread = -1;
  bool base_known = false, has_per_thread = false;
  // The table is sorted by symbol, so a base's variants follow its lower bound.
  for (int i = LowerBoundEntry(symbol); i < kEntryCount && EntrySymbol(i).substr(0, symbol.size()) == symbol; ++i) {
    if (EntryBase(i) != symbol) continue;  // cuMemcpy2D is not a variant of cuMemcpy
    const EntryInfo& e = kEntries[i];
    if (!e.gpa_reachable || !available(i)) continue;
    // Drivers answer "version not sufficient" only for symbols they have at some version.
    base_known = true;
    if (e.stream != StreamClass::kLegacy) has_per_thread = true;
    if (e.abi_version > version) continue;
    int& slot = e.stream == StreamClass::kLegacy ? best : best_per_thread;
    if (slot < 0 || kEntries[slot].abi_version < e.abi_version) slot = i;
  }
  result.base_known = base_known;
  // Measured on 470/535: with the per-thread flag, a base that has per-thread variants is served
  // only by them (none at the requested version: not found); other bases by their legacy variant.
  result.index = per_thread && has_per_thread ? best_per_thread : best;
  return result;
}

void* ShimTrampoline(int index) {
  return index >= 0 && index < kEntryCount ? kTrampolines[index] : nullptr;
}

namespace {

// A cuGetProcAddress lookup is a probe: "not found" is a normal answer and stays silent.
bool DefaultDriverProvides(int index) {
  return kTrampolines[index] != nullptr && DefaultDriver().Probe(index) != nullptr;
}

// The effective version once the default driver is open (0 before), and the driver's own:
// cuDriverGetVersion's hot path is two loads, a test and a store (a clamped process also asks
// whether its caller is a CUDA runtime).
int g_open_driver_version = 0;
int g_real_driver_version = 0;

// Whether a clamp (CUDYN_MAX_CUDA_VERSION, --max-cuda-version) lowers the driver's version.
bool Clamped(const Driver& driver) { return driver.effective_version() != driver.cuda_version(); }

// Under a clamp, whether the caller at `return_address` is a CUDA runtime (a library or one compiled
// into a library) that must see the real driver (the file comment says why).
bool ServeRealDriver(const Driver& driver, const void* return_address) {
  return Clamped(driver) && RuntimeSeesRealDriver(return_address, driver.effective_version());
}

using RealGetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t);
using RealGetProcAddressV2Fn = CUresult (*)(const char*, void**, int, cuuint64_t, int*);

CUresult ProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags, int* status,
                     bool v2, const void* caller) {
  WarnIfOtherCudaRuntime(caller);
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  Driver& driver = DefaultDriver();
  if (!driver.ok()) return static_cast<CUresult>(driver.error());
  const bool real_view = Clamped(driver) && LookupSeesRealDriver(caller, driver.effective_version());
  // A runtime linked into the program loads the fatbins it registered through the real driver:
  // under emulation they are judged first (once, at its first lookup).
  if (real_view) EmulateMainProgramFatbins(driver, caller);
  if (real_view && !EmulationAnswersLookup(driver, caller, symbol)) {
    // The real driver's own lookup; a v2 request on a driver without v2 (before 12.0) is answered
    // below, as for any client.
    if (v2) {
      if (void* real = driver.real_get_proc_address_v2()) {
        return reinterpret_cast<RealGetProcAddressV2Fn>(real)(symbol, pfn, version, flags, status);
      }
    } else if (void* real = driver.real_get_proc_address()) {
      return reinterpret_cast<RealGetProcAddressFn>(real)(symbol, pfn, version, flags);
    }
  }
  if (driver.effective_version() >= 13000 && version > driver.effective_version()) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  ShimLookup found = ShimFindProc(symbol, version, flags, DefaultDriverProvides);
  if (found.index >= 0) {
    *pfn = kTrampolines[found.index];
    if (status != nullptr) *status = kSymbolSuccess;
    return CUDA_SUCCESS;
  }
  if (!v2) return CUDA_ERROR_NOT_FOUND;
  if (status != nullptr) {
    *status = found.base_known ? kVersionNotSufficient : kSymbolNotFound;
  }
  return CUDA_SUCCESS;
}

}  // namespace
}  // namespace cudyn

extern "C" {

#undef cuDriverGetVersion
CUDYN_STUB_API CUresult CUDAAPI cuDriverGetVersion(int* version) {
  const int open_version = __atomic_load_n(&cudyn::g_open_driver_version, __ATOMIC_ACQUIRE);
  const int real_version = __atomic_load_n(&cudyn::g_real_driver_version, __ATOMIC_RELAXED);
  if (__builtin_expect(open_version != 0 && version != nullptr, 1)) {
    *version = open_version == real_version ||
                       !cudyn::RuntimeSeesRealDriver(__builtin_return_address(0), open_version)
                   ? open_version
                   : real_version;
    return CUDA_SUCCESS;
  }
  cudyn::WarnIfOtherCudaRuntime(__builtin_return_address(0));
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudyn::Driver& driver = cudyn::DefaultDriver();
  if (!driver.ok()) return static_cast<CUresult>(driver.error());
  *version = cudyn::ServeRealDriver(driver, __builtin_return_address(0))
                 ? driver.cuda_version()
                 : driver.effective_version();
  __atomic_store_n(&cudyn::g_real_driver_version, driver.cuda_version(), __ATOMIC_RELAXED);
  __atomic_store_n(&cudyn::g_open_driver_version, driver.effective_version(), __ATOMIC_RELEASE);
  return CUDA_SUCCESS;
}

#undef cuGetProcAddress
CUDYN_STUB_API CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion,
                                                 cuuint64_t flags) {
  return cudyn::ProcAddress(symbol, pfn, cudaVersion, flags, nullptr, false,
                            __builtin_return_address(0));
}

#if CUDA_VERSION >= 12000
#undef cuGetProcAddress_v2
CUDYN_STUB_API CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                                    cuuint64_t flags,
                                                    CUdriverProcAddressQueryResult* symbolStatus) {
  static_assert(sizeof(CUdriverProcAddressQueryResult) == sizeof(int), "enum is an int");
  return cudyn::ProcAddress(symbol, pfn, cudaVersion, flags, reinterpret_cast<int*>(symbolStatus),
                            true, __builtin_return_address(0));
}
#endif

// cuGetErrorName / cuGetErrorString: with a driver open, the driver's own answer (bound through
// the table like every entry); with none, the real drivers' strings (loader/results.cc). Unknown
// codes: 1 (CUDA_ERROR_INVALID_VALUE) and *pStr = NULL, as every real driver (418..580) answers.
// A NULL pStr is 1 here; the drivers crash on it.
#undef cuGetErrorName
CUDYN_STUB_API CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudyn::Driver& driver = cudyn::DefaultDriver();
  if (driver.ok()) {
    if (void* fn = driver.Resolve(cudyn::kEntry_cuGetErrorName)) {
      return reinterpret_cast<CUresult(CUDAAPI*)(CUresult, const char**)>(fn)(error, pStr);
    }
  }
  return static_cast<CUresult>(cudyn::ResultName(error, pStr));
}

#undef cuGetErrorString
CUDYN_STUB_API CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudyn::Driver& driver = cudyn::DefaultDriver();
  if (driver.ok()) {
    if (void* fn = driver.Resolve(cudyn::kEntry_cuGetErrorString)) {
      return reinterpret_cast<CUresult(CUDAAPI*)(CUresult, const char**)>(fn)(error, pStr);
    }
  }
  return static_cast<CUresult>(cudyn::ResultString(error, pStr));
}

}  // extern "C"
