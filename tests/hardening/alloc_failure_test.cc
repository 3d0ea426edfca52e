// Out of memory in the loader, the same for every library it binds: each allocation of an Open,
// of a bind and of the default instance is failed in turn (this binary replaces operator new),
// and the driver, the runtime, NVRTC and cuBLAS must answer alike —
//   * the object or its entry table cannot be allocated: Open returns null (the first four
//     allocations: object, table, slot array, per-entry flags);
//   * a later allocation fails during discovery: an object that is either open or reports the
//     library's "no library" error (303, NVRTC_ERROR_INTERNAL_ERROR,
//     CUBLAS_STATUS_NOT_INITIALIZED), whose every entry then answers missing;
//   * a bind runs out of memory: the entry stays unbound and binds on the next call;
//   * the default instance cannot be allocated: an unopened instance whose calls answer that error.
// NVRTC and cuBLAS are the generated 12.2 fakes of tests/fake_toolkit (named by their explicit
// path), each opened through the toolkit template with its traits (loader/toolkit.h
// Toolkit::Open).
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "gtest/gtest.h"
#include "loader/cublas.h"
#include "loader/cudart.h"
#include "loader/cudyn.h"
#include "loader/nvrtc.h"
#include "tests/fake_driver/fake_versions.h"
#include "tests/util/runfiles.h"

