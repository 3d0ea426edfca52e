// Every custom adapter (version_tables/inputs/adapters.tsv, kind custom) and a few same-signature
// ones, run against the fake driver of CUDA_VERSION CUDYN_FAKE_VERSION through the drop-in stubs
// (an application compiled against the CUDA 13.0 headers, linked with //stubs:cudyn_cuda).
//
// Nothing here hard-codes which variant a driver version has. Each case first derives how the
// entry must be served on this fake from the fake's exports (a fake exports exactly its
// version's set) and the API table (fallback, adapter kind, AdapterCompiledIn):
//   native   the fake exports the entry: the call record shows it with the caller's arguments;
//   adapter  the fake lacks it but its fallback is served: the record shows the fallback (or,
//            for chained adapters, the fallback's fallback) with translated arguments, and
//            arguments the fallback cannot express return 801 with nothing reaching the driver;
//   missing  neither: 302 and no call recorded.
// The derived route is cross-checked with the loader's own status of the entry.
//
// The fake records pointer arguments as addresses and never writes out-parameters. Where an
// adapter passes the driver a pointer to one of its own locals (the v1 kernel-node parameters,
// the dropped failIdx), the fake copies the pointee at call time (cudynFakeSetCapture), while the
// adapter's frame still exists.
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "loader/cudyn_c.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/util/runfiles.h"
#include "version_tables/api_table.h"


// Variants the public CUDA 13.0 headers give no name (per-thread variants, older ABIs); the
// drop-in exports a trampoline for every table entry under its exact name.
extern "C" {
CUresult CUDAAPI cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam* paramsArray, int numParams,
                                unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                            unsigned int flags, CUstream hStream);
CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes,
                                            size_t count, CUmemcpyAttributes* attrs, size_t* attrsIdxs,
                                            size_t numAttrs, CUstream hStream);
CUresult CUDAAPI cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP* opList,
                                              unsigned long long flags, CUstream hStream);
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus* captureStatus_out,
                                           cuuint64_t* id_out, CUgraph* graph_out,
                                           const CUgraphNode** dependencies_out,
                                           size_t* numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus* captureStatus_out,
                                                cuuint64_t* id_out, CUgraph* graph_out,
                                                const CUgraphNode** dependencies_out,
                                                size_t* numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus* captureStatus_out,
                                                cuuint64_t* id_out, CUgraph* graph_out,
                                                const CUgraphNode** dependencies_out,
                                                const CUgraphEdgeData** edgeData_out,
                                                size_t* numDependencies_out);
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext* pCtx, CUgreenCtx* pGreenCtx);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode* dependencies,
                                                           const CUgraphEdgeData* dependencyData,
                                                           size_t numDependencies, unsigned int flags);
}

namespace {

// Set per test target by the BUILD file (env CUDYN_FAKE_VERSION): one compiled test, one process per driver.
const int kVersion = [] {
  const char* value = getenv("CUDYN_FAKE_VERSION");
  return value != nullptr ? atoi(value) : 0;
}();
constexpr CUresult kMissing = CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;  // 302
constexpr CUresult kNotSupported = CUDA_ERROR_NOT_SUPPORTED;              // 801

// Stream handles every stream-taking adapter must pass through untouched.
const CUstream kStreams[] = {nullptr, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD,
                             reinterpret_cast<CUstream>(0x7700)};

std::string FakePath() {
  return cudyn::testing::Runfile("tests/fake_driver/cuda_" + std::to_string(kVersion) +
                                 "/libcuda.so.1");
}

template <class T>
unsigned long long W(T* p) {
  return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p));
}

enum class Route { kNative, kAdapter, kMissing };

const char* RouteName(Route r) {
  return r == Route::kNative ? "native" : r == Route::kAdapter ? "adapter" : "missing";
}

class Adapters : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The drop-in reads CUDYN_DRIVER_PATH once, at the first cu* call.
    setenv("CUDYN_DRIVER_PATH", FakePath().c_str(), 1);
    int version = 0;
    ASSERT_EQ(cuDriverGetVersion(&version), CUDA_SUCCESS);
    ASSERT_EQ(version, kVersion);
    handle_ = dlopen(FakePath().c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle_, nullptr) << "the fake should already be loaded by cudyn";
    ASSERT_TRUE(cudynFakeBind(handle_, &fake_));
  }
  void SetUp() override {
    ASSERT_NE(handle_, nullptr);
    fake_.reset();
  }

  static int Index(const std::string& symbol) {
    int index = cudyn::FindEntry(symbol);
    EXPECT_GE(index, 0) << symbol << " is not in the API table";
    return index;
  }
  static std::string Symbol(int index) { return std::string(cudyn::EntrySymbol(index)); }
  // The older variant the table names for `symbol`'s adapter ("" if none).
  static std::string FallbackOf(const std::string& symbol) {
    int index = Index(symbol);
    return index >= 0 && cudyn::kEntries[index].fallback >= 0
               ? Symbol(cudyn::kEntries[index].fallback)
               : std::string();
  }
  // How `symbol` must be served on this fake, from its exports and the table alone.
  static Route RouteOf(const std::string& symbol) {
    int index = Index(symbol);
    if (index < 0) return Route::kMissing;
    if (dlsym(handle_, symbol.c_str()) != nullptr) return Route::kNative;
    const cudyn::EntryInfo& e = cudyn::kEntries[index];
    bool has_adapter = (e.adapter == cudyn::AdapterKind::kSameSignature ||
                        e.adapter == cudyn::AdapterKind::kCustom) &&
                       e.fallback >= 0 && cudyn::AdapterCompiledIn(index);
    if (has_adapter && RouteOf(Symbol(e.fallback)) != Route::kMissing) return Route::kAdapter;
    return Route::kMissing;
  }
  // RouteOf, checked against the loader's status of the entry; clears the call log after.
  Route Served(const std::string& symbol) {
    Route route = RouteOf(symbol);
    const char* status = cudynEntryStatus(Index(symbol));
    EXPECT_STREQ(status, RouteName(route)) << symbol << " on the CUDA " << kVersion << " fake";
    fake_.reset();
    return route;
  }

  // The recorded calls without the driver's own cuGetProcAddress lookups (lazy binding makes
  // those on first use of an entry, on 11.3+ fakes).
  static std::vector<const CudynFakeCall*> Calls() {
    std::vector<const CudynFakeCall*> calls;
    for (int i = 0; i < fake_.call_count(); ++i) {
      const CudynFakeCall* call = fake_.call(i);
      if (std::strncmp(call->symbol, "cuGetProcAddress", 16) != 0) calls.push_back(call);
    }
    return calls;
  }
  static std::string Trace() {
    std::string text;
    for (const CudynFakeCall* call : Calls()) text += std::string(call->symbol) + " ";
    return text.empty() ? "(no calls)" : text;
  }
  // The recorded calls must be exactly `symbols`, in order; returns them (empty on mismatch).
  static std::vector<const CudynFakeCall*> Expect(const std::vector<std::string>& symbols) {
    std::vector<const CudynFakeCall*> calls = Calls();
    bool same = calls.size() == symbols.size();
    for (size_t i = 0; same && i < calls.size(); ++i) same = symbols[i] == calls[i]->symbol;
    if (!same) {
      std::string want;
      for (const std::string& s : symbols) want += s + " ";
      ADD_FAILURE() << "driver calls: " << Trace() << "; expected: " << want;
      return {};
    }
    return calls;
  }
  // Exactly one call, of `symbol`; nullptr (after a failure) otherwise.
  static const CudynFakeCall* One(const std::string& symbol) {
    std::vector<const CudynFakeCall*> calls = Expect({symbol});
    return calls.empty() ? nullptr : calls[0];
  }
  static unsigned long long Arg(const CudynFakeCall* call, int i) {
    return call->args[call->arg_word[i]];
  }
  // A by-value struct argument, copied back out of the record.
  template <class T>
  static T StructArg(const CudynFakeCall* call, int i) {
    T value;
    std::memcpy(&value, &call->args[call->arg_word[i]], sizeof(T));
    return value;
  }
  // The record shows `symbol` called with exactly these argument words.
  static void ExpectCall(const std::string& symbol, const std::vector<unsigned long long>& args) {
    const CudynFakeCall* call = One(symbol);
    ASSERT_NE(call, nullptr);
    ASSERT_EQ(call->num_args, static_cast<int>(args.size())) << symbol;
    for (size_t i = 0; i < args.size(); ++i) {
      EXPECT_EQ(Arg(call, static_cast<int>(i)), args[i]) << symbol << " argument " << i;
    }
  }
  static void ExpectMissing(CUresult rc, const std::string& symbol) {
    EXPECT_EQ(rc, kMissing) << symbol << " has neither a native variant nor a usable fallback";
    EXPECT_TRUE(Calls().empty()) << Trace();
  }
  // 801 from an adapter that cannot express the arguments: nothing reached the driver, and the
  // last error names the entry and the 801.
  static void ExpectRejected(CUresult rc, const std::string& symbol) {
    EXPECT_EQ(rc, kNotSupported) << symbol;
    EXPECT_TRUE(Calls().empty()) << symbol << ": " << Trace();
    char text[1024] = {};
    cudynLastError(text, sizeof(text));
    EXPECT_NE(std::string(text).find(symbol), std::string::npos) << text;
    EXPECT_NE(std::string(text).find("801"), std::string::npos) << text;
  }

  // Shared bodies of the tests of adapters with the same shape.
  void EdgeListAdapter(const std::string& symbol,
                       CUresult (*fn)(CUgraph, const CUgraphNode*, const CUgraphNode*,
                                      const CUgraphEdgeData*, size_t));
  void NodeEdgeQuery(const std::string& symbol,
                     CUresult (*fn)(CUgraphNode, CUgraphNode*, CUgraphEdgeData*, size_t*));
  // The adapter of `symbol` takes kernel params as argument `param_arg`, its other arguments
  // are `other` (in order); `call(params)` calls it.
  void KernelParamsAdapter(const std::string& symbol, int param_arg,
                           const std::vector<unsigned long long>& other,
                           const std::function<CUresult(const CUDA_KERNEL_NODE_PARAMS*)>& call);

  static void* handle_;
  static CudynFakeApi fake_;
};
void* Adapters::handle_ = nullptr;
CudynFakeApi Adapters::fake_;

