// The runtime loader (loader/cudart.h) against the generated fake runtimes (//tests/fake_runtime):
// which runtime each driver version gets, how the version is learnt, what binds natively, and
// every adapter's translation checked in the fake's call log (arguments as the old prototype
// received them), including cudaDeviceProp converted field by field between the three layouts.
// CudartEveryVersion runs each adapter on every fake (10.0 ... 13.0).
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudart.h"
#include "tests/fake_runtime/fake_runtime_control.h"
#include "tests/util/device_prop_fields.h"
#include "tests/util/file_bytes.h"
#include "tests/util/runfiles.h"

namespace cudyn {
namespace {

struct Fake {
  const char* version;
  const char* soname;
  int reported;
  int family;
};
// Every fake (tests/fake_runtime/versions.bzl), oldest first.
constexpr Fake kFakes[] = {
#include "tests/fake_runtime/fake_runtimes.inc"
};

const Fake& FakeOf(const std::string& version) {
  for (const Fake& f : kFakes) {
    if (version == f.version) return f;
  }
  ADD_FAILURE() << "no fake " << version;
  return kFakes[0];
}

std::string FakePath(const std::string& version) {
  return testing::Runfile("tests/fake_runtime/" + version + "/" + FakeOf(version).soname);
}
std::string FakeDir(const std::string& version) {
  std::string p = FakePath(version);
  return p.substr(0, p.rfind('/'));
}

// Opens exactly one fake (as an explicit path) for a driver of `driver`.
std::unique_ptr<Runtime> OpenFake(const std::string& version, int driver = 13000) {
  RuntimeOptions o;
  o.runtime_path = FakePath(version);
  o.driver_version = driver;
  auto rt = Runtime::Open(o);
  EXPECT_TRUE(rt && rt->ok()) << version << ": " << (rt ? rt->last_error() : "null");
  return rt;
}

// The fake's control API, found in the fake the Runtime opened.
struct Control {
  explicit Control(const Runtime& rt) : h(rt.handle()) { Reset(); }
  template <typename Fn>
  Fn F(const char* name) const {
    void* p = dlsym(h, name);
    EXPECT_NE(p, nullptr) << name;
    return reinterpret_cast<Fn>(p);
  }
  void Reset() const { F<void (*)()>("fake_cudart_reset")(); }
  int Calls(const char* symbol) const {
    return F<int (*)(const char*)>("fake_cudart_call_count")(symbol);
  }
  template <typename T>
  T Arg(const char* symbol, int index) const {
    T value{};
    int n = F<int (*)(const char*, int, void*, size_t)>("fake_cudart_last_arg")(symbol, index,
                                                                              &value, sizeof(T));
    EXPECT_EQ(n, static_cast<int>(sizeof(T))) << symbol << " arg " << index;
    return value;
  }
  void SetResult(const char* symbol, int rc) const {
    F<void (*)(const char*, int)>("fake_cudart_set_result")(symbol, rc);
  }
  template <typename T>
  void SetOut(const char* symbol, int index, const T& value) const {
    F<void (*)(const char*, int, const void*, size_t)>("fake_cudart_set_out")(symbol, index,
                                                                             &value, sizeof(T));
  }
  int ChosenField(const char* field, void* out, size_t size) const {
    return F<int (*)(const char*, void*, size_t)>("fake_cudart_chosen_field")(field, out, size);
  }
  void* h;
};

template <typename Fn>
Fn Entry(Runtime& rt, int index) {
  return reinterpret_cast<Fn>(rt.Resolve(index));
}

// ---- choice of runtime --------------------------------------------------------------------------

std::vector<std::string> AllFakeDirs() {
  std::vector<std::string> dirs;
  for (int i = sizeof(kFakes) / sizeof(kFakes[0]) - 1; i >= 0; --i) {
    dirs.push_back(FakeDir(kFakes[i].version));  // newest first
  }
  return dirs;
}

TEST(CudartChoice, NewestFamilyTheDriverSupports) {
  struct Case {
    int driver;
    const char* expect;  // fake version, or "" for none
  } cases[] = {
      {13000, "13.0"}, {13010, "13.0"}, {12080, "12.8"}, {12000, "12.8"}, {11080, "11.8"},
      {11000, "11.8"}, {10020, "10.2"}, {10010, "10.0"}, {10000, "10.0"}, {9020, ""},
  };
  for (const Case& c : cases) {
    RuntimeOptions o;
    o.search_paths = AllFakeDirs();
    o.driver_version = c.driver;
    auto rt = Runtime::Open(o);
    ASSERT_NE(rt, nullptr);
    if (c.expect[0] == '\0') {
      EXPECT_FALSE(rt->ok()) << c.driver;
      EXPECT_EQ(rt->error(), 303);
      EXPECT_NE(rt->last_error().find("no usable CUDA runtime"), std::string::npos);
      continue;
    }
    ASSERT_TRUE(rt->ok()) << c.driver << ": " << rt->last_error();
    EXPECT_EQ(rt->path(), FakePath(c.expect)) << c.driver;
    EXPECT_EQ(rt->family(), FakeOf(c.expect).family);
    EXPECT_EQ(rt->version(), FakeOf(c.expect).reported);
    EXPECT_EQ(rt->version_source(), "cudaRuntimeGetVersion");
    EXPECT_EQ(rt->found_by(), RuntimeSource::kSearchPath);
    // Every family the driver cannot run is recorded as skipped, with why.
    int skipped = 0;
    for (const RuntimeCandidate& cand : rt->candidates()) {
      if (cand.rejection == RuntimeRejection::kDriverTooOld) {
        ++skipped;
        EXPECT_GT(cand.family, 0);
        EXPECT_NE(cand.reason.find("cannot run"), std::string::npos);
      }
    }
    EXPECT_EQ(skipped > 0, c.driver < 13000) << c.driver;
  }
}

TEST(CudartChoice, ClampChoosesAnOlderFamily) {
  RuntimeOptions o;
  o.search_paths = AllFakeDirs();
  o.driver_version = 13000;
  o.max_cuda_version = 11040;
  auto rt = Runtime::Open(o);
  ASSERT_TRUE(rt->ok()) << rt->last_error();
  EXPECT_EQ(rt->family(), 11);
  EXPECT_EQ(rt->driver_version(), 11040);
}

TEST(CudartChoice, ExplicitPathIsTakenEvenWhenTheDriverIsTooOld) {
  RuntimeOptions o;
  o.runtime_path = FakePath("13.0");
  o.driver_version = 12020;
  auto rt = Runtime::Open(o);
  ASSERT_TRUE(rt->ok()) << rt->last_error();
  EXPECT_EQ(rt->family(), 13);
  EXPECT_EQ(rt->found_by(), RuntimeSource::kOption);
  ASSERT_FALSE(rt->warnings().empty());
  EXPECT_NE(rt->warnings()[0].find("35"), std::string::npos);
}

TEST(CudartChoice, RuntimesOfNoBoundFamilyAreTypedRejections) {
  struct Case {
    const char* file;
    int family;  // what the SONAME says, recorded with the rejection
  } cases[] = {{"libcudart.so.9.2", 9}, {"libnotcudart.so.1", 0}};
  for (const Case& c : cases) {
    RuntimeOptions o;
    o.runtime_path = testing::Runfile(std::string("tests/cudart_fake/no_family/") + c.file);
    o.driver_version = 13000;
    auto rt = Runtime::Open(o);
    ASSERT_NE(rt, nullptr);
    EXPECT_FALSE(rt->ok()) << c.file;
    ASSERT_EQ(rt->candidates().size(), 1u) << c.file;
    const RuntimeCandidate& cand = rt->candidates()[0];
    EXPECT_EQ(cand.rejection, RuntimeRejection::kUnknownFamily) << c.file << ": " << cand.reason;
    EXPECT_EQ(cand.family, c.family) << c.file;
    EXPECT_NE(rt->last_error().find(c.file), std::string::npos) << rt->last_error();
  }
}

TEST(CudartChoice, BadExplicitPathsAreClearErrors) {
  const std::string tmp = testing::MakeTempDir("bad_runtimes");
  // A truncated copy of a real-looking runtime, a text file, a relative path, a library that
  // is not a runtime (this test's own libc).
  std::string truncated = tmp + "/libcudart.so.12";
  {
    const std::string bytes = cudyn::testing::ReadFileBytes(FakePath("12.4"));
    std::ofstream(truncated, std::ios::binary).write(bytes.data(), 3000);
  }
  std::string text = tmp + "/libcudart.so.13";
  std::ofstream(text) << "not a library\n";
  // A whole runtime for another architecture: e_machine (offset 18) says AArch64 (183).
  std::string foreign = tmp + "/aarch64/libcudart.so.12";
  {
    std::string bytes = cudyn::testing::ReadFileBytes(FakePath("12.4"));
    bytes[18] = static_cast<char>(183);
    bytes[19] = 0;
    mkdir((tmp + "/aarch64").c_str(), 0755);
    std::ofstream(foreign, std::ios::binary).write(bytes.data(), bytes.size());
  }
  struct Case {
    std::string path;
    RuntimeRejection rejection;
  } cases[] = {
      {truncated, RuntimeRejection::kUnloadableFile},
      {foreign, RuntimeRejection::kUnloadableFile},  // "an ELF for another architecture"
      {text, RuntimeRejection::kDlopenFailed},
      {"libcudart.so.12", RuntimeRejection::kNotAbsolute},
      {tmp, RuntimeRejection::kUnloadableFile},
      {tmp + "/missing.so", RuntimeRejection::kUnloadableFile},
      {"/lib/x86_64-linux-gnu/libm.so.6", RuntimeRejection::kNotARuntime},
  };
  for (const Case& c : cases) {
    RuntimeOptions o;
    o.runtime_path = c.path;
    o.driver_version = 13000;
    auto rt = Runtime::Open(o);
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(rt->error(), 303) << c.path;
    ASSERT_EQ(rt->candidates().size(), 1u) << c.path;
    EXPECT_EQ(rt->candidates()[0].rejection, c.rejection)
        << c.path << ": " << rt->candidates()[0].reason;
    EXPECT_NE(rt->last_error().find(c.path), std::string::npos) << rt->last_error();
    // Nothing crashes and every entry answers 303 when called.
    EXPECT_EQ(rt->Resolve(kCudart_cudaGetDeviceCount), nullptr);
    EXPECT_EQ(rt->missing_result(), 303);
  }
}

TEST(CudartChoice, NothingFound) {
  RuntimeOptions o;
  o.search_paths = std::vector<std::string>{testing::MakeTempDir("empty_runtime_dir")};
  o.driver_version = 13000;
  auto rt = Runtime::Open(o);
  EXPECT_EQ(rt->error(), 303);
  EXPECT_EQ(rt->BindAll(), kCudartEntryCount);
}

// ---- version ------------------------------------------------------------------------------------

TEST(CudartVersion, EveryFakeReportsItsVersion) {
  for (const Fake& f : kFakes) {
    auto rt = OpenFake(f.version);
    ASSERT_TRUE(rt->ok());
    EXPECT_EQ(rt->family(), f.family) << f.version;
    EXPECT_EQ(rt->version(), f.reported) << f.version;
  }
}

TEST(CudartVersion, WithoutAnAnswerTheSonameAndSymbolsDecide) {
  // 11.x answers 35 and writes nothing when no usable driver is present.
  const std::string path = FakePath("11.8");
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  reinterpret_cast<void (*)(const char*, int)>(dlsym(h, "fake_cudart_set_result"))(
      "cudaRuntimeGetVersion", 35);
  RuntimeOptions o;
  o.runtime_path = path;
  o.driver_version = 13000;
  auto rt = Runtime::Open(o);
  ASSERT_TRUE(rt->ok());
  EXPECT_EQ(rt->family(), 11);
  // 11.8 exports functions 11.2 lacks, so it is at least 11.8.
  EXPECT_EQ(rt->version(), 11080);
  EXPECT_NE(rt->version_source().find("returned 35"), std::string::npos) << rt->version_source();
  reinterpret_cast<void (*)()>(dlsym(h, "fake_cudart_reset"))();
  dlclose(h);
}

TEST(CudartVersion, AbsurdAnswersAreNotBelieved) {
  // A runtime that answers a version of another family, zero, negative or absurd: the SONAME and
  // the symbols present decide, and the answer is named in version_source.
  const std::string path = FakePath("12.5");
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  auto set_out = reinterpret_cast<void (*)(const char*, int, const void*, size_t)>(
      dlsym(h, "fake_cudart_set_out"));
  for (int answer : {11080, 0, -1, 999999, 13000}) {
    set_out("cudaRuntimeGetVersion", 0, &answer, sizeof(answer));
    RuntimeOptions o;
    o.runtime_path = path;
    o.driver_version = 13000;
    auto rt = Runtime::Open(o);
    ASSERT_TRUE(rt->ok()) << answer;
    EXPECT_EQ(rt->family(), 12) << answer;
    // 12.5 exports functions 12.4 lacks: at least 12.5 by its symbols.
    EXPECT_EQ(rt->version(), 12050) << answer;
    EXPECT_NE(rt->version_source().find("SONAME and symbols"), std::string::npos)
        << answer << ": " << rt->version_source();
  }
  reinterpret_cast<void (*)()>(dlsym(h, "fake_cudart_reset"))();
  dlclose(h);
}

// ---- binding ------------------------------------------------------------------------------------

TEST(CudartBinding, KnownVariantsPerFamily) {
  struct Case {
    const char* fake;
    int index;
    EntryStatus status;
    const char* symbol;  // the runtime symbol for native entries
  } cases[] = {  // version facts: checked against kFakes (cases picked by family)
      {"13.0", kCudart_cudaMemAdvise, EntryStatus::kNative, "cudaMemAdvise"},
      {"12.5", kCudart_cudaMemAdvise, EntryStatus::kNative, "cudaMemAdvise_v2"},
      {"12.0", kCudart_cudaMemAdvise, EntryStatus::kNative, "cudaMemAdvise_v2"},
      {"11.8", kCudart_cudaMemAdvise, EntryStatus::kAdapter, ""},
      {"10.0", kCudart_cudaMemAdvise, EntryStatus::kAdapter, ""},
      {"12.4", kCudart_cudaStreamGetCaptureInfo, EntryStatus::kNative, "cudaStreamGetCaptureInfo_v3"},
      {"12.0", kCudart_cudaStreamGetCaptureInfo, EntryStatus::kAdapter, ""},
      {"12.4", kCudart_cudaGraphInstantiate, EntryStatus::kNative, "cudaGraphInstantiate"},
      {"11.8", kCudart_cudaGraphInstantiate, EntryStatus::kAdapter, ""},
      {"12.5", kCudart_cudaGetDeviceProperties, EntryStatus::kAdapter, ""},
      {"13.0", kCudart_cudaGetDeviceProperties, EntryStatus::kNative, "cudaGetDeviceProperties"},
      {"11.2", kCudart_cudaMemcpy, EntryStatus::kNative, "cudaMemcpy"},
      {"11.8", kCudart_cudaGraphAddNode, EntryStatus::kAdapter, ""},
      {"11.8", kCudart_cudaGetKernel, EntryStatus::kMissing, ""},
      // 11.2 has no cudaGetDriverEntryPoint: the driver answers it (see DriverEntryPoint).
      {"11.2", kCudart_cudaGetDriverEntryPoint, EntryStatus::kAdapter, ""},
      {"11.8", kCudart_cudaGetDriverEntryPoint, EntryStatus::kAdapter, ""},
  };
  for (const Case& c : cases) {
    auto rt = OpenFake(c.fake);
    void* fn = rt->Resolve(c.index);
    EXPECT_EQ(rt->status(c.index), c.status) << c.fake << " " << CudartSymbol(c.index);
    EXPECT_EQ(fn != nullptr, c.status != EntryStatus::kMissing);
    EXPECT_EQ(rt->bound_symbol(c.index), c.symbol) << c.fake << " " << CudartSymbol(c.index);
    if (c.status == EntryStatus::kNative) {
      EXPECT_EQ(fn, dlsym(rt->handle(), c.symbol));
    }
    if (c.status == EntryStatus::kMissing) {
      EXPECT_NE(rt->last_error().find(std::string(CudartSymbol(c.index))), std::string::npos);
      EXPECT_NE(rt->last_error().find(rt->path()), std::string::npos);
    }
  }
}

TEST(CudartBinding, The13RuntimeServesEveryEntryNatively) {
  auto rt = OpenFake("13.0");
  EXPECT_EQ(rt->BindAll(), 0);
  for (int i = 0; i < kCudartEntryCount; ++i) {
    EXPECT_EQ(rt->status(i), EntryStatus::kNative) << CudartSymbol(i);
    EXPECT_EQ(rt->bound_symbol(i), CudartSymbol(i));
  }
}

TEST(CudartBinding, ConcurrentFirstCallsAgree) {
  auto rt = OpenFake("12.4");
  std::vector<std::vector<void*>> seen(8, std::vector<void*>(kCudartEntryCount));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kCudartEntryCount; ++k) {
        int i = (k + t * 37) % kCudartEntryCount;  // each thread starts elsewhere
        seen[t][i] = rt->Resolve(i);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < 8; ++t) EXPECT_EQ(seen[t], seen[0]);
}

// ---- adapters: the arguments the old prototypes received ------------------------------------------

const void* const kPtr = reinterpret_cast<const void*>(0x7f0000001000);
const cudaStream_t kStream = reinterpret_cast<cudaStream_t>(0x5151);

cudaMemLocation Location(cudaMemLocationType type, int id) {
  cudaMemLocation l{};
  l.type = type;
  l.id = id;
  return l;
}

TEST(CudartAdapters, MemAdviseLocationToOrdinal) {
  for (const char* v : {"10.0", "11.2", "11.8"}) {
    auto rt = OpenFake(v);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaMemAdvise)>(*rt, kCudart_cudaMemAdvise);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(kPtr, 4096, cudaMemAdviseSetPreferredLocation, Location(cudaMemLocationTypeDevice, 3)),
              cudaSuccess);
    EXPECT_EQ(fake.Arg<const void*>("cudaMemAdvise", 0), kPtr);
    EXPECT_EQ(fake.Arg<size_t>("cudaMemAdvise", 1), 4096u);
    EXPECT_EQ(fake.Arg<int>("cudaMemAdvise", 2), cudaMemAdviseSetPreferredLocation);
    EXPECT_EQ(fake.Arg<int>("cudaMemAdvise", 3), 3);
    EXPECT_EQ(fn(kPtr, 64, cudaMemAdviseSetAccessedBy, Location(cudaMemLocationTypeHost, 0)),
              cudaSuccess);
    EXPECT_EQ(fake.Arg<int>("cudaMemAdvise", 3), cudaCpuDeviceId);
    EXPECT_EQ(fake.Calls("cudaMemAdvise"), 2);
    EXPECT_EQ(fn(kPtr, 64, cudaMemAdviseSetAccessedBy, Location(cudaMemLocationTypeHostNuma, 1)),
              cudaErrorNotSupported);
    EXPECT_EQ(fake.Calls("cudaMemAdvise"), 2);
    EXPECT_NE(rt->last_error().find("cudaMemLocation"), std::string::npos);
    // The runtime's own result comes back.
    fake.SetResult("cudaMemAdvise", cudaErrorInvalidDevice);
    EXPECT_EQ(fn(kPtr, 64, cudaMemAdviseSetAccessedBy, Location(cudaMemLocationTypeDevice, 9)),
              cudaErrorInvalidDevice);
  }
}

