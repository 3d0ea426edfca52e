// An application written against the CUDA 13.0 headers (public mode: cuMemAdvise is
// cuMemAdvise_v2, cuCtxCreate is cuCtxCreate_v4, cuStreamGetCaptureInfo is _v3, ...) and linked
// only with //stubs:cudyn_cuda, run against the fake driver of CUDA_VERSION CUDYN_FAKE_VERSION.
// The fake's call record shows which variant ran and what the adapter passed.
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn_c.h"
#include "stubs/shim.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/util/runfiles.h"


namespace {

// Set per test target by the BUILD file (env CUDYN_FAKE_VERSION): one compiled test, one process per driver.
const int kVersion = [] {
  const char* value = getenv("CUDYN_FAKE_VERSION");
  return value != nullptr ? atoi(value) : 0;
}();

std::string FakePath() {
  return cudyn::testing::Runfile("tests/fake_driver/cuda_" + std::to_string(kVersion) +
                                 "/libcuda.so.1");
}

class DropIn : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The drop-in reads CUDYN_DRIVER_PATH once, at the first cu* call.
    setenv("CUDYN_DRIVER_PATH", FakePath().c_str(), 1);
    int version = 0;
    ASSERT_EQ(cuDriverGetVersion(&version), CUDA_SUCCESS);
    void* handle = dlopen(FakePath().c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle, nullptr) << "the fake should already be loaded by cudyn";
    ASSERT_TRUE(cudynFakeBind(handle, &fake_));
  }
  void SetUp() override { fake_.reset(); }

  // The last recorded call, which must be `symbol`.
  const CudynFakeCall* Last(const char* symbol) {
    int n = fake_.call_count();
    EXPECT_GT(n, 0);
    if (n == 0) return nullptr;
    const CudynFakeCall* call = fake_.call(n - 1);
    EXPECT_STREQ(call->symbol, symbol);
    return call;
  }
  // The recorded calls without the driver's own cuGetProcAddress lookups (lazy binding makes
  // those on first use of an entry, on 11.3+ fakes).
  std::vector<const CudynFakeCall*> ApiCalls() {
    std::vector<const CudynFakeCall*> calls;
    for (int i = 0; i < fake_.call_count(); ++i) {
      const CudynFakeCall* call = fake_.call(i);
      if (strncmp(call->symbol, "cuGetProcAddress", 16) != 0) calls.push_back(call);
    }
    return calls;
  }
  static long long Arg(const CudynFakeCall* call, int i) {
    return static_cast<long long>(call->args[call->arg_word[i]]);
  }

  static CudynFakeApi fake_;
};
CudynFakeApi DropIn::fake_;

