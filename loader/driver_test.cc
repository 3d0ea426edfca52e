// Driver discovery, configuration and error reporting, against the real toolkit stub, the real
// 535 driver and broken candidates made in the test.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "loader/cudyn_c.h"
#include "tests/util/driver_entries.h"
#include "tests/util/runfiles.h"

namespace cudyn {
namespace {

std::string Driver535() { return testing::Runfile("nvidia_drivers/535/libcuda.so.1"); }
std::string ToolkitStub() { return testing::Runfile("cuda/stubs/libcuda.so"); }

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    if (old != nullptr) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Discovery, ToolkitStubAloneGives34AndSaysWhy) {
  ASSERT_FALSE(ToolkitStub().empty()) << "toolkit stub missing from runfiles";
  DriverOptions options;
  options.driver_path = ToolkitStub();
  auto driver = Driver::Open(options);
  EXPECT_FALSE(driver->ok());
  EXPECT_EQ(driver->error(), kCudaErrorStubLibrary);
  EXPECT_NE(driver->last_error().find("stub"), std::string::npos) << driver->last_error();
  EXPECT_NE(driver->last_error().find(ToolkitStub()), std::string::npos) << driver->last_error();
  // Calls through a failed driver keep failing cleanly with the same code.
  EXPECT_EQ(driver->Resolve(kEntry_cuInit), nullptr);
  EXPECT_EQ(driver->missing_result(), kCudaErrorStubLibrary);
  EXPECT_EQ(driver->status(kEntry_cuInit), EntryStatus::kMissing);
  EXPECT_EQ(driver->BindAll(), kEntryCount);
}

// libcudyn_cuda.so exports every cu* symbol too; given as the driver it must be refused, not bound
// (binding it would route every call through a second cudyn).
TEST(Discovery, CudynShimAsTheDriverIsRejected) {
  std::string shim = testing::Runfile("stubs/libcudyn_cuda.so");
  ASSERT_FALSE(shim.empty()) << "libcudyn_cuda.so missing from runfiles";
  DriverOptions options;
  options.driver_path = shim;
  auto driver = Driver::Open(options);
  EXPECT_FALSE(driver->ok());
  EXPECT_EQ(driver->error(), kCudaErrorSharedObjectInitFailed);
  ASSERT_EQ(driver->candidates().size(), 1u);
  EXPECT_EQ(driver->candidates()[0].rejection, Rejection::kIsCudyn)
      << driver->candidates()[0].reason;
  EXPECT_EQ(driver->Resolve(kEntry_cuInit), nullptr);
}

TEST(Discovery, NoDriverGives303AndListsEveryPathTried) {
  std::string dir = testing::MakeTempDir("nodriver");
  std::string missing = dir + "/absent/libcuda.so.1";
  std::string empty = dir + "/libcuda.so.1";
  { std::ofstream(empty).flush(); }
  DriverOptions options;
  options.search_paths = std::vector<std::string>{missing, dir, empty};
  auto driver = Driver::Open(options);
  EXPECT_EQ(driver->error(), kCudaErrorSharedObjectInitFailed);
  ASSERT_EQ(driver->candidates().size(), 3u);
  EXPECT_EQ(driver->candidates()[0].rejection, Rejection::kUnloadableFile);
  EXPECT_NE(driver->candidates()[0].reason.find("No such file"), std::string::npos);
  EXPECT_EQ(driver->candidates()[1].rejection, Rejection::kUnloadableFile);
  EXPECT_EQ(driver->candidates()[1].reason, "is a directory");
  EXPECT_EQ(driver->candidates()[2].rejection, Rejection::kDlopenFailed);
  for (const DriverCandidate& c : driver->candidates()) {
    EXPECT_EQ(c.source, CandidateSource::kSearchPath);
  }
  for (const std::string& p : {missing, dir, empty}) {
    EXPECT_NE(driver->last_error().find(p), std::string::npos) << p << "\n" << driver->last_error();
  }
}

TEST(Discovery, StubAmongCandidatesIsSkippedForTheRealDriver) {
  DriverOptions options;
  options.search_paths = std::vector<std::string>{ToolkitStub(), Driver535()};
  auto driver = Driver::Open(options);
  ASSERT_TRUE(driver->ok()) << driver->last_error();
  EXPECT_EQ(driver->cuda_version(), 12020);
  ASSERT_EQ(driver->candidates().size(), 2u);
  EXPECT_EQ(driver->candidates()[0].rejection, Rejection::kStubLibrary);
  EXPECT_TRUE(driver->candidates()[1].accepted());
}

TEST(Discovery, RelativePathIsRejected) {
  DriverOptions options;
  options.driver_path = "libcuda.so.1";
  auto driver = Driver::Open(options);
  EXPECT_EQ(driver->error(), kCudaErrorSharedObjectInitFailed);
  ASSERT_EQ(driver->candidates().size(), 1u);
  EXPECT_EQ(driver->candidates()[0].rejection, Rejection::kNotAbsolute);
}

TEST(Discovery, ExplicitPathFailureDoesNotFallBack) {
  DriverOptions options;
  options.driver_path = "/nonexistent/libcuda.so.1";
  auto driver = Driver::Open(options);
  EXPECT_FALSE(driver->ok());
  EXPECT_EQ(driver->candidates().size(), 1u);
}

TEST(Environment, DriverPathClampAndPerThread) {
  ScopedEnv path("CUDYN_DRIVER_PATH", Driver535().c_str());
  ScopedEnv clamp("CUDYN_MAX_CUDA_VERSION", "11.4");
  ScopedEnv ptds("CUDYN_PER_THREAD_DEFAULT_STREAM", "on");
  DriverOptions options;
  options.use_environment = true;
  auto driver = Driver::Open(options);
  ASSERT_TRUE(driver->ok()) << driver->last_error();
  EXPECT_EQ(driver->found_by(), CandidateSource::kEnvironment);
  EXPECT_EQ(driver->cuda_version(), 12020);
  EXPECT_EQ(driver->effective_version(), 11040);
  EXPECT_EQ(driver->strategy(), Strategy::kGetProcAddress);
  EXPECT_TRUE(driver->per_thread_default_stream());
  EXPECT_TRUE(driver->warnings().empty());
}

TEST(Environment, BadValuesAreRejectedLoudlyAndIgnored) {
  ScopedEnv path("CUDYN_DRIVER_PATH", Driver535().c_str());
  ScopedEnv clamp("CUDYN_MAX_CUDA_VERSION", "999999");
  ScopedEnv ptds("CUDYN_PER_THREAD_DEFAULT_STREAM", "maybe");
  ScopedEnv log("CUDYN_LOG", "verbose");
  DriverOptions options;
  options.use_environment = true;
  auto driver = Driver::Open(options);
  ASSERT_TRUE(driver->ok());
  EXPECT_EQ(driver->effective_version(), 12020);
  EXPECT_FALSE(driver->per_thread_default_stream());
  ASSERT_EQ(driver->warnings().size(), 3u);
  std::string all = driver->warnings()[0] + driver->warnings()[1] + driver->warnings()[2];
  EXPECT_NE(all.find("CUDYN_MAX_CUDA_VERSION='999999'"), std::string::npos) << all;
  EXPECT_NE(all.find("CUDYN_PER_THREAD_DEFAULT_STREAM='maybe'"), std::string::npos) << all;
  EXPECT_NE(all.find("CUDYN_LOG='verbose'"), std::string::npos) << all;
}

TEST(Environment, OptionsOverrideEnvironment) {
  ScopedEnv clamp("CUDYN_MAX_CUDA_VERSION", "10010");
  DriverOptions options;
  options.use_environment = true;
  options.driver_path = Driver535();
  options.max_cuda_version = 12000;
  auto driver = Driver::Open(options);
  ASSERT_TRUE(driver->ok());
  EXPECT_EQ(driver->found_by(), CandidateSource::kOption);
  EXPECT_EQ(driver->effective_version(), 12000);
}

TEST(Parse, CudaVersion) {
  EXPECT_EQ(ParseCudaVersion("11040"), 11040);
  EXPECT_EQ(ParseCudaVersion("11.4"), 11040);
  EXPECT_EQ(ParseCudaVersion("12.2"), 12020);
  EXPECT_EQ(ParseCudaVersion("10.1"), 10010);
  for (const char* bad : {"", "abc", "-5", "0", "999999", "11.", ".4", "1e5", "11040 ", "12.2.1",
                          "100.1", "99999999999999999999"}) {
    EXPECT_FALSE(ParseCudaVersion(bad).has_value()) << bad;
  }
}

TEST(Parse, Bool) {
  for (const char* t : {"1", "true", "on", "yes", "TRUE"}) EXPECT_EQ(ParseBool(t), true) << t;
  for (const char* f : {"0", "false", "off", "no", "OFF"}) EXPECT_EQ(ParseBool(f), false) << f;
  for (const char* bad : {"", "2", "enable", "tru"}) EXPECT_FALSE(ParseBool(bad).has_value()) << bad;
}

TEST(Results, NamesAndStringsWithoutADriver) {
  const char* text = nullptr;
  ASSERT_EQ(ResultName(0, &text), 0);
  EXPECT_STREQ(text, "CUDA_SUCCESS");
  ASSERT_EQ(ResultName(34, &text), 0);
  EXPECT_STREQ(text, "CUDA_ERROR_STUB_LIBRARY");
  ASSERT_EQ(ResultName(303, &text), 0);
  EXPECT_STREQ(text, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED");
  ASSERT_EQ(ResultString(801, &text), 0);
  EXPECT_NE(std::string(text).find("not supported"), std::string::npos) << text;
  // An unknown code: 1 and NULL stored, as every real driver answers (inputs/error_strings/).
  text = "untouched";
  EXPECT_EQ(ResultName(123456, &text), kCudaErrorInvalidValue);
  EXPECT_EQ(text, nullptr);
  text = "untouched";
  EXPECT_EQ(ResultString(123456, &text), kCudaErrorInvalidValue);
  EXPECT_EQ(text, nullptr);
  EXPECT_EQ(ResultName(0, nullptr), kCudaErrorInvalidValue);
}

TEST(CApi, DescribesTheDefaultDriver) {
  // The default driver reads CUDYN_DRIVER_PATH once, on first use.
  setenv("CUDYN_DRIVER_PATH", Driver535().c_str(), 1);
  ASSERT_EQ(cudynInit(), 0);
  EXPECT_EQ(std::string(cudynDriverPath()), Driver535());
  EXPECT_EQ(cudynDriverCudaVersion(), 12020);
  EXPECT_STREQ(cudynStrategy(), StrategyName(Strategy::kGetProcAddressV2));
  // An entry the 535 is the first real driver to export: native there, through cuGetProcAddress_v2.
  const int new_with_535 = testing::EntryNewWithDriver(535);
  ASSERT_GE(new_with_535, 0);
  const std::string symbol(EntrySymbol(new_with_535));
  int native = cudynFindEntry(symbol.c_str());
  ASSERT_GE(native, 0);
  EXPECT_EQ(cudynEntrySymbol(native), symbol);
  EXPECT_STREQ(cudynEntryStatus(native), "native");
  EXPECT_STREQ(cudynEntryVia(native), StrategyName(Strategy::kGetProcAddressV2));
  char name[8];
  ASSERT_GT(symbol.size(), sizeof(name) - 1);
  EXPECT_EQ(cudynEntryDriverSymbol(native, name, sizeof(name)), static_cast<int>(symbol.size()));
  EXPECT_EQ(std::string(name), symbol.substr(0, sizeof(name) - 1));  // truncated copy
  // An entry the 535 lacks, served by its adapter over a fallback the 535 has.
  const int adapted = testing::EntryAdaptedOn(535);
  ASSERT_GE(adapted, 0);
  int served = cudynFindEntry(std::string(EntrySymbol(adapted)).c_str());
  EXPECT_STREQ(cudynEntryStatus(served), "adapter");
  char full[64];
  cudynEntryDriverSymbol(served, full, sizeof(full));
  EXPECT_EQ(std::string(full), EntrySymbol(kEntries[adapted].fallback));
  EXPECT_EQ(cudynEntryStatus(-1), nullptr);
  EXPECT_EQ(cudynEntrySymbol(cudynEntryCount()), nullptr);
  EXPECT_EQ(cudynFindEntry("cuNoSuchThing"), -1);
  int missing = cudynBindAll();
  EXPECT_GT(missing, 0);  // 12.3+ entries with no adapter
  char error[512];
  EXPECT_GT(cudynLastError(error, sizeof(error)), 0);
  EXPECT_NE(std::string(error).find(Driver535()), std::string::npos) << error;
}

}  // namespace
}  // namespace cudyn
