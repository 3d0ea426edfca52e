// The loader against every fake driver: for each fake version, per-thread default stream off and
// on, and each clamp below the fake's version, Driver::Open + BindAll must give every entry the
// status / via / driver_symbol PREDICTED here from the version tables alone (the design's binding
// rules), choose the predicted strategy, and never ask cuGetProcAddress for a version above the
// effective one or for a suffixed name. A few calls then go through the loader into the fake and
// the fake's call log shows what ran, including custom and same-signature adapters.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/fake_driver/fake_versions.h"
#include "version_tables/api_table.h"
#include "version_tables/cuda_driver_api.h"

#include <cudaTypedefs.h>  // PFN_<symbol>_v<abi>

namespace {

using cudyn::AdapterKind;
using cudyn::BindVia;
using cudyn::BindViaName;
using cudyn::Driver;
using cudyn::DriverOptions;
using cudyn::EntryStatus;
using cudyn::EntryStatusName;
using cudyn::EntrySymbol;
using cudyn::kEntries;
using cudyn::kEntryCount;
using cudyn::Strategy;
using cudyn::StrategyName;
using cudyn::StreamClass;
using cudyn::testing::FakeDriverPath;
using cudyn::testing::FakeExportSet;

constexpr int kNoClamp = 0;
constexpr int kClamps[] = {kNoClamp, 10010, 11040, 12020};

// ---- The prediction: the design's binding rules applied to the tables ----------------------

struct Prediction {
  EntryStatus status = EntryStatus::kMissing;
  BindVia via = BindVia::kNone;
  std::string driver_symbol;
};

class Predictor {
 public:
  Predictor(int fake_version, int clamp, bool per_thread)
      : exported_(FakeExportSet(fake_version)),
        effective_(clamp != kNoClamp && clamp < fake_version ? clamp : fake_version),
        per_thread_(per_thread),
        memo_(kEntryCount),
        done_(kEntryCount, false) {
    if (effective_ >= 12000 && exported_[cudyn::kEntry_cuGetProcAddress_v2]) {
      strategy_ = Strategy::kGetProcAddressV2;
    } else if (effective_ >= 11030 && exported_[cudyn::kEntry_cuGetProcAddress]) {
      strategy_ = Strategy::kGetProcAddress;
    } else {
      strategy_ = Strategy::kDlsym;
    }
  }

  int effective() const { return effective_; }
  Strategy strategy() const { return strategy_; }

  const Prediction& Predict(int i) {
    if (done_[i]) return memo_[i];
    done_[i] = true;  // a fallback cycle (none in the tables) would end as missing
    Prediction p;
    int sibling = PerThreadSibling(i);
    if (per_thread_ && kEntries[i].stream == StreamClass::kLegacy && sibling >= 0 &&
        Native(sibling)) {
      p = {EntryStatus::kNative, Via(sibling), std::string(EntrySymbol(sibling))};
    } else if (Native(i)) {
      p = {EntryStatus::kNative, Via(i), std::string(EntrySymbol(i))};
    } else if ((kEntries[i].adapter == AdapterKind::kSameSignature ||
                kEntries[i].adapter == AdapterKind::kCustom) &&
               kEntries[i].fallback >= 0) {
      const Prediction& f = Predict(kEntries[i].fallback);
      if (f.status != EntryStatus::kMissing) {
        p = {EntryStatus::kAdapter, BindVia::kAdapter, f.driver_symbol};
      }
    }
    memo_[i] = p;
    return memo_[i];
  }

 private:
  static int PerThreadSibling(int i) {
    std::string symbol(EntrySymbol(i));
    int s = cudyn::FindEntry(symbol + "_ptds");
    return s >= 0 ? s : cudyn::FindEntry(symbol + "_ptsz");
  }
  bool Native(int i) const { return kEntries[i].abi_version <= effective_ && exported_[i]; }
  BindVia Via(int i) const {
    if (!kEntries[i].gpa_reachable) return BindVia::kDlsym;
    switch (strategy_) {
      case Strategy::kGetProcAddressV2: return BindVia::kGetProcAddressV2;
      case Strategy::kGetProcAddress: return BindVia::kGetProcAddress;
      default: return BindVia::kDlsym;
    }
  }