TEST_F(DropIn, ReportsTheFakesVersionAndInitResult) {
  int version = 0;
  ASSERT_EQ(cuDriverGetVersion(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, kVersion);
  EXPECT_EQ(cuInit(0), CUDA_ERROR_NO_DEVICE);
  Last("cuInit");
}

TEST_F(DropIn, MemAdviseHostAndDeviceLocations) {
  CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
  CUmemLocation device = {CU_MEM_LOCATION_TYPE_DEVICE, 2};
  ASSERT_EQ(cuMemAdvise(0x1000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host), CUDA_SUCCESS);
  if (kVersion >= 12020) {
    const CudynFakeCall* call = Last("cuMemAdvise_v2");
    CUmemLocation seen;
    memcpy(&seen, &call->args[call->arg_word[3]], sizeof(seen));
    EXPECT_EQ(seen.type, CU_MEM_LOCATION_TYPE_HOST);
  } else {
    const CudynFakeCall* call = Last("cuMemAdvise");
    EXPECT_EQ(Arg(call, 0), 0x1000);
    EXPECT_EQ(Arg(call, 1), 4096);
    EXPECT_EQ(Arg(call, 2), CU_MEM_ADVISE_SET_PREFERRED_LOCATION);
    EXPECT_EQ(Arg(call, 3), -1);  // CU_DEVICE_CPU
  }
  ASSERT_EQ(cuMemAdvise(0x2000, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, device), CUDA_SUCCESS);
  if (kVersion < 12020) {
    EXPECT_EQ(Arg(Last("cuMemAdvise"), 3), 2);
  }
  // A location the old variant cannot express.
  CUmemLocation numa = {CU_MEM_LOCATION_TYPE_HOST_NUMA, 1};
  fake_.reset();
  CUresult rc = cuMemAdvise(0x3000, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, numa);
  if (kVersion >= 12020) {
    EXPECT_EQ(rc, CUDA_SUCCESS);
  } else {
    EXPECT_EQ(rc, CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(fake_.call_count(), 0);  // nothing reached the driver
  }
}

TEST_F(DropIn, MemPrefetchAsync) {
  CUmemLocation device = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
  CUstream stream = reinterpret_cast<CUstream>(0x77);
  ASSERT_EQ(cuMemPrefetchAsync(0x1000, 256, device, 0, stream), CUDA_SUCCESS);
  if (kVersion >= 12020) {
    Last("cuMemPrefetchAsync_v2");
  } else {
    const CudynFakeCall* call = Last("cuMemPrefetchAsync");
    EXPECT_EQ(Arg(call, 2), 1);
    EXPECT_EQ(Arg(call, 3), 0x77);
    EXPECT_EQ(cuMemPrefetchAsync(0x1000, 256, device, 1, stream), CUDA_ERROR_NOT_SUPPORTED);
  }
}

TEST_F(DropIn, CtxCreateReachesTheNewestVariantTheDriverHas) {
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 4, 3), CUDA_SUCCESS);
  const char* expected = kVersion >= 12050 ? "cuCtxCreate_v4"
                         : kVersion >= 11040 ? "cuCtxCreate_v3"
                                             : "cuCtxCreate_v2";
  const CudynFakeCall* call = Last(expected);
  EXPECT_EQ(Arg(call, 0), reinterpret_cast<long long>(&ctx));
  EXPECT_EQ(Arg(call, call->num_args - 2), 4);  // flags
  EXPECT_EQ(Arg(call, call->num_args - 1), 3);  // device
  CUctxCigParam cig = {};
  CUctxCreateParams params = {nullptr, 0, &cig};
  EXPECT_EQ(cuCtxCreate(&ctx, &params, 0, 0),
            kVersion >= 12050 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);
}

TEST_F(DropIn, CtxSynchronizeWithAContextPushesAndPops) {
  CUcontext ctx = reinterpret_cast<CUcontext>(0x1234);
  ASSERT_EQ(cuCtxSynchronize_v2(ctx), CUDA_SUCCESS);
  if (kVersion >= 13000) {
    EXPECT_EQ(Arg(Last("cuCtxSynchronize_v2"), 0), 0x1234);
  } else {
    std::vector<const CudynFakeCall*> calls = ApiCalls();
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_STREQ(calls[0]->symbol, "cuCtxPushCurrent_v2");
    EXPECT_EQ(Arg(calls[0], 0), 0x1234);
    EXPECT_STREQ(calls[1]->symbol, "cuCtxSynchronize");
    EXPECT_STREQ(calls[2]->symbol, "cuCtxPopCurrent_v2");
  }
}

