// NVML (libnvidia-ml.so.1) on the toolkit library template (loader/toolkit.h): every function the
// newest nvml.h declares, under its own symbol (nvmlInit and nvmlInit_v2 are two entries, as they
// are two symbols), bound on the NVML in front of the program by the rules of its driver branch
// (version_tables/nvml_api_table.tsv).
//  * Found where the driver is (ToolkitTraits::driver_library), never a toolkit's stub; any driver
//    "runs" it: an NVML of another build than the kernel module answers its own
//    NVML_ERROR_LIB_RM_VERSION_MISMATCH, as it would linked directly.
//  * Branch: the newest branch of the facts whose marker function it exports (its file name,
//    libnvidia-ml.so.535.261.03, gives the version cudyn reports when it has one).
//  * Binding: the newest variant of the entry's family that the branch exports with the entry's
//    own prototype; else an adapter over an older variant that fills an older struct (below);
//    else NVML_ERROR_FUNCTION_NOT_FOUND (13), what the real library answers for what it lacks.
//    NVML_ERROR_LIBRARY_NOT_FOUND (12) when no NVML is found.
//  * Clamp: CUDYN_MAX_CUDA_VERSION=V binds by the rules of the newest branch whose driver reports
//    at most CUDA V (nvml_support.h NvmlBranchOfCuda): the NVML of that driver.
#include "loader/nvml.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

// Every function under its own symbol, the legacy variants included.
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>

#include "loader/core.h"
#include "loader/nvml_support.h"