// Every custom adapter of the table is exercised below (update this list with a new test).
TEST_F(Adapters, EveryCustomAdapterHasATestHere) {
  const std::set<std::string> covered = {
      "cuCtxCreate_v3", "cuCtxCreate_v4", "cuCtxGetDevice_v2", "cuCtxSynchronize_v2",
      "cuGetProcAddress_v2", "cuGraphAddDependencies_v2", "cuGraphAddKernelNode_v2",
      "cuGraphAddNode_v2", "cuGraphExecKernelNodeSetParams_v2", "cuGraphExecUpdate_v2",
      "cuGraphGetEdges_v2", "cuGraphKernelNodeGetParams_v2", "cuGraphKernelNodeSetParams_v2",
      "cuGraphNodeGetDependencies_v2", "cuGraphNodeGetDependentNodes_v2",
      "cuGraphRemoveDependencies_v2", "cuMemAdvise_v2", "cuMemPrefetchAsync_v2",
      "cuMemPrefetchAsync_v2_ptsz", "cuMemcpy3DBatchAsync_v2", "cuMemcpy3DBatchAsync_v2_ptsz",
      "cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync_v2_ptsz", "cuStreamBeginCapture_v2",
      "cuStreamBeginCapture_v2_ptsz", "cuStreamGetCaptureInfo_v2",
      "cuStreamGetCaptureInfo_v2_ptsz", "cuStreamGetCaptureInfo_v3",
      "cuStreamGetCaptureInfo_v3_ptsz", "cuStreamGetCtx_v2", "cuStreamGetCtx_v2_ptsz",
      "cuStreamUpdateCaptureDependencies_v2", "cuStreamUpdateCaptureDependencies_v2_ptsz",
  };
  std::set<std::string> custom;
  for (int i = 0; i < cudyn::kEntryCount; ++i) {
    if (cudyn::kEntries[i].adapter == cudyn::AdapterKind::kCustom) custom.insert(Symbol(i));
  }
  EXPECT_EQ(custom, covered);
  // The drop-in is built against the 13.0 headers: every custom adapter is compiled in.
  for (const std::string& symbol : custom) {
    EXPECT_TRUE(cudyn::AdapterCompiledIn(Index(symbol))) << symbol;
    // A per-thread variant falls back to a per-thread variant, a legacy one to a legacy one.
    const cudyn::EntryInfo& e = cudyn::kEntries[Index(symbol)];
    ASSERT_GE(e.fallback, 0) << symbol;
    EXPECT_EQ(cudyn::kEntries[e.fallback].stream, e.stream) << symbol << " -> " << FallbackOf(symbol);
  }
}

// Everything written to file descriptor 2 (spdlog's stderr sink) while it lives.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    if (file_ != nullptr && saved_ >= 0) dup2(fileno(file_), 2);
  }
  ~StderrCapture() { Finish(); }
  std::string Finish() {
    std::string text;
    if (saved_ < 0 || file_ == nullptr) return text;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
    std::rewind(file_);
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) text.append(buffer, n);
    std::fclose(file_);
    file_ = nullptr;
    return text;
  }

 private:
  FILE* file_ = nullptr;
  int saved_ = -1;
};

// Lines of `text` naming `symbol` and 801.
int RejectionLines(const std::string& text, const std::string& symbol) {
  int lines = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find(symbol + " ") != std::string::npos && line.find("801") != std::string::npos) ++lines;
    start = end + 1;
  }
  return lines;
}

// An adapter that cannot express its arguments returns 801 every time and warns once per entry.
// Runs before the per-adapter tests below (gtest keeps definition order), which also reject
// these calls.
TEST_F(Adapters, RejectionReturns801AndWarnsOncePerEntry) {
  CUcontext ctx = nullptr;
  CUctxCigParam cig = {};
  CUctxCreateParams with_cig = {nullptr, 0, &cig};
  const CUmemLocation numa = {CU_MEM_LOCATION_TYPE_HOST_NUMA, 1};
  const std::pair<const char*, std::function<CUresult()>> candidates[] = {
      {"cuMemAdvise_v2",
       [&] { return cuMemAdvise(0x1000, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, numa); }},
      {"cuCtxCreate_v4", [&] { return cuCtxCreate(&ctx, &with_cig, 0, 0); }},
  };
  for (const auto& [symbol, call] : candidates) {
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    ASSERT_NE(route, Route::kMissing);
    StderrCapture capture;
    CUresult first = call();
    CUresult second = call();
    CUresult third = call();
    std::string text = capture.Finish();
    if (route == Route::kAdapter) {
      EXPECT_EQ(first, kNotSupported);
      EXPECT_EQ(second, kNotSupported);
      EXPECT_EQ(third, kNotSupported);
      EXPECT_TRUE(Calls().empty()) << Trace();
      EXPECT_EQ(RejectionLines(text, symbol), 1) << text;
    } else {
      EXPECT_EQ(first, CUDA_SUCCESS);
      EXPECT_EQ(Calls().size(), 3u) << Trace();
      EXPECT_EQ(RejectionLines(text, symbol), 0) << text;
    }
  }
}

// ---- contexts ------------------------------------------------------------------------------

