// The binding rules, proven on one real NVIDIA driver from Debian's packages (no GPU needed:
// cuDriverGetVersion and cuGetProcAddress work without one and cuInit returns 100). Built once per
// driver with CUDYN_TEST_DRIVER_MAJOR, so each driver runs in its own process.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "tests/util/runfiles.h"


// Under --config=asan: the real drivers' cuInit allocates state it never frees (their leak, not
// cudyn's: every frame of those reports is inside libcuda). Used by LeakSanitizer only.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcuda.so\n"; }

namespace cudyn {
namespace {

// Set per test target by the BUILD file (env CUDYN_TEST_DRIVER_MAJOR): one compiled test, one process per driver.
const int kMajor = [] {
  const char* value = getenv("CUDYN_TEST_DRIVER_MAJOR");
  return value != nullptr ? atoi(value) : 0;
}();

const RealDriverInfo& Info() {
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (kRealDrivers[k].major == kMajor) return kRealDrivers[k];
  }
  static RealDriverInfo none{};
  return none;
}

std::string DriverPath() {
  return testing::Runfile("nvidia_drivers/" + std::to_string(kMajor) + "/libcuda.so.1");
}

// What the measured rules say the strategy is for this driver generation.
Strategy ExpectedStrategy(int version) {
  if (version >= 12000) return Strategy::kGetProcAddressV2;
  if (version >= 11030) return Strategy::kGetProcAddress;
  return Strategy::kDlsym;
}

class RealDriver : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (kMajor == 418) {
      // 418's libcuda needs libnvidia-fatbinaryloader (DT_NEEDED, no RUNPATH): a system install
      // has it on the default search path; here it is preloaded from the same directory.
      std::string dir = DriverPath().substr(0, DriverPath().rfind('/'));
      ASSERT_NE(dlopen((dir + "/libnvidia-fatbinaryloader.so.418.226.00").c_str(),
                       RTLD_NOW | RTLD_GLOBAL),
                nullptr)
          << dlerror();
    }
    // Keep the driver mapped for the whole process (the Driver objects below open and close it
    // many times), so sanitizer reports can name it: see __lsan_default_suppressions.
    ASSERT_NE(dlopen(DriverPath().c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), nullptr)
        << dlerror();
  }
  std::unique_ptr<Driver> Open(std::optional<int> clamp = std::nullopt, bool per_thread = false) {
    DriverOptions options;
    options.driver_path = DriverPath();
    options.max_cuda_version = clamp;
    options.per_thread_default_stream = per_thread;
    return Driver::Open(options);
  }
};

// `index` is served by an adapter calling `driver_symbol` -- when this build has that adapter.
// Built against older headers (11.8), adapters whose types those headers lack are compiled out
// and the entry is missing instead.
void ExpectAdaptedTo(const Driver& driver, int index, const char* driver_symbol) {
  if (AdapterCompiledIn(index)) {
    EXPECT_EQ(driver.status(index), EntryStatus::kAdapter) << EntrySymbol(index);
    EXPECT_EQ(driver.driver_symbol(index), driver_symbol) << EntrySymbol(index);
  } else {
    EXPECT_EQ(driver.status(index), EntryStatus::kMissing) << EntrySymbol(index);
    EXPECT_EQ(driver.driver_symbol(index), "") << EntrySymbol(index);
  }
}

TEST_F(RealDriver, VersionAndStrategy) {
  ASSERT_FALSE(DriverPath().empty()) << "driver " << kMajor << " missing: run third_party/fetch_deps.sh";
  auto driver = Open();
  ASSERT_TRUE(driver->ok()) << driver->last_error();
  EXPECT_EQ(driver->cuda_version(), Info().cuda_version);
  EXPECT_EQ(driver->effective_version(), Info().cuda_version);
  EXPECT_EQ(driver->strategy(), ExpectedStrategy(Info().cuda_version));
}

TEST_F(RealDriver, TheCheckedInExportListIsThisDriversExportList) {
  auto driver = Open();
  ASSERT_TRUE(driver->ok());
  int exported = 0;
  for (int i = 0; i < kEntryCount; ++i) {
    bool here = dlsym(driver->handle(), EntrySymbol(i).data()) != nullptr;
    EXPECT_EQ(here, RealDriverExports(kMajor, i)) << EntrySymbol(i);
    exported += here;
  }
  EXPECT_EQ(exported, Info().exported_count);
}

TEST_F(RealDriver, BindAllBindsEveryOwnEntryNatively) {
  auto driver = Open();
  ASSERT_TRUE(driver->ok());
  driver->BindAll();
  const int version = Info().cuda_version;
  int native = 0;
  for (int i = 0; i < kEntryCount; ++i) {
    const EntryInfo& e = kEntries[i];
    std::string symbol(EntrySymbol(i));
    if (RealDriverExports(kMajor, i) && e.abi_version <= version) {
      EXPECT_EQ(driver->status(i), EntryStatus::kNative) << symbol;
      EXPECT_EQ(driver->driver_symbol(i), symbol) << symbol;
      BindVia expected = !e.gpa_reachable || driver->strategy() == Strategy::kDlsym
                             ? BindVia::kDlsym
                             : (driver->strategy() == Strategy::kGetProcAddressV2
                                    ? BindVia::kGetProcAddressV2
                                    : BindVia::kGetProcAddress);
      EXPECT_EQ(driver->via(i), expected) << symbol;
      ++native;
    } else {
      // Above the driver's version (or not exported): never native.
      EXPECT_NE(driver->status(i), EntryStatus::kNative) << symbol;
      EXPECT_NE(driver->status(i), EntryStatus::kUnbound) << symbol;
    }
  }
  EXPECT_GT(native, 400);
}