TEST(CudartAdapters, MemAdviseIsNativeOn12WithTheLocation) {
  auto rt = OpenFake("12.5");
  Control fake(*rt);
  auto fn = Entry<decltype(&cudaMemAdvise)>(*rt, kCudart_cudaMemAdvise);
  cudaMemLocation loc = Location(cudaMemLocationTypeHostNuma, 5);
  EXPECT_EQ(fn(kPtr, 64, cudaMemAdviseSetReadMostly, loc), cudaSuccess);
  EXPECT_EQ(fake.Calls("cudaMemAdvise"), 0);
  cudaMemLocation got = fake.Arg<cudaMemLocation>("cudaMemAdvise_v2", 3);
  EXPECT_EQ(got.type, cudaMemLocationTypeHostNuma);
  EXPECT_EQ(got.id, 5);
}

TEST(CudartAdapters, MemPrefetchLocationToOrdinal) {
  auto rt = OpenFake("11.8");
  Control fake(*rt);
  auto fn = Entry<decltype(&cudaMemPrefetchAsync)>(*rt, kCudart_cudaMemPrefetchAsync);
  EXPECT_EQ(fn(kPtr, 1 << 20, Location(cudaMemLocationTypeDevice, 2), 0, kStream), cudaSuccess);
  EXPECT_EQ(fake.Arg<const void*>("cudaMemPrefetchAsync", 0), kPtr);
  EXPECT_EQ(fake.Arg<size_t>("cudaMemPrefetchAsync", 1), size_t{1} << 20);
  EXPECT_EQ(fake.Arg<int>("cudaMemPrefetchAsync", 2), 2);
  EXPECT_EQ(fake.Arg<cudaStream_t>("cudaMemPrefetchAsync", 3), kStream);
  EXPECT_EQ(fn(kPtr, 8, Location(cudaMemLocationTypeHost, 0), 0, kStream), cudaSuccess);
  EXPECT_EQ(fake.Arg<int>("cudaMemPrefetchAsync", 2), cudaCpuDeviceId);
  EXPECT_EQ(fn(kPtr, 8, Location(cudaMemLocationTypeDevice, 0), 1, kStream), cudaErrorNotSupported);
  EXPECT_EQ(fake.Calls("cudaMemPrefetchAsync"), 2);
  // The per-thread twin calls the per-thread old function.
  auto ptsz = Entry<decltype(&cudaMemPrefetchAsync)>(*rt, kCudart_cudaMemPrefetchAsync_ptsz);
  EXPECT_EQ(ptsz(kPtr, 8, Location(cudaMemLocationTypeDevice, 1), 0, kStream), cudaSuccess);
  EXPECT_EQ(fake.Calls("cudaMemPrefetchAsync_ptsz"), 1);
  EXPECT_EQ(fake.Arg<int>("cudaMemPrefetchAsync_ptsz", 2), 1);
}