namespace {

// -1: no injection. n >= 0: the allocation n from now fails; with g_persistent every later one
// fails too (memory stays exhausted), else only that one (a transient failure).
std::atomic<long> g_countdown{-1};
std::atomic<bool> g_persistent{false};
std::atomic<long> g_failed{0};

bool ShouldFail() {
  long n = g_countdown.load(std::memory_order_relaxed);
  if (n < 0) return false;
  if (n > 0) {
    g_countdown.store(n - 1, std::memory_order_relaxed);
    return false;
  }
  if (!g_persistent.load(std::memory_order_relaxed)) g_countdown.store(-1);
  g_failed.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void Inject(long n, bool persistent) {
  g_failed.store(0);
  g_persistent.store(persistent);
  g_countdown.store(n);
}
void StopInjecting() { g_countdown.store(-1); }

}  // namespace

void* operator new(size_t size) {
  if (ShouldFail()) throw std::bad_alloc();
  if (void* p = std::malloc(size != 0 ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return ShouldFail() ? nullptr : std::malloc(size != 0 ? size : 1);
}
void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace cudyn {
namespace {

// What the test needs of each library: its class, options and how it is opened, the option that
// names the fake it opens and that fake, the driver version it is told (0: none, it is the driver),
// its entry count, its "no library" code, and the variable that names it for the default instance
// and that instance.
template <class Lib, class Opts, std::unique_ptr<Lib> (*kOpen)(const Opts&),
          std::string Opts::*kPathOption, std::string (*kFake)(), int kToldDriverVersion,
          int kEntries, int kNoLibraryCode, const char* kVariable, Lib& (*kDefault)()>
struct Side {
  using Library = Lib;
  static std::string Path() { return kFake(); }
  static Opts Options() {
    Opts options;
    options.*kPathOption = Path();
    if constexpr (kToldDriverVersion != 0) options.driver_version = kToldDriverVersion;
    return options;
  }
  static std::unique_ptr<Lib> Open(const Opts& options) { return kOpen(options); }
  static constexpr int kCount = kEntries;
  static constexpr int kNoLibrary = kNoLibraryCode;
  static constexpr const char* kPathVariable = kVariable;
  static Lib& Default() { return kDefault(); }
};

std::string FakeDriver() { return testing::FakeDriverPath(12080); }
std::string FakeRuntime() { return testing::Runfile("tests/fake_runtime/12.5/libcudart.so.12"); }
std::string FakeNvrtc() { return testing::Runfile("tests/fake_toolkit/nvrtc_12.2/libnvrtc.so.12"); }
std::string FakeCublas() { return testing::Runfile("tests/fake_toolkit/cublas_12.2/libcublas.so.12"); }
constexpr char kDriverVariable[] = "CUDYN_DRIVER_PATH";
constexpr char kRuntimeVariable[] = "CUDYN_CUDART_PATH";
constexpr char kNvrtcVariable[] = "CUDYN_NVRTC_PATH";
constexpr char kCublasVariable[] = "CUDYN_CUBLAS_PATH";

// The toolkit libraries share one class: each is opened with its traits.
std::unique_ptr<Toolkit> OpenNvrtc(const ToolkitOptions& options) {
  return Toolkit::Open(kNvrtcTraits, options);
}
std::unique_ptr<Toolkit> OpenCublas(const ToolkitOptions& options) {
  return Toolkit::Open(kCublasTraits, options);
}

using DriverSide = Side<Driver, DriverOptions, &Driver::Open, &DriverOptions::driver_path,
                        FakeDriver, 0, kEntryCount, kCudaErrorSharedObjectInitFailed,
                        kDriverVariable, DefaultDriver>;
using RuntimeSide = Side<Runtime, RuntimeOptions, &Runtime::Open, &RuntimeOptions::runtime_path,
                         FakeRuntime, 13000, kCudartEntryCount, kCudartErrorInitFailed,
                         kRuntimeVariable, DefaultRuntime>;
using NvrtcSide = Side<Toolkit, ToolkitOptions, OpenNvrtc, &ToolkitOptions::path, FakeNvrtc, 12080,
                       kNvrtcEntryCount, kNvrtcNoLibrary, kNvrtcVariable, DefaultNvrtc>;
using CublasSide = Side<Toolkit, ToolkitOptions, OpenCublas, &ToolkitOptions::path, FakeCublas,
                        12080, kCublasEntryCount, kCublasNoLibrary, kCublasVariable,
                        DefaultCublas>;

template <class Side>
class AllocFailureTest : public ::testing::Test {};
using Sides = ::testing::Types<DriverSide, RuntimeSide, NvrtcSide, CublasSide>;
TYPED_TEST_SUITE(AllocFailureTest, Sides);

// The library's answers when nothing could be bound: every entry missing, no function.
template <class Side>
void ExpectEverythingMissing(typename Side::Library& lib) {
  EXPECT_FALSE(lib.ok());
  EXPECT_EQ(lib.error(), Side::kNoLibrary);
  EXPECT_EQ(lib.missing_result(), Side::kNoLibrary);
  EXPECT_EQ(lib.Resolve(0), nullptr);
  EXPECT_EQ(lib.Resolve(Side::kCount - 1), nullptr);
  EXPECT_EQ(lib.BindAll(), Side::kCount);
  EXPECT_EQ(lib.status(0), EntryStatus::kMissing);
}

TYPED_TEST(AllocFailureTest, EachAllocationOfOpenFailsInTurn) {
  using Side = TypeParam;
  ASSERT_FALSE(Side::Path().empty());
  const auto options = Side::Options();  // built before any allocation is failed
  int baseline_missing = 0;
  {
    auto lib = Side::Open(options);
    ASSERT_TRUE(lib && lib->ok()) << (lib ? lib->last_error() : "null");
    baseline_missing = lib->BindAll();
  }
  for (bool persistent : {false, true}) {
    int nulls = 0, opened = 0, failed = 0;
    for (long n = 0;; ++n) {
      Inject(n, persistent);
      std::unique_ptr<typename Side::Library> lib;
      bool threw = false;
      try {
        lib = Side::Open(options);
      } catch (...) {
        threw = true;
      }
      StopInjecting();
      ASSERT_FALSE(threw) << "Open let an exception escape at allocation " << n;
      if (g_failed.load() == 0) {  // Open needs fewer than n allocations: every one was tried
        ASSERT_TRUE(lib && lib->ok());
        break;
      }
      ASSERT_LT(n, 100000) << "no end to Open's allocations";
      if (n < 4) {
        // The object, the table, its slots, its flags: nothing to answer with.
        EXPECT_EQ(lib, nullptr) << "allocation " << n;
      }
      if (lib == nullptr) {
        ++nulls;
        continue;
      }
      if (lib->ok()) {
        ++opened;
        // A failure Open absorbed (a text, a candidate record): binding is whole afterwards.
        EXPECT_EQ(lib->BindAll(), baseline_missing) << "allocation " << n;
      } else {
        ++failed;
        ExpectEverythingMissing<Side>(*lib);
      }
    }
    EXPECT_GE(nulls, 4) << (persistent ? "persistent" : "transient");
    EXPECT_GT(opened + failed, 0);
  }
}

TYPED_TEST(AllocFailureTest, BindingOutOfMemoryLeavesEntriesToRetry) {
  using Side = TypeParam;
  const auto options = Side::Options();
  auto reference = Side::Open(options);
  ASSERT_TRUE(reference && reference->ok());
  const int baseline_missing = reference->BindAll();
  auto lib = Side::Open(options);
  ASSERT_TRUE(lib && lib->ok());
  Inject(0, /*persistent=*/true);
  const int missing_under_oom = lib->BindAll();
  (void)lib->Resolve(0);
  (void)lib->last_error();
  StopInjecting();
  EXPECT_GE(missing_under_oom, baseline_missing);
  // Whatever could not be decided for lack of memory is decided now, the same as without it.
  EXPECT_EQ(lib->BindAll(), baseline_missing);
  for (int i = 0; i < Side::kCount; ++i) {
    ASSERT_EQ(lib->status(i), reference->status(i)) << i;
  }
}

// The default instance, out of memory from its first allocation on: an unopened instance (in a
// child process: the default instance is opened once per process).
TYPED_TEST(AllocFailureTest, DefaultInstanceWithoutMemoryAnswersNoLibrary) {
  using Side = TypeParam;
  const std::string path = Side::Path();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv(Side::kPathVariable, path.c_str(), 1);
    setenv(kDriverVariable, FakeDriver().c_str(), 1);
    Inject(0, /*persistent=*/true);
    typename Side::Library& lib = Side::Default();
    const bool unopened = !lib.ok() && lib.error() == Side::kNoLibrary &&
                          lib.missing_result() == Side::kNoLibrary && lib.Resolve(0) == nullptr &&
                          lib.BindAll() == Side::kCount &&
                          lib.status(0) == EntryStatus::kMissing;
    StopInjecting();
    // With memory back, the instance stays what it was (it is opened once) and still answers.
    const bool stays = !lib.ok() && lib.Resolve(1) == nullptr;
    _exit(unopened && stays ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child crashed (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace cudyn