namespace cudyn {
namespace {

#include "version_tables/generated_nvml/nvml_adapters.inc"
#include "version_tables/generated_nvml/nvml_branches.inc"
#include "version_tables/generated_nvml/nvml_error_strings.inc"
#include "version_tables/generated_nvml/nvml_table.inc"

// A code no NVML defines: its answer is the newest NVML's text for every unknown code.
constexpr int kNvmlUnknownCodeProbe = 1000;

// 535.261.03 -> 53526103; 0 when `text` does not start with a version.
int ParseDriverVersion(const char* text) {
  char* end = nullptr;
  const long major = std::strtol(text, &end, 10);
  if (end == text || major <= 0 || major > 9999) return 0;
  long minor = 0, patch = 0;
  if (*end == '.') {
    const char* p = end + 1;
    minor = std::strtol(p, &end, 10);
    if (end == p || minor < 0 || minor > 999) return 0;
    if (*end == '.') {
      p = end + 1;
      patch = std::strtol(p, &end, 10);
      if (end == p || patch < 0 || patch > 99) return 0;
    }
  }
  return static_cast<int>(major * 100000 + minor * 100 + patch);
}

// The version in the name of the file `handle` was loaded from (libnvidia-ml.so.535.261.03, the
// name the driver packages install it under), or 0.
int FileNameVersion(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) {
    return 0;
  }
  const std::string real = internal::RealPath(map->l_name);
  const size_t at = real.rfind(".so.");
  return at == std::string::npos ? 0 : ParseDriverVersion(real.c_str() + at + 4);
}

// The branch by the marker functions, newest first; the file name's version when it agrees
// (its branch at or after the marker's), else the branch itself.
bool ReadNvmlVersion(const ToolkitTraits&, void* handle, void*, ToolkitVersion* out,
                     std::string* answer) {
  int branch = kNvmlBranches[0].branch;
  for (size_t i = std::size(kNvmlBranches); i-- > 1;) {
    const char* marker = kNvmlBranches[i].marker;
    if (marker[0] != '\0' && dlsym(handle, marker) != nullptr) {
      branch = kNvmlBranches[i].branch;
      break;
    }
  }
  int from_name = FileNameVersion(handle);
  // Else its own words where it answers before nvmlInit (535 on: "12.535.261.03", the CUDA major
  // first).
  using NvmlVersionFn = int (*)(char*, unsigned int);
  if (from_name == 0) {
    if (auto fn = reinterpret_cast<NvmlVersionFn>(dlsym(handle, "nvmlSystemGetNVMLVersion"))) {
      char text[80] = {};
      if (fn(text, sizeof text) == 0 && std::strchr(text, '.') != nullptr) {
        from_name = ParseDriverVersion(std::strchr(text, '.') + 1);
      }
    }
  }
  out->version = from_name / 100000 >= branch ? from_name : branch * 100000;
  out->runtime_version = 0;
  *answer = NvmlVersionText(out->version);
  return true;
}

// The branch whose rules bind a library of `version`: the newest of the facts at or below its own.
int NvmlRelease(const ToolkitTraits&, const ToolkitVersion& version) {
  const int own = version.version / 100000;
  int best = kNvmlBranches[0].branch;
  for (const NvmlBranchRow& row : kNvmlBranches) {
    if (row.branch <= own) best = row.branch;
  }
  return best;
}

std::string NvmlReleaseText(int release) { return "NVML " + std::to_string(release); }

// A clamp to CUDA V caps the rules at V's branch, unless V is past every branch of the facts
// (then the library's own facts stay).
int NvmlReleaseCap(int max_cuda_version) {
  if (max_cuda_version >= std::end(kNvmlBranches)[-1].cuda_version) return 0;
  const int branch = NvmlBranchOfCuda(max_cuda_version);
  return branch > 0 ? branch : kNvmlBranches[0].branch;
}

// --- Adapters: an entry whose older variant fills an older struct -------------------------------
// Each adapter calls the older variant bound by the same rules (so through the clamp), kept in
// its entry's slot here when the adapter is bound.
std::atomic<void*> g_older[kNvmlEntryCount];

template <int kIndex, typename Fn>
Fn Older() {
  return reinterpret_cast<Fn>(g_older[kIndex].load(std::memory_order_acquire));
}

// A process list read through the v1 variant (pid, usedGpuMemory): the fields v1 lacks are what
// NVML reports without MIG, 0xFFFFFFFF for the GPU and compute instance.
template <int kIndex>
nvmlReturn_t ProcessesFromV1(nvmlDevice_t device, unsigned int* count, nvmlProcessInfo_t* infos) {
  using OlderFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_v1_t*);
  const OlderFn older = Older<kIndex, OlderFn>();
  if (count == nullptr || infos == nullptr || *count == 0) return older(device, count, nullptr);
  const unsigned int capacity = *count;
  std::unique_ptr<nvmlProcessInfo_v1_t[]> v1(new (std::nothrow) nvmlProcessInfo_v1_t[capacity]);
  if (v1 == nullptr) return NVML_ERROR_MEMORY;
  const nvmlReturn_t result = older(device, count, v1.get());
  if (result == NVML_SUCCESS) {
    for (unsigned int i = 0; i < *count && i < capacity; ++i) {
      std::memset(&infos[i], 0, sizeof(infos[i]));
      infos[i].pid = v1[i].pid;
      infos[i].usedGpuMemory = v1[i].usedGpuMemory;
      infos[i].gpuInstanceId = 0xFFFFFFFFu;
      infos[i].computeInstanceId = 0xFFFFFFFFu;
    }
  }
  return result;
}

// nvmlMemory_v2_t through the v1 call: no reserved memory to report (v1's used includes it).
template <int kIndex>
nvmlReturn_t MemoryV2FromV1(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  using OlderFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
  const OlderFn older = Older<kIndex, OlderFn>();
  if (memory == nullptr) return older(device, nullptr);
  if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  nvmlMemory_t v1{};
  const nvmlReturn_t result = older(device, &v1);
  if (result == NVML_SUCCESS) {
    memory->reserved = 0;
    memory->total = v1.total;
    memory->free = v1.free;
    memory->used = v1.used;
  }
  return result;
}

// nvmlEventSetWait_v2 through the plain call of 390/418, which fills the event data of CUDA 10's
// nvml.h: device, eventType, eventData (the 11.0 header added the instance ids after them).
struct EventDataBefore11 {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
};
template <int kIndex>
nvmlReturn_t EventWaitFromV1(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeout) {
  using OlderFn = nvmlReturn_t (*)(nvmlEventSet_t, EventDataBefore11*, unsigned int);
  const OlderFn older = Older<kIndex, OlderFn>();
  if (data == nullptr) return older(set, nullptr, timeout);
  EventDataBefore11 v1{};
  const nvmlReturn_t result = older(set, &v1, timeout);
  if (result == NVML_SUCCESS) {
    data->device = v1.device;
    data->eventType = v1.eventType;
    data->eventData = v1.eventData;
    data->gpuInstanceId = 0xFFFFFFFFu;
    data->computeInstanceId = 0xFFFFFFFFu;
  }
  return result;
}