TEST_F(RealDriver, CtxCreateVariants) {
  auto driver = Open();
  ASSERT_TRUE(driver->ok());
  driver->BindAll();
  EXPECT_EQ(driver->driver_symbol(kEntry_cuCtxCreate_v2), "cuCtxCreate_v2");
  if (Info().cuda_version >= 11040) {
    EXPECT_EQ(driver->status(kEntry_cuCtxCreate_v3), EntryStatus::kNative);
    ExpectAdaptedTo(*driver, kEntry_cuCtxCreate_v4, "cuCtxCreate_v3");
  } else {
    ExpectAdaptedTo(*driver, kEntry_cuCtxCreate_v3, "cuCtxCreate_v2");
    ExpectAdaptedTo(*driver, kEntry_cuCtxCreate_v4, "cuCtxCreate_v2");
  }
  // cuMemAdvise_v2 is native from 12.2 on, adapted to cuMemAdvise before.
  if (Info().cuda_version >= 12020) {
    EXPECT_EQ(driver->status(kEntry_cuMemAdvise_v2), EntryStatus::kNative);
  } else {
    ExpectAdaptedTo(*driver, kEntry_cuMemAdvise_v2, "cuMemAdvise");
  }
}

TEST_F(RealDriver, InitReturnsNoDeviceCleanly) {
  auto driver = Open();
  ASSERT_TRUE(driver->ok());
  auto init = reinterpret_cast<int (*)(unsigned)>(driver->Resolve(kEntry_cuInit));
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init(0), kCudaErrorNoDevice);
}

TEST_F(RealDriver, ClampsBehaveAsOlderDrivers) {
  for (int clamp : {10010, 11040, 12020}) {
    if (clamp >= Info().cuda_version) continue;
    auto driver = Open(clamp);
    ASSERT_TRUE(driver->ok());
    EXPECT_EQ(driver->effective_version(), clamp);
    EXPECT_EQ(driver->strategy(), ExpectedStrategy(clamp)) << clamp;
    driver->BindAll();
    for (int i = 0; i < kEntryCount; ++i) {
      if (kEntries[i].abi_version > clamp) {
        EXPECT_NE(driver->status(i), EntryStatus::kNative) << EntrySymbol(i) << " @" << clamp;
      } else if (RealDriverExports(kMajor, i)) {
        EXPECT_EQ(driver->driver_symbol(i), EntrySymbol(i)) << EntrySymbol(i) << " @" << clamp;
      }
    }
    ExpectAdaptedTo(*driver, kEntry_cuMemAdvise_v2, "cuMemAdvise");
  }
}

TEST_F(RealDriver, PerThreadDefaultStreamServesLegacyEntriesWithTheirSiblings) {
  auto driver = Open(std::nullopt, /*per_thread=*/true);
  ASSERT_TRUE(driver->ok());
  driver->BindAll();
  EXPECT_EQ(driver->driver_symbol(kEntry_cuMemcpyHtoD_v2), "cuMemcpyHtoD_v2_ptds");
  EXPECT_EQ(driver->driver_symbol(kEntry_cuStreamQuery), "cuStreamQuery_ptsz");
  EXPECT_EQ(driver->driver_symbol(kEntry_cuCtxSynchronize), "cuCtxSynchronize");  // no sibling
  EXPECT_EQ(driver->driver_symbol(kEntry_cuMemcpyHtoD_v2_ptds), "cuMemcpyHtoD_v2_ptds");
}

TEST_F(RealDriver, SixtyFourThreadsFirstCallingEveryEntry) {
  auto reference = Open();
  ASSERT_TRUE(reference->ok());
  reference->BindAll();
  auto driver = Open();
  ASSERT_TRUE(driver->ok());
  constexpr int kThreads = 64;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::vector<void*>> seen(kThreads, std::vector<void*>(kEntryCount));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      // Each thread walks the table from a different start so first calls collide.
      for (int k = 0; k < kEntryCount; ++k) {
        int i = (k + t * 11) % kEntryCount;
        seen[t][i] = driver->Resolve(i);
      }
    });
  }
  while (ready.load() < kThreads) std::this_thread::yield();
  go.store(true);
  for (auto& th : threads) th.join();
  for (int i = 0; i < kEntryCount; ++i) {
    void* expected = reference->Resolve(i);
    bool custom = driver->status(i) == EntryStatus::kAdapter &&
                  kEntries[i].adapter == AdapterKind::kCustom;
    for (int t = 0; t < kThreads; ++t) {
      if (custom) {
        // Custom adapters are per-driver instances; all threads agree on this driver's one.
        ASSERT_EQ(seen[t][i], seen[0][i]) << EntrySymbol(i);
      } else {
        ASSERT_EQ(seen[t][i], expected) << EntrySymbol(i) << " thread " << t;
      }
    }
    EXPECT_EQ(driver->status(i), reference->status(i)) << EntrySymbol(i);
  }
}

}  // namespace
}  // namespace cudyn