TEST(CudartAdapters, GraphInstantiateFlags) {
  const cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6a);
  {
    auto rt = OpenFake("11.8");
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaGraphInstantiate)>(*rt, kCudart_cudaGraphInstantiate);
    cudaGraphExec_t exec = nullptr;
    EXPECT_EQ(fn(&exec, graph, 0), cudaSuccess);
    EXPECT_EQ(fake.Arg<cudaGraphExec_t*>("cudaGraphInstantiate", 0), &exec);
    EXPECT_EQ(fake.Arg<cudaGraph_t>("cudaGraphInstantiate", 1), graph);
    EXPECT_EQ(fake.Arg<void*>("cudaGraphInstantiate", 2), nullptr);
    EXPECT_EQ(fake.Arg<char*>("cudaGraphInstantiate", 3), nullptr);
    EXPECT_EQ(fake.Arg<size_t>("cudaGraphInstantiate", 4), 0u);
    EXPECT_EQ(fn(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
    EXPECT_EQ(fake.Calls("cudaGraphInstantiateWithFlags"), 1);
    EXPECT_EQ(fake.Arg<unsigned long long>("cudaGraphInstantiateWithFlags", 2),
              static_cast<unsigned long long>(cudaGraphInstantiateFlagAutoFreeOnLaunch));
  }
  {
    auto rt = OpenFake("11.2");  // no cudaGraphInstantiateWithFlags before 11.4
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaGraphInstantiate)>(*rt, kCudart_cudaGraphInstantiate);
    cudaGraphExec_t exec = nullptr;
    EXPECT_EQ(fn(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaErrorNotSupported);
    EXPECT_EQ(fake.Calls("cudaGraphInstantiate"), 0);
  }
}