  std::vector<bool> exported_;
  int effective_;
  bool per_thread_;
  Strategy strategy_;
  std::vector<Prediction> memo_;
  std::vector<bool> done_;
};

// ---- Helpers -------------------------------------------------------------------------------

std::unique_ptr<Driver> OpenFake(int version, int clamp, bool per_thread) {
  DriverOptions options;
  options.driver_path = FakeDriverPath(version);
  if (clamp != kNoClamp) options.max_cuda_version = clamp;
  options.per_thread_default_stream = per_thread;
  options.use_environment = false;
  return Driver::Open(options);
}

CudynFakeApi FakeApi(const Driver& driver) {
  CudynFakeApi api{};
  EXPECT_TRUE(cudynFakeBind(driver.handle(), &api)) << driver.path() << " is not a fake";
  return api;
}

// Records of the fake's log since the last reset.
std::vector<CudynFakeCall> Log(const CudynFakeApi& api) {
  std::vector<CudynFakeCall> out;
  for (int i = 0; i < api.call_count(); ++i) {
    if (const CudynFakeCall* c = api.call(i)) out.push_back(*c);
  }
  return out;
}

bool IsLookup(const CudynFakeCall& c) {
  return std::strcmp(c.symbol, "cuGetProcAddress") == 0 ||
         std::strcmp(c.symbol, "cuGetProcAddress_v2") == 0 ||
         std::strcmp(c.symbol, "cuDriverGetVersion") == 0;
}

// The API calls in the log, without the loader's own lookups (lazy binding may add some).
std::vector<CudynFakeCall> Calls(const CudynFakeApi& api) {
  std::vector<CudynFakeCall> out;
  for (const CudynFakeCall& c : Log(api)) {
    if (!IsLookup(c)) out.push_back(c);
  }
  return out;
}

std::vector<std::string> Symbols(const std::vector<CudynFakeCall>& log) {
  std::vector<std::string> out;
  for (const CudynFakeCall& c : log) out.push_back(c.symbol);
  return out;
}

// ---- The matrix ----------------------------------------------------------------------------

struct Config {
  int version;
  bool per_thread;
  int clamp;
};

std::vector<Config> AllConfigs() {
  std::vector<Config> out;
  for (int v : cudyn::testing::kFakeCudaVersions) {
    for (bool pt : {false, true}) {
      for (int clamp : kClamps) {
        if (clamp == kNoClamp || clamp < v) out.push_back({v, pt, clamp});
      }
    }
  }
  return out;
}

class LoaderFakeMatrixTest : public ::testing::TestWithParam<Config> {};

TEST_P(LoaderFakeMatrixTest, BindingMatchesPrediction) {
  const Config& c = GetParam();
  std::unique_ptr<Driver> driver = OpenFake(c.version, c.clamp, c.per_thread);
  ASSERT_NE(driver, nullptr);
  ASSERT_TRUE(driver->ok()) << driver->last_error();
  Predictor predictor(c.version, c.clamp, c.per_thread);
  EXPECT_EQ(driver->cuda_version(), c.version);
  EXPECT_EQ(driver->effective_version(), predictor.effective());
  EXPECT_EQ(driver->per_thread_default_stream(), c.per_thread);
  EXPECT_STREQ(StrategyName(driver->strategy()), StrategyName(predictor.strategy()));

  CudynFakeApi api = FakeApi(*driver);
  api.reset();
  int missing = driver->BindAll();

  int predicted_missing = 0, predicted_adapter = 0, mismatches = 0;
  std::ostringstream report;
  for (int i = 0; i < kEntryCount; ++i) {
    const Prediction& p = predictor.Predict(i);
    predicted_missing += p.status == EntryStatus::kMissing;
    predicted_adapter += p.status == EntryStatus::kAdapter;
    std::string got_symbol = driver->driver_symbol(i);
    if (driver->status(i) != p.status || driver->via(i) != p.via ||
        got_symbol != p.driver_symbol) {
      if (++mismatches <= 40) {
        report << "\n  " << EntrySymbol(i) << " (abi " << kEntries[i].abi_version
               << "): loader " << EntryStatusName(driver->status(i)) << " via "
               << BindViaName(driver->via(i)) << " -> '" << got_symbol << "'; predicted "
               << EntryStatusName(p.status) << " via " << BindViaName(p.via) << " -> '"
               << p.driver_symbol << "'";
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << mismatches << " entries differ from the prediction"
                           << report.str();
  EXPECT_EQ(missing, predicted_missing);
  std::printf("fake %d%s clamp %d: effective %d, %s, native %d, adapter %d, missing %d\n",
              c.version, c.per_thread ? " ptds" : "", c.clamp, predictor.effective(),
              StrategyName(predictor.strategy()),
              kEntryCount - predicted_adapter - predicted_missing, predicted_adapter,
              predicted_missing);

  // What the loader asked the driver while binding.
  std::set<std::string> bases;
  for (int i = 0; i < kEntryCount; ++i) bases.insert(std::string(cudyn::EntryBase(i)));
  int asked = 0;
  for (const CudynFakeCall& call : Log(api)) {
    std::string symbol = call.symbol;
    if (symbol != "cuGetProcAddress" && symbol != "cuGetProcAddress_v2") continue;
    ++asked;
    SCOPED_TRACE(std::string(call.requested) + "@" + std::to_string(call.args[2]) + " via " +
                 symbol);
    EXPECT_EQ(symbol, StrategyName(predictor.strategy())) << "the other cuGetProcAddress was used";
    EXPECT_LE(static_cast<int>(call.args[2]), predictor.effective())
        << "requested above the effective driver version";
    EXPECT_EQ(bases.count(call.requested), 1u) << "requested a name that is not a base name";
    EXPECT_TRUE(call.args[3] == 0 || call.args[3] == 2) << "flags " << call.args[3];
  }
  if (predictor.strategy() == Strategy::kDlsym) {
    EXPECT_EQ(asked, 0);
  }
}

std::string ConfigName(const ::testing::TestParamInfo<Config>& info) {
  return "cuda_" + std::to_string(info.param.version) +
         (info.param.per_thread ? "_ptds" : "_legacy") +
         (info.param.clamp == kNoClamp ? std::string("_noclamp")
                                       : "_clamp" + std::to_string(info.param.clamp));
}

INSTANTIATE_TEST_SUITE_P(AllFakes, LoaderFakeMatrixTest, ::testing::ValuesIn(AllConfigs()),
                         ConfigName);

// The prediction itself encodes the design's headline cases.
TEST(LoaderFakePrediction, HeadlineCases) {
  Predictor p11040(11040, kNoClamp, false);
  EXPECT_EQ(p11040.strategy(), Strategy::kGetProcAddress);
  EXPECT_EQ(p11040.Predict(cudyn::kEntry_cuMemAdvise_v2).status, EntryStatus::kAdapter);
  EXPECT_EQ(p11040.Predict(cudyn::kEntry_cuMemAdvise_v2).driver_symbol, "cuMemAdvise");
  EXPECT_EQ(p11040.Predict(cudyn::kEntry_cuMemGetAttribute).via, BindVia::kDlsym);
  Predictor p13000(13000, 12020, true);
  EXPECT_EQ(p13000.effective(), 12020);
  EXPECT_EQ(p13000.strategy(), Strategy::kGetProcAddressV2);
  EXPECT_EQ(p13000.Predict(cudyn::kEntry_cuMemcpy).driver_symbol, "cuMemcpy_ptds");
  EXPECT_EQ(p13000.Predict(cudyn::kEntry_cuCtxSynchronize_v2).status, EntryStatus::kAdapter);
  Predictor p10010(10010, kNoClamp, false);
  EXPECT_EQ(p10010.strategy(), Strategy::kDlsym);
  Predictor p12080(12080, 11040, false);
  EXPECT_EQ(p12080.strategy(), Strategy::kGetProcAddress);
}

// ---- Calls through the loader reach the fake -----------------------------------------------

class LoaderFakeCallTest : public ::testing::Test {
 protected:
  void Open(int version, int clamp = kNoClamp, bool per_thread = false) {
    driver_ = OpenFake(version, clamp, per_thread);
    ASSERT_NE(driver_, nullptr);
    ASSERT_TRUE(driver_->ok()) << driver_->last_error();
    api_ = FakeApi(*driver_);
    api_.reset();
  }
  template <class Fn>
  Fn Get(int index) {
    return reinterpret_cast<Fn>(driver_->Resolve(index));
  }
  std::unique_ptr<Driver> driver_;
  CudynFakeApi api_{};
};

TEST_F(LoaderFakeCallTest, MemAdviseV2AdaptedToV1On11040) {
  Open(11040);
  auto advise = Get<PFN_cuMemAdvise_v12020>(cudyn::kEntry_cuMemAdvise_v2);
  ASSERT_NE(advise, nullptr);
  EXPECT_EQ(driver_->status(cudyn::kEntry_cuMemAdvise_v2), EntryStatus::kAdapter);
  EXPECT_EQ(driver_->driver_symbol(cudyn::kEntry_cuMemAdvise_v2), "cuMemAdvise");

  CUmemLocation host = {};
  host.type = CU_MEM_LOCATION_TYPE_HOST;
  host.id = 0;
  EXPECT_EQ(advise(0xabc000, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, host), CUDA_SUCCESS);
  CUmemLocation device = {};
  device.type = CU_MEM_LOCATION_TYPE_DEVICE;
  device.id = 3;
  EXPECT_EQ(advise(0xdef000, 8192, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device), CUDA_SUCCESS);
  std::vector<CudynFakeCall> log = Calls(api_);
  ASSERT_EQ(Symbols(log), (std::vector<std::string>{"cuMemAdvise", "cuMemAdvise"}));
  EXPECT_EQ(log[0].num_args, 4);
  EXPECT_EQ(log[0].args[0], 0xabc000u);
  EXPECT_EQ(log[0].args[1], 4096u);
  EXPECT_EQ(log[0].args[2], static_cast<unsigned long long>(CU_MEM_ADVISE_SET_READ_MOSTLY));
  EXPECT_EQ(static_cast<long long>(log[0].args[3]), CU_DEVICE_CPU);  // -1
  EXPECT_EQ(log[1].args[0], 0xdef000u);
  EXPECT_EQ(static_cast<long long>(log[1].args[3]), 3);

  // HOST_NUMA cannot be expressed with a device ordinal: 801, nothing reaches the driver.
  api_.reset();
  CUmemLocation numa = {};
  numa.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
  numa.id = 1;
  EXPECT_EQ(advise(0xabc000, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, numa), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(Calls(api_).empty());
  EXPECT_NE(driver_->last_error().find("cuMemAdvise_v2"), std::string::npos)
      << driver_->last_error();

  // The driver's own result comes back through the adapter.
  ASSERT_EQ(api_.set_result("cuMemAdvise", CUDA_ERROR_INVALID_DEVICE), 0);
  EXPECT_EQ(advise(0xabc000, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, device), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(LoaderFakeCallTest, MemAdviseV2NativeOn12020AndAdaptedWhenClamped) {
  Open(12020);
  auto advise = Get<PFN_cuMemAdvise_v12020>(cudyn::kEntry_cuMemAdvise_v2);
  ASSERT_NE(advise, nullptr);
  CUmemLocation numa = {};
  numa.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
  numa.id = 1;
  EXPECT_EQ(advise(0x1000, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, numa), CUDA_SUCCESS);
  std::vector<CudynFakeCall> log = Calls(api_);
  ASSERT_EQ(Symbols(log), std::vector<std::string>{"cuMemAdvise_v2"});
  CUmemLocation got;
  std::memcpy(&got, &log[0].args[log[0].arg_word[3]], sizeof(got));
  EXPECT_EQ(got.type, CU_MEM_LOCATION_TYPE_HOST_NUMA);
  EXPECT_EQ(got.id, 1);

  Open(13000, 11040);
  advise = Get<PFN_cuMemAdvise_v12020>(cudyn::kEntry_cuMemAdvise_v2);
  ASSERT_NE(advise, nullptr);
  EXPECT_EQ(advise(0x1000, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, numa), CUDA_ERROR_NOT_SUPPORTED);
  CUmemLocation host = {};
  host.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(advise(0x1000, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, host), CUDA_SUCCESS);
  log = Calls(api_);
  ASSERT_EQ(Symbols(log), std::vector<std::string>{"cuMemAdvise"});
  EXPECT_EQ(static_cast<long long>(log[0].args[3]), CU_DEVICE_CPU);
}

TEST_F(LoaderFakeCallTest, PerThreadDefaultStreamSelectsPtdsVariant) {
  for (bool per_thread : {false, true}) {
    SCOPED_TRACE(per_thread ? "per-thread" : "legacy");
    Open(12020, kNoClamp, per_thread);
    auto memcpy_fn = Get<PFN_cuMemcpy_v4000>(cudyn::kEntry_cuMemcpy);
    ASSERT_NE(memcpy_fn, nullptr);
    EXPECT_EQ(memcpy_fn(0x10, 0x20, 30), CUDA_SUCCESS);
    std::vector<CudynFakeCall> log = Calls(api_);
    ASSERT_EQ(Symbols(log),
              std::vector<std::string>{per_thread ? "cuMemcpy_ptds" : "cuMemcpy"});
    EXPECT_EQ(log[0].args[0], 0x10u);
    EXPECT_EQ(log[0].args[1], 0x20u);
    EXPECT_EQ(log[0].args[2], 30u);
  }
}

TEST_F(LoaderFakeCallTest, CtxSynchronizeV2PushesAndPopsTheContext) {
  Open(12020);
  auto sync = Get<PFN_cuCtxSynchronize_v13000>(cudyn::kEntry_cuCtxSynchronize_v2);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(driver_->status(cudyn::kEntry_cuCtxSynchronize_v2), EntryStatus::kAdapter);
  EXPECT_EQ(sync(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Symbols(Calls(api_)), std::vector<std::string>{"cuCtxSynchronize"});
  api_.reset();
  CUcontext ctx = reinterpret_cast<CUcontext>(0x5000);
  EXPECT_EQ(sync(ctx), CUDA_SUCCESS);
  std::vector<CudynFakeCall> log = Calls(api_);
  ASSERT_EQ(Symbols(log), (std::vector<std::string>{"cuCtxPushCurrent_v2", "cuCtxSynchronize",
                                                    "cuCtxPopCurrent_v2"}));
  EXPECT_EQ(log[0].args[0], 0x5000u);
}

TEST_F(LoaderFakeCallTest, SameSignatureAdapterCallsTheOlderVariant) {
  Open(12020);  // cuEventElapsedTime_v2 appeared in 12.8
  auto elapsed = Get<PFN_cuEventElapsedTime_v12080>(cudyn::kEntry_cuEventElapsedTime_v2);
  ASSERT_NE(elapsed, nullptr);
  EXPECT_EQ(driver_->status(cudyn::kEntry_cuEventElapsedTime_v2), EntryStatus::kAdapter);
  float ms = 0;
  EXPECT_EQ(elapsed(&ms, reinterpret_cast<CUevent>(0x1), reinterpret_cast<CUevent>(0x2)),
            CUDA_SUCCESS);
  std::vector<CudynFakeCall> log = Calls(api_);
  ASSERT_EQ(Symbols(log), std::vector<std::string>{"cuEventElapsedTime"});
  EXPECT_EQ(log[0].args[0], reinterpret_cast<uintptr_t>(&ms));
  EXPECT_EQ(log[0].args[2], 0x2u);
}

TEST_F(LoaderFakeCallTest, GetProcAddressV2AdaptedOn11040) {
  Open(11040);
  auto gpa2 = Get<PFN_cuGetProcAddress_v12000>(cudyn::kEntry_cuGetProcAddress_v2);
  ASSERT_NE(gpa2, nullptr);
  api_.reset();  // forget the loader's own lookups
  void* fn = reinterpret_cast<void*>(0x1);
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
  EXPECT_EQ(gpa2("cuNoSuchFunction", &fn, 11040, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(gpa2("cuMemAdvise", &fn, 11040, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT_EQ(fn, dlsym(driver_->handle(), "cuMemAdvise"));
  std::vector<CudynFakeCall> log = Log(api_);
  ASSERT_EQ(Symbols(log), (std::vector<std::string>{"cuGetProcAddress", "cuGetProcAddress"}));
  EXPECT_STREQ(log[1].requested, "cuMemAdvise");
}

TEST_F(LoaderFakeCallTest, InitAndMissingEntries) {
  Open(10000);
  auto init = Get<PFN_cuInit_v2000>(cudyn::kEntry_cuInit);
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init(0), CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(Symbols(Calls(api_)), std::vector<std::string>{"cuInit"});
  // cuGetProcAddress does not exist on a 10.0 driver and has nothing to adapt from.
  EXPECT_EQ(driver_->Resolve(cudyn::kEntry_cuGetProcAddress), nullptr);
  EXPECT_EQ(driver_->status(cudyn::kEntry_cuGetProcAddress), EntryStatus::kMissing);
  EXPECT_EQ(driver_->missing_result(), cudyn::kCudaErrorSharedObjectSymbolNotFound);
  EXPECT_NE(driver_->last_error().find("cuGetProcAddress"), std::string::npos);
}

}  // namespace