TEST_F(Adapters, CtxCreateV3) {
  Route route = Served("cuCtxCreate_v3");
  std::string v2 = FallbackOf("cuCtxCreate_v3");
  CUcontext ctx = nullptr;
  CUresult rc = cuCtxCreate_v3(&ctx, nullptr, 0, 4, 3);
  if (route == Route::kMissing) return ExpectMissing(rc, "cuCtxCreate_v3");
  ASSERT_EQ(rc, CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuCtxCreate_v3", {W(&ctx), 0, 0, 4, 3});
  } else {
    ExpectCall(v2, {W(&ctx), 4, 3});  // no affinity params: plain v2
  }

  CUexecAffinityParam affinity = {};
  affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  affinity.param.smCount.val = 8;
  fake_.reset();
  rc = cuCtxCreate_v3(&ctx, &affinity, 1, 0, 1);
  if (route == Route::kNative) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
    ExpectCall("cuCtxCreate_v3", {W(&ctx), W(&affinity), 1, 0, 1});
  } else {
    ExpectRejected(rc, "cuCtxCreate_v3");  // v2 has no execution-affinity parameters
  }
}

TEST_F(Adapters, CtxCreateV4) {
  Route route = Served("cuCtxCreate_v4");
  Route v3_route = RouteOf("cuCtxCreate_v3");
  std::string v3 = FallbackOf("cuCtxCreate_v4"), v2 = FallbackOf(v3);
  CUcontext ctx = nullptr;

  // NULL params, and params with neither affinity nor CIG: v3 without params (or v2 under it).
  CUctxCreateParams empty = {nullptr, 0, nullptr};
  for (CUctxCreateParams* params : {static_cast<CUctxCreateParams*>(nullptr), &empty}) {
    SCOPED_TRACE(params == nullptr ? "NULL params" : "empty params");
    fake_.reset();
    CUresult rc = cuCtxCreate(&ctx, params, 4, 3);
    if (route == Route::kMissing) {
      ExpectMissing(rc, "cuCtxCreate_v4");
      continue;
    }
    ASSERT_EQ(rc, CUDA_SUCCESS);
    if (route == Route::kNative) {
      ExpectCall("cuCtxCreate_v4", {W(&ctx), W(params), 4, 3});
    } else if (v3_route == Route::kNative) {
      ExpectCall(v3, {W(&ctx), 0, 0, 4, 3});
    } else {
      ExpectCall(v2, {W(&ctx), 4, 3});  // v4 -> v3 adapter -> v2
    }
  }

  // Execution-affinity params: v3 expresses them, v2 does not.
  CUexecAffinityParam affinity = {};
  affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  affinity.param.smCount.val = 8;
  CUctxCreateParams with_affinity = {&affinity, 1, nullptr};
  fake_.reset();
  CUresult rc = cuCtxCreate(&ctx, &with_affinity, 0, 2);
  if (route == Route::kNative) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
    ExpectCall("cuCtxCreate_v4", {W(&ctx), W(&with_affinity), 0, 2});
  } else if (route == Route::kAdapter && v3_route == Route::kNative) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
    ExpectCall(v3, {W(&ctx), W(&affinity), 1, 0, 2});
  } else if (route == Route::kAdapter) {
    ExpectRejected(rc, v3);  // the v3 adapter under v4 rejects it
  } else {
    ExpectMissing(rc, "cuCtxCreate_v4");
  }

  // CIG params: only v4 expresses them.
  CUctxCigParam cig = {};
  CUctxCreateParams with_cig = {nullptr, 0, &cig};
  fake_.reset();
  rc = cuCtxCreate(&ctx, &with_cig, 0, 0);
  if (route == Route::kNative) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
    ExpectCall("cuCtxCreate_v4", {W(&ctx), W(&with_cig), 0, 0});
  } else if (route == Route::kAdapter) {
    ExpectRejected(rc, "cuCtxCreate_v4");
  } else {
    ExpectMissing(rc, "cuCtxCreate_v4");
  }
}

// cuCtxGetDevice_v2 and cuCtxSynchronize_v2 share the push / v1 / pop shape.
TEST_F(Adapters, CtxGetDeviceV2) {
  Route route = Served("cuCtxGetDevice_v2");
  std::string v1 = FallbackOf("cuCtxGetDevice_v2");
  ASSERT_NE(route, Route::kMissing);  // cuCtxGetDevice is in every driver
  CUdevice device = 0;
  CUcontext ctx = reinterpret_cast<CUcontext>(0x1234);

  // NULL context (the current one): v1 directly, no push/pop.
  ASSERT_EQ(cuCtxGetDevice_v2(&device, nullptr), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuCtxGetDevice_v2", {W(&device), 0});
  } else {
    ExpectCall(v1, {W(&device)});
  }

  fake_.reset();
  ASSERT_EQ(cuCtxGetDevice_v2(&device, ctx), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuCtxGetDevice_v2", {W(&device), 0x1234});
    return;
  }
  std::vector<const CudynFakeCall*> calls = Expect({"cuCtxPushCurrent_v2", v1, "cuCtxPopCurrent_v2"});
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(Arg(calls[0], 0), 0x1234u);
  EXPECT_EQ(Arg(calls[1], 0), W(&device));
  EXPECT_NE(Arg(calls[2], 0), 0u);  // pop needs somewhere to write the popped context

  // A failed push: its result, nothing else called.
  fake_.reset();
  ASSERT_EQ(fake_.set_result("cuCtxPushCurrent_v2", CUDA_ERROR_INVALID_CONTEXT), 0);
  EXPECT_EQ(cuCtxGetDevice_v2(&device, ctx), CUDA_ERROR_INVALID_CONTEXT);
  Expect({"cuCtxPushCurrent_v2"});
  // A failed v1: its result, and the context is still popped.
  fake_.reset();
  ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_INVALID_VALUE), 0);
  EXPECT_EQ(cuCtxGetDevice_v2(&device, ctx), CUDA_ERROR_INVALID_VALUE);
  Expect({"cuCtxPushCurrent_v2", v1, "cuCtxPopCurrent_v2"});
  // A failed pop after a good v1: the pop's result.
  fake_.reset();
  ASSERT_EQ(fake_.set_result("cuCtxPopCurrent_v2", CUDA_ERROR_INVALID_CONTEXT), 0);
  EXPECT_EQ(cuCtxGetDevice_v2(&device, ctx), CUDA_ERROR_INVALID_CONTEXT);
  fake_.reset();
}

TEST_F(Adapters, CtxSynchronizeV2) {
  Route route = Served("cuCtxSynchronize_v2");
  std::string v1 = FallbackOf("cuCtxSynchronize_v2");
  ASSERT_NE(route, Route::kMissing);
  ASSERT_EQ(cuCtxSynchronize_v2(nullptr), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuCtxSynchronize_v2", {0});
  } else {
    ExpectCall(v1, {});
  }
  fake_.reset();
  ASSERT_EQ(cuCtxSynchronize_v2(reinterpret_cast<CUcontext>(0x4321)), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuCtxSynchronize_v2", {0x4321});
    return;
  }
  std::vector<const CudynFakeCall*> calls = Expect({"cuCtxPushCurrent_v2", v1, "cuCtxPopCurrent_v2"});
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(Arg(calls[0], 0), 0x4321u);
  fake_.reset();
  ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_LAUNCH_FAILED), 0);
  EXPECT_EQ(cuCtxSynchronize_v2(reinterpret_cast<CUcontext>(0x4321)), CUDA_ERROR_LAUNCH_FAILED);
  Expect({"cuCtxPushCurrent_v2", v1, "cuCtxPopCurrent_v2"});
  fake_.reset();
}

