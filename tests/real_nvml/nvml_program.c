// A monitoring program as people write it against the newest nvml.h: the plain names, which the
// header upgrades (nvmlInit -> nvmlInit_v2, nvmlDeviceGetComputeRunningProcesses -> _v3, ...),
// and the explicitly versioned nvmlDeviceGetMemoryInfo_v2. Linked with cudyn's NVML it runs on
// every driver branch; linked with -lnvidia-ml it needs every one of those symbols from the
// driver's NVML. One line per fact, "key value", so two runs compare field by field.
#include <nvml.h>
#include <stdio.h>
#include <string.h>

static void status(const char* what, nvmlReturn_t r) {
  printf("%s %d %s\n", what, (int)r, nvmlErrorString(r));
}

static void processes(const char* kind, nvmlDevice_t device,
                      nvmlReturn_t (*list)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*)) {
  nvmlProcessInfo_t infos[64];
  unsigned int count = 64;
  const nvmlReturn_t r = list(device, &count, infos);
  printf("%s_processes %d %u\n", kind, (int)r, r == NVML_SUCCESS ? count : 0);
  for (unsigned int i = 0; r == NVML_SUCCESS && i < count; ++i) {
    printf("%s_process pid=%u used=%llu gi=%u ci=%u\n", kind, infos[i].pid,
           infos[i].usedGpuMemory, infos[i].gpuInstanceId, infos[i].computeInstanceId);
  }
}

int main(int argc, char** argv) {
  // "processes-only": the process lists alone (the GPU test compares them while a process runs).
  const int processes_only = argc > 1 && strcmp(argv[1], "processes-only") == 0;
  nvmlReturn_t r = nvmlInit();
  status("init", r);
  if (r != NVML_SUCCESS) {
    unsigned int count = 0;
    status("count_uninitialized", nvmlDeviceGetCount(&count));
    return 0;
  }
  char text[96];
  if (!processes_only) {
    r = nvmlSystemGetDriverVersion(text, sizeof text);
    printf("driver_version %d %s\n", (int)r, r == NVML_SUCCESS ? text : "-");
    int cuda = 0;
    r = nvmlSystemGetCudaDriverVersion_v2(&cuda);
    printf("cuda_driver_version %d %d\n", (int)r, cuda);
  }
  unsigned int count = 0;
  r = nvmlDeviceGetCount(&count);
  printf("count %d %u\n", (int)r, count);
  for (unsigned int i = 0; r == NVML_SUCCESS && i < count; ++i) {
    nvmlDevice_t device;
    nvmlReturn_t d = nvmlDeviceGetHandleByIndex(i, &device);
    printf("device %u %d\n", i, (int)d);
    if (d != NVML_SUCCESS) continue;
    if (!processes_only) {
      d = nvmlDeviceGetName(device, text, sizeof text);
      printf("name %d %s\n", (int)d, d == NVML_SUCCESS ? text : "-");
      d = nvmlDeviceGetUUID(device, text, sizeof text);
      printf("uuid %d %s\n", (int)d, d == NVML_SUCCESS ? text : "-");
      nvmlPciInfo_t pci;
      d = nvmlDeviceGetPciInfo(device, &pci);
      printf("pci %d %s domain=%u bus=%u device=%u id=0x%08x subsystem=0x%08x\n", (int)d,
             d == NVML_SUCCESS ? pci.busId : "-", pci.domain, pci.bus, pci.device,
             pci.pciDeviceId, pci.pciSubSystemId);
      nvmlMemory_t memory;
      d = nvmlDeviceGetMemoryInfo(device, &memory);
      printf("memory %d total=%llu\n", (int)d, d == NVML_SUCCESS ? memory.total : 0ULL);
      nvmlMemory_v2_t memory2;
      memset(&memory2, 0, sizeof memory2);
      memory2.version = nvmlMemory_v2;
      d = nvmlDeviceGetMemoryInfo_v2(device, &memory2);
      printf("memory_v2 %d total=%llu\n", (int)d, d == NVML_SUCCESS ? memory2.total : 0ULL);
      unsigned int current = 0, pending = 0;
      d = nvmlDeviceGetMigMode(device, &current, &pending);
      printf("mig %d %u %u\n", (int)d, current, pending);
      // vGPU licensing (the header's plain name is _v4; 450/460 have _v3, an older layout).
      nvmlGridLicensableFeatures_t grid;
      memset(&grid, 0, sizeof grid);
      d = nvmlDeviceGetGridLicensableFeatures(device, &grid);
      printf("grid_licensable %d supported=%d count=%u", (int)d, grid.isGridLicenseSupported,
             grid.licensableFeaturesCount);
      for (unsigned int f = 0; d == NVML_SUCCESS && f < grid.licensableFeaturesCount &&
                               f < NVML_GRID_LICENSE_FEATURE_MAX_COUNT;
           ++f) {
        const nvmlGridLicensableFeature_t* g = &grid.gridLicensableFeatures[f];
        printf(" [code=%d state=%u enabled=%u product=%s expiry=%u]", (int)g->featureCode,
               g->featureState, g->featureEnabled, g->productName, g->licenseExpiry.status);
      }
      printf("\n");
      // MIG placements of the one-slice profile, counted with a NULL buffer (the plain name is
      // _v2, which takes one; 450/460 have the unversioned call, which does not).
      nvmlGpuInstanceProfileInfo_t profile;
      memset(&profile, 0, sizeof profile);
      d = nvmlDeviceGetGpuInstanceProfileInfo(device, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &profile);
      unsigned int placements = 0;
      const nvmlReturn_t p =
          d == NVML_SUCCESS
              ? nvmlDeviceGetGpuInstancePossiblePlacements(device, profile.id, NULL, &placements)
              : d;
      printf("placements_1_slice %d %d count=%u\n", (int)d, (int)p, placements);
    }
    processes("compute", device, nvmlDeviceGetComputeRunningProcesses);
    processes("graphics", device, nvmlDeviceGetGraphicsRunningProcesses);
  }
  status("shutdown", nvmlShutdown());
  return 0;
}