TEST(CudartAdapters, GraphExecUpdateResultInfo) {
  auto rt = OpenFake("11.8");
  Control fake(*rt);
  auto fn = Entry<decltype(&cudaGraphExecUpdate)>(*rt, kCudart_cudaGraphExecUpdate);
  const cudaGraphNode_t node = reinterpret_cast<cudaGraphNode_t>(0xabc);
  fake.SetOut("cudaGraphExecUpdate", 2, node);
  fake.SetOut("cudaGraphExecUpdate", 3, cudaGraphExecUpdateErrorTopologyChanged);
  fake.SetResult("cudaGraphExecUpdate", cudaErrorGraphExecUpdateFailure);
  cudaGraphExecUpdateResultInfo info;
  std::memset(&info, 0x5a, sizeof(info));
  EXPECT_EQ(fn(reinterpret_cast<cudaGraphExec_t>(0x1), reinterpret_cast<cudaGraph_t>(0x2), &info),
            cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT_EQ(info.errorNode, node);
  EXPECT_EQ(info.errorFromNode, nullptr);
  EXPECT_EQ(fake.Arg<cudaGraphExec_t>("cudaGraphExecUpdate", 0),
            reinterpret_cast<cudaGraphExec_t>(0x1));
}

TEST(CudartAdapters, StreamGetCaptureInfoWithoutEdges) {
  // 12.0 (no _v3) and 11.8 use _v2; 11.2 has only v1.
  for (const char* v : {"12.0", "11.8"}) {
    auto rt = OpenFake(v);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaStreamGetCaptureInfo)>(*rt, kCudart_cudaStreamGetCaptureInfo);
    ASSERT_NE(fn, nullptr) << v;
    fake.SetOut("cudaStreamGetCaptureInfo_v2", 5, size_t{4});
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    cudaGraph_t graph = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    const cudaGraphEdgeData* edges = reinterpret_cast<const cudaGraphEdgeData*>(0x1);
    size_t n = 0;
    EXPECT_EQ(fn(kStream, &status, &id, &graph, &deps, &edges, &n), cudaSuccess) << v;
    EXPECT_EQ(fake.Calls("cudaStreamGetCaptureInfo_v2"), 1) << v;
    EXPECT_EQ(fake.Arg<cudaStream_t>("cudaStreamGetCaptureInfo_v2", 0), kStream);
    EXPECT_EQ(fake.Arg<size_t*>("cudaStreamGetCaptureInfo_v2", 5), &n);
    EXPECT_EQ(n, 4u);
    // Default edges only, reported as the 13.0 runtime does: n zeroed edge data.
    ASSERT_NE(edges, nullptr);
    const cudaGraphEdgeData zero{};
    for (size_t k = 0; k < n; ++k) EXPECT_EQ(std::memcmp(&edges[k], &zero, sizeof(zero)), 0);
  }
  auto rt = OpenFake("11.2");
  Control fake(*rt);
  auto fn = Entry<decltype(&cudaStreamGetCaptureInfo)>(*rt, kCudart_cudaStreamGetCaptureInfo);
  cudaStreamCaptureStatus status;
  unsigned long long id = 0;
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(fn(kStream, &status, &id, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
  EXPECT_EQ(fake.Calls("cudaStreamGetCaptureInfo"), 1);
  EXPECT_EQ(fake.Arg<unsigned long long*>("cudaStreamGetCaptureInfo", 2), &id);
  EXPECT_EQ(fn(kStream, &status, &id, &graph, nullptr, nullptr, nullptr), cudaErrorNotSupported);
  EXPECT_EQ(fake.Calls("cudaStreamGetCaptureInfo"), 1);
}

TEST(CudartAdapters, EdgeDataOnlyWhenDefault) {
  auto rt = OpenFake("12.0");
  Control fake(*rt);
  cudaGraphNode_t from[2] = {reinterpret_cast<cudaGraphNode_t>(0x10),
                             reinterpret_cast<cudaGraphNode_t>(0x11)};
  cudaGraphNode_t to[2] = {reinterpret_cast<cudaGraphNode_t>(0x20),
                           reinterpret_cast<cudaGraphNode_t>(0x21)};
  const cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6a);
  cudaGraphEdgeData edge_data[2] = {};
  auto add = Entry<decltype(&cudaGraphAddDependencies)>(*rt, kCudart_cudaGraphAddDependencies);
  EXPECT_EQ(add(graph, from, to, nullptr, 2), cudaSuccess);
  EXPECT_EQ(fake.Arg<const cudaGraphNode_t*>("cudaGraphAddDependencies", 1), from);
  EXPECT_EQ(fake.Arg<const cudaGraphNode_t*>("cudaGraphAddDependencies", 2), to);
  EXPECT_EQ(fake.Arg<size_t>("cudaGraphAddDependencies", 3), 2u);
  // All-default edge data is what NULL means (found by the runtime fuzzer's adapter mode: it was
  // refused); a non-default edge cannot be expressed before 12.3.
  EXPECT_EQ(add(graph, from, to, edge_data, 2), cudaSuccess);
  EXPECT_EQ(fake.Calls("cudaGraphAddDependencies"), 2);
  // An invalid edge (the Programmatic type out of the default port) gets the 13.0 runtime's 1; a
  // valid one (out of a kernel node's launch-completion port) cannot be expressed (801).
  edge_data[1].type = cudaGraphDependencyTypeProgrammatic;
  EXPECT_EQ(add(graph, from, to, edge_data, 2), cudaErrorInvalidValue);
  fake.SetOut("cudaGraphNodeGetType", 1, cudaGraphNodeTypeKernel);
  edge_data[1].from_port = cudaGraphKernelNodePortLaunchCompletion;
  EXPECT_EQ(add(graph, from, to, edge_data, 2), cudaErrorNotSupported);
  EXPECT_EQ(fake.Calls("cudaGraphAddDependencies"), 2);
  // Removing: no edge with a non-default port exists before 12.3 (1); the type is not compared.
  EXPECT_EQ(Entry<decltype(&cudaGraphRemoveDependencies)>(*rt, kCudart_cudaGraphRemoveDependencies)(
                graph, from, to, edge_data, 2),
            cudaErrorInvalidValue);
  EXPECT_EQ(fake.Calls("cudaGraphRemoveDependencies"), 0);

  auto remove =
      Entry<decltype(&cudaGraphRemoveDependencies)>(*rt, kCudart_cudaGraphRemoveDependencies);
  EXPECT_EQ(remove(graph, from, to, nullptr, 1), cudaSuccess);
  EXPECT_EQ(fake.Arg<size_t>("cudaGraphRemoveDependencies", 3), 1u);

  auto update = Entry<decltype(&cudaStreamUpdateCaptureDependencies)>(
      *rt, kCudart_cudaStreamUpdateCaptureDependencies);
  EXPECT_EQ(update(kStream, from, nullptr, 2, cudaStreamSetCaptureDependencies), cudaSuccess);
  EXPECT_EQ(fake.Arg<cudaGraphNode_t*>("cudaStreamUpdateCaptureDependencies", 1), from);
  EXPECT_EQ(fake.Arg<size_t>("cudaStreamUpdateCaptureDependencies", 2), 2u);
  EXPECT_EQ(fake.Arg<unsigned>("cudaStreamUpdateCaptureDependencies", 3),
            static_cast<unsigned>(cudaStreamSetCaptureDependencies));
  EXPECT_EQ(update(kStream, from, edge_data, 2, 0), cudaErrorNotSupported);
  edge_data[1] = cudaGraphEdgeData{};
  EXPECT_EQ(update(kStream, from, edge_data, 2, 0), cudaSuccess);
  EXPECT_EQ(fake.Calls("cudaStreamUpdateCaptureDependencies"), 2);

  // Edges out: default edges reported as zeroed edge data.
  std::memset(edge_data, 0xff, sizeof(edge_data));
  size_t count = 2;
  auto edges = Entry<decltype(&cudaGraphGetEdges)>(*rt, kCudart_cudaGraphGetEdges);
  EXPECT_EQ(edges(graph, from, to, edge_data, &count), cudaSuccess);
  EXPECT_EQ(fake.Arg<size_t*>("cudaGraphGetEdges", 3), &count);
  const cudaGraphEdgeData zero{};
  EXPECT_EQ(std::memcmp(&edge_data[0], &zero, sizeof(zero)), 0);
  EXPECT_EQ(std::memcmp(&edge_data[1], &zero, sizeof(zero)), 0);

  std::memset(edge_data, 0xff, sizeof(edge_data));
  size_t deps = 1;
  fake.SetOut("cudaGraphNodeGetDependencies", 2, size_t{1});
  auto node_deps =
      Entry<decltype(&cudaGraphNodeGetDependencies)>(*rt, kCudart_cudaGraphNodeGetDependencies);
  EXPECT_EQ(node_deps(from[0], to, edge_data, &deps), cudaSuccess);
  EXPECT_EQ(fake.Arg<cudaGraphNode_t>("cudaGraphNodeGetDependencies", 0), from[0]);
  EXPECT_EQ(std::memcmp(&edge_data[0], &zero, sizeof(zero)), 0);
  EXPECT_NE(std::memcmp(&edge_data[1], &zero, sizeof(zero)), 0);  // beyond the count: untouched

  auto dependents = Entry<decltype(&cudaGraphNodeGetDependentNodes)>(
      *rt, kCudart_cudaGraphNodeGetDependentNodes);
  deps = 2;
  EXPECT_EQ(dependents(from[1], to, nullptr, &deps), cudaSuccess);
  EXPECT_EQ(fake.Arg<cudaGraphNode_t>("cudaGraphNodeGetDependentNodes", 0), from[1]);
}

TEST(CudartAdapters, GetDriverEntryPointWithoutTheRuntimeFunctionAsksTheDriver) {
  // No driver in this test process: 11.2's emulation answers as a runtime without a usable
  // driver does (35), writes NULL, and reports the symbol as not found.
  auto rt = OpenFake("11.2");
  auto fn = Entry<decltype(&cudaGetDriverEntryPoint)>(*rt, kCudart_cudaGetDriverEntryPoint);
  ASSERT_NE(fn, nullptr);
  void* p = reinterpret_cast<void*>(0x1);
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSuccess;
  EXPECT_EQ(fn("cuMemAlloc", &p, cudaEnableDefault, &status), cudaErrorInsufficientDriver);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(status, cudaDriverEntryPointSymbolNotFound);
}

TEST(CudartAdapters, GetDriverEntryPointStatus) {
  auto rt = OpenFake("11.8");
  Control fake(*rt);
  auto fn = Entry<decltype(&cudaGetDriverEntryPoint)>(*rt, kCudart_cudaGetDriverEntryPoint);
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointVersionNotSufficent;
  EXPECT_EQ(fn("cuMemAlloc", &p, cudaEnableDefault, &status), cudaSuccess);
  EXPECT_EQ(status, cudaDriverEntryPointSuccess);
  EXPECT_STREQ(fake.Arg<const char*>("cudaGetDriverEntryPoint", 0), "cuMemAlloc");
  EXPECT_EQ(fake.Arg<void**>("cudaGetDriverEntryPoint", 1), &p);
  fake.SetResult("cudaGetDriverEntryPoint", cudaErrorSymbolNotFound);
  EXPECT_EQ(fn("cuNothing", &p, cudaEnableDefault, &status), cudaErrorSymbolNotFound);
  EXPECT_EQ(status, cudaDriverEntryPointSymbolNotFound);
}

// ---- every adapter on every runtime version -------------------------------------------------------
// Where each 13.0 call lands on each fake, from the real runtimes' export lists: 13.0 serves it
// itself; 12.x under its _v2/_v3 name where 12.x has one; 10.x/11.x (and 12.x where the change
// came later) through the adapter over the old function, or 801 / missing where nothing fits.

bool Is(const Fake& f, std::initializer_list<const char*> versions) {
  for (const char* v : versions) {
    if (std::string(v) == f.version) return true;
  }
  return false;
}

TEST(CudartEveryVersion, MemAdvise) {
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaMemAdvise)>(*rt, kCudart_cudaMemAdvise);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(kPtr, 4096, cudaMemAdviseSetPreferredLocation, Location(cudaMemLocationTypeDevice, 3)),
              cudaSuccess);
    const char* symbol = f.family == 12 ? "cudaMemAdvise_v2" : "cudaMemAdvise";
    EXPECT_EQ(fake.Calls(symbol), 1);
    EXPECT_EQ(fake.Arg<const void*>(symbol, 0), kPtr);
    EXPECT_EQ(fake.Arg<size_t>(symbol, 1), 4096u);
    if (f.family >= 12) {
      cudaMemLocation got = fake.Arg<cudaMemLocation>(symbol, 3);
      EXPECT_EQ(got.type, cudaMemLocationTypeDevice);
      EXPECT_EQ(got.id, 3);
    } else {
      EXPECT_EQ(fake.Arg<int>(symbol, 3), 3);
    }
  }
}

