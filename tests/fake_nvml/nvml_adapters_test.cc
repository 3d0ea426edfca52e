// NVML's adapters (loader/nvml.cc) on a fake NVML of the branch FAKE_BRANCH, 390, 418 or 450
// (tests/fake_nvml: the names the real branch exports, the older variants recording their
// arguments): a program built against the newest nvml.h calls the _v2/_v3 process lists,
// nvmlDeviceGetMemoryInfo_v2, nvmlDeviceSetPowerManagementLimit_v2 (and before 450
// nvmlEventSetWait_v2, on 390 nvmlDeviceGetFanSpeed_v2, nvmlDeviceGetRetiredPages_v2; on 450
// nvmlDeviceGetGridLicensableFeatures_v4 and nvmlDeviceGetGpuInstancePossiblePlacements_v2, over
// the 11.2 header's layouts), which the branch lacks, and gets the older variant's answer
// converted, the fields it lacks as NVML reports them without MIG (or without the data).
#include <dlfcn.h>
// Every variant under its own name (the _v2 process lists are declared only so).
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <gtest/gtest.h>
#include <nvml.h>
#include <stdlib.h>

#include <cstring>
#include <string>

#include "loader/nvml.h"
#include "tests/util/runfiles.h"

extern "C" const char* cudynNvmlEntryStatus(const char* symbol);
extern "C" const char* cudynNvmlLibraryPath(void);
extern "C" int cudynNvmlRelease(void);

namespace {

std::string Calls() {
  auto calls = reinterpret_cast<const char* (*)()>(
      dlsym(cudyn::DefaultNvml().handle(), "fake_nvml_calls"));
  return calls != nullptr ? calls() : "no fake";
}
void Reset() {
  auto reset = reinterpret_cast<void (*)()>(dlsym(cudyn::DefaultNvml().handle(), "fake_nvml_reset"));
  if (reset != nullptr) reset();
}

using ProcessList = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*);
struct ProcessCase {
  const char* entry;
  ProcessList fn;
  int index;
  const char* older;
};

TEST(NvmlAdapters, TheFakeIsTakenAsItsBranch) {
  cudyn::Toolkit& t = cudyn::DefaultNvml();
  ASSERT_TRUE(t.ok()) << t.last_error();
  EXPECT_EQ(t.release(), FAKE_BRANCH);
}

#if FAKE_BRANCH < 450  // 450 on export nvmlEventSetWait_v2
TEST(NvmlAdapters, EventWaitFromTheDataOfCuda10) {
  Reset();
  nvmlEventData_t data;
  std::memset(&data, 0xAB, sizeof data);
  ASSERT_EQ(nvmlEventSetWait_v2(reinterpret_cast<nvmlEventSet_t>(0x99), &data, 7), NVML_SUCCESS);
  EXPECT_EQ(Calls(), "nvmlEventSetWait(set=0x99,data=buffer,timeout=7);");
  EXPECT_EQ(data.device, reinterpret_cast<nvmlDevice_t>(0x5678));
  EXPECT_EQ(data.eventType, nvmlEventTypeXidCriticalError);
  EXPECT_EQ(data.eventData, 79u);
  EXPECT_EQ(data.gpuInstanceId, 0xFFFFFFFFu);
  EXPECT_EQ(data.computeInstanceId, 0xFFFFFFFFu);
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlEventSetWait_v2"), "adapter");
}
#endif

