// NVML's adapters (loader/nvml.cc) on a fake NVML of the 418 branch, and of the 390 branch with
// FAKE_BRANCH=390 (tests/fake_nvml: the names the real branch exports, the older variants recording
// their arguments): a program built against the newest nvml.h calls the _v2/_v3 process lists,
// nvmlDeviceGetMemoryInfo_v2, nvmlEventSetWait_v2, nvmlDeviceSetPowerManagementLimit_v2 (and on
// 390 nvmlDeviceGetFanSpeed_v2, nvmlDeviceGetRetiredPages_v2), which the branch lacks, and gets the
// older variant's answer converted, the fields it lacks as NVML reports them without MIG.
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
      {"compute _v3", &nvmlDeviceGetComputeRunningProcesses_v3,
       cudyn::kNvml_nvmlDeviceGetComputeRunningProcesses_v3, "nvmlDeviceGetComputeRunningProcesses"},
      {"compute _v2", &nvmlDeviceGetComputeRunningProcesses_v2,
       cudyn::kNvml_nvmlDeviceGetComputeRunningProcesses_v2, "nvmlDeviceGetComputeRunningProcesses"},
      {"graphics _v3", &nvmlDeviceGetGraphicsRunningProcesses_v3,
       cudyn::kNvml_nvmlDeviceGetGraphicsRunningProcesses_v3, "nvmlDeviceGetGraphicsRunningProcesses"},
      {"graphics _v2", &nvmlDeviceGetGraphicsRunningProcesses_v2,
       cudyn::kNvml_nvmlDeviceGetGraphicsRunningProcesses_v2, "nvmlDeviceGetGraphicsRunningProcesses"},
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

TEST(NvmlAdapters, WhatNeitherExportsNorAdaptsAnswersFunctionNotFound) {
  // The licensable features _v3: the branch's older variant fills a struct of its day whose layout
  // no header here shows (no adapter).
  nvmlGridLicensableFeatures_t features;
  EXPECT_EQ(nvmlDeviceGetGridLicensableFeatures_v3(nullptr, &features),
            NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(cudyn::DefaultNvml().status(cudyn::kNvml_nvmlDeviceGetGridLicensableFeatures_v3),
            cudyn::EntryStatus::kMissing);
  EXPECT_NE(cudyn::DefaultNvml().last_error().find("nvmlDeviceGetGridLicensableFeatures_v3"),
            std::string::npos)
      << cudyn::DefaultNvml().last_error();
}

TEST(NvmlAdapters, TheDropInSaysHowEachEntryIsBound) {
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlInit_v2"), "native");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetMemoryInfo_v2"), "adapter");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetComputeRunningProcesses_v3"), "adapter");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetGridLicensableFeatures_v3"), "missing");
  EXPECT_STREQ(cudynNvmlEntryStatus("nvmlDeviceGetMigMode"), "missing");  // 450 on
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