TEST(CudartEveryVersion, MemPrefetchAsync) {
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaMemPrefetchAsync)>(*rt, kCudart_cudaMemPrefetchAsync);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(kPtr, 1 << 20, Location(cudaMemLocationTypeDevice, 2), 0, kStream), cudaSuccess);
    const char* symbol = f.family == 12 ? "cudaMemPrefetchAsync_v2" : "cudaMemPrefetchAsync";
    EXPECT_EQ(fake.Calls(symbol), 1);
    EXPECT_EQ(fake.Arg<size_t>(symbol, 1), size_t{1} << 20);
    if (f.family >= 12) {
      EXPECT_EQ(fake.Arg<cudaMemLocation>(symbol, 2).id, 2);
      EXPECT_EQ(fake.Arg<unsigned>(symbol, 3), 0u);
      EXPECT_EQ(fake.Arg<cudaStream_t>(symbol, 4), kStream);
    } else {
      EXPECT_EQ(fake.Arg<int>(symbol, 2), 2);
      EXPECT_EQ(fake.Arg<cudaStream_t>(symbol, 3), kStream);
    }
  }
}

TEST(CudartEveryVersion, GraphInstantiate) {
  const cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6a);
  const unsigned long long flags = cudaGraphInstantiateFlagAutoFreeOnLaunch;
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaGraphInstantiate)>(*rt, kCudart_cudaGraphInstantiate);
    ASSERT_NE(fn, nullptr);
    cudaGraphExec_t exec = nullptr;
    EXPECT_EQ(fn(&exec, graph, 0), cudaSuccess);
    EXPECT_EQ(fake.Calls("cudaGraphInstantiate"), 1);
    EXPECT_EQ(fake.Arg<cudaGraphExec_t*>("cudaGraphInstantiate", 0), &exec);
    EXPECT_EQ(fake.Arg<cudaGraph_t>("cudaGraphInstantiate", 1), graph);
    if (f.family >= 12) {  // (exec, graph, flags) since 12.0
      EXPECT_EQ(fn(&exec, graph, flags), cudaSuccess);
      EXPECT_EQ(fake.Arg<unsigned long long>("cudaGraphInstantiate", 2), flags);
    } else if (Is(f, {"11.8"})) {  // cudaGraphInstantiateWithFlags since 11.4
      EXPECT_EQ(fn(&exec, graph, flags), cudaSuccess);
      EXPECT_EQ(fake.Arg<unsigned long long>("cudaGraphInstantiateWithFlags", 2), flags);
    } else {  // 10.x, 11.2: flags cannot be expressed
      EXPECT_EQ(fn(&exec, graph, flags), cudaErrorNotSupported);
      EXPECT_EQ(fake.Calls("cudaGraphInstantiate"), 1);
    }
  }
}

TEST(CudartEveryVersion, GraphExecUpdate) {
  const cudaGraphNode_t node = reinterpret_cast<cudaGraphNode_t>(0xabc);
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaGraphExecUpdate)>(*rt, kCudart_cudaGraphExecUpdate);
    ASSERT_NE(fn, nullptr);
    cudaGraphExecUpdateResultInfo info;
    std::memset(&info, 0x5a, sizeof(info));
    if (f.family < 12) {  // (exec, graph, &errorNode, &result): the adapter fills the info
      fake.SetOut("cudaGraphExecUpdate", 2, node);
      fake.SetOut("cudaGraphExecUpdate", 3, cudaGraphExecUpdateErrorTopologyChanged);
    }
    EXPECT_EQ(fn(reinterpret_cast<cudaGraphExec_t>(0x1), reinterpret_cast<cudaGraph_t>(0x2), &info),
              cudaSuccess);
    EXPECT_EQ(fake.Calls("cudaGraphExecUpdate"), 1);
    if (f.family >= 12) {
      EXPECT_EQ(fake.Arg<cudaGraphExecUpdateResultInfo*>("cudaGraphExecUpdate", 2), &info);
    } else {
      EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
      EXPECT_EQ(info.errorNode, node);
      EXPECT_EQ(info.errorFromNode, nullptr);
    }
  }
}

TEST(CudartEveryVersion, StreamGetCaptureInfo) {
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaStreamGetCaptureInfo)>(*rt, kCudart_cudaStreamGetCaptureInfo);
    ASSERT_NE(fn, nullptr);
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    EXPECT_EQ(fn(kStream, &status, &id, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
    // _v3 (edge data) since 12.3, _v2 (graph and dependencies) since 11.3.
    const char* symbol = Is(f, {"12.4", "12.5", "12.8"}) ? "cudaStreamGetCaptureInfo_v3"
                         : Is(f, {"11.8", "12.0"})       ? "cudaStreamGetCaptureInfo_v2"
                                                         : "cudaStreamGetCaptureInfo";
    EXPECT_EQ(fake.Calls(symbol), 1) << symbol;
    EXPECT_EQ(fake.Arg<cudaStream_t>(symbol, 0), kStream);
    EXPECT_EQ(fake.Arg<unsigned long long*>(symbol, 2), &id);
  }
}