TEST(NvmlAdapters, PowerLimitOfTheGpuScopeOnly) {
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  Reset();
  nvmlPowerValue_v2_t value{};
  value.version = nvmlPowerValue_v2;
  value.powerScope = NVML_POWER_SCOPE_GPU;
  value.powerValueMw = 250000;
  ASSERT_EQ(nvmlDeviceSetPowerManagementLimit_v2(device, &value), NVML_SUCCESS);
  EXPECT_EQ(Calls(), "nvmlDeviceSetPowerManagementLimit(device=0x1234,limit=250000);");
  Reset();
  value.powerScope = NVML_POWER_SCOPE_MODULE;
  EXPECT_EQ(nvmlDeviceSetPowerManagementLimit_v2(device, &value), NVML_ERROR_NOT_SUPPORTED);
  value.powerScope = NVML_POWER_SCOPE_GPU;
  value.version = 1;
  EXPECT_EQ(nvmlDeviceSetPowerManagementLimit_v2(device, &value),
            NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  EXPECT_EQ(Calls(), "");
}

#if FAKE_BRANCH == 390
TEST(NvmlAdapters, FanSpeedOfTheFirstFan) {
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  Reset();
  unsigned int speed = 0;
  ASSERT_EQ(nvmlDeviceGetFanSpeed_v2(device, 0, &speed), NVML_SUCCESS);
  EXPECT_EQ(speed, 42u);
  EXPECT_EQ(Calls(), "nvmlDeviceGetFanSpeed(device=0x1234);");
  Reset();
  EXPECT_EQ(nvmlDeviceGetFanSpeed_v2(device, 1, &speed), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(Calls(), "");
}

TEST(NvmlAdapters, RetiredPagesWithoutTimes) {
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  Reset();
  unsigned long long addresses[4] = {}, timestamps[4] = {7, 7, 7, 7};
  unsigned int count = 4;
  ASSERT_EQ(nvmlDeviceGetRetiredPages_v2(device, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
                                         &count, addresses, timestamps),
            NVML_SUCCESS);
  EXPECT_EQ(Calls(), "nvmlDeviceGetRetiredPages(device=0x1234,cause=1,count=4,addresses=buffer);");
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(addresses[1], 0x2000u);
  EXPECT_EQ(timestamps[0], 0u);
  EXPECT_EQ(timestamps[1], 0u);
  EXPECT_EQ(timestamps[2], 7u);  // past the count: untouched
}
#endif

TEST(NvmlAdapters, ProcessListsFromV1) {
  const ProcessCase cases[] = {
#if FAKE_BRANCH < 450  // 450 exports the compute and graphics _v2 (the _v3 binds them natively)
    {"compute _v3", &nvmlDeviceGetComputeRunningProcesses_v3,
     cudyn::kNvml_nvmlDeviceGetComputeRunningProcesses_v3, "nvmlDeviceGetComputeRunningProcesses"},
    {"compute _v2", &nvmlDeviceGetComputeRunningProcesses_v2,
     cudyn::kNvml_nvmlDeviceGetComputeRunningProcesses_v2, "nvmlDeviceGetComputeRunningProcesses"},
    {"graphics _v3", &nvmlDeviceGetGraphicsRunningProcesses_v3,
     cudyn::kNvml_nvmlDeviceGetGraphicsRunningProcesses_v3,
     "nvmlDeviceGetGraphicsRunningProcesses"},
    {"graphics _v2", &nvmlDeviceGetGraphicsRunningProcesses_v2,
     cudyn::kNvml_nvmlDeviceGetGraphicsRunningProcesses_v2,
     "nvmlDeviceGetGraphicsRunningProcesses"},
#endif
    {"mps _v3", &nvmlDeviceGetMPSComputeRunningProcesses_v3,
     cudyn::kNvml_nvmlDeviceGetMPSComputeRunningProcesses_v3,
     "nvmlDeviceGetMPSComputeRunningProcesses"},
    {"mps _v2", &nvmlDeviceGetMPSComputeRunningProcesses_v2,
     cudyn::kNvml_nvmlDeviceGetMPSComputeRunningProcesses_v2,
     "nvmlDeviceGetMPSComputeRunningProcesses"},
  };
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  for (const ProcessCase& c : cases) {
    SCOPED_TRACE(c.entry);
    // The whole list: the older variant is given the caller's count and a buffer of its own.
    Reset();
    nvmlProcessInfo_t infos[4];
    std::memset(infos, 0xAB, sizeof infos);
    unsigned int count = 4;
    ASSERT_EQ(c.fn(device, &count, infos), NVML_SUCCESS);
    EXPECT_EQ(Calls(), std::string(c.older) + "(device=0x1234,count=4,infos=buffer);");
    EXPECT_EQ(cudyn::DefaultNvml().status(c.index), cudyn::EntryStatus::kAdapter);
    ASSERT_EQ(count, 2u);
    EXPECT_EQ(infos[0].pid, 100u);
    EXPECT_EQ(infos[0].usedGpuMemory, 1ull << 20);
    EXPECT_EQ(infos[0].gpuInstanceId, 0xFFFFFFFFu);
    EXPECT_EQ(infos[0].computeInstanceId, 0xFFFFFFFFu);
    EXPECT_EQ(infos[1].pid, 200u);
    EXPECT_EQ(infos[1].usedGpuMemory, 2ull << 20);
    EXPECT_EQ(infos[1].gpuInstanceId, 0xFFFFFFFFu);
    // Past the count: untouched.
    unsigned char untouched[sizeof(nvmlProcessInfo_t)];
    std::memset(untouched, 0xAB, sizeof untouched);
    EXPECT_EQ(std::memcmp(&infos[2], untouched, sizeof untouched), 0);
    // The size query: a null buffer passed on as null, the count answered.
    Reset();
    count = 0;
    EXPECT_EQ(c.fn(device, &count, nullptr), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT_EQ(count, 2u);
    EXPECT_EQ(Calls(), std::string(c.older) + "(device=0x1234,count=0,infos=null);");
    // Too small a buffer: the older variant's answer, nothing converted.
    Reset();
    std::memset(infos, 0xAB, sizeof infos);
    count = 1;
    EXPECT_EQ(c.fn(device, &count, infos), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT_EQ(count, 2u);
    EXPECT_EQ(std::memcmp(&infos[0], untouched, sizeof untouched), 0);
  }
}

TEST(NvmlAdapters, MemoryV2FromV1) {
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  Reset();
  nvmlMemory_v2_t memory;
  std::memset(&memory, 0xAB, sizeof memory);
  memory.version = nvmlMemory_v2;
  ASSERT_EQ(nvmlDeviceGetMemoryInfo_v2(device, &memory), NVML_SUCCESS);
  EXPECT_EQ(Calls(), "nvmlDeviceGetMemoryInfo(device=0x1234,memory=buffer);");
  EXPECT_EQ(cudyn::DefaultNvml().status(cudyn::kNvml_nvmlDeviceGetMemoryInfo_v2),
            cudyn::EntryStatus::kAdapter);
  EXPECT_EQ(memory.version, nvmlMemory_v2);
  EXPECT_EQ(memory.total, 16ull << 30);
  EXPECT_EQ(memory.free, 10ull << 30);
  EXPECT_EQ(memory.used, 6ull << 30);
  EXPECT_EQ(memory.reserved, 0u);
  // A struct of another version: NVML's own answer, the older variant never called.
  Reset();
  memory.version = 1;
  EXPECT_EQ(nvmlDeviceGetMemoryInfo_v2(device, &memory), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  EXPECT_EQ(Calls(), "");
}

#if FAKE_BRANCH == 450
// The licensable features of the 11.2 header (fake_nvml_11_2.c): each field copied, licenseExpiry
// (11.8 on) zero, which NVML reports as NVML_GRID_LICENSE_EXPIRY_NOT_AVAILABLE.
TEST(NvmlAdapters, GridLicensableFeaturesV4FromTheLayoutOf11_2) {
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  Reset();
  nvmlGridLicensableFeatures_t features;
  std::memset(&features, 0xAB, sizeof features);
  ASSERT_EQ(nvmlDeviceGetGridLicensableFeatures_v4(device, &features), NVML_SUCCESS);
  EXPECT_EQ(Calls(), "nvmlDeviceGetGridLicensableFeatures_v3(device=0x1234,features=buffer);");
  EXPECT_EQ(cudyn::DefaultNvml().status(cudyn::kNvml_nvmlDeviceGetGridLicensableFeatures_v4),
            cudyn::EntryStatus::kAdapter);
  EXPECT_EQ(features.isGridLicenseSupported, 1);
  ASSERT_EQ(features.licensableFeaturesCount, 2u);
  const nvmlGridLicensableFeature_t* f = features.gridLicensableFeatures;
  EXPECT_EQ(f[0].featureCode, NVML_GRID_LICENSE_FEATURE_CODE_VGPU);
  EXPECT_EQ(f[0].featureState, 1u);
  EXPECT_EQ(std::string(f[0].licenseInfo, sizeof f[0].licenseInfo), std::string(128, 'i'));
  EXPECT_EQ(std::string(f[0].productName, sizeof f[0].productName), std::string(128, 'p'));
  EXPECT_EQ(f[0].featureEnabled, 7u);
  EXPECT_EQ(f[1].featureCode, NVML_GRID_LICENSE_FEATURE_CODE_VWORKSTATION);
  EXPECT_EQ(f[1].featureState, 0u);
  EXPECT_STREQ(f[1].licenseInfo, "info 1");
  EXPECT_STREQ(f[1].productName, "Quadro Virtual Data Center Workstation");
  EXPECT_EQ(f[1].featureEnabled, 9u);
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const nvmlGridLicenseExpiry_t& e = f[i].licenseExpiry;
    EXPECT_EQ(e.status, NVML_GRID_LICENSE_EXPIRY_NOT_AVAILABLE);
    EXPECT_EQ(e.year, 0u);
    EXPECT_EQ(e.month + e.day + e.hour + e.min + e.sec, 0);
    // Padding too: the whole entry is written.
    nvmlGridLicenseExpiry_t zero;
    std::memset(&zero, 0, sizeof zero);
    EXPECT_EQ(std::memcmp(&e, &zero, sizeof zero), 0);
  }
  // Past the count: untouched.
  unsigned char untouched[sizeof(nvmlGridLicensableFeature_t)];
  std::memset(untouched, 0xAB, sizeof untouched);
  EXPECT_EQ(std::memcmp(&f[2], untouched, sizeof untouched), 0);
  // No struct: _v3's own answer.
  Reset();
  EXPECT_EQ(nvmlDeviceGetGridLicensableFeatures_v4(device, nullptr), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Calls(), "nvmlDeviceGetGridLicensableFeatures_v3(device=0x1234,features=null);");
  // An error: passed on, nothing converted.
  Reset();
  std::memset(&features, 0xAB, sizeof features);
  EXPECT_EQ(
      nvmlDeviceGetGridLicensableFeatures_v4(reinterpret_cast<nvmlDevice_t>(0xBAD), &features),
      NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(Calls(), "nvmlDeviceGetGridLicensableFeatures_v3(device=0xbad,features=buffer);");
  unsigned char all_untouched[sizeof features];
  std::memset(all_untouched, 0xAB, sizeof all_untouched);
  EXPECT_EQ(std::memcmp(&features, all_untouched, sizeof features), 0);
}

// v2 over the unversioned v1: the same placements; placements == NULL asks for the count, which v1
// answers only into a buffer (the adapter's).
TEST(NvmlAdapters, PlacementsV2FromV1) {
  nvmlDevice_t device = reinterpret_cast<nvmlDevice_t>(0x1234);
  Reset();
  nvmlGpuInstancePlacement_t placements[4];
  std::memset(placements, 0xAB, sizeof placements);
  unsigned int count = 4;
  ASSERT_EQ(nvmlDeviceGetGpuInstancePossiblePlacements_v2(device, 5, placements, &count),
            NVML_SUCCESS);
  EXPECT_EQ(
      Calls(),
      "nvmlDeviceGetGpuInstancePossiblePlacements(device=0x1234,profileId=5,placements=buffer,"
      "count=4);");
  EXPECT_EQ(cudyn::DefaultNvml().status(cudyn::kNvml_nvmlDeviceGetGpuInstancePossiblePlacements_v2),
            cudyn::EntryStatus::kAdapter);
  ASSERT_EQ(count, 3u);
  for (unsigned int i = 0; i < 3; ++i) {
    EXPECT_EQ(placements[i].start, 2 * i);
    EXPECT_EQ(placements[i].size, 2u);
  }
  EXPECT_EQ(placements[3].start, 0xABABABABu);
  // The count alone.
  Reset();
  count = 0;
  ASSERT_EQ(nvmlDeviceGetGpuInstancePossiblePlacements_v2(device, 5, nullptr, &count),
            NVML_SUCCESS);
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(
      Calls(),
      "nvmlDeviceGetGpuInstancePossiblePlacements(device=0x1234,profileId=5,placements=buffer,"
      "count=0);");
  // No count: v1's INVALID_ARGUMENT (v2 documents it for an invalid count too).
  Reset();
  EXPECT_EQ(nvmlDeviceGetGpuInstancePossiblePlacements_v2(device, 5, nullptr, nullptr),
            NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Calls(),
            "nvmlDeviceGetGpuInstancePossiblePlacements(device=0x1234,profileId=5,placements=null,"
            "count=null);");
  // A profile v1 does not support (or MIG off, which v1 answers so too): its answer, for the count
  // query as well.
  count = 7;
  EXPECT_EQ(nvmlDeviceGetGpuInstancePossiblePlacements_v2(device, 99, nullptr, &count),
            NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(count, 7u);
  EXPECT_EQ(nvmlDeviceGetGpuInstancePossiblePlacements_v2(device, 99, placements, &count),
            NVML_ERROR_NOT_SUPPORTED);
}
#endif

TEST(NvmlAdapters, WhatNeitherExportsNorAdaptsAnswersFunctionNotFound) {
#if FAKE_BRANCH < 450
  // The licensable features _v3 and _v4: the branch's older variants fill a struct of their day
  // whose layout no header of the facts shows (no adapter).
  nvmlGridLicensableFeatures_t features;
  for (int index : {cudyn::kNvml_nvmlDeviceGetGridLicensableFeatures_v3,
                    cudyn::kNvml_nvmlDeviceGetGridLicensableFeatures_v4}) {
    const std::string symbol(cudyn::kNvmlTraits.symbols[index]);
    SCOPED_TRACE(symbol);
    auto fn = index == cudyn::kNvml_nvmlDeviceGetGridLicensableFeatures_v3
                  ? &nvmlDeviceGetGridLicensableFeatures_v3
                  : &nvmlDeviceGetGridLicensableFeatures_v4;
    EXPECT_EQ(fn(nullptr, &features), NVML_ERROR_FUNCTION_NOT_FOUND);
    EXPECT_EQ(cudyn::DefaultNvml().status(index), cudyn::EntryStatus::kMissing);
    EXPECT_NE(cudyn::DefaultNvml().last_error().find(symbol), std::string::npos)
        << cudyn::DefaultNvml().last_error();
  }
#endif
#if FAKE_BRANCH == 390
  // nvmlDeviceRemoveGpu_v2 over the plain call of 390: no header of the facts documents what the
  // plain call does in terms of gpuState/linkState, nor the nvmlPciInfo_t it reads (no adapter).
  Reset();
  nvmlPciInfo_t pci{};
  EXPECT_EQ(nvmlDeviceRemoveGpu_v2(&pci, NVML_DETACH_GPU_KEEP, NVML_PCIE_LINK_KEEP),
            NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(cudyn::DefaultNvml().status(cudyn::kNvml_nvmlDeviceRemoveGpu_v2),
            cudyn::EntryStatus::kMissing);
  EXPECT_EQ(Calls(), "");
#endif
#if FAKE_BRANCH >= 450
  // What 470 introduced.
  EXPECT_EQ(nvmlDeviceGetClkMonStatus(nullptr, nullptr), NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(cudyn::DefaultNvml().status(cudyn::kNvml_nvmlDeviceGetClkMonStatus),
            cudyn::EntryStatus::kMissing);
#endif
}

TEST(NvmlAdapters, TheDropInSaysHowEachEntryIsBound) {
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlInit_v2"), "native");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetMemoryInfo_v2"), "adapter");
#if FAKE_BRANCH < 450
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetComputeRunningProcesses_v3"), "adapter");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetGridLicensableFeatures_v3"), "missing");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetGridLicensableFeatures_v4"), "missing");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetMigMode"), "missing");  // 450 on
#else
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetComputeRunningProcesses_v3"), "native");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetMPSComputeRunningProcesses_v3"), "adapter");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetGridLicensableFeatures_v3"), "native");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetGridLicensableFeatures_v4"), "adapter");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetGpuInstancePossiblePlacements_v2"), "adapter");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetMigMode"), "native");
#endif
#if FAKE_BRANCH == 390
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceRemoveGpu_v2"), "missing");
#else
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceRemoveGpu_v2"), "native");
#endif
  EXPECT_STREQ(cudynNvmlEntryStatus("cuInit"), "unknown");
  EXPECT_STREQ(cudynNvmlEntryStatus(nullptr), "unknown");
  EXPECT_EQ(cudynNvmlRelease(), FAKE_BRANCH);
  EXPECT_EQ(std::string(cudynNvmlLibraryPath()), cudyn::DefaultNvml().path());
  EXPECT_NE(std::string(cudynNvmlLibraryPath()).find("fake_" + std::to_string(FAKE_BRANCH) + "/"),
            std::string::npos);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string fake = cudyn::testing::Runfile("cudyn/tests/fake_nvml/fake_" +
                                                   std::to_string(FAKE_BRANCH) +
                                                   "/libnvidia-ml.so.1");
  if (fake.empty()) {
    std::fprintf(stderr, "the fake NVML is missing from the runfiles\n");
    return 1;
  }
  setenv("CUDYN_NVML_PATH", fake.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