// nvmlDeviceSetPowerManagementLimit_v2 through the plain call (the GPU's limit in mW): a driver
// before it sets no other scope.
template <int kIndex>
nvmlReturn_t PowerLimitFromV1(nvmlDevice_t device, nvmlPowerValue_v2_t* value) {
  using OlderFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int);
  const OlderFn older = Older<kIndex, OlderFn>();
  if (value == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (value->version != nvmlPowerValue_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  if (value->powerScope != NVML_POWER_SCOPE_GPU) return NVML_ERROR_NOT_SUPPORTED;
  return older(device, value->powerValueMw);
}

// nvmlDeviceGetFanSpeed_v2 through the plain call, which reads the device's first fan.
template <int kIndex>
nvmlReturn_t FanSpeedFromV1(nvmlDevice_t device, unsigned int fan, unsigned int* speed) {
  using OlderFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
  if (fan != 0) return NVML_ERROR_NOT_SUPPORTED;
  return Older<kIndex, OlderFn>()(device, speed);
}

// nvmlDeviceGetRetiredPages_v2 through the plain call: no retirement times to report (0).
template <int kIndex>
nvmlReturn_t RetiredPagesFromV1(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                unsigned int* count, unsigned long long* addresses,
                                unsigned long long* timestamps) {
  using OlderFn =
      nvmlReturn_t (*)(nvmlDevice_t, nvmlPageRetirementCause_t, unsigned int*, unsigned long long*);
  const unsigned int capacity = count != nullptr ? *count : 0;
  const nvmlReturn_t result = Older<kIndex, OlderFn>()(device, cause, count, addresses);
  if (result == NVML_SUCCESS && timestamps != nullptr && addresses != nullptr) {
    for (unsigned int i = 0; i < *count && i < capacity; ++i) timestamps[i] = 0;
  }
  return result;
}

// nvmlDeviceGetGridLicensableFeatures_v4 through the _v3 of 450/460, which fills the licensable
// features as the 11.2 header declares them (the facts: inputs/nvml_headers/nvml-11.2.json): the
// same fields as now less licenseExpiry, which 11.8 added (268 and 812 bytes, measured against the
// 11.2 header: tests/fake_nvml/fake_nvml_11_2.c asserts the same sizes compiled against it).
struct GridLicensableFeatureV3 {
  nvmlGridLicenseFeatureCode_t featureCode;
  unsigned int featureState;
  char licenseInfo[128];  // NVML_GRID_LICENSE_BUFFER_SIZE of the 11.2 header
  char productName[128];
  unsigned int featureEnabled;
};
struct GridLicensableFeaturesV3 {
  int isGridLicenseSupported;
  unsigned int licensableFeaturesCount;
  GridLicensableFeatureV3 gridLicensableFeatures[3];  // NVML_GRID_LICENSE_FEATURE_MAX_COUNT of 11.2
};
static_assert(sizeof(GridLicensableFeatureV3) == 268 && sizeof(GridLicensableFeaturesV3) == 812,
              "the 11.2 header's layout");
static_assert(NVML_GRID_LICENSE_BUFFER_SIZE == 128 && NVML_GRID_LICENSE_FEATURE_MAX_COUNT == 3,
              "the newest header's buffers hold what _v3 fills");
// The expiry _v3 cannot report: zero, which is NVML_GRID_LICENSE_EXPIRY_NOT_AVAILABLE ("Expiry
// information not available") in the status and no date.
static_assert(NVML_GRID_LICENSE_EXPIRY_NOT_AVAILABLE == 0, "zero status = not available");
template <int kIndex>
nvmlReturn_t GridLicensableFeaturesFromV3(nvmlDevice_t device,
                                          nvmlGridLicensableFeatures_t* features) {
  using OlderFn = nvmlReturn_t (*)(nvmlDevice_t, GridLicensableFeaturesV3*);
  const OlderFn older = Older<kIndex, OlderFn>();
  if (features == nullptr) return older(device, nullptr);  // _v3's own INVALID_ARGUMENT
  GridLicensableFeaturesV3 v3{};
  const nvmlReturn_t result = older(device, &v3);
  if (result == NVML_SUCCESS) {
    features->isGridLicenseSupported = v3.isGridLicenseSupported;
    features->licensableFeaturesCount = v3.licensableFeaturesCount;
    // The entries the count names (at most the array); past it: untouched.
    const unsigned int n =
        std::min<unsigned int>(v3.licensableFeaturesCount, std::size(v3.gridLicensableFeatures));
    for (unsigned int i = 0; i < n; ++i) {
      const GridLicensableFeatureV3& from = v3.gridLicensableFeatures[i];
      nvmlGridLicensableFeature_t& to = features->gridLicensableFeatures[i];
      std::memset(&to, 0, sizeof to);
      to.featureCode = from.featureCode;
      to.featureState = from.featureState;
      std::memcpy(to.licenseInfo, from.licenseInfo, sizeof to.licenseInfo);
      std::memcpy(to.productName, from.productName, sizeof to.productName);
      to.featureEnabled = from.featureEnabled;
    }
  }
  return result;
}

// nvmlDeviceGetGpuInstancePossiblePlacements_v2 through the unversioned call of 450/460: the
// same nvmlGpuInstancePlacement_t ({start, size} in the 11.2 header as now), but v2 "Can be NULL
// to discover number of allowed placements" where v1 takes no NULL ("INVALID_ARGUMENT If ...
// placements or count are invalid") and has no capacity argument (the buffer "must be large
// enough to accommodate the instances supported by the profile"): a NULL query gets v1's count
// through a buffer of this adapter's. The header names no maximum; kMaxPlacements is a margin far
// past today's MIG GPUs (a placement starts at a memory slice: 8 of them on A100/H100). What v1
// cannot do stays its answer: v2 lists the placements "regardless of whether MIG is enabled or
// not", v1 answers NVML_ERROR_NOT_SUPPORTED "If device doesn't have MIG mode enabled" (v2's code
// for a device or profile it does not support).
constexpr unsigned int kMaxPlacements = 1024;
template <int kIndex>
nvmlReturn_t PlacementsFromV1(nvmlDevice_t device, unsigned int profile_id,
                              nvmlGpuInstancePlacement_t* placements, unsigned int* count) {
  using OlderFn =
      nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstancePlacement_t*, unsigned int*);
  const OlderFn older = Older<kIndex, OlderFn>();
  if (placements != nullptr || count == nullptr)
    return older(device, profile_id, placements, count);
  std::unique_ptr<nvmlGpuInstancePlacement_t[]> local(
      new (std::nothrow) nvmlGpuInstancePlacement_t[kMaxPlacements]);
  if (local == nullptr) return NVML_ERROR_MEMORY;
  return older(device, profile_id, local.get(), count);
}