TEST(CudartEveryVersion, StreamUpdateCaptureDependencies) {
  cudaGraphNode_t nodes[2] = {reinterpret_cast<cudaGraphNode_t>(0x10),
                              reinterpret_cast<cudaGraphNode_t>(0x11)};
  cudaGraphEdgeData edge_data[2] = {};
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    void* p = rt->Resolve(kCudart_cudaStreamUpdateCaptureDependencies);
    if (Is(f, {"10.0", "10.2", "11.2"})) {  // added in 11.3: the adapter serves the driver's
      // cuStreamUpdateCaptureDependencies (//tests/cudart_served proves the call).
      EXPECT_NE(p, nullptr);
      EXPECT_EQ(rt->status(kCudart_cudaStreamUpdateCaptureDependencies), EntryStatus::kAdapter);
      continue;
    }
    auto fn = reinterpret_cast<decltype(&cudaStreamUpdateCaptureDependencies)>(p);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(kStream, nodes, nullptr, 2, cudaStreamSetCaptureDependencies), cudaSuccess);
    if (f.family == 13 || Is(f, {"12.4", "12.5", "12.8"})) {
      const char* symbol = f.family == 13 ? "cudaStreamUpdateCaptureDependencies"
                                          : "cudaStreamUpdateCaptureDependencies_v2";
      EXPECT_EQ(fake.Calls(symbol), 1);
      EXPECT_EQ(fake.Arg<size_t>(symbol, 3), 2u);
      EXPECT_EQ(fake.Arg<unsigned>(symbol, 4), static_cast<unsigned>(cudaStreamSetCaptureDependencies));
      EXPECT_EQ(fn(kStream, nodes, edge_data, 2, 0), cudaSuccess);  // edge data: theirs to judge
    } else {  // 11.8, 12.0: (stream, nodes, count, flags); only default edges can be expressed
      EXPECT_EQ(fake.Calls("cudaStreamUpdateCaptureDependencies"), 1);
      EXPECT_EQ(fake.Arg<size_t>("cudaStreamUpdateCaptureDependencies", 2), 2u);
      EXPECT_EQ(fn(kStream, nodes, edge_data, 2, 0), cudaSuccess);  // all default: as NULL
      EXPECT_EQ(fake.Calls("cudaStreamUpdateCaptureDependencies"), 2);
      cudaGraphEdgeData programmatic[2] = {};
      programmatic[0].type = cudaGraphDependencyTypeProgrammatic;  // out of the default port
      EXPECT_EQ(fn(kStream, nodes, programmatic, 2, 0), cudaErrorInvalidValue);
      programmatic[0].from_port = cudaGraphKernelNodePortProgrammatic;
      fake.SetOut("cudaGraphNodeGetType", 1, cudaGraphNodeTypeKernel);
      EXPECT_EQ(fn(kStream, nodes, programmatic, 2, 0), cudaErrorNotSupported);
      EXPECT_EQ(fake.Calls("cudaStreamUpdateCaptureDependencies"), 2);
    }
  }
}

TEST(CudartEveryVersion, GraphEdgeData) {
  cudaGraphNode_t from[2] = {reinterpret_cast<cudaGraphNode_t>(0x10),
                             reinterpret_cast<cudaGraphNode_t>(0x11)};
  cudaGraphNode_t to[2] = {reinterpret_cast<cudaGraphNode_t>(0x20),
                           reinterpret_cast<cudaGraphNode_t>(0x21)};
  const cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6a);
  const cudaGraphEdgeData zero{};
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    const bool has_edges = f.family == 13 || Is(f, {"12.4", "12.5", "12.8"});  // since 12.3
    const std::string suffix = f.family == 12 && has_edges ? "_v2" : "";
    auto add = Entry<decltype(&cudaGraphAddDependencies)>(*rt, kCudart_cudaGraphAddDependencies);
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add(graph, from, to, nullptr, 2), cudaSuccess);
    const std::string add_symbol = "cudaGraphAddDependencies" + suffix;
    EXPECT_EQ(fake.Calls(add_symbol.c_str()), 1);
    EXPECT_EQ(fake.Arg<size_t>(add_symbol.c_str(), has_edges ? 4 : 3), 2u);

    cudaGraphEdgeData edge_data[2];
    std::memset(edge_data, 0xff, sizeof(edge_data));
    size_t count = 2;
    auto edges = Entry<decltype(&cudaGraphGetEdges)>(*rt, kCudart_cudaGraphGetEdges);
    ASSERT_NE(edges, nullptr);
    EXPECT_EQ(edges(graph, from, to, edge_data, &count), cudaSuccess);
    const std::string edges_symbol = "cudaGraphGetEdges" + suffix;
    EXPECT_EQ(fake.Calls(edges_symbol.c_str()), 1);
    EXPECT_EQ(fake.Arg<size_t*>(edges_symbol.c_str(), has_edges ? 4 : 3), &count);
    if (!has_edges) {  // default edges, reported as zeroed edge data
      EXPECT_EQ(std::memcmp(&edge_data[0], &zero, sizeof(zero)), 0);
      // Zeroed edge data is all default edges, what NULL means: accepted.
      EXPECT_EQ(add(graph, from, to, edge_data, 2), cudaSuccess);
      EXPECT_EQ(fake.Calls(add_symbol.c_str()), 2);
      edge_data[0].from_port = cudaGraphKernelNodePortLaunchCompletion;  // out of no kernel: 1
      EXPECT_EQ(add(graph, from, to, edge_data, 2), cudaErrorInvalidValue);
      fake.SetOut("cudaGraphNodeGetType", 1, cudaGraphNodeTypeKernel);
      EXPECT_EQ(add(graph, from, to, edge_data, 2), cudaErrorNotSupported);
      EXPECT_EQ(fake.Calls(add_symbol.c_str()), 2);
    }

    // cudaGraphAddNode exists only with edge data (12.3+); before 12.x it is composed from the
    // runtime's typed node calls (the 12.0 fake, which has neither, leaves it missing).
    void* add_node = rt->Resolve(kCudart_cudaGraphAddNode);
    EXPECT_EQ(add_node != nullptr, has_edges || f.family <= 11);
    if (has_edges) {
      EXPECT_EQ(rt->bound_symbol(kCudart_cudaGraphAddNode),
                f.family == 13 ? "cudaGraphAddNode" : "cudaGraphAddNode_v2");
    }
  }
}

TEST(CudartEveryVersion, GetDriverEntryPoint) {
  for (const Fake& f : kFakes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaGetDriverEntryPoint)>(*rt, kCudart_cudaGetDriverEntryPoint);
    ASSERT_NE(fn, nullptr);
    void* p = reinterpret_cast<void*>(0x1);
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointVersionNotSufficent;
    cudaError_t rc = fn("cuMemAlloc", &p, cudaEnableDefault, &status);
    if (Is(f, {"10.0", "10.2", "11.2"})) {
      // No cudaGetDriverEntryPoint before 11.3: the driver's cuGetProcAddress answers, and this
      // process has no driver: 35, as such a runtime itself answers.
      EXPECT_EQ(rc, cudaErrorInsufficientDriver);
      EXPECT_EQ(p, nullptr);
      EXPECT_EQ(status, cudaDriverEntryPointSymbolNotFound);
      continue;
    }
    EXPECT_EQ(rc, cudaSuccess);
    EXPECT_EQ(fake.Calls("cudaGetDriverEntryPoint"), 1);
    EXPECT_STREQ(fake.Arg<const char*>("cudaGetDriverEntryPoint", 0), "cuMemAlloc");
    if (f.family >= 12) {  // driverStatus is the runtime's own argument since 12.0
      EXPECT_EQ(fake.Arg<cudaDriverEntryPointQueryResult*>("cudaGetDriverEntryPoint", 3), &status);
    } else {
      EXPECT_EQ(status, cudaDriverEntryPointSuccess);
    }
  }
}