// The shim answers the application's cuGetProcAddress itself, so the loader's entry for the
// driver's cuGetProcAddress_v2 is reached through the default driver directly.
TEST_F(Adapters, GetProcAddressV2) {
  Route route = Served("cuGetProcAddress_v2");
  std::string v1 = FallbackOf("cuGetProcAddress_v2");
  using Fn = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto fn = reinterpret_cast<Fn>(cudyn::DefaultDriver().Resolve(Index("cuGetProcAddress_v2")));
  if (route == Route::kMissing) {
    EXPECT_EQ(fn, nullptr);
    EXPECT_EQ(fake_.call_count(), 0);
    return;
  }
  ASSERT_NE(fn, nullptr);
  // The record of the lookup of `name` (the loader's own lookups are of other names).
  auto lookup = [&](const char* name) -> const CudynFakeCall* {
    const CudynFakeCall* found = nullptr;
    int n = 0;
    for (int i = 0; i < fake_.call_count(); ++i) {
      if (std::strcmp(fake_.call(i)->requested, name) == 0) {
        found = fake_.call(i);
        ++n;
      }
    }
    EXPECT_EQ(n, 1) << name;
    return found;
  };

  const char* name = "cuMemAlloc";
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status = static_cast<CUdriverProcAddressQueryResult>(7);
  fake_.reset();
  ASSERT_EQ(fn(name, &pfn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
  const CudynFakeCall* call = lookup(name);
  ASSERT_NE(call, nullptr);
  if (route == Route::kNative) {
    EXPECT_STREQ(call->symbol, "cuGetProcAddress_v2");
    ASSERT_EQ(call->num_args, 5);
    EXPECT_EQ(Arg(call, 4), W(&status));
  } else {
    EXPECT_STREQ(call->symbol, v1.c_str());
    ASSERT_EQ(call->num_args, 4);
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  }
  EXPECT_EQ(Arg(call, 0), W(name));
  EXPECT_EQ(Arg(call, 1), W(&pfn));
  EXPECT_EQ(Arg(call, 2), 3020u);
  EXPECT_EQ(Arg(call, 3), 0u);
  EXPECT_EQ(pfn, dlsym(handle_, "cuMemAlloc_v2"));

  // Not found: v2 reports it as success + symbolStatus NOT_FOUND with a NULL pointer.
  const char* unknown = "cuNoSuchFunctionAnywhere";
  pfn = reinterpret_cast<void*>(0x1);
  status = static_cast<CUdriverProcAddressQueryResult>(7);
  fake_.reset();
  EXPECT_EQ(fn(unknown, &pfn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
  call = lookup(unknown);
  ASSERT_NE(call, nullptr);
  EXPECT_STREQ(call->symbol, route == Route::kNative ? "cuGetProcAddress_v2" : v1.c_str());
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(pfn, nullptr);
  // symbolStatus may be NULL.
  fake_.reset();
  EXPECT_EQ(fn(name, &pfn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, nullptr), CUDA_SUCCESS);
  // Other errors pass through (the adapter's v1 failing).
  if (route == Route::kAdapter) {
    fake_.reset();
    ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_INVALID_VALUE), 0);
    EXPECT_EQ(fn(name, &pfn, 3020, 0, &status), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  }
  fake_.reset();
}

// ---- graphs: edge data -----------------------------------------------------------------------

CUgraphEdgeData ProgrammaticEdge() {
  CUgraphEdgeData edge = {};
  edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
  return edge;
}

// cuGraphAddDependencies_v2 / cuGraphRemoveDependencies_v2: (graph, from, to, edgeData, n).
void Adapters::EdgeListAdapter(const std::string& symbol,
                               CUresult (*fn)(CUgraph, const CUgraphNode*, const CUgraphNode*,
                                              const CUgraphEdgeData*, size_t)) {
  Route route = Served(symbol);
  std::string v1 = FallbackOf(symbol);
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode from[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  CUgraphNode to[2] = {reinterpret_cast<CUgraphNode>(0x30), reinterpret_cast<CUgraphNode>(0x31)};
  CUgraphEdgeData defaults[2] = {};
  CUgraphEdgeData mixed[2] = {{}, ProgrammaticEdge()};
  for (const CUgraphEdgeData* data : {static_cast<const CUgraphEdgeData*>(nullptr),
                                      static_cast<const CUgraphEdgeData*>(defaults)}) {
    SCOPED_TRACE(data == nullptr ? "NULL edge data" : "default edge data");
    fake_.reset();
    CUresult rc = fn(graph, from, to, data, 2);
    if (route == Route::kMissing) {
      ExpectMissing(rc, symbol);
    } else if (route == Route::kNative) {
      EXPECT_EQ(rc, CUDA_SUCCESS);
      ExpectCall(symbol, {W(graph), W(from), W(to), W(data), 2});
    } else {
      EXPECT_EQ(rc, CUDA_SUCCESS);
      ExpectCall(v1, {W(graph), W(from), W(to), 2});
    }
  }
  fake_.reset();
  CUresult rc = fn(graph, from, to, mixed, 2);
  if (route == Route::kNative) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
    ExpectCall(symbol, {W(graph), W(from), W(to), W(mixed), 2});
  } else if (route == Route::kAdapter) {
    ExpectRejected(rc, symbol);
  } else {
    ExpectMissing(rc, symbol);
  }
}

TEST_F(Adapters, GraphAddDependenciesV2) {
  EdgeListAdapter("cuGraphAddDependencies_v2", &cuGraphAddDependencies_v2);
}

TEST_F(Adapters, GraphRemoveDependenciesV2) {
  EdgeListAdapter("cuGraphRemoveDependencies_v2", &cuGraphRemoveDependencies_v2);
}

TEST_F(Adapters, GraphAddNodeV2) {
  Route route = Served("cuGraphAddNode_v2");
  std::string v1 = FallbackOf("cuGraphAddNode_v2");
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode node = nullptr;
  CUgraphNode deps[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  CUgraphEdgeData defaults[2] = {};
  CUgraphEdgeData mixed[2] = {ProgrammaticEdge(), {}};
  CUgraphNodeParams params = {};
  params.type = CU_GRAPH_NODE_TYPE_EMPTY;
  for (CUgraphEdgeData* data : {static_cast<CUgraphEdgeData*>(nullptr), defaults}) {
    SCOPED_TRACE(data == nullptr ? "NULL edge data" : "default edge data");
    fake_.reset();
    CUresult rc = cuGraphAddNode(&node, graph, deps, data, 2, &params);
    if (route == Route::kMissing) {
      ExpectMissing(rc, "cuGraphAddNode_v2");
    } else if (route == Route::kNative) {
      EXPECT_EQ(rc, CUDA_SUCCESS);
      ExpectCall("cuGraphAddNode_v2", {W(&node), W(graph), W(deps), W(data), 2, W(&params)});
    } else {
      EXPECT_EQ(rc, CUDA_SUCCESS);
      ExpectCall(v1, {W(&node), W(graph), W(deps), 2, W(&params)});
    }
  }
  fake_.reset();
  CUresult rc = cuGraphAddNode(&node, graph, deps, mixed, 2, &params);
  if (route == Route::kNative) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
  } else if (route == Route::kAdapter) {
    ExpectRejected(rc, "cuGraphAddNode_v2");
  } else {
    ExpectMissing(rc, "cuGraphAddNode_v2");
  }
}

TEST_F(Adapters, StreamUpdateCaptureDependenciesV2) {
  for (auto variant : {std::make_pair("cuStreamUpdateCaptureDependencies_v2",
                                      &cuStreamUpdateCaptureDependencies_v2),
                       std::make_pair("cuStreamUpdateCaptureDependencies_v2_ptsz",
                                      &cuStreamUpdateCaptureDependencies_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    CUgraphNode deps[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
    CUgraphEdgeData defaults[2] = {};
    CUgraphEdgeData mixed[2] = {{}, ProgrammaticEdge()};
    for (CUstream stream : kStreams) {
      for (CUgraphEdgeData* data : {static_cast<CUgraphEdgeData*>(nullptr), defaults}) {
        fake_.reset();
        CUresult rc = variant.second(stream, deps, data, 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
        if (route == Route::kMissing) {
          ExpectMissing(rc, symbol);
        } else if (route == Route::kNative) {
          EXPECT_EQ(rc, CUDA_SUCCESS);
          ExpectCall(symbol, {W(stream), W(deps), W(data), 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES});
        } else {
          EXPECT_EQ(rc, CUDA_SUCCESS);
          ExpectCall(v1, {W(stream), W(deps), 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES});
        }
      }
      fake_.reset();
      CUresult rc = variant.second(stream, deps, mixed, 2, CU_STREAM_ADD_CAPTURE_DEPENDENCIES);
      if (route == Route::kNative) {
        EXPECT_EQ(rc, CUDA_SUCCESS);
      } else if (route == Route::kAdapter) {
        ExpectRejected(rc, symbol);
      } else {
        ExpectMissing(rc, symbol);
      }
    }
  }
}

// cuGraphGetEdges_v2 / cuGraphNodeGetDependencies_v2 / cuGraphNodeGetDependentNodes_v2: v1 fills
// the node arrays; the adapter zero-fills requested edge data (all edges are default edges).
TEST_F(Adapters, GraphGetEdgesV2) {
  Route route = Served("cuGraphGetEdges_v2");
  std::string v1 = FallbackOf("cuGraphGetEdges_v2");
  ASSERT_NE(route, Route::kMissing);
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode from[3], to[3];
  CUgraphEdgeData edges[3];
  std::memset(edges, 0xFF, sizeof(edges));
  size_t num = 3;
  ASSERT_EQ(cuGraphGetEdges(graph, from, to, edges, &num), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuGraphGetEdges_v2", {W(graph), W(from), W(to), W(edges), W(&num)});
  } else {
    ExpectCall(v1, {W(graph), W(from), W(to), W(&num)});
    for (const CUgraphEdgeData& e : edges) {
      EXPECT_EQ(e.from_port, 0);
      EXPECT_EQ(e.to_port, 0);
      EXPECT_EQ(e.type, CU_GRAPH_DEPENDENCY_TYPE_DEFAULT);
      for (unsigned char r : e.reserved) EXPECT_EQ(r, 0);
    }
  }
  // No edge data requested, and the count-only query.
  fake_.reset();
  ASSERT_EQ(cuGraphGetEdges(graph, from, to, nullptr, &num), CUDA_SUCCESS);
  if (route == Route::kAdapter) ExpectCall(v1, {W(graph), W(from), W(to), W(&num)});
  fake_.reset();
  std::memset(edges, 0xFF, sizeof(edges));
  ASSERT_EQ(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &num), CUDA_SUCCESS);
  if (route == Route::kAdapter) ExpectCall(v1, {W(graph), 0, 0, W(&num)});
  // v1 failing: its result, edge data untouched.
  if (route == Route::kAdapter) {
    fake_.reset();
    ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_INVALID_VALUE), 0);
    EXPECT_EQ(cuGraphGetEdges(graph, from, to, edges, &num), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(edges[0].type, 0xFF);
  }
  fake_.reset();
}

void Adapters::NodeEdgeQuery(const std::string& symbol,
                             CUresult (*fn)(CUgraphNode, CUgraphNode*, CUgraphEdgeData*, size_t*)) {
  Route route = Served(symbol);
  std::string v1 = FallbackOf(symbol);
  ASSERT_NE(route, Route::kMissing);
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  CUgraphNode deps[4];
  CUgraphEdgeData edges[4];
  std::memset(edges, 0xFF, sizeof(edges));
  size_t num = 4;
  fake_.reset();
  ASSERT_EQ(fn(node, deps, edges, &num), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall(symbol, {W(node), W(deps), W(edges), W(&num)});
    return;
  }
  ExpectCall(v1, {W(node), W(deps), W(&num)});
  static const CUgraphEdgeData kZero = {};
  for (const CUgraphEdgeData& e : edges) EXPECT_EQ(std::memcmp(&e, &kZero, sizeof(e)), 0);
  fake_.reset();
  ASSERT_EQ(fn(node, deps, nullptr, &num), CUDA_SUCCESS);
  ExpectCall(v1, {W(node), W(deps), W(&num)});
  fake_.reset();
  ASSERT_EQ(fn(node, nullptr, nullptr, &num), CUDA_SUCCESS);
  ExpectCall(v1, {W(node), 0, W(&num)});
  fake_.reset();
  std::memset(edges, 0xFF, sizeof(edges));
  ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_INVALID_VALUE), 0);
  EXPECT_EQ(fn(node, deps, edges, &num), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(edges[0].type, 0xFF);
  fake_.reset();
}

TEST_F(Adapters, GraphNodeGetDependenciesV2) {
  NodeEdgeQuery("cuGraphNodeGetDependencies_v2", &cuGraphNodeGetDependencies_v2);
}

TEST_F(Adapters, GraphNodeGetDependentNodesV2) {
  NodeEdgeQuery("cuGraphNodeGetDependentNodes_v2", &cuGraphNodeGetDependentNodes_v2);
}

// ---- graphs: kernel-node parameters ------------------------------------------------------------

CUDA_KERNEL_NODE_PARAMS KernelParams() {
  CUDA_KERNEL_NODE_PARAMS p = {};
  p.func = reinterpret_cast<CUfunction>(0x99);
  p.gridDimX = 1;
  p.gridDimY = 2;
  p.gridDimZ = 3;
  p.blockDimX = 4;
  p.blockDimY = 5;
  p.blockDimZ = 6;
  p.sharedMemBytes = 7;
  p.kernelParams = reinterpret_cast<void**>(0xAA0);
  p.extra = reinterpret_cast<void**>(0xBB0);
  return p;
}

// The v1 parameters the adapter handed the driver: its own copy (not the caller's v2 struct),
// read from the bytes the fake captured during the call (cudynFakeSetCapture).
void ExpectV1Params(const CudynFakeCall* rec, int param_arg, const CUDA_KERNEL_NODE_PARAMS* caller) {
  ASSERT_EQ(rec->captured_size, static_cast<int>(sizeof(CUDA_KERNEL_NODE_PARAMS_v1)))
      << "the fake should have captured the v1 params";
  EXPECT_NE(rec->args[rec->arg_word[param_arg]], W(caller)) << "v1 params should be a copy";
  CUDA_KERNEL_NODE_PARAMS_v1 v1;
  std::memcpy(&v1, rec->captured, sizeof(v1));
  CUDA_KERNEL_NODE_PARAMS want = KernelParams();
  EXPECT_EQ(v1.func, want.func);
  EXPECT_EQ(v1.gridDimX, 1u);
  EXPECT_EQ(v1.gridDimY, 2u);
  EXPECT_EQ(v1.gridDimZ, 3u);
  EXPECT_EQ(v1.blockDimX, 4u);
  EXPECT_EQ(v1.blockDimY, 5u);
  EXPECT_EQ(v1.blockDimZ, 6u);
  EXPECT_EQ(v1.sharedMemBytes, 7u);
  EXPECT_EQ(v1.kernelParams, want.kernelParams);
  EXPECT_EQ(v1.extra, want.extra);
}

void Adapters::KernelParamsAdapter(
    const std::string& symbol, int param_arg, const std::vector<unsigned long long>& other,
    const std::function<CUresult(const CUDA_KERNEL_NODE_PARAMS*)>& call) {
  Route route = Served(symbol);
  std::string v1 = FallbackOf(symbol);
  CUDA_KERNEL_NODE_PARAMS params = KernelParams();
  fake_.reset();
  if (route == Route::kAdapter) {
    ASSERT_EQ(fake_.set_capture(v1.c_str(), param_arg, sizeof(CUDA_KERNEL_NODE_PARAMS_v1)), 0);
  }
  {
    CUresult rc = call(&params);
    if (route == Route::kMissing) return ExpectMissing(rc, symbol);
    ASSERT_EQ(rc, CUDA_SUCCESS);
    std::vector<const CudynFakeCall*> c = Calls();
    ASSERT_EQ(c.size(), 1u);
    const CudynFakeCall* rec = c[0];
    std::vector<unsigned long long> want = other;
    if (route == Route::kNative) {
      EXPECT_STREQ(rec->symbol, symbol.c_str());
      want.insert(want.begin() + param_arg, W(&params));
    } else {
      EXPECT_STREQ(rec->symbol, v1.c_str());
      ExpectV1Params(rec, param_arg, &params);
      want.insert(want.begin() + param_arg, rec->args[rec->arg_word[param_arg]]);
    }
    ASSERT_EQ(rec->num_args, static_cast<int>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(rec->args[rec->arg_word[i]], want[i]) << "argument " << i;
    }
  }
  // NULL params pass through as NULL.
  fake_.reset();
  EXPECT_EQ(call(nullptr), CUDA_SUCCESS);
  {
    std::vector<const CudynFakeCall*> c = Calls();
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0]->args[c[0]->arg_word[param_arg]], 0u);
    EXPECT_STREQ(c[0]->symbol, route == Route::kNative ? symbol.c_str() : v1.c_str());
  }
  // kern / ctx (v2-only fields): 801 on the adapter.
  CUDA_KERNEL_NODE_PARAMS with_kern = KernelParams();
  with_kern.func = nullptr;
  with_kern.kern = reinterpret_cast<CUkernel>(0x77);
  CUDA_KERNEL_NODE_PARAMS with_ctx = KernelParams();
  with_ctx.ctx = reinterpret_cast<CUcontext>(0x88);
  for (const CUDA_KERNEL_NODE_PARAMS* p : {&with_kern, &with_ctx}) {
    fake_.reset();
    CUresult rc = call(p);
    if (route == Route::kNative) {
      EXPECT_EQ(rc, CUDA_SUCCESS);
      EXPECT_EQ(Calls().size(), 1u);
    } else {
      ExpectRejected(rc, symbol);
    }
  }
}

TEST_F(Adapters, GraphAddKernelNodeV2) {
  CUgraphNode node = nullptr;
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode deps[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  KernelParamsAdapter(
      "cuGraphAddKernelNode_v2", 4, {W(&node), W(graph), W(deps), 2},
      [&](const CUDA_KERNEL_NODE_PARAMS* p) { return cuGraphAddKernelNode(&node, graph, deps, 2, p); });
}

TEST_F(Adapters, GraphKernelNodeSetParamsV2) {
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  KernelParamsAdapter(
      "cuGraphKernelNodeSetParams_v2", 1, {W(node)},
      [&](const CUDA_KERNEL_NODE_PARAMS* p) { return cuGraphKernelNodeSetParams(node, p); });
}

TEST_F(Adapters, GraphExecKernelNodeSetParamsV2) {
  CUgraphExec exec = reinterpret_cast<CUgraphExec>(0x50);
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  KernelParamsAdapter(
      "cuGraphExecKernelNodeSetParams_v2", 2, {W(exec), W(node)},
      [&](const CUDA_KERNEL_NODE_PARAMS* p) { return cuGraphExecKernelNodeSetParams(exec, node, p); });
}

TEST_F(Adapters, GraphKernelNodeGetParamsV2) {
  Route route = Served("cuGraphKernelNodeGetParams_v2");
  std::string v1 = FallbackOf("cuGraphKernelNodeGetParams_v2");
  ASSERT_NE(route, Route::kMissing);
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  CUDA_KERNEL_NODE_PARAMS params;
  std::memset(&params, 0xFF, sizeof(params));
  ASSERT_EQ(cuGraphKernelNodeGetParams(node, &params), CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuGraphKernelNodeGetParams_v2", {W(node), W(&params)});
    return;
  }
  const CudynFakeCall* call = One(v1);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(Arg(call, 0), W(node));
  EXPECT_NE(Arg(call, 1), 0u);
  // The driver filled nothing (the fake never writes): the common fields are v1's (zero) and
  // the v2-only kern/ctx are NULL; no 0xFF byte of the caller's buffer survives.
  EXPECT_EQ(params.kern, nullptr);
  EXPECT_EQ(params.ctx, nullptr);
  EXPECT_EQ(params.func, nullptr);
  EXPECT_EQ(params.gridDimX, 0u);
  EXPECT_EQ(params.sharedMemBytes, 0u);
  EXPECT_EQ(params.kernelParams, nullptr);
  EXPECT_EQ(params.extra, nullptr);
  // v1 failing: its result, the caller's struct untouched.
  fake_.reset();
  std::memset(&params, 0xFF, sizeof(params));
  ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_INVALID_VALUE), 0);
  EXPECT_EQ(cuGraphKernelNodeGetParams(node, &params), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(params.gridDimX, 0xFFFFFFFFu);
  fake_.reset();
}

TEST_F(Adapters, GraphExecUpdateV2) {
  Route route = Served("cuGraphExecUpdate_v2");
  std::string v1 = FallbackOf("cuGraphExecUpdate_v2");
  CUgraphExec exec = reinterpret_cast<CUgraphExec>(0x50);
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphExecUpdateResultInfo info;
  std::memset(&info, 0xFF, sizeof(info));
  CUresult rc = cuGraphExecUpdate(exec, graph, &info);
  if (route == Route::kMissing) return ExpectMissing(rc, "cuGraphExecUpdate_v2");
  ASSERT_EQ(rc, CUDA_SUCCESS);
  if (route == Route::kNative) {
    ExpectCall("cuGraphExecUpdate_v2", {W(exec), W(graph), W(&info)});
    return;
  }
  const CudynFakeCall* call = One(v1);
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->num_args, 4);
  EXPECT_EQ(Arg(call, 0), W(exec));
  EXPECT_EQ(Arg(call, 1), W(graph));
  EXPECT_NE(Arg(call, 2), 0u);  // hErrorNode_out
  EXPECT_NE(Arg(call, 3), 0u);  // updateResult_out
  EXPECT_EQ(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
  EXPECT_EQ(info.errorNode, nullptr);
  EXPECT_EQ(info.errorFromNode, nullptr);
  // v1's failure is returned, info still filled; info may be NULL.
  fake_.reset();
  std::memset(&info, 0xFF, sizeof(info));
  ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE), 0);
  EXPECT_EQ(cuGraphExecUpdate(exec, graph, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  EXPECT_EQ(info.errorFromNode, nullptr);
  fake_.reset();
  EXPECT_EQ(cuGraphExecUpdate(exec, graph, nullptr), CUDA_SUCCESS);
  One(v1);
}

// ---- memory ---------------------------------------------------------------------------------

TEST_F(Adapters, MemAdviseV2) {
  Route route = Served("cuMemAdvise_v2");
  std::string v1 = FallbackOf("cuMemAdvise_v2");
  ASSERT_NE(route, Route::kMissing);
  struct Case {
    CUmemLocation location;
    long long device;  // the v1 device argument, or 0 when v1 cannot express the location
    bool expressible;
  };
  const Case cases[] = {
      {{CU_MEM_LOCATION_TYPE_DEVICE, 2}, 2, true},
      {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, 0, true},
      {{CU_MEM_LOCATION_TYPE_HOST, 0}, CU_DEVICE_CPU, true},
      {{CU_MEM_LOCATION_TYPE_HOST, 5}, CU_DEVICE_CPU, true},  // the id means nothing for HOST
      {{CU_MEM_LOCATION_TYPE_HOST_NUMA, 1}, 0, false},
      {{CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0}, 0, false},
      {{CU_MEM_LOCATION_TYPE_INVALID, 0}, 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("location type " + std::to_string(c.location.type));
    fake_.reset();
    CUresult rc = cuMemAdvise(0x1000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, c.location);
    if (route == Route::kNative) {
      ASSERT_EQ(rc, CUDA_SUCCESS);
      const CudynFakeCall* call = One("cuMemAdvise_v2");
      ASSERT_NE(call, nullptr);
      EXPECT_EQ(Arg(call, 0), 0x1000u);
      EXPECT_EQ(Arg(call, 1), 4096u);
      EXPECT_EQ(Arg(call, 2), static_cast<unsigned long long>(CU_MEM_ADVISE_SET_PREFERRED_LOCATION));
      auto seen = StructArg<CUmemLocation>(call, 3);
      EXPECT_EQ(seen.type, c.location.type);
      EXPECT_EQ(seen.id, c.location.id);
    } else if (c.expressible) {
      ASSERT_EQ(rc, CUDA_SUCCESS);
      ExpectCall(v1, {0x1000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                      static_cast<unsigned long long>(c.device)});
    } else {
      ExpectRejected(rc, "cuMemAdvise_v2");
    }
  }
}

TEST_F(Adapters, MemPrefetchAsyncV2) {
  for (auto variant : {std::make_pair("cuMemPrefetchAsync_v2", &cuMemPrefetchAsync_v2),
                       std::make_pair("cuMemPrefetchAsync_v2_ptsz", &cuMemPrefetchAsync_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    ASSERT_NE(route, Route::kMissing);
    const CUmemLocation device = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
    const CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
    const CUmemLocation numa = {CU_MEM_LOCATION_TYPE_HOST_NUMA, 0};
    for (CUstream stream : kStreams) {
      for (auto [location, v1_device] : {std::make_pair(device, 1LL), std::make_pair(host, -1LL)}) {
        fake_.reset();
        ASSERT_EQ(variant.second(0x2000, 256, location, 0, stream), CUDA_SUCCESS);
        if (route == Route::kNative) {
          const CudynFakeCall* call = One(symbol);
          ASSERT_NE(call, nullptr);
          EXPECT_EQ(StructArg<CUmemLocation>(call, 2).type, location.type);
          EXPECT_EQ(Arg(call, 3), 0u);
          EXPECT_EQ(Arg(call, 4), W(stream));
        } else {
          ExpectCall(v1, {0x2000, 256, static_cast<unsigned long long>(v1_device), W(stream)});
        }
      }
      // Flags (none defined before 12.2) and HOST_NUMA cannot be expressed by v1.
      fake_.reset();
      CUresult rc = variant.second(0x2000, 256, device, 1, stream);
      if (route == Route::kNative) {
        EXPECT_EQ(rc, CUDA_SUCCESS);
      } else {
        ExpectRejected(rc, symbol);
      }
      fake_.reset();
      rc = variant.second(0x2000, 256, numa, 0, stream);
      if (route == Route::kNative) {
        EXPECT_EQ(rc, CUDA_SUCCESS);
      } else {
        ExpectRejected(rc, symbol);
      }
    }
  }
}

TEST_F(Adapters, MemcpyBatchAsyncV2) {
  for (auto variant : {std::make_pair("cuMemcpyBatchAsync_v2", &cuMemcpyBatchAsync_v2),
                       std::make_pair("cuMemcpyBatchAsync_v2_ptsz", &cuMemcpyBatchAsync_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    CUdeviceptr dsts[3] = {0x100, 0x200, 0x300}, srcs[3] = {0x400, 0x500, 0x600};
    size_t sizes[3] = {16, 32, 64};
    CUmemcpyAttributes attrs[1] = {};
    size_t attr_idxs[1] = {0};
    for (CUstream stream : kStreams) {
      fake_.reset();
      CUresult rc = variant.second(dsts, srcs, sizes, 3, attrs, attr_idxs, 1, stream);
      if (route == Route::kMissing) {
        ExpectMissing(rc, symbol);
        continue;
      }
      ASSERT_EQ(rc, CUDA_SUCCESS);
      if (route == Route::kNative) {
        ExpectCall(symbol, {W(dsts), W(srcs), W(sizes), 3, W(attrs), W(attr_idxs), 1, W(stream)});
        continue;
      }
      const CudynFakeCall* call = One(v1);
      ASSERT_NE(call, nullptr);
      ASSERT_EQ(call->num_args, 9);
      const unsigned long long want[] = {W(dsts), W(srcs), W(sizes), 3, W(attrs), W(attr_idxs), 1};
      for (int i = 0; i < 7; ++i) EXPECT_EQ(Arg(call, i), want[i]) << "argument " << i;
      // v2 dropped failIdx: the adapter passes a local of its own, never NULL.
      EXPECT_NE(Arg(call, 7), 0u) << "failIdx";
      EXPECT_EQ(Arg(call, 8), W(stream));
    }
  }
}

TEST_F(Adapters, Memcpy3DBatchAsyncV2) {
  for (auto variant : {std::make_pair("cuMemcpy3DBatchAsync_v2", &cuMemcpy3DBatchAsync_v2),
                       std::make_pair("cuMemcpy3DBatchAsync_v2_ptsz", &cuMemcpy3DBatchAsync_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    CUDA_MEMCPY3D_BATCH_OP ops[2] = {};
    for (CUstream stream : kStreams) {
      fake_.reset();
      CUresult rc = variant.second(2, ops, 0, stream);
      if (route == Route::kMissing) {
        ExpectMissing(rc, symbol);
        continue;
      }
      ASSERT_EQ(rc, CUDA_SUCCESS);
      if (route == Route::kNative) {
        ExpectCall(symbol, {2, W(ops), 0, W(stream)});
        continue;
      }
      const CudynFakeCall* call = One(v1);
      ASSERT_NE(call, nullptr);
      ASSERT_EQ(call->num_args, 5);
      EXPECT_EQ(Arg(call, 0), 2u);
      EXPECT_EQ(Arg(call, 1), W(ops));
      EXPECT_NE(Arg(call, 2), 0u) << "failIdx";  // the adapter's own local, never NULL
      EXPECT_EQ(Arg(call, 3), 0u);
      EXPECT_EQ(Arg(call, 4), W(stream));
    }
  }
}

// ---- streams --------------------------------------------------------------------------------

TEST_F(Adapters, StreamBeginCaptureV2) {
  for (auto variant : {std::make_pair("cuStreamBeginCapture_v2", &cuStreamBeginCapture_v2),
                       std::make_pair("cuStreamBeginCapture_v2_ptsz", &cuStreamBeginCapture_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    ASSERT_NE(route, Route::kMissing);
    for (CUstream stream : kStreams) {
      fake_.reset();
      ASSERT_EQ(variant.second(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
      if (route == Route::kNative) {
        ExpectCall(symbol, {W(stream), CU_STREAM_CAPTURE_MODE_GLOBAL});
      } else {
        ExpectCall(v1, {W(stream)});
      }
      for (CUstreamCaptureMode mode :
           {CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_RELAXED}) {
        fake_.reset();
        CUresult rc = variant.second(stream, mode);
        if (route == Route::kNative) {
          EXPECT_EQ(rc, CUDA_SUCCESS);
          ExpectCall(symbol, {W(stream), static_cast<unsigned long long>(mode)});
        } else {
          ExpectRejected(rc, symbol);
        }
      }
    }
  }
}

TEST_F(Adapters, StreamGetCaptureInfoV2) {
  for (auto variant : {std::make_pair("cuStreamGetCaptureInfo_v2", &cuStreamGetCaptureInfo_v2),
                       std::make_pair("cuStreamGetCaptureInfo_v2_ptsz", &cuStreamGetCaptureInfo_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    for (CUstream stream : kStreams) {
      // Not capturing (the fake leaves the caller's NONE status as it is).
      CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
      cuuint64_t id = 0;
      CUgraph graph = reinterpret_cast<CUgraph>(0x1);
      const CUgraphNode* deps = reinterpret_cast<const CUgraphNode*>(0x1);
      size_t num = 5;
      fake_.reset();
      CUresult rc = variant.second(stream, &status, &id, &graph, &deps, &num);
      if (route == Route::kMissing) {
        ExpectMissing(rc, symbol);
        continue;
      }
      ASSERT_EQ(rc, CUDA_SUCCESS);
      if (route == Route::kNative) {
        ExpectCall(symbol, {W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&num)});
        continue;
      }
      ExpectCall(v1, {W(stream), W(&status), W(&id)});
      EXPECT_EQ(graph, nullptr);
      EXPECT_EQ(deps, nullptr);
      EXPECT_EQ(num, 0u);
      // Status not requested: v1 still gets somewhere to write it.
      fake_.reset();
      ASSERT_EQ(variant.second(stream, nullptr, &id, nullptr, nullptr, nullptr), CUDA_SUCCESS);
      const CudynFakeCall* call = One(v1);
      ASSERT_NE(call, nullptr);
      EXPECT_NE(Arg(call, 1), 0u);
      EXPECT_EQ(Arg(call, 2), W(&id));
      // Capturing (status ACTIVE): status/id alone are fine; graph or dependencies are not
      // expressible by v1 (801 after the status query reached the driver).
      status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
      fake_.reset();
      EXPECT_EQ(variant.second(stream, &status, &id, nullptr, nullptr, nullptr), CUDA_SUCCESS);
      ExpectCall(v1, {W(stream), W(&status), W(&id)});
      fake_.reset();
      EXPECT_EQ(variant.second(stream, &status, &id, &graph, nullptr, nullptr), kNotSupported);
      ExpectCall(v1, {W(stream), W(&status), W(&id)});
      fake_.reset();
      EXPECT_EQ(variant.second(stream, &status, &id, nullptr, &deps, &num), kNotSupported);
      ExpectCall(v1, {W(stream), W(&status), W(&id)});
    }
  }
}

TEST_F(Adapters, StreamGetCaptureInfoV3) {
  for (auto variant : {std::make_pair("cuStreamGetCaptureInfo_v3", &cuStreamGetCaptureInfo_v3),
                       std::make_pair("cuStreamGetCaptureInfo_v3_ptsz", &cuStreamGetCaptureInfo_v3_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v2 = FallbackOf(symbol), v1 = FallbackOf(v2);
    Route v2_route = RouteOf(v2);
    for (CUstream stream : kStreams) {
      CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
      cuuint64_t id = 0;
      CUgraph graph = reinterpret_cast<CUgraph>(0x1);
      const CUgraphNode* deps = reinterpret_cast<const CUgraphNode*>(0x1);
      const CUgraphEdgeData* edges = nullptr;
      size_t num = 3;  // a native v2 never writes it (fake): the adapter sees 3 dependencies
      fake_.reset();
      CUresult rc = variant.second(stream, &status, &id, &graph, &deps, &edges, &num);
      if (route == Route::kMissing) {
        ExpectMissing(rc, symbol);
        continue;
      }
      ASSERT_EQ(rc, CUDA_SUCCESS);
      if (route == Route::kNative) {
        ExpectCall(symbol, {W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&edges), W(&num)});
        continue;
      }
      // Default (zero) edge data for every reported dependency.
      ASSERT_NE(edges, nullptr);
      static const CUgraphEdgeData kZero = {};
      for (size_t i = 0; i < num; ++i) EXPECT_EQ(std::memcmp(&edges[i], &kZero, sizeof(kZero)), 0);
      if (v2_route == Route::kNative) {
        ExpectCall(v2, {W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&num)});
        // Edge data requested without a count: v2 still gets somewhere to write it.
        fake_.reset();
        edges = nullptr;
        ASSERT_EQ(variant.second(stream, &status, &id, nullptr, nullptr, &edges, nullptr), CUDA_SUCCESS);
        const CudynFakeCall* call = One(v2);
        ASSERT_NE(call, nullptr);
        EXPECT_NE(Arg(call, 5), 0u);
        EXPECT_NE(edges, nullptr);
        // More dependencies than the adapter's static default-edge block: 801.
        num = 5000;
        fake_.reset();
        EXPECT_EQ(variant.second(stream, &status, &id, &graph, &deps, &edges, &num), kNotSupported);
        One(v2);
        // No edge data requested: plain v2.
        num = 5000;
        fake_.reset();
        EXPECT_EQ(variant.second(stream, &status, &id, &graph, &deps, nullptr, &num), CUDA_SUCCESS);
        ExpectCall(v2, {W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&num)});
      } else {
        // v3 -> v2 adapter -> v1: not capturing, so no graph and no dependencies.
        ExpectCall(v1, {W(stream), W(&status), W(&id)});
        EXPECT_EQ(graph, nullptr);
        EXPECT_EQ(deps, nullptr);
        EXPECT_EQ(num, 0u);
        // Capturing: v1 cannot report the graph.
        status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
        fake_.reset();
        EXPECT_EQ(variant.second(stream, &status, &id, &graph, &deps, &edges, &num), kNotSupported);
        ExpectCall(v1, {W(stream), W(&status), W(&id)});
      }
    }
  }
}

TEST_F(Adapters, StreamGetCtxV2) {
  for (auto variant : {std::make_pair("cuStreamGetCtx_v2", &cuStreamGetCtx_v2),
                       std::make_pair("cuStreamGetCtx_v2_ptsz", &cuStreamGetCtx_v2_ptsz)}) {
    const std::string symbol = variant.first;
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    std::string v1 = FallbackOf(symbol);
    ASSERT_NE(route, Route::kMissing);
    for (CUstream stream : kStreams) {
      CUcontext ctx = nullptr;
      CUgreenCtx green = reinterpret_cast<CUgreenCtx>(0x1);
      fake_.reset();
      ASSERT_EQ(variant.second(stream, &ctx, &green), CUDA_SUCCESS);
      if (route == Route::kNative) {
        ExpectCall(symbol, {W(stream), W(&ctx), W(&green)});
        continue;
      }
      ExpectCall(v1, {W(stream), W(&ctx)});
      EXPECT_EQ(green, nullptr);  // no green contexts before 12.4
      fake_.reset();
      ASSERT_EQ(variant.second(stream, &ctx, nullptr), CUDA_SUCCESS);
      ExpectCall(v1, {W(stream), W(&ctx)});
      // v1 failing: its result, the green-context output untouched.
      green = reinterpret_cast<CUgreenCtx>(0x1);
      fake_.reset();
      ASSERT_EQ(fake_.set_result(v1.c_str(), CUDA_ERROR_INVALID_HANDLE), 0);
      EXPECT_EQ(variant.second(stream, &ctx, &green), CUDA_ERROR_INVALID_HANDLE);
      EXPECT_EQ(green, reinterpret_cast<CUgreenCtx>(0x1));
      fake_.reset();
    }
  }
}

// ---- same-signature successors (bound straight to the older variant) ------------------------

TEST_F(Adapters, EventElapsedTimeV2) {
  Route route = Served("cuEventElapsedTime_v2");
  std::string v1 = FallbackOf("cuEventElapsedTime_v2");
  ASSERT_EQ(cudyn::kEntries[Index("cuEventElapsedTime_v2")].adapter,
            cudyn::AdapterKind::kSameSignature);
  ASSERT_NE(route, Route::kMissing);
  float ms = 0;
  CUevent start = reinterpret_cast<CUevent>(0x61), end = reinterpret_cast<CUevent>(0x62);
  ASSERT_EQ(cuEventElapsedTime(&ms, start, end), CUDA_SUCCESS);
  ExpectCall(route == Route::kNative ? "cuEventElapsedTime_v2" : v1, {W(&ms), W(start), W(end)});
}

TEST_F(Adapters, DevicePrimaryCtxReleaseV2) {
  Route route = Served("cuDevicePrimaryCtxRelease_v2");
  std::string v1 = FallbackOf("cuDevicePrimaryCtxRelease_v2");
  ASSERT_EQ(cudyn::kEntries[Index("cuDevicePrimaryCtxRelease_v2")].adapter,
            cudyn::AdapterKind::kSameSignature);
  ASSERT_NE(route, Route::kMissing);
  ASSERT_EQ(cuDevicePrimaryCtxRelease(3), CUDA_SUCCESS);
  ExpectCall(route == Route::kNative ? "cuDevicePrimaryCtxRelease_v2" : v1, {3});
}

}  // namespace