struct AdapterImpl {
  int index;
  int older;
  void* fn;
};

#define CUDYN_NVML_ADAPTER(adapter, entry, older) \
  {kNvml_##entry, kNvml_##older, reinterpret_cast<void*>(&adapter<kNvml_##entry>)}
const AdapterImpl kAdapterImpls[] = {
    CUDYN_NVML_ADAPTER(ProcessesFromV1, nvmlDeviceGetComputeRunningProcesses_v3,
                       nvmlDeviceGetComputeRunningProcesses),
    CUDYN_NVML_ADAPTER(ProcessesFromV1, nvmlDeviceGetComputeRunningProcesses_v2,
                       nvmlDeviceGetComputeRunningProcesses),
    CUDYN_NVML_ADAPTER(ProcessesFromV1, nvmlDeviceGetGraphicsRunningProcesses_v3,
                       nvmlDeviceGetGraphicsRunningProcesses),
    CUDYN_NVML_ADAPTER(ProcessesFromV1, nvmlDeviceGetGraphicsRunningProcesses_v2,
                       nvmlDeviceGetGraphicsRunningProcesses),
    CUDYN_NVML_ADAPTER(ProcessesFromV1, nvmlDeviceGetMPSComputeRunningProcesses_v3,
                       nvmlDeviceGetMPSComputeRunningProcesses),
    CUDYN_NVML_ADAPTER(ProcessesFromV1, nvmlDeviceGetMPSComputeRunningProcesses_v2,
                       nvmlDeviceGetMPSComputeRunningProcesses),
    CUDYN_NVML_ADAPTER(MemoryV2FromV1, nvmlDeviceGetMemoryInfo_v2, nvmlDeviceGetMemoryInfo),
    CUDYN_NVML_ADAPTER(EventWaitFromV1, nvmlEventSetWait_v2, nvmlEventSetWait),
    CUDYN_NVML_ADAPTER(PowerLimitFromV1, nvmlDeviceSetPowerManagementLimit_v2,
                       nvmlDeviceSetPowerManagementLimit),
    CUDYN_NVML_ADAPTER(FanSpeedFromV1, nvmlDeviceGetFanSpeed_v2, nvmlDeviceGetFanSpeed),
    CUDYN_NVML_ADAPTER(RetiredPagesFromV1, nvmlDeviceGetRetiredPages_v2, nvmlDeviceGetRetiredPages),
    CUDYN_NVML_ADAPTER(GridLicensableFeaturesFromV3, nvmlDeviceGetGridLicensableFeatures_v4,
                       nvmlDeviceGetGridLicensableFeatures_v3),
    CUDYN_NVML_ADAPTER(PlacementsFromV1, nvmlDeviceGetGpuInstancePossiblePlacements_v2,
                       nvmlDeviceGetGpuInstancePossiblePlacements),
};
#undef CUDYN_NVML_ADAPTER

// The adapter of `index` over the newest older variant the rules bind natively, or null.
void* NvmlAdapter(Toolkit& library, int index) {
  for (const NvmlAdapterRow& row : kNvmlAdapters) {
    if (row.index != index) continue;
    for (const AdapterImpl& impl : kAdapterImpls) {
      if (impl.index != index || impl.older != row.older) continue;
      void* older = library.Probe(row.older);
      if (older == nullptr || library.status(row.older) != EntryStatus::kNative) continue;
      g_older[index].store(older, std::memory_order_release);
      return impl.fn;
    }
  }
  return nullptr;
}

CUDYN_TOOLKIT_TRAITS(Nvml,
                     t.read_version = &ReadNvmlVersion;
                     t.version_text = &NvmlVersionText;
                     t.release_of = &NvmlRelease;
                     t.release_text = &NvmlReleaseText;
                     t.release_cap = &NvmlReleaseCap;
                     t.adapter = &NvmlAdapter;
                     t.status_text = &NvmlErrorStringOf;)

}  // namespace

const char* NvmlErrorStringOf(int code) noexcept {
  for (const NvmlErrorStringRow& row : kNvmlErrorStrings) {
    if (row.code == code) return row.text;
  }
  // The text the newest real NVML answers for a code it does not know.
  for (const NvmlErrorStringRow& row : kNvmlErrorStrings) {
    if (row.code == kNvmlUnknownCodeProbe) return row.text;
  }
  return "Unknown Error";
}

int NvmlBranchOfCuda(int cuda_version) noexcept {
  int best = 0;
  for (const NvmlBranchRow& row : kNvmlBranches) {
    if (row.cuda_version <= cuda_version) best = row.branch;
  }
  return best;
}

int NvmlBranchCudaVersion(int branch) noexcept {
  for (const NvmlBranchRow& row : kNvmlBranches) {
    if (row.branch == branch) return row.cuda_version;
  }
  return 0;
}

std::string NvmlVersionText(int version) {
  char text[32];
  std::snprintf(text, sizeof text, "%d.%02d.%02d", version / 100000, version / 100 % 1000,
                version % 100);
  return text;
}

CUDYN_DEFINE_TOOLKIT(Nvml, nvml, kNvmlEntryCount)

}  // namespace cudyn