TEST(CudartEveryVersion, AppendedOutputStructsGetZeroedTails) {
  // cudaPointerAttributes: 24 bytes before 13.0, 88 in 13.0; cudaFuncAttributes: 56 bytes in
  // 11.x, 144 since 12.0. The older runtime writes its own size; the rest must read as zero.
  struct Case {
    const char* symbol;
    int index;
    size_t size13;
    int native_from_family;
    size_t old_size;
  } cases[] = {
      {"cudaPointerGetAttributes", kCudart_cudaPointerGetAttributes, sizeof(cudaPointerAttributes),
       13, 24},
      {"cudaFuncGetAttributes", kCudart_cudaFuncGetAttributes, sizeof(cudaFuncAttributes), 12, 56},
  };
  for (const Case& c : cases) {
    for (const Fake& f : kFakes) {
      SCOPED_TRACE(std::string(c.symbol) + " on " + f.version);
      auto rt = OpenFake(f.version);
      Control fake(*rt);
      const bool native = f.family >= c.native_from_family;
      std::vector<unsigned char> written(native ? c.size13 : c.old_size, 0x11);
      fake.F<void (*)(const char*, int, const void*, size_t)>("fake_cudart_set_out")(
          c.symbol, 0, written.data(), written.size());
      std::vector<unsigned char> out(c.size13, 0xee);
      auto fn = reinterpret_cast<cudaError_t (*)(void*, const void*)>(rt->Resolve(c.index));
      ASSERT_NE(fn, nullptr);
      EXPECT_EQ(fn(out.data(), kPtr), cudaSuccess);
      EXPECT_EQ(fake.Calls(c.symbol), 1);
      EXPECT_EQ(fake.Arg<const void*>(c.symbol, 1), kPtr);
      EXPECT_EQ(rt->status(c.index), native ? EntryStatus::kNative : EntryStatus::kAdapter);
      for (size_t k = 0; k < c.size13; ++k) {
        unsigned char want = k < written.size() ? 0x11 : 0;
        ASSERT_EQ(out[k], want) << "byte " << k;
      }
    }
  }
}

// ---- cudaDeviceProp: the fakes fill every field of their own layout by name ----------------------

// The fakes' documented pattern: byte k of field F = low byte of fnv1a32(F) + k.
uint32_t Fnv1a(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s != '\0'; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 16777619u;
  return h;
}

using cudyn::testing::kPropFields;
using cudyn::testing::PropField;

bool Readable(const std::string& name) {
  return name == "name" || name == "major" || name == "minor" || name == "multiProcessorCount" ||
         name == "totalGlobalMem";
}

TEST(CudartDeviceProp, ConvertedFieldByFieldFromEveryLayout) {
  for (const Fake& f : kFakes) {
    auto rt = OpenFake(f.version);
    auto fn = Entry<decltype(&cudaGetDeviceProperties)>(*rt, kCudart_cudaGetDeviceProperties);
    ASSERT_NE(fn, nullptr) << f.version;
    cudaDeviceProp prop;
    std::memset(&prop, 0xee, sizeof(prop));
    ASSERT_EQ(fn(&prop, 0), cudaSuccess) << f.version;
    // Fields every layout has, read by name with the 13.0 declaration.
    EXPECT_EQ(std::string(prop.name), std::string("cudyn fake runtime ") + f.version);
    EXPECT_EQ(prop.major, 9);
    EXPECT_EQ(prop.minor, 0);
    EXPECT_EQ(prop.multiProcessorCount, 132);
    EXPECT_EQ(prop.totalGlobalMem, 85899345920u);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&prop);
    int present = 0, zeroed = 0;
    for (const PropField& field : kPropFields) {
      if (Readable(field.name)) continue;
      int off = f.family == 13 ? field.off13 : f.family == 12 ? field.off12 : field.off11;
      for (int k = 0; k < field.size; ++k) {
        unsigned char want = off >= 0 ? static_cast<unsigned char>(Fnv1a(field.name) + k) : 0;
        ASSERT_EQ(bytes[field.off13 + k], want)
            << f.version << " field " << field.name << " byte " << k;
      }
      (off >= 0 ? present : zeroed)++;
    }
    EXPECT_GT(present, 50) << f.version;
    if (f.family == 13) EXPECT_EQ(zeroed, 0);
  }
}

TEST(CudartDeviceProp, ChooseDeviceConvertsTheRequest) {
  for (const Fake& f : kFakes) {
    const char* v = f.version;
    auto rt = OpenFake(v);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaChooseDevice)>(*rt, kCudart_cudaChooseDevice);
    cudaDeviceProp want{};
    std::strcpy(want.name, "wanted");
    want.major = 8;
    want.minor = 6;
    want.multiProcessorCount = 7;
    want.totalGlobalMem = 123456789;
    want.concurrentKernels = 1;
    int device = -1;
    ASSERT_EQ(fn(&device, &want), cudaSuccess) << v;
    EXPECT_EQ(device, 0);
    int major = 0, mpc = 0;
    size_t mem = 0;
    char name[256] = {};
    ASSERT_EQ(fake.ChosenField("major", &major, sizeof(major)), 4);
    ASSERT_EQ(fake.ChosenField("multiProcessorCount", &mpc, sizeof(mpc)), 4);
    ASSERT_EQ(fake.ChosenField("totalGlobalMem", &mem, sizeof(mem)), 8);
    ASSERT_EQ(fake.ChosenField("name", name, sizeof(name)), 256);
    EXPECT_EQ(major, 8) << v;
    EXPECT_EQ(mpc, 7) << v;
    EXPECT_EQ(mem, 123456789u) << v;
    EXPECT_STREQ(name, "wanted");
  }
}


// ---- texture / surface descriptors: every field converted between the layouts -----------------
// (cudart_layouts.inc, from the header facts). The fakes record the struct each `const struct X*`
// argument pointed to in their own layout (fake_cudart_last_pointee); set_out makes the Get*
// functions write a struct of the fake's layout.

