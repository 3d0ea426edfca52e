// The functions of the fake 450 NVML (tests/fake_nvml/BUILD) whose structs the newest nvml.h
// declares in a later layout: compiled against the 11.2 header (libnvidia-ml-dev 11.2, copied here
// as nvml_11_2/nvml_11_2.h), whose layouts are what NVML 450/460 fill, so a test sees what cudyn's
// adapters make of exactly those bytes.
//   nvmlDeviceGetGridLicensableFeatures_v3      2 of 3 features; device 0xBAD: NOT_SUPPORTED after
//                                               writing into the struct (nothing to convert)
//   nvmlDeviceGetGpuInstancePossiblePlacements  3 placements of 2 slices ({0,2} {2,2} {4,2});
//                                               NULL placements or count: INVALID_ARGUMENT, as the
//                                               11.2 header documents; profile 99: NOT_SUPPORTED
#include <stdio.h>
#include <string.h>

// Every variant under its own name (v3 is the plain name's target in 11.2).
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include "tests/fake_nvml/nvml_11_2/nvml_11_2.h"

// The layout of the 11.2 header, as loader/nvml.cc's GridLicensableFeaturesV3 asserts it.
_Static_assert(sizeof(nvmlGridLicensableFeature_t) == 268, "11.2: 268-byte feature");
_Static_assert(sizeof(nvmlGridLicensableFeatures_t) == 812, "11.2: 812-byte features");
_Static_assert(sizeof(nvmlGpuInstancePlacement_t) == 8, "11.2: {start, size}");

void fake_nvml_record(const char* name);

nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v3(nvmlDevice_t device,
                                                    nvmlGridLicensableFeatures_t* features) {
  char text[128];
  snprintf(text, sizeof text, "nvmlDeviceGetGridLicensableFeatures_v3(device=%p,features=%s)",
           (void*)device, features ? "buffer" : "null");
  fake_nvml_record(text);
  if (features == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (device == (nvmlDevice_t)0xBAD) {
    features->licensableFeaturesCount = 3;
    return NVML_ERROR_NOT_SUPPORTED;
  }
  features->isGridLicenseSupported = 1;
  features->licensableFeaturesCount = 2;
  nvmlGridLicensableFeature_t* f = features->gridLicensableFeatures;
  f[0].featureCode = NVML_GRID_LICENSE_FEATURE_CODE_VGPU;
  f[0].featureState = 1;
  memset(f[0].licenseInfo, 'i', sizeof f[0].licenseInfo);  // every byte, the last one too
  memset(f[0].productName, 'p', sizeof f[0].productName);
  f[0].featureEnabled = 7;
  f[1].featureCode = NVML_GRID_LICENSE_FEATURE_CODE_VWORKSTATION;
  f[1].featureState = 0;
  snprintf(f[1].licenseInfo, sizeof f[1].licenseInfo, "%s", "info 1");
  snprintf(f[1].productName, sizeof f[1].productName, "%s",
           "Quadro Virtual Data Center Workstation");
  f[1].featureEnabled = 9;
  // What the last one holds past the count is garbage to the caller: the adapter copies none of it.
  f[2].featureCode = (nvmlGridLicenseFeatureCode_t)0x5A5A;
  f[2].featureEnabled = 0x5A5A;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements(nvmlDevice_t device, unsigned int profileId,
                                                        nvmlGpuInstancePlacement_t* placements,
                                                        unsigned int* count) {
  char text[160];
  char given[16] = "null";
  if (count != NULL) snprintf(given, sizeof given, "%u", *count);
  snprintf(
      text, sizeof text,
      "nvmlDeviceGetGpuInstancePossiblePlacements(device=%p,profileId=%u,placements=%s,count=%s)",
      (void*)device, profileId, placements ? "buffer" : "null", given);
  fake_nvml_record(text);
  if (placements == NULL || count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (profileId == 99) return NVML_ERROR_NOT_SUPPORTED;
  for (unsigned int i = 0; i < 3; ++i) {
    placements[i].start = 2 * i;
    placements[i].size = 2;
  }
  *count = 3;
  return NVML_SUCCESS;
}