TEST_F(DropIn, StreamCaptureCalls) {
  CUstream stream = reinterpret_cast<CUstream>(0x55);
  ASSERT_EQ(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  Last(kVersion >= 10010 ? "cuStreamBeginCapture_v2" : "cuStreamBeginCapture");
  EXPECT_EQ(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
            kVersion >= 10010 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);

  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0;
  CUgraph graph = reinterpret_cast<CUgraph>(0x1);
  const CUgraphNode* deps = nullptr;
  const CUgraphEdgeData* edges = nullptr;
  size_t count = 5;
  fake_.reset();
  CUresult rc = cuStreamGetCaptureInfo(stream, &status, &id, &graph, &deps, &edges, &count);
  if (kVersion < 10010) {
    // cuStreamGetCaptureInfo itself appeared in 10.1: nothing to adapt to.
    EXPECT_EQ(rc, CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND);
    return;
  }
  ASSERT_EQ(rc, CUDA_SUCCESS);
  if (kVersion >= 12030) {
    Last("cuStreamGetCaptureInfo_v3");
  } else if (kVersion >= 11030) {
    Last("cuStreamGetCaptureInfo_v2");
    EXPECT_NE(edges, nullptr);  // zeroed (default) edge data
  } else {
    Last("cuStreamGetCaptureInfo");
    EXPECT_EQ(graph, nullptr);  // not capturing: no graph, no dependencies
    EXPECT_EQ(count, 0u);
  }
}

TEST_F(DropIn, GraphEdgeDataAdapters) {
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode from = reinterpret_cast<CUgraphNode>(0x20), to = reinterpret_cast<CUgraphNode>(0x30);
  CUresult rc = cuGraphAddDependencies(graph, &from, &to, nullptr, 1);
  ASSERT_EQ(rc, CUDA_SUCCESS);
  Last(kVersion >= 12030 ? "cuGraphAddDependencies_v2" : "cuGraphAddDependencies");
  CUgraphEdgeData programmatic = {};
  programmatic.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
  EXPECT_EQ(cuGraphAddDependencies(graph, &from, &to, &programmatic, 1),
            kVersion >= 12030 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);
}

TEST_F(DropIn, MissingEntriesReturn302) {
  // cuKernelGetName appeared in 12.3 and has no older variant.
  const char* name = nullptr;
  CUresult rc = cuKernelGetName(&name, reinterpret_cast<CUkernel>(0x1));
  EXPECT_EQ(rc, kVersion >= 12030 ? CUDA_SUCCESS : CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND);
}

TEST_F(DropIn, ShimProcAddressReturnsCudynsAdapters) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  ASSERT_EQ(cuGetProcAddress("cuMemAdvise", &fn, 12020, CU_GET_PROC_ADDRESS_DEFAULT, &status),
            CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT_EQ(fn, reinterpret_cast<void*>(&cuMemAdvise_v2));  // cudyn's trampoline, adapter or not
  ASSERT_EQ(cuGetProcAddress("cuMemAdvise", &fn, 11040, CU_GET_PROC_ADDRESS_DEFAULT, &status),
            CUDA_SUCCESS);
  // cuMemAdvise (v1) has no name under the 13.0 headers; its trampoline is in the same table.
  EXPECT_EQ(fn, cudyn::ShimTrampoline(cudyn::FindEntry("cuMemAdvise")));
  ASSERT_EQ(cuGetProcAddress("cuMemAdvise_v2", &fn, 12020, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(fn, nullptr);
  ASSERT_EQ(cuGetProcAddress("cuMemAdvise", &fn, 3020, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  // The per-thread flag selects the _ptds variant.
  ASSERT_EQ(cuGetProcAddress("cuMemcpyHtoD", &fn, 12000,
                             CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status),
            CUDA_SUCCESS);
  EXPECT_EQ(fn, cudyn::ShimTrampoline(cudyn::FindEntry("cuMemcpyHtoD_v2_ptds")));
  // Calling through the returned pointer reaches the driver's older variant.
  fake_.reset();
  ASSERT_EQ(cuGetProcAddress("cuMemAdvise", &fn, 12020, 0, &status), CUDA_SUCCESS);
  CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
  auto advise = reinterpret_cast<CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation)>(fn);
  ASSERT_EQ(advise(0x1000, 1, CU_MEM_ADVISE_SET_READ_MOSTLY, host), CUDA_SUCCESS);
  Last(kVersion >= 12020 ? "cuMemAdvise_v2" : "cuMemAdvise");
}

TEST_F(DropIn, IntrospectionAgrees) {
  int i = cudynFindEntry("cuMemAdvise_v2");
  EXPECT_STREQ(cudynEntryStatus(i), kVersion >= 12020 ? "native" : "adapter");
  char symbol[64];
  ASSERT_GT(cudynEntryDriverSymbol(i, symbol, sizeof(symbol)), 0);
  EXPECT_STREQ(symbol, kVersion >= 12020 ? "cuMemAdvise_v2" : "cuMemAdvise");
}

}  // namespace