struct LayoutFieldT {
  const char* layout;
  const char* path;
  int off13, size, off12, off11, zero12, zero11;
};
constexpr LayoutFieldT kLayoutFieldsT[] = {
#define CUDYN_CUDART_LAYOUT(name, size13, size12, size11)
#define CUDYN_CUDART_LAYOUT_FIELD(layout, path, off13, size, off12, off11, zero12, zero11, out) \
  {#layout, path, off13, size, off12, off11, zero12, zero11},
#include "version_tables/generated_cudart/cudart_layouts.inc"
#undef CUDYN_CUDART_LAYOUT
#undef CUDYN_CUDART_LAYOUT_FIELD
};
struct LayoutSizeT {
  const char* layout;
  int size13, size12, size11;
};
constexpr LayoutSizeT kLayoutSizesT[] = {
#define CUDYN_CUDART_LAYOUT(name, size13, size12, size11) {#name, size13, size12, size11},
#define CUDYN_CUDART_LAYOUT_FIELD(layout, path, off13, size, off12, off11, zero12, zero11, out)
#include "version_tables/generated_cudart/cudart_layouts.inc"
#undef CUDYN_CUDART_LAYOUT
#undef CUDYN_CUDART_LAYOUT_FIELD
};

int OldSize(const std::string& layout, int family) {
  for (const LayoutSizeT& s : kLayoutSizesT) {
    if (layout == s.layout) return family == 12 ? s.size12 : s.size11;
  }
  ADD_FAILURE() << "no layout " << layout;
  return 0;
}
int OldOffset(const LayoutFieldT& f, int family) { return family == 12 ? f.off12 : f.off11; }
bool MustBeZero(const LayoutFieldT& f, int family) { return family == 12 ? f.zero12 : f.zero11; }

// A 13.0 struct whose every byte differs (byte k = 1 + k + salt), the must-be-zero fields of
// `layout` on `family` zero (the older runtime has no place for them).
template <typename T>
T Distinct(const std::string& layout, int family, int salt) {
  T v;
  auto* b = reinterpret_cast<unsigned char*>(&v);
  for (size_t k = 0; k < sizeof(T); ++k) b[k] = static_cast<unsigned char>(1 + k + salt);
  for (const LayoutFieldT& f : kLayoutFieldsT) {
    if (layout == f.layout && MustBeZero(f, family)) std::memset(b + f.off13, 0, f.size);
  }
  return v;
}

// What the fake received for `layout`: its own size, and every field the family has holding the
// caller's bytes of the same field.
void ExpectReceived(const Control& fake, const char* symbol, int arg, const std::string& layout,
                    int family, const void* in13) {
  SCOPED_TRACE(std::string(symbol) + " argument " + std::to_string(arg) + " " + layout);
  std::vector<unsigned char> got(1024);
  const int n = fake.F<int (*)(const char*, int, void*, size_t)>("fake_cudart_last_pointee")(
      symbol, arg, got.data(), got.size());
  ASSERT_EQ(n, OldSize(layout, family));
  const auto* in = static_cast<const unsigned char*>(in13);
  int carried = 0;
  for (const LayoutFieldT& f : kLayoutFieldsT) {
    if (layout != f.layout || OldOffset(f, family) < 0) continue;
    ASSERT_LE(OldOffset(f, family) + f.size, n) << f.path;
    for (int k = 0; k < f.size; ++k) {
      ASSERT_EQ(got[OldOffset(f, family) + k], in[f.off13 + k]) << f.path << " byte " << k;
    }
    ++carried;
  }
  EXPECT_GE(carried, 8);
}

bool HasSymbol(const Runtime& rt, const char* name) { return dlsym(rt.handle(), name) != nullptr; }

// Every fake but the newest (whose layouts are the entry's own).
std::vector<const char*> OlderFakes() {
  std::vector<const char*> older;
  for (const Fake& f : kFakes) {
    if (f.family < kFakes[std::size(kFakes) - 1].family) older.push_back(f.version);
  }
  return older;
}

TEST(CudartTextureLayouts, CreateTextureObjectConvertsEveryField) {
  for (const char* v : OlderFakes()) {
    SCOPED_TRACE(v);
    auto rt = OpenFake(v);
    Control fake(*rt);
    const int family = rt->family();
    auto fn = Entry<decltype(&cudaCreateTextureObject)>(*rt, kCudart_cudaCreateTextureObject);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(rt->status(kCudart_cudaCreateTextureObject), EntryStatus::kAdapter);
    // 11.6+ (11.8): cudaCreateTextureObject_v2 with the 72-B cudaTextureDesc_v2.
    const bool v2 = family <= 11 && HasSymbol(*rt, "cudaCreateTextureObject_v2");
    const char* called = v2 ? "cudaCreateTextureObject_v2" : "cudaCreateTextureObject";
    const std::string tex_layout = v2 ? "cudaTextureDescV2" : "cudaTextureDesc";
    const auto res = Distinct<cudaResourceDesc>("cudaResourceDesc", family, 0);
    const auto tex = Distinct<cudaTextureDesc>(tex_layout, family, 50);
    const auto view = Distinct<cudaResourceViewDesc>("cudaResourceViewDesc", family, 100);
    fake.SetOut(called, 0, static_cast<cudaTextureObject_t>(0x7e47));
    cudaTextureObject_t object = 0;
    ASSERT_EQ(fn(&object, &res, &tex, &view), cudaSuccess);
    EXPECT_EQ(object, 0x7e47u);
    EXPECT_EQ(fake.Calls(called), 1);
    EXPECT_EQ(fake.Arg<cudaTextureObject_t*>(called, 0), &object);
    ExpectReceived(fake, called, 1, "cudaResourceDesc", family, &res);
    ExpectReceived(fake, called, 2, tex_layout, family, &tex);
    ExpectReceived(fake, called, 3, "cudaResourceViewDesc", family, &view);
    // An absent view stays absent.
    ASSERT_EQ(fn(&object, &res, &tex, nullptr), cudaSuccess);
    EXPECT_EQ(fake.Arg<const void*>(called, 3), nullptr);
  }
}

TEST(CudartTextureLayouts, ValuesTheOlderLayoutLacksAreRefused) {
  for (const char* v : OlderFakes()) {
    SCOPED_TRACE(v);
    auto rt = OpenFake(v);
    Control fake(*rt);
    const int family = rt->family();
    const bool v2 = family <= 11 && HasSymbol(*rt, "cudaCreateTextureObject_v2");
    auto create = Entry<decltype(&cudaCreateTextureObject)>(*rt, kCudart_cudaCreateTextureObject);
    auto surface = Entry<decltype(&cudaCreateSurfaceObject)>(*rt, kCudart_cudaCreateSurfaceObject);
    ASSERT_NE(create, nullptr);
    ASSERT_NE(surface, nullptr);
    cudaResourceDesc res{};
    cudaTextureDesc tex{};
    cudaResourceViewDesc view{};
    cudaTextureObject_t object = 0;
    res.flags = 1;
    EXPECT_EQ(create(&object, &res, &tex, &view), cudaErrorNotSupported);
    EXPECT_EQ(surface(&object, &res), cudaErrorNotSupported);
    res.flags = 0;
    view.reserved[15] = 1;
    EXPECT_EQ(create(&object, &res, &tex, &view), cudaErrorNotSupported);
    view.reserved[15] = 0;
    tex.seamlessCubemap = 1;  // 12.x has it, 11.8 through _v2; 11.2 and 10.x cannot say it
    EXPECT_EQ(create(&object, &res, &tex, &view),
              family == 12 || v2 ? cudaSuccess : cudaErrorNotSupported);
    EXPECT_EQ(fake.Calls("cudaCreateTextureObject") + fake.Calls("cudaCreateTextureObject_v2"),
              family == 12 || v2 ? 1 : 0);
    EXPECT_EQ(fake.Calls("cudaCreateSurfaceObject"), 0);
    // The union's spare room (13.0's res.reserved beyond the carried members) is no value.
    std::memset(reinterpret_cast<unsigned char*>(&res) + 64, 0x5a, 64);
    EXPECT_EQ(surface(&object, &res), cudaSuccess);
    EXPECT_EQ(fake.Calls("cudaCreateSurfaceObject"), 1);
  }
}

TEST(CudartTextureLayouts, CreateSurfaceObjectConvertsEveryField) {
  for (const char* v : OlderFakes()) {
    SCOPED_TRACE(v);
    auto rt = OpenFake(v);
    Control fake(*rt);
    auto fn = Entry<decltype(&cudaCreateSurfaceObject)>(*rt, kCudart_cudaCreateSurfaceObject);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(rt->status(kCudart_cudaCreateSurfaceObject), EntryStatus::kAdapter);
    const auto res = Distinct<cudaResourceDesc>("cudaResourceDesc", rt->family(), 7);
    cudaSurfaceObject_t object = 0;
    ASSERT_EQ(fn(&object, &res), cudaSuccess);
    ExpectReceived(fake, "cudaCreateSurfaceObject", 1, "cudaResourceDesc", rt->family(), &res);
  }
}

TEST(CudartTextureLayouts, GetResourceDescConvertsBackWithZeroTails) {
  struct Case {
    const char* symbol;
    int index;
  } cases[] = {
      {"cudaGetTextureObjectResourceDesc", kCudart_cudaGetTextureObjectResourceDesc},
      {"cudaGetSurfaceObjectResourceDesc", kCudart_cudaGetSurfaceObjectResourceDesc},
  };
  for (const Case& c : cases) {
    for (const char* v : OlderFakes()) {
      SCOPED_TRACE(std::string(c.symbol) + " on " + v);
      auto rt = OpenFake(v);
      Control fake(*rt);
      const int family = rt->family();
      const int old_size = OldSize("cudaResourceDesc", family);
      std::vector<unsigned char> written(old_size);
      for (int k = 0; k < old_size; ++k) written[k] = static_cast<unsigned char>(0x80 + k);
      fake.F<void (*)(const char*, int, const void*, size_t)>("fake_cudart_set_out")(
          c.symbol, 0, written.data(), written.size());
      auto fn = reinterpret_cast<cudaError_t (*)(cudaResourceDesc*, unsigned long long)>(
          rt->Resolve(c.index));
      ASSERT_NE(fn, nullptr);
      EXPECT_EQ(rt->status(c.index), EntryStatus::kAdapter);
      cudaResourceDesc out;
      std::memset(&out, 0xee, sizeof(out));
      ASSERT_EQ(fn(&out, 0x1234), cudaSuccess);
      EXPECT_EQ(fake.Arg<unsigned long long>(c.symbol, 1), 0x1234u);
      const auto* bytes = reinterpret_cast<const unsigned char*>(&out);
      std::vector<bool> carried(sizeof(out), false);
      for (const LayoutFieldT& f : kLayoutFieldsT) {
        if (std::string(f.layout) != "cudaResourceDesc" || OldOffset(f, family) < 0) continue;
        for (int k = 0; k < f.size; ++k) {
          ASSERT_EQ(bytes[f.off13 + k], written[OldOffset(f, family) + k]) << f.path << " " << k;
          carried[f.off13 + k] = true;
        }
      }
      for (size_t k = 0; k < sizeof(out); ++k) {
        if (!carried[k]) ASSERT_EQ(bytes[k], 0) << "byte " << k << " (flags, spare room, padding)";
      }
      EXPECT_EQ(out.flags, 0u);
      // A failing runtime's answer comes back, the caller's struct untouched.
      fake.SetResult(c.symbol, cudaErrorInvalidValue);
      std::memset(&out, 0xee, sizeof(out));
      EXPECT_EQ(fn(&out, 1), cudaErrorInvalidValue);
      EXPECT_EQ(bytes[0], 0xee);
    }
  }
}

}  // namespace
}  // namespace cudyn
