// The driver-served runtime entries (version_tables/inputs/cudart_served.tsv) against the generated
// fake runtimes and one generated fake driver per process ($CUDYN_FAKE_VERSION: 12020, 12080,
// 13000): on every runtime family before 13.0 each served entry binds; its call runs the
// runtime's initialisation (the fake runtime's cudaFree(NULL), or the driver's cuInit(0)), then
// the driver entry with the caller's arguments unchanged (the fake driver's call log), and the
// CUresult comes back as the cudaError_t of the same number; a driver without the entry answers
// 35 and is not called; the 13.0 runtime serves the same entries itself. Also the composed entries
// of inputs/cudart_adapters.tsv (cudaInitDevice, cudaFuncGetName, cudaGetDriverEntryPointByVersion,
// cudaFuncGetParamInfo, cudaKernelSetAttributeForDevice, cudaGraphAddNode and the two
// ...NodeSetParams over the runtime's typed node calls) and the answer (35 or 801) of an entry no
// path serves. The 11040 and 11080 drivers' runs check only what a driver before 12.0 answers
// (ServedBefore12): 35 with nothing called.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <driver_functions.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudart.h"
#include "loader/cudyn.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/util/runfiles.h"

namespace cudyn {
namespace {

int FakeVersion() {
  const char* v = std::getenv("CUDYN_FAKE_VERSION");
  return v != nullptr ? std::atoi(v) : 0;
}

struct FakeRuntime {
  const char* version;
  const char* soname;
};
constexpr FakeRuntime kOlderRuntimes[] = {
    {"10.2", "libcudart.so.10.2"}, {"11.2", "libcudart.so.11.0"}, {"11.8", "libcudart.so.11.0"},
    {"12.0", "libcudart.so.12"},   {"12.5", "libcudart.so.12"},   {"12.8", "libcudart.so.12"},
};

// The soname of the fake runtime `version` (kOlderRuntimes, 13.0).
std::string SonameOf(const std::string& version) {
  for (const FakeRuntime& f : kOlderRuntimes) {
    if (version == f.version) return f.soname;
  }
  return "libcudart.so.13";
}

std::unique_ptr<Runtime> OpenFake(const std::string& version, const std::string& soname) {
  RuntimeOptions o;
  o.runtime_path = testing::Runfile("tests/fake_runtime/" + version + "/" + soname);
  o.driver_version = FakeVersion();
  auto rt = Runtime::Open(o);
  EXPECT_TRUE(rt && rt->ok()) << version;
  return rt;
}

class Served : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(DefaultDriver().ok()) << DefaultDriver().last_error();
    ASSERT_EQ(DefaultDriver().cuda_version(), FakeVersion());
    ASSERT_TRUE(cudynFakeBind(DefaultDriver().handle(), &drv_));
    setenv("CUDYN_FAKE_INIT_RESULT", "0", 1);
    rt_ = OpenFake("11.8", "libcudart.so.11.0");
    ASSERT_TRUE(rt_);
    drv_.reset();
    FakeRuntimeCall("fake_cudart_reset");
  }
  void FakeRuntimeCall(const char* name) {
    auto fn = reinterpret_cast<void (*)()>(dlsym(rt_->handle(), name));
    ASSERT_NE(fn, nullptr);
    fn();
  }
  int RuntimeCalls(const char* symbol) {
    auto fn = reinterpret_cast<int (*)(const char*)>(dlsym(rt_->handle(),
                                                          "fake_cudart_call_count"));
    return fn(symbol);
  }
  // The driver's records of `symbol`, oldest first.
  std::vector<const CudynFakeCall*> DriverCalls(const char* symbol) {
    std::vector<const CudynFakeCall*> out;
    for (int i = 0; i < drv_.call_count(); ++i) {
      const CudynFakeCall* c = drv_.call(i);
      if (c != nullptr && std::strcmp(c->symbol, symbol) == 0) out.push_back(c);
    }
    return out;
  }
  template <typename Fn>
  Fn Entry(int index) {
    return reinterpret_cast<Fn>(rt_->Resolve(index));
  }
  // The fake runtime `version` (kept in *rt) and its binding of entry `index`.
  template <typename Fn>
  static Fn OpenResolved(const std::string& version, int index, std::unique_ptr<Runtime>* rt) {
    *rt = OpenFake(version, SonameOf(version));
    return *rt ? reinterpret_cast<Fn>((*rt)->Resolve(index)) : nullptr;
  }
  // A runtime `version` that has entry `index` binds it natively, under its own name.
  static void ExpectNative(const std::string& version, int index) {
    std::unique_ptr<Runtime> rt;
    EXPECT_NE(OpenResolved<void*>(version, index, &rt), nullptr) << version;
    if (rt) EXPECT_EQ(rt->bound_symbol(index), std::string(CudartSymbol(index))) << version;
  }
  // Whether this process's fake driver (its exports generated from the driver table) has `symbol`.
  static bool DriverHas(const char* symbol) {
    return dlsym(DefaultDriver().handle(), symbol) != nullptr;
  }
  CudynFakeApi drv_{};
  std::unique_ptr<Runtime> rt_;
};

// Every served entry binds on every older fake runtime (whatever the driver), to an adapter named
// after it; the 13.0 runtime binds each natively.
TEST_F(Served, EveryServedEntryBindsOnEveryOlderFamily) {
  int served = 0;
  for (const FakeRuntime& f : kOlderRuntimes) {
    SCOPED_TRACE(f.version);
    auto rt = OpenFake(f.version, f.soname);
    for (int i = 0; i < kCudartEntryCount; ++i) {
      const CudartRule& rule = CudartRuleFor(i, rt->family());
      if (std::strncmp(CudartAdapterName(rule.adapter), "Driver_", 7) != 0) continue;
      ++served;
      EXPECT_NE(rt->Resolve(i), nullptr) << CudartSymbol(i);
      // A family's newer runtimes may export it (11.8's cudaUserObjectCreate): native there, the
      // driver only where the runtime (a generated fake: the real one's exports) lacks it.
      const bool exported = dlsym(rt->handle(), std::string(CudartSymbol(i)).c_str()) != nullptr;
      EXPECT_EQ(rt->status(i), exported ? EntryStatus::kNative : EntryStatus::kAdapter)
          << CudartSymbol(i);
      EXPECT_EQ(std::string(CudartAdapterName(rule.adapter)),
                "Driver_" + std::string(CudartSymbol(i)));
    }
  }
  EXPECT_GE(served, 6 * 27);
  ExpectNative("13.0", kCudart_cudaStreamGetId);
  ExpectNative("13.0", kCudart_cudaLibraryLoadData);
}

TEST_F(Served, StreamGetIdInitialisesThenCallsTheDriver) {
  auto fn = Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId);
  ASSERT_NE(fn, nullptr);
  unsigned long long id = 0;
  auto stream = reinterpret_cast<cudaStream_t>(0x1234);
  EXPECT_EQ(fn(stream, &id), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);  // the runtime's own lazy initialisation first
  auto calls = DriverCalls("cuStreamGetId");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->args[0], 0x1234u);
  EXPECT_EQ(calls[0]->args[1], reinterpret_cast<uintptr_t>(&id));
  // The CUresult comes back under the cudaError_t of the same number.
  drv_.set_result("cuStreamGetId", 400);  // CUDA_ERROR_INVALID_HANDLE
  EXPECT_EQ(fn(stream, &id), cudaErrorInvalidResourceHandle);
  drv_.set_result("cuStreamGetId", 201);  // CUDA_ERROR_INVALID_CONTEXT
  EXPECT_EQ(fn(stream, &id), cudaErrorDeviceUninitialized);
  // The per-thread twin calls the driver's per-thread twin.
  auto ptsz = Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId_ptsz);
  EXPECT_EQ(ptsz(nullptr, &id), cudaSuccess);
  auto pt = DriverCalls("cuStreamGetId_ptsz");
  ASSERT_EQ(pt.size(), 1u);
  EXPECT_EQ(pt[0]->args[0], 0u);
  EXPECT_EQ(DriverCalls("cuStreamGetId").size(), 3u);
}

TEST_F(Served, TheRuntimesInitialisationErrorIsTheAnswer) {
  auto set = reinterpret_cast<void (*)(const char*, int)>(dlsym(rt_->handle(),
                                                               "fake_cudart_set_result"));
  ASSERT_NE(set, nullptr);
  set("cudaFree", cudaErrorNoDevice);
  auto fn = Entry<decltype(&cudaGraphExecGetFlags)>(kCudart_cudaGraphExecGetFlags);
  unsigned long long flags = 0;
  EXPECT_EQ(fn(reinterpret_cast<cudaGraphExec_t>(0x77), &flags), cudaErrorNoDevice);
  EXPECT_TRUE(DriverCalls("cuGraphExecGetFlags").empty());
  set("cudaFree", cudaSuccess);
  EXPECT_EQ(fn(reinterpret_cast<cudaGraphExec_t>(0x77), &flags), cudaSuccess);
  auto calls = DriverCalls("cuGraphExecGetFlags");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->args[0], 0x77u);
  EXPECT_EQ(calls[0]->args[1], reinterpret_cast<uintptr_t>(&flags));
}

TEST_F(Served, LibraryLoadDataPassesEveryArgumentAfterCuInit) {
  auto fn = Entry<decltype(&cudaLibraryLoadData)>(kCudart_cudaLibraryLoadData);
  ASSERT_NE(fn, nullptr);
  cudaLibrary_t lib = nullptr;
  static const char code[] = "image";
  cudaJitOption jit[1] = {cudaJitMaxRegisters};
  void* jit_values[1] = {reinterpret_cast<void*>(32)};
  cudaLibraryOption lib_opts[1] = {cudaLibraryBinaryIsPreserved};
  void* lib_values[1] = {reinterpret_cast<void*>(1)};
  EXPECT_EQ(fn(&lib, code, jit, jit_values, 1, lib_opts, lib_values, 1), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 0);  // context-free: the driver's cuInit instead
  auto init = DriverCalls("cuInit");
  ASSERT_EQ(init.size(), 1u);
  EXPECT_EQ(init[0]->args[0], 0u);
  auto calls = DriverCalls("cuLibraryLoadData");
  ASSERT_EQ(calls.size(), 1u);
  const uintptr_t want[] = {reinterpret_cast<uintptr_t>(&lib), reinterpret_cast<uintptr_t>(code),
                            reinterpret_cast<uintptr_t>(jit), reinterpret_cast<uintptr_t>(jit_values),
                            1, reinterpret_cast<uintptr_t>(lib_opts),
                            reinterpret_cast<uintptr_t>(lib_values), 1};
  ASSERT_EQ(calls[0]->num_args, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(calls[0]->args[calls[0]->arg_word[i]], want[i]) << i;
  // cuInit failing (no device): its code is the answer and the entry is not called.
  drv_.set_result("cuInit", 100);
  EXPECT_EQ(fn(&lib, code, nullptr, nullptr, 0, nullptr, nullptr, 0), cudaErrorNoDevice);
  EXPECT_EQ(DriverCalls("cuLibraryLoadData").size(), 1u);
  drv_.set_result("cuInit", 0);
  drv_.set_result("cuLibraryLoadData", 200);  // CUDA_ERROR_INVALID_IMAGE
  EXPECT_EQ(fn(&lib, code, nullptr, nullptr, 0, nullptr, nullptr, 0), cudaErrorInvalidKernelImage);
}

TEST_F(Served, LibraryKernelsAndGlobals) {
  auto unload = Entry<decltype(&cudaLibraryUnload)>(kCudart_cudaLibraryUnload);
  auto lib = reinterpret_cast<cudaLibrary_t>(0xabc);
  EXPECT_EQ(unload(lib), cudaSuccess);
  ASSERT_EQ(DriverCalls("cuLibraryUnload").size(), 1u);
  EXPECT_EQ(DriverCalls("cuLibraryUnload")[0]->args[0], 0xabcu);
  auto get_kernel = Entry<decltype(&cudaLibraryGetKernel)>(kCudart_cudaLibraryGetKernel);
  cudaKernel_t k = nullptr;
  EXPECT_EQ(get_kernel(&k, lib, "kern"), cudaSuccess);
  auto gk = DriverCalls("cuLibraryGetKernel");
  ASSERT_EQ(gk.size(), 1u);
  EXPECT_EQ(gk[0]->args[0], reinterpret_cast<uintptr_t>(&k));
  EXPECT_EQ(gk[0]->args[1], 0xabcu);
  EXPECT_STREQ(reinterpret_cast<const char*>(gk[0]->args[2]), "kern");
  auto global = Entry<decltype(&cudaLibraryGetGlobal)>(kCudart_cudaLibraryGetGlobal);
  void* p = nullptr;
  size_t bytes = 0;
  EXPECT_EQ(global(&p, &bytes, lib, "g"), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);  // the global of the current context: context first
  auto gg = DriverCalls("cuLibraryGetGlobal");
  ASSERT_EQ(gg.size(), 1u);
  EXPECT_EQ(gg[0]->args[0], reinterpret_cast<uintptr_t>(&p));
  EXPECT_EQ(gg[0]->args[1], reinterpret_cast<uintptr_t>(&bytes));
  EXPECT_EQ(gg[0]->args[2], 0xabcu);
}

// Entries whose driver entry came after 12.2 (cuLibraryGetKernelCount 12.4, cuStreamGetDevice 12.8,
// cuLogs* 12.9): served where the driver has them, else 35 without a call.
TEST_F(Served, NewerDriverEntriesAnswer35WhereTheDriverLacksThem) {
  const bool has_124 = FakeVersion() >= 12040, has_128 = FakeVersion() >= 12080,
             has_129 = FakeVersion() >= 12090;
  auto count = Entry<decltype(&cudaLibraryGetKernelCount)>(kCudart_cudaLibraryGetKernelCount);
  unsigned int n = 0;
  EXPECT_EQ(count(&n, reinterpret_cast<cudaLibrary_t>(0x5)),
            has_124 ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(DriverCalls("cuLibraryGetKernelCount").size(), has_124 ? 1u : 0u);
  auto dev = Entry<decltype(&cudaStreamGetDevice)>(kCudart_cudaStreamGetDevice);
  int d = -1;
  EXPECT_EQ(dev(reinterpret_cast<cudaStream_t>(0x9), &d),
            has_128 ? cudaSuccess : cudaErrorInsufficientDriver);
  auto sd = DriverCalls("cuStreamGetDevice");
  ASSERT_EQ(sd.size(), has_128 ? 1u : 0u);
  if (has_128) {
    EXPECT_EQ(sd[0]->args[0], 0x9u);
    EXPECT_EQ(sd[0]->args[1], reinterpret_cast<uintptr_t>(&d));
  }
  auto dump = Entry<decltype(&cudaLogsDumpToMemory)>(kCudart_cudaLogsDumpToMemory);
  char buf[16];
  size_t size = sizeof buf;
  cudaLogIterator it = 7;
  EXPECT_EQ(dump(&it, buf, &size, 0), has_129 ? cudaSuccess : cudaErrorInsufficientDriver);
  auto dm = DriverCalls("cuLogsDumpToMemory");
  ASSERT_EQ(dm.size(), has_129 ? 1u : 0u);
  if (has_129) {
    EXPECT_EQ(dm[0]->args[0], reinterpret_cast<uintptr_t>(&it));
    EXPECT_EQ(dm[0]->args[1], reinterpret_cast<uintptr_t>(buf));
    EXPECT_EQ(dm[0]->args[2], reinterpret_cast<uintptr_t>(&size));
    EXPECT_EQ(dm[0]->args[3], 0u);
  }
}

// The 13.0-driver entries (batched prefetch / discard, memory pools per location, atomic
// capabilities): served with the caller's arguments where the driver has them, else 35.
TEST_F(Served, ThirteenDriverEntries) {
  const bool has_130 = FakeVersion() >= 13000;
  auto prefetch = Entry<decltype(&cudaMemPrefetchBatchAsync)>(kCudart_cudaMemPrefetchBatchAsync);
  ASSERT_NE(prefetch, nullptr);
  void* dptrs[2] = {reinterpret_cast<void*>(0x1000), reinterpret_cast<void*>(0x2000)};
  size_t sizes[2] = {64, 128};
  cudaMemLocation locs[1] = {{cudaMemLocationTypeDevice, 0}};
  size_t loc_idx[1] = {0};
  auto stream = reinterpret_cast<cudaStream_t>(0x42);
  EXPECT_EQ(prefetch(dptrs, sizes, 2, locs, loc_idx, 1, 0, stream),
            has_130 ? cudaSuccess : cudaErrorInsufficientDriver);
  auto pc = DriverCalls("cuMemPrefetchBatchAsync");
  ASSERT_EQ(pc.size(), has_130 ? 1u : 0u);
  if (has_130) {
    const uintptr_t want[] = {reinterpret_cast<uintptr_t>(dptrs), reinterpret_cast<uintptr_t>(sizes),
                              2, reinterpret_cast<uintptr_t>(locs),
                              reinterpret_cast<uintptr_t>(loc_idx), 1, 0, 0x42};
    ASSERT_EQ(pc[0]->num_args, 8);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(pc[0]->args[pc[0]->arg_word[i]], want[i]) << i;
  }
  auto pool = Entry<decltype(&cudaMemGetDefaultMemPool)>(kCudart_cudaMemGetDefaultMemPool);
  cudaMemPool_t p = nullptr;
  cudaMemLocation loc = {cudaMemLocationTypeHost, 0};
  EXPECT_EQ(pool(&p, &loc, cudaMemAllocationTypeManaged),
            has_130 ? cudaSuccess : cudaErrorInsufficientDriver);
  auto gp = DriverCalls("cuMemGetDefaultMemPool");
  ASSERT_EQ(gp.size(), has_130 ? 1u : 0u);
  if (has_130) {
    EXPECT_EQ(gp[0]->args[1], reinterpret_cast<uintptr_t>(&loc));
    EXPECT_EQ(static_cast<int>(gp[0]->args[2]), 2);  // CU_MEM_ALLOCATION_TYPE_MANAGED
  }
  auto caps = Entry<decltype(&cudaDeviceGetP2PAtomicCapabilities)>(
      kCudart_cudaDeviceGetP2PAtomicCapabilities);
  unsigned int out[1] = {0};
  const cudaAtomicOperation ops[1] = {cudaAtomicOperationFloatAdd};
  const int frees_before = RuntimeCalls("cudaFree");
  EXPECT_EQ(caps(out, ops, 1, 0, 1), has_130 ? cudaSuccess : cudaErrorInsufficientDriver);
  auto cc = DriverCalls("cuDeviceGetP2PAtomicCapabilities");
  ASSERT_EQ(cc.size(), has_130 ? 1u : 0u);
  if (has_130) {
    EXPECT_EQ(DriverCalls("cuInit").size(), 1u);  // a device query: cuInit first, no context
    EXPECT_EQ(RuntimeCalls("cudaFree"), frees_before);
    EXPECT_EQ(cc[0]->args[0], reinterpret_cast<uintptr_t>(out));
    EXPECT_EQ(cc[0]->args[1], reinterpret_cast<uintptr_t>(ops));
    EXPECT_EQ(cc[0]->args[2], 1u);
    EXPECT_EQ(cc[0]->args[3], 0u);
    EXPECT_EQ(cc[0]->args[4], 1u);
  }
}

// The batch copies (driver 12.8+): cuMemcpyBatchAsync_v2 / cuMemcpy3DBatchAsync_v2 of a 13.0
// driver with the caller's arguments and descriptors unchanged (cudaMemcpyAttributes is
// CUmemcpyAttributes, cudaMemcpy3DBatchOp is CUDA_MEMCPY3D_BATCH_OP: every field read back from
// the bytes the driver received); a 12.8 driver's cuMemcpyBatchAsync through cudyn's driver layer
// (a local failIdx); a 12.2 driver 35, nothing called. The runtime's initialisation first.
TEST_F(Served, BatchCopiesPassTheirDescriptorsToTheDriver) {
  const int v = FakeVersion();
  const char* batch = v >= 13000 ? "cuMemcpyBatchAsync_v2" : "cuMemcpyBatchAsync";
  const char* batch3d = v >= 13000 ? "cuMemcpy3DBatchAsync_v2" : "cuMemcpy3DBatchAsync";
  const bool has = v >= 12080;
  auto fn = Entry<decltype(&cudaMemcpyBatchAsync)>(kCudart_cudaMemcpyBatchAsync);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaMemcpyBatchAsync), EntryStatus::kAdapter);
  if (has) {
    ASSERT_EQ(drv_.set_capture(batch, 4, sizeof(CUmemcpyAttributes)), 0);
  }
  void* dsts[2] = {reinterpret_cast<void*>(0x1000), reinterpret_cast<void*>(0x2000)};
  const void* srcs[2] = {reinterpret_cast<void*>(0x3000), reinterpret_cast<void*>(0x4000)};
  const size_t sizes[2] = {64, 128};
  cudaMemcpyAttributes attrs[1] = {};
  attrs[0].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
  attrs[0].srcLocHint = {cudaMemLocationTypeHostNuma, 3};
  attrs[0].dstLocHint = {cudaMemLocationTypeDevice, 1};
  attrs[0].flags = cudaMemcpyFlagPreferOverlapWithCompute;
  size_t idxs[1] = {0};
  auto stream = reinterpret_cast<cudaStream_t>(0x42);
  EXPECT_EQ(fn(dsts, srcs, sizes, 2, attrs, idxs, 1, stream),
            has ? cudaSuccess : cudaErrorInsufficientDriver);
  auto calls = DriverCalls(batch);
  ASSERT_EQ(calls.size(), has ? 1u : 0u);
  EXPECT_EQ(RuntimeCalls("cudaFree"), has ? 1 : 0);  // the runtime's initialisation first
  if (has) {
    const CudynFakeCall* c = calls[0];
    ASSERT_EQ(c->num_args, v >= 13000 ? 8 : 9);  // 12.8: failIdx before the stream
    const uintptr_t want[] = {reinterpret_cast<uintptr_t>(dsts), reinterpret_cast<uintptr_t>(srcs),
                              reinterpret_cast<uintptr_t>(sizes), 2,
                              reinterpret_cast<uintptr_t>(attrs), reinterpret_cast<uintptr_t>(idxs),
                              1};
    for (int i = 0; i < 7; ++i) EXPECT_EQ(c->args[c->arg_word[i]], want[i]) << i;
    EXPECT_EQ(c->args[c->arg_word[c->num_args - 1]], 0x42u);
    // The attributes as the driver reads them.
    ASSERT_EQ(c->captured_size, static_cast<int>(sizeof(CUmemcpyAttributes)));
    CUmemcpyAttributes seen;
    std::memcpy(&seen, c->captured, sizeof seen);
    EXPECT_EQ(seen.srcAccessOrder, CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL);
    EXPECT_EQ(seen.srcLocHint.type, CU_MEM_LOCATION_TYPE_HOST_NUMA);
    EXPECT_EQ(seen.srcLocHint.id, 3);
    EXPECT_EQ(seen.dstLocHint.type, CU_MEM_LOCATION_TYPE_DEVICE);
    EXPECT_EQ(seen.dstLocHint.id, 1);
    EXPECT_EQ(seen.flags, static_cast<unsigned>(CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE));
    // The driver's error, translated.
    drv_.set_result(batch, 1);  // CUDA_ERROR_INVALID_VALUE
    EXPECT_EQ(fn(dsts, srcs, sizes, 2, attrs, idxs, 1, stream), cudaErrorInvalidValue);
  }
  // The per-thread twin: the driver's per-thread twin.
  auto ptsz = Entry<decltype(&cudaMemcpyBatchAsync)>(kCudart_cudaMemcpyBatchAsync_ptsz);
  ASSERT_NE(ptsz, nullptr);
  EXPECT_EQ(ptsz(dsts, srcs, sizes, 2, attrs, idxs, 1, nullptr),
            has ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(DriverCalls(v >= 13000 ? "cuMemcpyBatchAsync_v2_ptsz" : "cuMemcpyBatchAsync_ptsz").size(),
            has ? 1u : 0u);

  auto fn3d = Entry<decltype(&cudaMemcpy3DBatchAsync)>(kCudart_cudaMemcpy3DBatchAsync);
  ASSERT_NE(fn3d, nullptr);
  if (has) {
    ASSERT_EQ(drv_.set_capture(batch3d, 1, sizeof(CUDA_MEMCPY3D_BATCH_OP)), 0);
  }
  cudaMemcpy3DBatchOp op = {};
  op.src.type = cudaMemcpyOperandTypePointer;
  op.src.op.ptr.ptr = reinterpret_cast<void*>(0x5000);
  op.src.op.ptr.rowLength = 17;
  op.src.op.ptr.layerHeight = 19;
  op.src.op.ptr.locHint = {cudaMemLocationTypeDevice, 2};
  op.dst.type = cudaMemcpyOperandTypeArray;
  op.dst.op.array.array = reinterpret_cast<cudaArray_t>(0x6000);
  op.dst.op.array.offset = {1, 2, 3};
  op.extent = {4, 5, 6};
  op.srcAccessOrder = cudaMemcpySrcAccessOrderAny;
  op.flags = cudaMemcpyFlagPreferOverlapWithCompute;
  EXPECT_EQ(fn3d(1, &op, 0, stream), has ? cudaSuccess : cudaErrorInsufficientDriver);
  auto c3 = DriverCalls(batch3d);
  ASSERT_EQ(c3.size(), has ? 1u : 0u);
  if (has) {
    const CudynFakeCall* c = c3[0];
    ASSERT_EQ(c->num_args, v >= 13000 ? 4 : 5);  // 12.8: failIdx after the list
    EXPECT_EQ(c->args[c->arg_word[0]], 1u);
    EXPECT_EQ(c->args[c->arg_word[1]], reinterpret_cast<uintptr_t>(&op));
    EXPECT_EQ(c->args[c->arg_word[c->num_args - 2]], 0u);  // flags
    EXPECT_EQ(c->args[c->arg_word[c->num_args - 1]], 0x42u);
    ASSERT_EQ(c->captured_size, static_cast<int>(sizeof(CUDA_MEMCPY3D_BATCH_OP)));
    CUDA_MEMCPY3D_BATCH_OP seen;
    std::memcpy(&seen, c->captured, sizeof seen);
    EXPECT_EQ(seen.src.type, CU_MEMCPY_OPERAND_TYPE_POINTER);
    EXPECT_EQ(seen.src.op.ptr.ptr, 0x5000u);
    EXPECT_EQ(seen.src.op.ptr.rowLength, 17u);
    EXPECT_EQ(seen.src.op.ptr.layerHeight, 19u);
    EXPECT_EQ(seen.src.op.ptr.locHint.type, CU_MEM_LOCATION_TYPE_DEVICE);
    EXPECT_EQ(seen.src.op.ptr.locHint.id, 2);
    EXPECT_EQ(seen.dst.type, CU_MEMCPY_OPERAND_TYPE_ARRAY);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(seen.dst.op.array.array), 0x6000u);
    EXPECT_EQ(seen.dst.op.array.offset.x, 1u);
    EXPECT_EQ(seen.dst.op.array.offset.y, 2u);
    EXPECT_EQ(seen.dst.op.array.offset.z, 3u);
    EXPECT_EQ(seen.extent.width, 4u);
    EXPECT_EQ(seen.extent.height, 5u);
    EXPECT_EQ(seen.extent.depth, 6u);
    EXPECT_EQ(seen.srcAccessOrder, CU_MEMCPY_SRC_ACCESS_ORDER_ANY);
    EXPECT_EQ(seen.flags, static_cast<unsigned>(CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE));
  }
  auto ptsz3d = Entry<decltype(&cudaMemcpy3DBatchAsync)>(kCudart_cudaMemcpy3DBatchAsync_ptsz);
  ASSERT_NE(ptsz3d, nullptr);
  EXPECT_EQ(ptsz3d(1, &op, 0, nullptr), has ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(
      DriverCalls(v >= 13000 ? "cuMemcpy3DBatchAsync_v2_ptsz" : "cuMemcpy3DBatchAsync_ptsz").size(),
      has ? 1u : 0u);
}

// ---- composed entries (inputs/cudart_adapters.tsv) and the answer of entries no path serves ----

// cudaInitDevice on 11.x: the runtime's own cudaGetDevice, cudaSetDevice(device),
// cudaSetDeviceFlags(deviceFlags) only with cudaInitDeviceFlagsAreValid, cudaFree(NULL), then the
// caller's device and the driver's current context restored; the runtime's errors are the answer,
// the device restored after a failure past cudaSetDevice.
TEST_F(Served, InitDeviceComposesTheRuntimesOwnCalls) {
  auto set = reinterpret_cast<void (*)(const char*, int)>(dlsym(rt_->handle(),
                                                               "fake_cudart_set_result"));
  auto set_out = reinterpret_cast<void (*)(const char*, int, const void*, size_t)>(
      dlsym(rt_->handle(), "fake_cudart_set_out"));
  auto last_arg = reinterpret_cast<int (*)(const char*, int, void*, size_t)>(
      dlsym(rt_->handle(), "fake_cudart_last_arg"));
  ASSERT_TRUE(set && set_out && last_arg);
  EXPECT_EQ(rt_->status(kCudart_cudaInitDevice), EntryStatus::kUnbound);
  auto fn = Entry<decltype(&cudaInitDevice)>(kCudart_cudaInitDevice);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaInitDevice), EntryStatus::kAdapter);
  const int previous = 1;
  set_out("cudaGetDevice", 0, &previous, sizeof previous);
  EXPECT_EQ(fn(3, cudaDeviceScheduleBlockingSync, cudaInitDeviceFlagsAreValid), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaGetDevice"), 1);
  EXPECT_EQ(RuntimeCalls("cudaSetDevice"), 2);
  EXPECT_EQ(RuntimeCalls("cudaSetDeviceFlags"), 1);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
  unsigned int flags = 0;
  ASSERT_EQ(last_arg("cudaSetDeviceFlags", 0, &flags, sizeof flags), 4);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaDeviceScheduleBlockingSync));
  int device = -1;
  ASSERT_EQ(last_arg("cudaSetDevice", 0, &device, sizeof device), 4);
  EXPECT_EQ(device, previous);  // restored
  void* freed = reinterpret_cast<void*>(1);
  ASSERT_EQ(last_arg("cudaFree", 0, &freed, sizeof freed), 8);
  EXPECT_EQ(freed, nullptr);
  EXPECT_TRUE(DriverCalls("cuDevicePrimaryCtxRetain").empty());  // the runtime's own calls only
  // Not left current: the driver's current context (none here) is put back after.
  EXPECT_EQ(DriverCalls("cuCtxGetCurrent").size(), 1u);
  auto ctx_set = DriverCalls("cuCtxSetCurrent");
  ASSERT_EQ(ctx_set.size(), 1u);
  EXPECT_EQ(ctx_set[0]->args[0], 0u);
  // Before the driver is initialised cuCtxGetCurrent fails: no context is left current either.
  drv_.reset();
  drv_.set_result("cuCtxGetCurrent", 3);  // CUDA_ERROR_NOT_INITIALIZED
  EXPECT_EQ(fn(3, 0, 0), cudaSuccess);
  ctx_set = DriverCalls("cuCtxSetCurrent");
  ASSERT_EQ(ctx_set.size(), 1u);
  EXPECT_EQ(ctx_set[0]->args[0], 0u);
  drv_.reset();
  // Without cudaInitDeviceFlagsAreValid the flags are not applied; other bits are ignored.
  FakeRuntimeCall("fake_cudart_reset");
  set_out("cudaGetDevice", 0, &previous, sizeof previous);
  EXPECT_EQ(fn(3, cudaDeviceScheduleSpin, 2), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaSetDeviceFlags"), 0);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
  // The current device: no switch.
  FakeRuntimeCall("fake_cudart_reset");
  set_out("cudaGetDevice", 0, &previous, sizeof previous);
  EXPECT_EQ(fn(previous, 0, 0), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaSetDevice"), 0);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
  // A bad ordinal: cudaSetDevice's answer (101), nothing else runs.
  FakeRuntimeCall("fake_cudart_reset");
  set_out("cudaGetDevice", 0, &previous, sizeof previous);
  set("cudaSetDevice", cudaErrorInvalidDevice);
  EXPECT_EQ(fn(9, 0, cudaInitDeviceFlagsAreValid), cudaErrorInvalidDevice);
  EXPECT_EQ(RuntimeCalls("cudaSetDevice"), 1);
  EXPECT_EQ(RuntimeCalls("cudaSetDeviceFlags"), 0);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 0);
  // Bad flags: cudaSetDeviceFlags's answer, no initialisation, the device restored.
  FakeRuntimeCall("fake_cudart_reset");
  set_out("cudaGetDevice", 0, &previous, sizeof previous);
  set("cudaSetDeviceFlags", cudaErrorInvalidValue);
  EXPECT_EQ(fn(0, 0xff00, cudaInitDeviceFlagsAreValid), cudaErrorInvalidValue);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 0);
  EXPECT_EQ(RuntimeCalls("cudaSetDevice"), 2);
  ASSERT_EQ(last_arg("cudaSetDevice", 0, &device, sizeof device), 4);
  EXPECT_EQ(device, previous);
  // The runtime's initialisation failing (no device): its answer.
  FakeRuntimeCall("fake_cudart_reset");
  set("cudaGetDevice", cudaErrorNoDevice);
  EXPECT_EQ(fn(0, 0, 0), cudaErrorNoDevice);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 0);
  // 12.x runtimes have their own.
  ExpectNative("12.0", kCudart_cudaInitDevice);
}

// cudaFuncGetName on 11.x: the device name the registration code recorded for the host stub.
TEST_F(Served, FuncGetNameAnswersFromTheRegistration) {
  auto fn = Entry<decltype(&cudaFuncGetName)>(kCudart_cudaFuncGetName);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaFuncGetName), EntryStatus::kAdapter);
  static int host_stub, other_stub, module;
  void** handle = reinterpret_cast<void**>(&module);
  const char* name = nullptr;
  EXPECT_EQ(fn(&name, &host_stub), cudaErrorInvalidResourceHandle);  // 13.0: 400 when unknown
  NoteCudartFunction(handle, &host_stub, "_Z8mykernelPf");
  NoteCudartFunction(handle, &other_stub, "ckernel");
  EXPECT_EQ(fn(&name, &host_stub), cudaSuccess);
  EXPECT_STREQ(name, "_Z8mykernelPf");
  EXPECT_EQ(fn(&name, &other_stub), cudaSuccess);
  EXPECT_STREQ(name, "ckernel");
  EXPECT_EQ(fn(&name, nullptr), cudaErrorInvalidDeviceFunction);  // 13.0: 98
  EXPECT_EQ(fn(nullptr, &host_stub), cudaErrorInvalidValue);
  ForgetCudartModule(handle);  // __cudaUnregisterFatBinary
  name = nullptr;
  EXPECT_EQ(fn(&name, &host_stub), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(name, nullptr);
  ExpectNative("12.5", kCudart_cudaFuncGetName);
}

// cudaFuncGetParamInfo before 12.4: the runtime's own cudaGetFuncBySymbol for the host stub (its
// initialisation and errors), then the driver's cuFuncGetParamInfo (12.4+) on the CUfunction it
// wrote, the caller's index and out-pointers unchanged; 35 on a driver without it, nothing called.
TEST_F(Served, FuncGetParamInfoComposesGetFuncBySymbolAndTheDriver) {
  auto set = reinterpret_cast<void (*)(const char*, int)>(dlsym(rt_->handle(),
                                                               "fake_cudart_set_result"));
  auto set_out = reinterpret_cast<void (*)(const char*, int, const void*, size_t)>(
      dlsym(rt_->handle(), "fake_cudart_set_out"));
  auto last_arg = reinterpret_cast<int (*)(const char*, int, void*, size_t)>(
      dlsym(rt_->handle(), "fake_cudart_last_arg"));
  ASSERT_TRUE(set && set_out && last_arg);
  const bool has = FakeVersion() >= 12040;
  auto fn = Entry<decltype(&cudaFuncGetParamInfo)>(kCudart_cudaFuncGetParamInfo);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaFuncGetParamInfo), EntryStatus::kAdapter);
  static int host_stub;
  const auto function = reinterpret_cast<cudaFunction_t>(0xf00d);
  set_out("cudaGetFuncBySymbol", 0, &function, sizeof function);
  size_t offset = 0, size = 0;
  EXPECT_EQ(fn(&host_stub, 2, &offset, &size), has ? cudaSuccess : cudaErrorInsufficientDriver);
  auto calls = DriverCalls("cuFuncGetParamInfo");
  ASSERT_EQ(calls.size(), has ? 1u : 0u);
  EXPECT_EQ(RuntimeCalls("cudaGetFuncBySymbol"), has ? 1 : 0);
  if (!has) return;
  const void* asked = nullptr;
  ASSERT_EQ(last_arg("cudaGetFuncBySymbol", 1, &asked, sizeof asked), 8);
  EXPECT_EQ(asked, &host_stub);
  EXPECT_EQ(calls[0]->args[0], 0xf00du);
  EXPECT_EQ(calls[0]->args[1], 2u);
  EXPECT_EQ(calls[0]->args[2], reinterpret_cast<uintptr_t>(&offset));
  EXPECT_EQ(calls[0]->args[3], reinterpret_cast<uintptr_t>(&size));
  // The driver's error (an index past the last parameter), translated.
  drv_.set_result("cuFuncGetParamInfo", 1);
  EXPECT_EQ(fn(&host_stub, 9, &offset, &size), cudaErrorInvalidValue);
  // The runtime's error (its initialisation failing): its answer, the driver not asked.
  set("cudaGetFuncBySymbol", cudaErrorNoDevice);
  EXPECT_EQ(fn(&host_stub, 0, &offset, &size), cudaErrorNoDevice);
  EXPECT_EQ(DriverCalls("cuFuncGetParamInfo").size(), 2u);
  EXPECT_TRUE(DriverCalls("cuKernelGetParamInfo").empty());
  // Both failures became the thread's last error (the overlay): each cleared the runtime's own
  // older one with its cudaGetLastError, once; the last one is reported.
  EXPECT_EQ(RuntimeCalls("cudaGetLastError"), 2);
  auto get_last = Entry<decltype(&cudaGetLastError)>(kCudart_cudaGetLastError);
  ASSERT_NE(get_last, nullptr);
  EXPECT_EQ(get_last(), cudaErrorNoDevice);
  EXPECT_EQ(get_last(), cudaSuccess);
  const int resets = RuntimeCalls("cudaGetLastError");
  // No device entry function (98): a cudaKernel_t used as is (13.0), asked of cuKernelGetParamInfo;
  // the lookup's last error cleared (none was pending: the runtime's cudaGetLastError once).
  set("cudaGetFuncBySymbol", cudaErrorInvalidDeviceFunction);
  const auto kernel = reinterpret_cast<const void*>(0xcafe);
  EXPECT_EQ(fn(kernel, 1, &offset, &size), cudaSuccess);
  EXPECT_EQ(get_last(), cudaSuccess);  // 13.0 records none
  EXPECT_EQ(RuntimeCalls("cudaGetLastError"), resets + 2);  // the clearing, then get_last's
  auto kcalls = DriverCalls("cuKernelGetParamInfo");
  ASSERT_EQ(kcalls.size(), 1u);
  EXPECT_EQ(kcalls[0]->args[0], 0xcafeu);
  EXPECT_EQ(kcalls[0]->args[1], 1u);
  EXPECT_EQ(kcalls[0]->args[2], reinterpret_cast<uintptr_t>(&offset));
  EXPECT_EQ(kcalls[0]->args[3], reinterpret_cast<uintptr_t>(&size));
  EXPECT_EQ(DriverCalls("cuFuncGetParamInfo").size(), 2u);
  drv_.set_result("cuKernelGetParamInfo", 400);  // CUDA_ERROR_INVALID_HANDLE
  // 13.0 (H100): a stray host pointer answers 400 and leaves 400 as the last error.
  EXPECT_EQ(fn(kernel, 1, &offset, &size), cudaErrorInvalidResourceHandle);
  auto peek_last = Entry<decltype(&cudaPeekAtLastError)>(kCudart_cudaPeekAtLastError);
  ASSERT_NE(peek_last, nullptr);
  EXPECT_EQ(peek_last(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(get_last(), cudaErrorInvalidResourceHandle);
  const int cleared = RuntimeCalls("cudaGetLastError");
  // An error already pending stays the runtime's (not cleared); a NULL func keeps 98.
  set("cudaPeekAtLastError", cudaErrorInvalidValue);
  drv_.set_result("cuKernelGetParamInfo", 0);
  EXPECT_EQ(fn(kernel, 1, &offset, &size), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaGetLastError"), cleared);  // not cleared this time
  EXPECT_EQ(fn(nullptr, 1, &offset, &size), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(DriverCalls("cuKernelGetParamInfo").size(), 3u);
  // 12.4+ runtimes have their own (12.0-12.3 would take the adapter).
  ExpectNative("12.5", kCudart_cudaFuncGetParamInfo);
  EXPECT_EQ(CudartRuleFor(kCudart_cudaFuncGetParamInfo, 12).adapter,
            CudartAdapter::kFuncGetParamInfoDriver);
}

// ---- 11.2: what 11.8 runtimes have, served or composed ----
// The fixture on the 11.2 fake: its runtime's calls are what RuntimeCalls and the control API see.
class ElevenTwoFake : public Served {
 protected:
  void SetUp() override {
    Served::SetUp();
    rt_ = OpenFake("11.2", "libcudart.so.11.0");
    ASSERT_TRUE(rt_);
    drv_.reset();
    FakeRuntimeCall("fake_cudart_reset");
    set_result_ = reinterpret_cast<void (*)(const char*, int)>(
        dlsym(rt_->handle(), "fake_cudart_set_result"));
    set_out_ = reinterpret_cast<void (*)(const char*, int, const void*, size_t)>(
        dlsym(rt_->handle(), "fake_cudart_set_out"));
    last_arg_ = reinterpret_cast<int (*)(const char*, int, void*, size_t)>(
        dlsym(rt_->handle(), "fake_cudart_last_arg"));
    ASSERT_TRUE(set_result_ && set_out_ && last_arg_);
  }
  // The runtime's cudaGetFuncBySymbol finds function_ for any host stub.
  void FindFunction() { set_out_("cudaGetFuncBySymbol", 0, &function_, sizeof function_); }
  // The CUlaunchConfig a driver call received (captured at the call: cudynFakeSetCapture).
  CUlaunchConfig SeenConfig(const CudynFakeCall* call) {
    CUlaunchConfig seen = {};
    EXPECT_EQ(call->captured_size, static_cast<int>(sizeof seen));
    std::memcpy(&seen, call->captured, sizeof seen);
    return seen;
  }
  const cudaFunction_t function_ = reinterpret_cast<cudaFunction_t>(0xf00d);
  void (*set_result_)(const char*, int) = nullptr;
  void (*set_out_)(const char*, int, const void*, size_t) = nullptr;
  int (*last_arg_)(const char*, int, void*, size_t) = nullptr;
};

// The configuration every launch below uses: grid 3x2x1, block 64x1x1, 2^32 + 5 bytes of dynamic
// shared memory (13.0 launches it as 5), a stream, and (when asked) a 2x1x1 cluster.
struct LaunchForTest {
  cudaLaunchAttribute cluster[1] = {};
  cudaLaunchConfig_t config = {};
  explicit LaunchForTest(bool with_cluster) {
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = 2;
    cluster[0].val.clusterDim.y = 1;
    cluster[0].val.clusterDim.z = 1;
    config.gridDim = dim3(3, 2, 1);
    config.blockDim = dim3(64, 1, 1);
    config.dynamicSmemBytes = (size_t{1} << 32) + 5;
    config.stream = reinterpret_cast<cudaStream_t>(0x51);
    config.attrs = with_cluster ? cluster : nullptr;
    config.numAttrs = with_cluster ? 1 : 0;
  }
};

// cudaLaunchKernelExC(_ptsz) on 11.2: without attributes the runtime's own cudaLaunchKernel(_ptsz)
// with the caller's arguments and its answer; with attributes the runtime's initialisation and
// cudaGetFuncBySymbol, then the driver's cuLaunchKernelEx(_ptsz) on that CUfunction with the
// configuration converted (the caller's attribute array, read as CUlaunchAttribute).
TEST_F(ElevenTwoFake, LaunchKernelExCIsTheRuntimesLaunchOrTheDriversWithAttributes) {
  ExpectNative("11.8", kCudart_cudaLaunchKernelExC);
  ExpectNative("11.8", kCudart_cudaLaunchKernelExC_ptsz);
  EXPECT_EQ(cudaStreamLegacy, reinterpret_cast<cudaStream_t>(CU_STREAM_LEGACY));
  EXPECT_EQ(cudaStreamPerThread, reinterpret_cast<cudaStream_t>(CU_STREAM_PER_THREAD));
  static int host_stub;
  void* args[1] = {&host_stub};
  for (const bool ptsz : {false, true}) {
    SCOPED_TRACE(ptsz);
    const int index = ptsz ? kCudart_cudaLaunchKernelExC_ptsz : kCudart_cudaLaunchKernelExC;
    const char* runtime_launch = ptsz ? "cudaLaunchKernel_ptsz" : "cudaLaunchKernel";
    const char* driver_launch = ptsz ? "cuLaunchKernelEx_ptsz" : "cuLaunchKernelEx";
    auto fn = Entry<decltype(&cudaLaunchKernelExC)>(index);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(rt_->status(index), EntryStatus::kAdapter);
    drv_.reset();
    FakeRuntimeCall("fake_cudart_reset");
    FindFunction();
    drv_.set_capture(driver_launch, 0, sizeof(CUlaunchConfig));
    // No attributes: the runtime's own launch, every argument as given, nothing of the driver's.
    LaunchForTest plain(false);
    EXPECT_EQ(fn(&plain.config, &host_stub, args), cudaSuccess);
    EXPECT_EQ(RuntimeCalls(runtime_launch), 1);
    EXPECT_EQ(RuntimeCalls("cudaGetFuncBySymbol"), 0);
    const void* func = nullptr;
    dim3 grid, block;
    void** passed_args = nullptr;
    size_t shared = 0;
    cudaStream_t stream = nullptr;
    ASSERT_EQ(last_arg_(runtime_launch, 0, &func, sizeof func), 8);
    ASSERT_EQ(last_arg_(runtime_launch, 1, &grid, sizeof grid), 12);
    ASSERT_EQ(last_arg_(runtime_launch, 2, &block, sizeof block), 12);
    ASSERT_EQ(last_arg_(runtime_launch, 3, &passed_args, sizeof passed_args), 8);
    ASSERT_EQ(last_arg_(runtime_launch, 4, &shared, sizeof shared), 8);
    ASSERT_EQ(last_arg_(runtime_launch, 5, &stream, sizeof stream), 8);
    EXPECT_EQ(func, &host_stub);
    EXPECT_EQ(grid.x, 3u);
    EXPECT_EQ(grid.y, 2u);
    EXPECT_EQ(block.x, 64u);
    EXPECT_EQ(passed_args, args);
    EXPECT_EQ(shared, (size_t{1} << 32) + 5);
    EXPECT_EQ(stream, reinterpret_cast<cudaStream_t>(0x51));
    EXPECT_TRUE(DriverCalls(driver_launch).empty());
    set_result_(runtime_launch, cudaErrorLaunchOutOfResources);  // the runtime's answer, as is
    EXPECT_EQ(fn(&plain.config, &host_stub, args), cudaErrorLaunchOutOfResources);
    set_result_(runtime_launch, cudaSuccess);
    // Attributes: the runtime's initialisation and cudaGetFuncBySymbol, then the driver.
    LaunchForTest clustered(true);
    EXPECT_EQ(fn(&clustered.config, &host_stub, args), cudaSuccess);
    EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
    EXPECT_EQ(RuntimeCalls("cudaGetFuncBySymbol"), 1);
    EXPECT_EQ(RuntimeCalls(runtime_launch), 2);
    ASSERT_EQ(last_arg_("cudaGetFuncBySymbol", 1, &func, sizeof func), 8);
    EXPECT_EQ(func, &host_stub);
    auto calls = DriverCalls(driver_launch);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0]->args[1], 0xf00du);
    EXPECT_EQ(calls[0]->args[2], reinterpret_cast<uintptr_t>(args));
    EXPECT_EQ(calls[0]->args[3], 0u);  // no `extra`
    const CUlaunchConfig seen = SeenConfig(calls[0]);
    EXPECT_EQ(seen.gridDimX, 3u);
    EXPECT_EQ(seen.gridDimY, 2u);
    EXPECT_EQ(seen.gridDimZ, 1u);
    EXPECT_EQ(seen.blockDimX, 64u);
    EXPECT_EQ(seen.blockDimY, 1u);
    EXPECT_EQ(seen.blockDimZ, 1u);
    EXPECT_EQ(seen.sharedMemBytes, 5u);  // truncated, as 13.0 does
    EXPECT_EQ(seen.hStream, reinterpret_cast<CUstream>(0x51));
    ASSERT_EQ(reinterpret_cast<const void*>(seen.attrs),
              static_cast<const void*>(clustered.cluster));
    EXPECT_EQ(seen.numAttrs, 1u);
    EXPECT_EQ(seen.attrs[0].id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    EXPECT_EQ(seen.attrs[0].value.clusterDim.x, 2u);
    EXPECT_EQ(seen.attrs[0].value.clusterDim.y, 1u);
    // A NULL stream stays NULL: the driver's twin gives it the same meaning as the runtime's.
    clustered.config.stream = nullptr;
    EXPECT_EQ(fn(&clustered.config, &host_stub, args), cudaSuccess);
    ASSERT_EQ(DriverCalls(driver_launch).size(), 2u);
    EXPECT_EQ(SeenConfig(DriverCalls(driver_launch)[1]).hStream, nullptr);
    // The driver's error, translated; the runtime's initialisation error, the driver not asked.
    drv_.set_result(driver_launch, 701);  // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    EXPECT_EQ(fn(&clustered.config, &host_stub, args), cudaErrorLaunchOutOfResources);
    drv_.set_result(driver_launch, 0);
    set_result_("cudaFree", cudaErrorNoDevice);
    EXPECT_EQ(fn(&clustered.config, &host_stub, args), cudaErrorNoDevice);
    set_result_("cudaFree", cudaSuccess);
    EXPECT_EQ(DriverCalls(driver_launch).size(), 3u);
    // A NULL configuration: 1, nothing run (13.0 crashes).
    EXPECT_EQ(fn(nullptr, &host_stub, args), cudaErrorInvalidValue);
    EXPECT_EQ(RuntimeCalls(runtime_launch), 2);
    EXPECT_EQ(DriverCalls(driver_launch).size(), 3u);
    // What the runtime does not know (98) is a cudaKernel_t, as 13.0 takes it: the driver's
    // cuKernelGetFunction (its error the answer: 13.0 answers 400 for an unregistered host
    // function), then the launch; with or without attributes. A NULL func keeps 98.
    set_result_("cudaGetFuncBySymbol", cudaErrorInvalidDeviceFunction);
    set_result_(runtime_launch, cudaErrorInvalidDeviceFunction);
    const auto kernel = reinterpret_cast<const void*>(0xcafe);
    EXPECT_EQ(fn(&clustered.config, kernel, args), cudaSuccess);
    EXPECT_EQ(fn(&plain.config, kernel, args), cudaSuccess);
    auto as_kernel = DriverCalls("cuKernelGetFunction");
    ASSERT_EQ(as_kernel.size(), 2u);
    EXPECT_EQ(as_kernel[0]->args[1], 0xcafeu);
    EXPECT_EQ(as_kernel[1]->args[1], 0xcafeu);
    ASSERT_EQ(DriverCalls(driver_launch).size(), 5u);
    EXPECT_EQ(SeenConfig(DriverCalls(driver_launch)[4]).sharedMemBytes, 5u);
    EXPECT_EQ(SeenConfig(DriverCalls(driver_launch)[4]).numAttrs, 0u);
    drv_.set_result("cuKernelGetFunction", 400);  // CUDA_ERROR_INVALID_HANDLE
    EXPECT_EQ(fn(&clustered.config, kernel, args), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(fn(&plain.config, kernel, args), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(fn(&plain.config, nullptr, args), cudaErrorInvalidDeviceFunction);
    EXPECT_EQ(fn(&clustered.config, nullptr, args), cudaErrorInvalidDeviceFunction);
    EXPECT_EQ(DriverCalls("cuKernelGetFunction").size(), 4u);
    EXPECT_EQ(DriverCalls(driver_launch).size(), 5u);
    // Each failure is the thread's last error; the last one is reported.
    auto get_last = Entry<decltype(&cudaGetLastError)>(kCudart_cudaGetLastError);
    set_result_("cudaGetFuncBySymbol", cudaSuccess);
    set_result_(runtime_launch, cudaSuccess);
    EXPECT_EQ(get_last(), cudaErrorInvalidDeviceFunction);
    EXPECT_EQ(get_last(), cudaSuccess);
  }
}

// The converted CUlaunchConfig field by field (cudart_to_driver.inc's LaunchConfig rows): every
// field its own value, so a row that reads or writes another field shows; the narrowed
// sharedMemBytes keeps the low 32 bits, and the bytes no row writes (padding) are zero.
TEST_F(ElevenTwoFake, LaunchConfigReachesTheDriverFieldByField) {
  if (!DriverHas("cuLaunchKernelEx")) GTEST_SKIP() << "no cuLaunchKernelEx";
  auto fn = Entry<decltype(&cudaLaunchKernelExC)>(kCudart_cudaLaunchKernelExC);
  ASSERT_NE(fn, nullptr);
  FindFunction();
  drv_.set_capture("cuLaunchKernelEx", 0, sizeof(CUlaunchConfig));
  LaunchForTest launch(true);
  launch.config.gridDim = dim3(3, 5, 7);
  launch.config.blockDim = dim3(11, 13, 17);
  launch.config.dynamicSmemBytes = (size_t{19} << 32) + 23;
  launch.config.stream = reinterpret_cast<cudaStream_t>(0x29);
  static int host_stub;
  void* args[1] = {&host_stub};
  ASSERT_EQ(fn(&launch.config, &host_stub, args), cudaSuccess);
  auto calls = DriverCalls("cuLaunchKernelEx");
  ASSERT_EQ(calls.size(), 1u);
  const CUlaunchConfig seen = SeenConfig(calls[0]);
  EXPECT_EQ(seen.gridDimX, 3u);
  EXPECT_EQ(seen.gridDimY, 5u);
  EXPECT_EQ(seen.gridDimZ, 7u);
  EXPECT_EQ(seen.blockDimX, 11u);
  EXPECT_EQ(seen.blockDimY, 13u);
  EXPECT_EQ(seen.blockDimZ, 17u);
  EXPECT_EQ(seen.sharedMemBytes, 23u);
  EXPECT_EQ(seen.hStream, reinterpret_cast<CUstream>(0x29));
  EXPECT_EQ(reinterpret_cast<const void*>(seen.attrs), static_cast<const void*>(launch.cluster));
  EXPECT_EQ(seen.numAttrs, 1u);
  CUlaunchConfig want;
  std::memset(&want, 0, sizeof want);
  want.gridDimX = 3;
  want.gridDimY = 5;
  want.gridDimZ = 7;
  want.blockDimX = 11;
  want.blockDimY = 13;
  want.blockDimZ = 17;
  want.sharedMemBytes = 23;
  want.hStream = reinterpret_cast<CUstream>(0x29);
  want.attrs = reinterpret_cast<CUlaunchAttribute*>(launch.cluster);
  want.numAttrs = 1;
  EXPECT_EQ(std::memcmp(calls[0]->captured, &want, sizeof want), 0) << "padding not zero";
}

// The cluster occupancy calls on 11.2: the runtime's initialisation and cudaGetFuncBySymbol, then
// the driver's entry with the caller's out-pointer, the CUfunction and the converted configuration.
TEST_F(ElevenTwoFake, ClusterOccupancyAsksTheDriverWithTheConvertedConfig) {
  struct Call {
    int index;
    const char* driver_entry;
  };
  for (const Call c : {Call{kCudart_cudaOccupancyMaxPotentialClusterSize,
                            "cuOccupancyMaxPotentialClusterSize"},
                       Call{kCudart_cudaOccupancyMaxActiveClusters,
                            "cuOccupancyMaxActiveClusters"}}) {
    SCOPED_TRACE(c.driver_entry);
    ExpectNative("11.8", c.index);
    auto fn = Entry<decltype(&cudaOccupancyMaxActiveClusters)>(c.index);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(rt_->status(c.index), EntryStatus::kAdapter);
    drv_.reset();
    FakeRuntimeCall("fake_cudart_reset");
    FindFunction();
    drv_.set_capture(c.driver_entry, 2, sizeof(CUlaunchConfig));
    static int host_stub;
    int out = -1;
    LaunchForTest launch(true);
    EXPECT_EQ(fn(&out, &host_stub, &launch.config), cudaSuccess);
    EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
    EXPECT_EQ(RuntimeCalls("cudaGetFuncBySymbol"), 1);
    auto calls = DriverCalls(c.driver_entry);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0]->args[0], reinterpret_cast<uintptr_t>(&out));
    EXPECT_EQ(calls[0]->args[1], 0xf00du);
    const CUlaunchConfig seen = SeenConfig(calls[0]);
    EXPECT_EQ(seen.gridDimX, 3u);
    EXPECT_EQ(seen.blockDimX, 64u);
    EXPECT_EQ(seen.sharedMemBytes, 5u);
    EXPECT_EQ(seen.hStream, reinterpret_cast<CUstream>(0x51));
    EXPECT_EQ(reinterpret_cast<const void*>(seen.attrs),
              static_cast<const void*>(launch.cluster));
    EXPECT_EQ(seen.numAttrs, 1u);
    drv_.set_result(c.driver_entry, 2);  // CUDA_ERROR_OUT_OF_MEMORY, translated
    EXPECT_EQ(fn(&out, &host_stub, &launch.config), cudaErrorMemoryAllocation);
    drv_.set_result(c.driver_entry, 0);
    // A NULL configuration: 1 (13.0 crashes); the runtime's error: its answer.
    EXPECT_EQ(fn(&out, &host_stub, nullptr), cudaErrorInvalidValue);
    set_result_("cudaGetFuncBySymbol", cudaErrorNoDevice);
    EXPECT_EQ(fn(&out, &host_stub, &launch.config), cudaErrorNoDevice);
    EXPECT_EQ(DriverCalls(c.driver_entry).size(), 2u);
    // An unregistered host function: cuKernelGetFunction's 400, as 13.0 answers.
    set_result_("cudaGetFuncBySymbol", cudaErrorInvalidDeviceFunction);
    drv_.set_result("cuKernelGetFunction", 400);
    EXPECT_EQ(fn(&out, &host_stub, &launch.config), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(DriverCalls(c.driver_entry).size(), 2u);
    EXPECT_EQ(DriverCalls("cuKernelGetFunction").size(), 1u);
  }
}

// cudaGraphDebugDotPrint on 11.2: the runtime's initialisation, then the driver's
// cuGraphDebugDotPrint with the caller's graph, path and flags as they are.
TEST_F(ElevenTwoFake, GraphDebugDotPrintPassesTheFlags) {
  ExpectNative("11.8", kCudart_cudaGraphDebugDotPrint);
  auto fn = Entry<decltype(&cudaGraphDebugDotPrint)>(kCudart_cudaGraphDebugDotPrint);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaGraphDebugDotPrint), EntryStatus::kAdapter);
  static const char path[] = "graph.dot";
  const unsigned flags = cudaGraphDebugDotFlagsVerbose | cudaGraphDebugDotFlagsHandles |
                         cudaGraphDebugDotFlagsConditionalNodeParams;
  EXPECT_EQ(fn(reinterpret_cast<cudaGraph_t>(0x52), path, flags), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
  auto calls = DriverCalls("cuGraphDebugDotPrint");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->args[0], 0x52u);
  EXPECT_EQ(calls[0]->args[1], reinterpret_cast<uintptr_t>(path));
  EXPECT_EQ(static_cast<unsigned>(calls[0]->args[2]),
            static_cast<unsigned>(CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE |
                                  CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES |
                                  CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS));
  drv_.set_result("cuGraphDebugDotPrint", 304);  // CUDA_ERROR_OPERATING_SYSTEM (13.0: a bad dir)
  EXPECT_EQ(fn(reinterpret_cast<cudaGraph_t>(0x52), path, 0), cudaErrorOperatingSystem);
}

// Drivers before 12.0: an 11.8 driver (the 11080 fake) has cuLaunchKernelEx and the cluster
// occupancy entries, so 11.2 gets them as on 12.x, but no cudaKernel_t (cuKernelGetFunction is
// 12.0+): a host function the runtime does not know keeps the runtime's 98. A driver before them
// (the 11040 fake) answers 35 with attributes and for occupancy, nothing run; a launch without
// attributes is still the runtime's own.
using ServedBefore12 = Served;
TEST_F(ServedBefore12, ElevenTwoFakeAndClusterOccupancy) {
  rt_ = OpenFake("11.2", "libcudart.so.11.0");
  ASSERT_TRUE(rt_);
  drv_.reset();
  FakeRuntimeCall("fake_cudart_reset");
  auto set = reinterpret_cast<void (*)(const char*, int)>(dlsym(rt_->handle(),
                                                               "fake_cudart_set_result"));
  ASSERT_NE(set, nullptr);
  const bool has = FakeVersion() >= 11080;
  ASSERT_EQ(DriverHas("cuLaunchKernelEx"), has);
  ASSERT_EQ(DriverHas("cuOccupancyMaxActiveClusters"), has);
  ASSERT_FALSE(DriverHas("cuKernelGetFunction"));
  static int host_stub;
  void* args[1] = {&host_stub};
  LaunchForTest clustered(true), plain(false);
  const cudaError_t served = has ? cudaSuccess : cudaErrorInsufficientDriver;
  for (const int index : {kCudart_cudaLaunchKernelExC, kCudart_cudaLaunchKernelExC_ptsz}) {
    auto fn = Entry<decltype(&cudaLaunchKernelExC)>(index);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(&clustered.config, &host_stub, args), served);
    EXPECT_EQ(fn(&plain.config, &host_stub, args), cudaSuccess);
  }
  EXPECT_EQ(RuntimeCalls("cudaLaunchKernel"), 1);
  EXPECT_EQ(RuntimeCalls("cudaLaunchKernel_ptsz"), 1);
  EXPECT_EQ(DriverCalls("cuLaunchKernelEx").size(), has ? 1u : 0u);
  EXPECT_EQ(DriverCalls("cuLaunchKernelEx_ptsz").size(), has ? 1u : 0u);
  int out = 0;
  for (const int index :
       {kCudart_cudaOccupancyMaxPotentialClusterSize, kCudart_cudaOccupancyMaxActiveClusters}) {
    auto fn = Entry<decltype(&cudaOccupancyMaxActiveClusters)>(index);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(&out, &host_stub, &clustered.config), served);
  }
  EXPECT_EQ(DriverCalls("cuOccupancyMaxPotentialClusterSize").size(), has ? 1u : 0u);
  EXPECT_EQ(DriverCalls("cuOccupancyMaxActiveClusters").size(), has ? 1u : 0u);
  EXPECT_EQ(RuntimeCalls("cudaFree"), has ? 4 : 0);
  EXPECT_EQ(RuntimeCalls("cudaGetFuncBySymbol"), has ? 4 : 0);
  if (!has) {
    EXPECT_EQ(drv_.call_count(), 0);
    return;
  }
  set("cudaGetFuncBySymbol", cudaErrorInvalidDeviceFunction);
  set("cudaLaunchKernel", cudaErrorInvalidDeviceFunction);
  auto launch = Entry<decltype(&cudaLaunchKernelExC)>(kCudart_cudaLaunchKernelExC);
  EXPECT_EQ(launch(&clustered.config, &host_stub, args), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(launch(&plain.config, &host_stub, args), cudaErrorInvalidDeviceFunction);
  auto occupancy = Entry<decltype(&cudaOccupancyMaxActiveClusters)>(
      kCudart_cudaOccupancyMaxActiveClusters);
  EXPECT_EQ(occupancy(&out, &host_stub, &clustered.config), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(DriverCalls("cuLaunchKernelEx").size(), 1u);
  EXPECT_EQ(DriverCalls("cuOccupancyMaxActiveClusters").size(), 1u);
}

// cudaKernelSetAttributeForDevice before 13.0: cuInit(0), then the driver's cuKernelSetAttribute
// (12.0+) with the arguments reordered (attribute, value, kernel, device) and the attribute mapped
// by name; a value that is no cudaFuncAttribute answers 1 without a driver call.
TEST_F(Served, KernelSetAttributeForDeviceReordersAndMapsTheAttribute) {
  for (const char* v : {"11.8", "12.5"}) {
    SCOPED_TRACE(v);
    std::unique_ptr<Runtime> rt;
    auto fn = OpenResolved<decltype(&cudaKernelSetAttributeForDevice)>(
        v, kCudart_cudaKernelSetAttributeForDevice, &rt);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(rt->status(kCudart_cudaKernelSetAttributeForDevice), EntryStatus::kAdapter);
    drv_.reset();
    const auto kernel = reinterpret_cast<cudaKernel_t>(0xbeef);
    // The settable attributes run from cudaFuncAttributeMaxDynamicSharedMemorySize to
    // cudaFuncAttributeMax; the 13.0 runtime hands each to the driver as the CUfunction_attribute
    // of the same value (the headers number both enums alike): what reaches the driver is that.
    std::vector<cudaFuncAttribute> cases;
    for (int a = cudaFuncAttributeMaxDynamicSharedMemorySize; a < cudaFuncAttributeMax; ++a) {
      cases.push_back(static_cast<cudaFuncAttribute>(a));
    }
    int value = 1000;
    for (const cudaFuncAttribute attr : cases) {
      EXPECT_EQ(fn(kernel, attr, value, 3), cudaSuccess) << attr;
      auto calls = DriverCalls("cuKernelSetAttribute");
      ASSERT_FALSE(calls.empty());
      const CudynFakeCall* call = calls.back();
      ASSERT_EQ(call->num_args, 4);
      EXPECT_EQ(static_cast<int>(call->args[0]), static_cast<int>(attr)) << attr;
      EXPECT_EQ(static_cast<int>(call->args[1]), value);
      EXPECT_EQ(call->args[2], 0xbeefu);
      EXPECT_EQ(static_cast<int>(call->args[3]), 3);
      ++value;
    }
    EXPECT_EQ(DriverCalls("cuKernelSetAttribute").size(), cases.size());
    // cuInit before each call; no context needed (the runtime's cudaFree not called).
    EXPECT_EQ(DriverCalls("cuInit").size(), cases.size());
    EXPECT_EQ(RuntimeCalls("cudaFree"), 0);
    // Not a cudaFuncAttribute (the driver's read-only 0-7, cudaFuncAttributeMax, negative): 1.
    for (int bad : {0, 4, 7, static_cast<int>(cudaFuncAttributeMax), -1}) {
      EXPECT_EQ(fn(kernel, static_cast<cudaFuncAttribute>(bad), 1, 0), cudaErrorInvalidValue)
          << bad;
    }
    EXPECT_EQ(DriverCalls("cuKernelSetAttribute").size(), cases.size());
    // The driver's errors, translated; cuInit's comes first.
    drv_.set_result("cuKernelSetAttribute", 101);  // CUDA_ERROR_INVALID_DEVICE
    EXPECT_EQ(fn(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1, 99),
              cudaErrorInvalidDevice);
    drv_.set_result("cuInit", 100);
    EXPECT_EQ(fn(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1, 0), cudaErrorNoDevice);
    EXPECT_EQ(fn(kernel, static_cast<cudaFuncAttribute>(0), 1, 0), cudaErrorNoDevice);
    EXPECT_EQ(DriverCalls("cuKernelSetAttribute").size(), cases.size() + 1);
  }
}

// cudaGetDriverEntryPointByVersion before 12.5: the driver's cuGetProcAddress_v2 at the caller's
// version (at most the driver's), its status passed on; CUDA_ERROR_NOT_FOUND is success + status.
TEST_F(Served, GetDriverEntryPointByVersionAsksTheDriver) {
  for (const char* v : {"11.8", "12.0"}) {
    SCOPED_TRACE(v);
    std::unique_ptr<Runtime> rt;
    auto fn = OpenResolved<decltype(&cudaGetDriverEntryPointByVersion)>(
        v, kCudart_cudaGetDriverEntryPointByVersion, &rt);
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(rt->status(kCudart_cudaGetDriverEntryPointByVersion), EntryStatus::kAdapter);
    drv_.reset();
    void* p = nullptr;
    auto st = cudaDriverEntryPointVersionNotSufficent;
    EXPECT_EQ(fn("cuMemAlloc", &p, 12000, cudaEnableDefault, &st), cudaSuccess);
    EXPECT_EQ(st, cudaDriverEntryPointSuccess);
    EXPECT_NE(p, nullptr);
    auto calls = DriverCalls("cuGetProcAddress_v2");
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_STREQ(calls[0]->requested, "cuMemAlloc");
    EXPECT_EQ(calls[0]->args[calls[0]->arg_word[1]], reinterpret_cast<uintptr_t>(&p));
    EXPECT_EQ(static_cast<int>(calls[0]->args[calls[0]->arg_word[2]]), 12000);
    EXPECT_EQ(calls[0]->args[calls[0]->arg_word[3]], 0u);
    // Above the driver's version: asked at the driver's.
    EXPECT_EQ(fn("cuMemAlloc", &p, 13000, cudaEnableLegacyStream, &st), cudaSuccess);
    calls = DriverCalls("cuGetProcAddress_v2");
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(static_cast<int>(calls[1]->args[calls[1]->arg_word[2]]),
              FakeVersion() < 13000 ? FakeVersion() : 13000);
    EXPECT_EQ(calls[1]->args[calls[1]->arg_word[3]], 1u);
    // A symbol the driver does not know: success, status 1, NULL.
    p = reinterpret_cast<void*>(1);
    EXPECT_EQ(fn("cuNothingLikeThis", &p, 12000, 0, &st), cudaSuccess);
    EXPECT_EQ(st, cudaDriverEntryPointSymbolNotFound);
    EXPECT_EQ(p, nullptr);
    // Above the 13.0 runtime's own version, or NULL arguments: 1, the driver not asked.
    const size_t before = DriverCalls("cuGetProcAddress_v2").size();
    st = cudaDriverEntryPointVersionNotSufficent;
    EXPECT_EQ(fn("cuMemAlloc", &p, 99000, 0, &st), cudaErrorInvalidValue);
    EXPECT_EQ(st, cudaDriverEntryPointVersionNotSufficent);  // untouched
    EXPECT_EQ(fn(nullptr, &p, 12000, 0, &st), cudaErrorInvalidValue);
    EXPECT_EQ(fn("cuMemAlloc", nullptr, 12000, 0, &st), cudaErrorInvalidValue);
    EXPECT_EQ(DriverCalls("cuGetProcAddress_v2").size(), before);
    // The per-thread twin asks for per-thread variants by default.
    auto ptsz = reinterpret_cast<decltype(&cudaGetDriverEntryPointByVersion)>(
        rt->Resolve(kCudart_cudaGetDriverEntryPointByVersion_ptsz));
    ASSERT_NE(ptsz, nullptr);
    EXPECT_EQ(ptsz("cuMemAlloc", &p, 12000, cudaEnableDefault, nullptr), cudaSuccess);
    calls = DriverCalls("cuGetProcAddress_v2");
    EXPECT_EQ(calls.back()->args[calls.back()->arg_word[3]],
              static_cast<unsigned long long>(cudaEnablePerThreadDefaultStream));
  }
  ExpectNative("12.5", kCudart_cudaGetDriverEntryPointByVersion);
}

// cudaStreamBeginCaptureToGraph (driver 12.3+) and cudaGraphInstantiateWithParams (12.0+) before
// 12.x runtimes: the runtime's initialisation, then the driver's entry with the caller's arguments
// unchanged (the handles are the driver's; cudaGraphEdgeData and cudaGraphInstantiateParams read
// back from the bytes the driver received as CUgraphEdgeData / CUDA_GRAPH_INSTANTIATE_PARAMS, field
// by field); a driver without the entry (the fake's exports: the driver table's) answers 35, nothing
// run.
TEST_F(Served, CaptureToGraphAndInstantiateWithParamsReachTheDriver) {
  const auto stream = reinterpret_cast<cudaStream_t>(0x51);
  const auto graph = reinterpret_cast<cudaGraph_t>(0x52);
  cudaGraphNode_t deps[2] = {reinterpret_cast<cudaGraphNode_t>(0x61),
                             reinterpret_cast<cudaGraphNode_t>(0x62)};
  cudaGraphEdgeData edges[2] = {};
  edges[1].from_port = cudaGraphKernelNodePortProgrammatic;
  edges[1].to_port = 3;
  edges[1].type = cudaGraphDependencyTypeProgrammatic;
  for (const bool ptsz : {false, true}) {
    SCOPED_TRACE(ptsz);
    const char* driver_entry = ptsz ? "cuStreamBeginCaptureToGraph_ptsz" : "cuStreamBeginCaptureToGraph";
    auto begin = Entry<decltype(&cudaStreamBeginCaptureToGraph)>(
        ptsz ? kCudart_cudaStreamBeginCaptureToGraph_ptsz : kCudart_cudaStreamBeginCaptureToGraph);
    ASSERT_NE(begin, nullptr);
    const bool has = DriverHas(driver_entry);
    FakeRuntimeCall("fake_cudart_reset");
    drv_.set_capture(driver_entry, 3, sizeof(edges));
    EXPECT_EQ(begin(stream, graph, deps, edges, 2, cudaStreamCaptureModeRelaxed),
              has ? cudaSuccess : cudaErrorInsufficientDriver);
    EXPECT_EQ(RuntimeCalls("cudaFree"), has ? 1 : 0);
    auto calls = DriverCalls(driver_entry);
    ASSERT_EQ(calls.size(), has ? 1u : 0u);
    if (!has) continue;
    const uintptr_t want[] = {0x51, 0x52, reinterpret_cast<uintptr_t>(deps),
                              reinterpret_cast<uintptr_t>(edges), 2,
                              static_cast<uintptr_t>(CU_STREAM_CAPTURE_MODE_RELAXED)};
    ASSERT_EQ(calls[0]->num_args, 6);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(calls[0]->args[i], want[i]) << i;
    ASSERT_EQ(calls[0]->captured_size, static_cast<int>(sizeof(edges)));
    CUgraphEdgeData seen[2];
    std::memcpy(seen, calls[0]->captured, sizeof(seen));
    EXPECT_EQ(seen[0].type, CU_GRAPH_DEPENDENCY_TYPE_DEFAULT);
    EXPECT_EQ(seen[1].from_port, CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC);
    EXPECT_EQ(seen[1].to_port, 3);
    EXPECT_EQ(seen[1].type, CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC);
  }
  auto instantiate =
      Entry<decltype(&cudaGraphInstantiateWithParams)>(kCudart_cudaGraphInstantiateWithParams);
  ASSERT_NE(instantiate, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaGraphInstantiateWithParams), EntryStatus::kAdapter);
  ASSERT_TRUE(DriverHas("cuGraphInstantiateWithParams"));  // 12.0+: every driver of this run
  cudaGraphInstantiateParams params = {};
  params.flags = cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagUseNodePriority;
  params.uploadStream = stream;
  params.errNode_out = deps[0];
  params.result_out = cudaGraphInstantiateNodeOperationNotSupported;
  cudaGraphExec_t exec = nullptr;
  drv_.set_capture("cuGraphInstantiateWithParams", 2, sizeof(params));
  FakeRuntimeCall("fake_cudart_reset");
  EXPECT_EQ(instantiate(&exec, graph, &params), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 1);
  auto calls = DriverCalls("cuGraphInstantiateWithParams");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->args[0], reinterpret_cast<uintptr_t>(&exec));
  EXPECT_EQ(calls[0]->args[1], 0x52u);
  EXPECT_EQ(calls[0]->args[2], reinterpret_cast<uintptr_t>(&params));  // the driver fills it
  ASSERT_EQ(calls[0]->captured_size, static_cast<int>(sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS)));
  CUDA_GRAPH_INSTANTIATE_PARAMS seen;
  std::memcpy(&seen, calls[0]->captured, sizeof(seen));
  EXPECT_EQ(seen.flags, static_cast<cuuint64_t>(CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                                                CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(seen.hUploadStream), 0x51u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(seen.hErrNode_out), 0x61u);
  EXPECT_EQ(seen.result_out, CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED);
  drv_.set_result("cuGraphInstantiateWithParams", 400);
  EXPECT_EQ(instantiate(&exec, graph, &params), cudaErrorInvalidResourceHandle);
  auto ptsz = Entry<decltype(&cudaGraphInstantiateWithParams)>(
      kCudart_cudaGraphInstantiateWithParams_ptsz);
  EXPECT_EQ(ptsz(&exec, graph, &params), cudaSuccess);
  EXPECT_EQ(DriverCalls("cuGraphInstantiateWithParams_ptsz").size(), 1u);
  ExpectNative("12.5", kCudart_cudaGraphInstantiateWithParams);
  ExpectNative("12.5", kCudart_cudaStreamBeginCaptureToGraph);
}

// cudaDeviceRegisterAsyncNotification / Unregister (driver 12.4+): cuInit, then the driver's entry
// with the caller's device, callback, user data and handle out-pointer unchanged: the driver calls
// the caller's callback (its arguments are the runtime callback's, field for field) with the handle
// the caller got back. 35 on a driver without it, nothing run.
void AsyncCallbackForTest(cudaAsyncNotificationInfo_t*, void*, cudaAsyncCallbackHandle_t) {}
TEST_F(Served, AsyncNotificationsPassTheCallersCallback) {
  auto reg = Entry<decltype(&cudaDeviceRegisterAsyncNotification)>(
      kCudart_cudaDeviceRegisterAsyncNotification);
  auto unreg = Entry<decltype(&cudaDeviceUnregisterAsyncNotification)>(
      kCudart_cudaDeviceUnregisterAsyncNotification);
  ASSERT_NE(reg, nullptr);
  ASSERT_NE(unreg, nullptr);
  const bool has = DriverHas("cuDeviceRegisterAsyncNotification");
  int user = 0;
  cudaAsyncCallbackHandle_t handle = nullptr;
  EXPECT_EQ(reg(1, AsyncCallbackForTest, &user, &handle),
            has ? cudaSuccess : cudaErrorInsufficientDriver);
  const auto back = reinterpret_cast<cudaAsyncCallbackHandle_t>(0x99);
  EXPECT_EQ(unreg(1, back), has ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 0);  // a device call: cuInit, no context
  EXPECT_EQ(DriverCalls("cuInit").size(), has ? 2u : 0u);
  auto r = DriverCalls("cuDeviceRegisterAsyncNotification");
  auto u = DriverCalls("cuDeviceUnregisterAsyncNotification");
  ASSERT_EQ(r.size(), has ? 1u : 0u);
  ASSERT_EQ(u.size(), has ? 1u : 0u);
  if (!has) return;
  EXPECT_EQ(static_cast<int>(r[0]->args[0]), 1);
  EXPECT_EQ(r[0]->args[1], reinterpret_cast<uintptr_t>(&AsyncCallbackForTest));
  EXPECT_EQ(r[0]->args[2], reinterpret_cast<uintptr_t>(&user));
  EXPECT_EQ(r[0]->args[3], reinterpret_cast<uintptr_t>(&handle));
  EXPECT_EQ(static_cast<int>(u[0]->args[0]), 1);
  EXPECT_EQ(u[0]->args[1], 0x99u);
  drv_.set_result("cuDeviceRegisterAsyncNotification", 101);
  EXPECT_EQ(reg(7, AsyncCallbackForTest, &user, &handle), cudaErrorInvalidDevice);
}

// cudaGraphConditionalHandleCreate (driver 12.3+): the runtime's initialisation, cuCtxGetCurrent
// (the runtime's context), then cuGraphConditionalHandleCreate with that context between the graph
// and the caller's default value and flags; cuCtxGetCurrent's error is the answer.
TEST_F(Served, ConditionalHandleCreateTakesTheRuntimesContext) {
  auto create = Entry<decltype(&cudaGraphConditionalHandleCreate)>(
      kCudart_cudaGraphConditionalHandleCreate);
  ASSERT_NE(create, nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaGraphConditionalHandleCreate), EntryStatus::kAdapter);
  const bool has = DriverHas("cuGraphConditionalHandleCreate");
  cudaGraphConditionalHandle handle = 0;
  const auto graph = reinterpret_cast<cudaGraph_t>(0x52);
  EXPECT_EQ(create(&handle, graph, 1, cudaGraphCondAssignDefault),
            has ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(RuntimeCalls("cudaFree"), has ? 1 : 0);
  auto calls = DriverCalls("cuGraphConditionalHandleCreate");
  ASSERT_EQ(calls.size(), has ? 1u : 0u);
  if (!has) return;
  auto ctx = DriverCalls("cuCtxGetCurrent");
  ASSERT_EQ(ctx.size(), 1u);
  // cuCtxGetCurrent wrote into the adapter's local; the fake writes nothing, so the context the
  // driver got is the value the adapter started from (none): what matters is the order and that
  // the create call carries a context argument at position 2.
  int ctx_at = -1, create_at = -1;
  for (int i = 0; i < drv_.call_count(); ++i) {
    if (drv_.call(i) == ctx[0]) ctx_at = i;
    if (drv_.call(i) == calls[0]) create_at = i;
  }
  EXPECT_LT(ctx_at, create_at);
  ASSERT_EQ(calls[0]->num_args, 5);
  EXPECT_EQ(calls[0]->args[0], reinterpret_cast<uintptr_t>(&handle));
  EXPECT_EQ(calls[0]->args[1], 0x52u);
  EXPECT_EQ(calls[0]->args[2], 0u);
  EXPECT_EQ(static_cast<unsigned>(calls[0]->args[3]), 1u);
  EXPECT_EQ(static_cast<unsigned>(calls[0]->args[4]),
            static_cast<unsigned>(CU_GRAPH_COND_ASSIGN_DEFAULT));
  drv_.set_result("cuCtxGetCurrent", 201);
  EXPECT_EQ(create(&handle, graph, 0, 0), cudaErrorDeviceUninitialized);
  EXPECT_EQ(DriverCalls("cuGraphConditionalHandleCreate").size(), 1u);
  ExpectNative("12.5", kCudart_cudaGraphConditionalHandleCreate);
}

// ---- cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams on 11.x: composed
// from the runtime's own typed node calls (the fake records each call's arguments and the struct
// its `const struct X*` argument pointed to), conditional nodes from the driver ----
class GraphNodes : public Served {
 protected:
  void SetUp() override {
    Served::SetUp();
    set_out_ = reinterpret_cast<SetOut>(dlsym(rt_->handle(), "fake_cudart_set_out"));
    last_arg_ = reinterpret_cast<ArgFn>(dlsym(rt_->handle(), "fake_cudart_last_arg"));
    last_pointee_ = reinterpret_cast<ArgFn>(dlsym(rt_->handle(), "fake_cudart_last_pointee"));
    set_result_ = reinterpret_cast<SetResult>(dlsym(rt_->handle(), "fake_cudart_set_result"));
    ASSERT_TRUE(set_out_ && last_arg_ && last_pointee_ && set_result_);
    add_ = Entry<decltype(&cudaGraphAddNode)>(kCudart_cudaGraphAddNode);
    set_ = Entry<decltype(&cudaGraphNodeSetParams)>(kCudart_cudaGraphNodeSetParams);
    exec_set_ = Entry<decltype(&cudaGraphExecNodeSetParams)>(kCudart_cudaGraphExecNodeSetParams);
    ASSERT_TRUE(add_ && set_ && exec_set_);
  }
  // A zeroed cudaGraphNodeParams of `type` (its union has members with constructors: no
  // default constructor, so it lives in zeroed storage).
  // Each call takes the next of kSlots, so a test may hold several at once; last_ is the newest.
  // `type` is an int so that values no enumerator has are written as they are.
  cudaGraphNodeParams& Params(int type) {
    auto* slot = &storage_[next_slot_++ % kSlots];
    std::memset(static_cast<void*>(slot), 0, sizeof(*slot));
    last_ = reinterpret_cast<cudaGraphNodeParams*>(slot);
    std::memcpy(&last_->type, &type, sizeof(type));
    return *last_;
  }
  template <typename T>
  T LastArg(const char* symbol, int index) {
    T value;
    std::memset(static_cast<void*>(&value), 0, sizeof(value));
    EXPECT_EQ(last_arg_(symbol, index, &value, sizeof(value)), static_cast<int>(sizeof(value)))
        << symbol << " " << index;
    return value;
  }
  // The struct argument `index` of the last call of `symbol` pointed to, compared byte for byte
  // with `want` (the fake's layout is the real runtime's: the facts show it is 13.0's).
  template <typename T>
  void ExpectPointee(const char* symbol, int index, const T& want) {
    alignas(16) unsigned char seen[sizeof(T)] = {};
    ASSERT_EQ(last_pointee_(symbol, index, seen, sizeof(seen)), static_cast<int>(sizeof(T)))
        << symbol;
    EXPECT_EQ(std::memcmp(seen, &want, sizeof(T)), 0) << symbol;
  }
  using SetOut = void (*)(const char*, int, const void*, size_t);
  using ArgFn = int (*)(const char*, int, void*, size_t);
  using SetResult = void (*)(const char*, int);
  SetOut set_out_ = nullptr;
  ArgFn last_arg_ = nullptr, last_pointee_ = nullptr;
  SetResult set_result_ = nullptr;
  decltype(&cudaGraphAddNode) add_ = nullptr;
  decltype(&cudaGraphNodeSetParams) set_ = nullptr;
  decltype(&cudaGraphExecNodeSetParams) exec_set_ = nullptr;
  static constexpr int kSlots = 32;
  std::aligned_storage_t<sizeof(cudaGraphNodeParams), alignof(cudaGraphNodeParams)>
      storage_[kSlots];
  int next_slot_ = 0;
  cudaGraphNodeParams* last_ = nullptr;
  const cudaGraph_t graph_ = reinterpret_cast<cudaGraph_t>(0x52);
  const cudaGraphNode_t made_ = reinterpret_cast<cudaGraphNode_t>(0x77);
  const cudaGraphNode_t node_ = reinterpret_cast<cudaGraphNode_t>(0x63);
  const cudaGraphExec_t exec_ = reinterpret_cast<cudaGraphExec_t>(0x64);
  cudaGraphNode_t deps_[2] = {reinterpret_cast<cudaGraphNode_t>(0x61),
                              reinterpret_cast<cudaGraphNode_t>(0x62)};
};

// Each node type reaches its typed call with the caller's graph, dependencies and count, and the
// union member's fields; the node the typed call made is the answer.
TEST_F(GraphNodes, AddNodeCallsTheTypedCallOfEachType) {
  for (int i : {kCudart_cudaGraphAddNode, kCudart_cudaGraphNodeSetParams,
                kCudart_cudaGraphExecNodeSetParams}) {
    EXPECT_EQ(rt_->status(i), EntryStatus::kAdapter) << CudartSymbol(i);
  }
  // Checks the common arguments of a typed add call `symbol` and that it ran once.
  auto expect_common = [&](const char* symbol) {
    EXPECT_EQ(RuntimeCalls(symbol), 1) << symbol;
    EXPECT_EQ(LastArg<cudaGraph_t>(symbol, 1), graph_) << symbol;
    EXPECT_EQ(LastArg<const cudaGraphNode_t*>(symbol, 2), deps_) << symbol;
    EXPECT_EQ(LastArg<size_t>(symbol, 3), 2u) << symbol;
  };
  static int arg0, arg1;
  void* kernel_args[] = {&arg0, &arg1};
  cudaGraphNodeParams& k = Params(cudaGraphNodeTypeKernel);
  k.kernel.func = reinterpret_cast<void*>(0x4001);
  k.kernel.gridDim = dim3(3, 4, 5);
  k.kernel.blockDim = dim3(32, 2, 1);
  k.kernel.sharedMemBytes = 96;
  k.kernel.kernelParams = kernel_args;
  k.kernel.extra = reinterpret_cast<void**>(0x4002);
  set_out_("cudaGraphAddKernelNode", 0, &made_, sizeof(made_));
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &k), cudaSuccess);
  EXPECT_EQ(node, made_);
  expect_common("cudaGraphAddKernelNode");
  cudaKernelNodeParams want_kernel;
  std::memset(static_cast<void*>(&want_kernel), 0, sizeof(want_kernel));
  want_kernel.func = k.kernel.func;
  want_kernel.gridDim = k.kernel.gridDim;
  want_kernel.blockDim = k.kernel.blockDim;
  want_kernel.sharedMemBytes = 96;
  want_kernel.kernelParams = kernel_args;
  want_kernel.extra = k.kernel.extra;
  ExpectPointee("cudaGraphAddKernelNode", 4, want_kernel);

  cudaGraphNodeParams& c = Params(cudaGraphNodeTypeMemcpy);
  c.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(reinterpret_cast<void*>(0x5000), 256, 64, 2);
  c.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(reinterpret_cast<void*>(0x6000), 512, 64, 2);
  c.memcpy.copyParams.srcPos = make_cudaPos(1, 2, 3);
  c.memcpy.copyParams.dstArray = reinterpret_cast<cudaArray_t>(0x6100);
  c.memcpy.copyParams.extent = make_cudaExtent(64, 2, 1);
  c.memcpy.copyParams.kind = cudaMemcpyDeviceToDevice;
  const cudaMemcpy3DParms want_copy = c.memcpy.copyParams;
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &c), cudaSuccess);
  expect_common("cudaGraphAddMemcpyNode");
  ExpectPointee("cudaGraphAddMemcpyNode", 4, want_copy);

  cudaGraphNodeParams& m = Params(cudaGraphNodeTypeMemset);
  m.memset.dst = reinterpret_cast<void*>(0x7000);
  m.memset.pitch = 1024;
  m.memset.value = 0xabcd;
  m.memset.elementSize = 2;
  m.memset.width = 100;
  m.memset.height = 3;
  cudaMemsetParams want_memset = {};
  want_memset.dst = m.memset.dst;
  want_memset.pitch = 1024;
  want_memset.value = 0xabcd;
  want_memset.elementSize = 2;
  want_memset.width = 100;
  want_memset.height = 3;
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &m), cudaSuccess);
  expect_common("cudaGraphAddMemsetNode");
  ExpectPointee("cudaGraphAddMemsetNode", 4, want_memset);

  static int user_data;
  cudaGraphNodeParams& h = Params(cudaGraphNodeTypeHost);
  h.host.fn = [](void*) {};
  h.host.userData = &user_data;
  const cudaHostNodeParams want_host = {h.host.fn, &user_data};
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &h), cudaSuccess);
  expect_common("cudaGraphAddHostNode");
  ExpectPointee("cudaGraphAddHostNode", 4, want_host);

  cudaGraphNodeParams& g = Params(cudaGraphNodeTypeGraph);
  g.graph.graph = reinterpret_cast<cudaGraph_t>(0x8000);
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &g), cudaSuccess);
  expect_common("cudaGraphAddChildGraphNode");
  EXPECT_EQ(LastArg<cudaGraph_t>("cudaGraphAddChildGraphNode", 4), g.graph.graph);

  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &Params(cudaGraphNodeTypeEmpty)), cudaSuccess);
  expect_common("cudaGraphAddEmptyNode");

  cudaGraphNodeParams& w = Params(cudaGraphNodeTypeWaitEvent);
  w.eventWait.event = reinterpret_cast<cudaEvent_t>(0x9001);
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &w), cudaSuccess);
  expect_common("cudaGraphAddEventWaitNode");
  EXPECT_EQ(LastArg<cudaEvent_t>("cudaGraphAddEventWaitNode", 4), w.eventWait.event);
  cudaGraphNodeParams& r = Params(cudaGraphNodeTypeEventRecord);
  r.eventRecord.event = reinterpret_cast<cudaEvent_t>(0x9002);
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &r), cudaSuccess);
  expect_common("cudaGraphAddEventRecordNode");
  EXPECT_EQ(LastArg<cudaEvent_t>("cudaGraphAddEventRecordNode", 4), r.eventRecord.event);

  cudaExternalSemaphore_t sems[2] = {reinterpret_cast<cudaExternalSemaphore_t>(0xa1),
                                     reinterpret_cast<cudaExternalSemaphore_t>(0xa2)};
  cudaExternalSemaphoreSignalParams signal_params[2] = {};
  cudaGraphNodeParams& ss = Params(cudaGraphNodeTypeExtSemaphoreSignal);
  ss.extSemSignal.extSemArray = sems;
  ss.extSemSignal.paramsArray = signal_params;
  ss.extSemSignal.numExtSems = 2;
  const cudaExternalSemaphoreSignalNodeParams want_signal = {sems, signal_params, 2};
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &ss), cudaSuccess);
  expect_common("cudaGraphAddExternalSemaphoresSignalNode");
  ExpectPointee("cudaGraphAddExternalSemaphoresSignalNode", 4, want_signal);
  cudaExternalSemaphoreWaitParams wait_params[2] = {};
  cudaGraphNodeParams& sw = Params(cudaGraphNodeTypeExtSemaphoreWait);
  sw.extSemWait.extSemArray = sems;
  sw.extSemWait.paramsArray = wait_params;
  sw.extSemWait.numExtSems = 1;
  const cudaExternalSemaphoreWaitNodeParams want_wait = {sems, wait_params, 1};
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &sw), cudaSuccess);
  expect_common("cudaGraphAddExternalSemaphoresWaitNode");
  ExpectPointee("cudaGraphAddExternalSemaphoresWaitNode", 4, want_wait);

  // A memory allocation node: the runtime's call writes dptr, which comes back in nodeParams.
  cudaMemAccessDesc access = {};
  access.location = {cudaMemLocationTypeDevice, 0};
  access.flags = cudaMemAccessFlagsProtReadWrite;
  cudaGraphNodeParams& a = Params(cudaGraphNodeTypeMemAlloc);
  a.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  a.alloc.poolProps.location = {cudaMemLocationTypeDevice, 0};
  a.alloc.accessDescs = &access;
  a.alloc.accessDescCount = 1;
  a.alloc.bytesize = 1 << 16;
  cudaMemAllocNodeParams want_alloc = {};
  want_alloc.poolProps = a.alloc.poolProps;
  want_alloc.accessDescs = &access;
  want_alloc.accessDescCount = 1;
  want_alloc.bytesize = 1 << 16;
  cudaMemAllocNodeParams written = want_alloc;
  written.dptr = reinterpret_cast<void*>(0xd000);
  set_out_("cudaGraphAddMemAllocNode", 4, &written, sizeof(written));
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &a), cudaSuccess);
  expect_common("cudaGraphAddMemAllocNode");
  // 11.x takes a non-const cudaMemAllocNodeParams* (dptr is written), so the fake keeps no copy:
  // the fields are read where 11.2's call reaches the driver (BoundOnOlderFamilies...).
  EXPECT_EQ(a.alloc.dptr, written.dptr);
  cudaGraphNodeParams& f = Params(cudaGraphNodeTypeMemFree);
  f.free.dptr = reinterpret_cast<void*>(0xd000);
  ASSERT_EQ(add_(&node, graph_, deps_, nullptr, 2, &f), cudaSuccess);
  expect_common("cudaGraphAddMemFreeNode");
  EXPECT_EQ(LastArg<void*>("cudaGraphAddMemFreeNode", 4), f.free.dptr);

  // The typed call's error is the answer (and the thread's last error).
  set_result_("cudaGraphAddEmptyNode", 400);
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &Params(cudaGraphNodeTypeEmpty)),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Entry<decltype(&cudaGetLastError)>(kCudart_cudaGetLastError)(),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(drv_.call_count(), 0);  // none of these needs the driver
}

// What 13.0 refuses (measured, H100, driver 580) is refused before any typed call: 1 for a NULL
// nodeParams, an unknown type, non-zero reserved bytes or bytes past the member, non-zero memcpy
// flags; 801 for what an older runtime cannot express (edge data other than default, a child
// graph moved into its node). Default edge data, all zero, is accepted as NULL is.
TEST_F(GraphNodes, AddNodeRefusesWhat13RefusesAndWhatTheRuntimeCannotExpress) {
  cudaGraphNode_t node = nullptr;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, nullptr), cudaErrorInvalidValue);
  for (int type : {0x0c, 99, -1, static_cast<int>(cudaGraphNodeTypeCount)}) {
    EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &Params(type)), cudaErrorInvalidValue)
        << type;
  }
  Params(cudaGraphNodeTypeKernel).reserved0[2] = 1;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, last_), cudaErrorInvalidValue);
  Params(cudaGraphNodeTypeKernel).reserved2 = 1;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, last_), cudaErrorInvalidValue);
  // A byte just past the kernel member; an empty node has no member at all.
  cudaGraphNodeParams& past = Params(cudaGraphNodeTypeKernel);
  reinterpret_cast<unsigned char*>(&past.kernel)[sizeof(past.kernel)] = 1;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &past), cudaErrorInvalidValue);
  Params(cudaGraphNodeTypeEmpty).reserved1[0] = 5;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, last_), cudaErrorInvalidValue);
  // The last byte of the union counts for the largest member too.
  cudaGraphNodeParams& last = Params(cudaGraphNodeTypeMemcpy);
  last.reserved1[28] = 1;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &last), cudaErrorInvalidValue);
  Params(cudaGraphNodeTypeMemcpy).memcpy.flags = 1;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, last_), cudaErrorInvalidValue);
  Params(cudaGraphNodeTypeMemcpy).memcpy.reserved[1] = 1;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, last_), cudaErrorInvalidValue);
  cudaGraphNodeParams& moved = Params(cudaGraphNodeTypeGraph);
  moved.graph.graph = reinterpret_cast<cudaGraph_t>(0x8000);
  moved.graph.ownership = cudaGraphChildGraphOwnershipMove;
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &moved), cudaErrorNotSupported);
  // Edges: an invalid one (the Programmatic type out of the default port) is the 13.0 runtime's
  // 1; a valid one (a kernel node's launch-completion port, here into an empty node) cannot be
  // expressed; the Programmatic type into a node that is no kernel is invalid again.
  cudaGraphEdgeData edges[2] = {};
  edges[1].type = cudaGraphDependencyTypeProgrammatic;
  EXPECT_EQ(add_(&node, graph_, deps_, edges, 2, &Params(cudaGraphNodeTypeEmpty)),
            cudaErrorInvalidValue);
  const int kernel = cudaGraphNodeTypeKernel;
  set_out_("cudaGraphNodeGetType", 1, &kernel, sizeof(kernel));
  edges[1] = cudaGraphEdgeData{};
  edges[1].from_port = cudaGraphKernelNodePortLaunchCompletion;
  EXPECT_EQ(add_(&node, graph_, deps_, edges, 2, &Params(cudaGraphNodeTypeEmpty)),
            cudaErrorNotSupported);
  EXPECT_NE(rt_->last_error().find("edge data"), std::string::npos) << rt_->last_error();
  edges[1].type = cudaGraphDependencyTypeProgrammatic;
  EXPECT_EQ(add_(&node, graph_, deps_, edges, 2, &Params(cudaGraphNodeTypeEmpty)),
            cudaErrorInvalidValue);
  for (const char* symbol : {"cudaGraphAddKernelNode", "cudaGraphAddMemcpyNode",
                             "cudaGraphAddEmptyNode", "cudaGraphAddChildGraphNode"}) {
    EXPECT_EQ(RuntimeCalls(symbol), 0) << symbol;
  }
  // All-default edge data is NULL's meaning; another ownership than Move clones (13.0: 0).
  edges[1] = cudaGraphEdgeData{};
  EXPECT_EQ(add_(&node, graph_, deps_, edges, 2, &Params(cudaGraphNodeTypeEmpty)), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaGraphAddEmptyNode"), 1);
  const int ownership = 7;
  std::memcpy(&moved.graph.ownership, &ownership, sizeof(ownership));
  EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &moved), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaGraphAddChildGraphNode"), 1);
}

// cudaGraphNodeSetParams / cudaGraphExecNodeSetParams: the typed setter of each type with the
// caller's node (and executable graph); child graphs only in an executable graph, memory nodes
// never (801, as 13.0); an empty node needs nothing but its type.
TEST_F(GraphNodes, SetParamsCallsTheTypedSetterOfEachType) {
  cudaGraphNodeParams& k = Params(cudaGraphNodeTypeKernel);
  k.kernel.func = reinterpret_cast<void*>(0x4001);
  k.kernel.gridDim = dim3(7, 1, 1);
  k.kernel.blockDim = dim3(64, 1, 1);
  k.kernel.sharedMemBytes = 8;
  cudaKernelNodeParams want_kernel;
  std::memset(static_cast<void*>(&want_kernel), 0, sizeof(want_kernel));
  want_kernel.func = k.kernel.func;
  want_kernel.gridDim = k.kernel.gridDim;
  want_kernel.blockDim = k.kernel.blockDim;
  want_kernel.sharedMemBytes = 8;
  ASSERT_EQ(set_(node_, &k), cudaSuccess);
  EXPECT_EQ(LastArg<cudaGraphNode_t>("cudaGraphKernelNodeSetParams", 0), node_);
  ExpectPointee("cudaGraphKernelNodeSetParams", 1, want_kernel);
  ASSERT_EQ(exec_set_(exec_, node_, &k), cudaSuccess);
  EXPECT_EQ(LastArg<cudaGraphExec_t>("cudaGraphExecKernelNodeSetParams", 0), exec_);
  EXPECT_EQ(LastArg<cudaGraphNode_t>("cudaGraphExecKernelNodeSetParams", 1), node_);
  ExpectPointee("cudaGraphExecKernelNodeSetParams", 2, want_kernel);

  cudaGraphNodeParams& c = Params(cudaGraphNodeTypeMemcpy);
  c.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(reinterpret_cast<void*>(0x5000), 64, 64, 1);
  c.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(reinterpret_cast<void*>(0x6000), 64, 64, 1);
  c.memcpy.copyParams.extent = make_cudaExtent(64, 1, 1);
  c.memcpy.copyParams.kind = cudaMemcpyDefault;
  const cudaMemcpy3DParms want_copy = c.memcpy.copyParams;
  ASSERT_EQ(set_(node_, &c), cudaSuccess);
  ExpectPointee("cudaGraphMemcpyNodeSetParams", 1, want_copy);
  ASSERT_EQ(exec_set_(exec_, node_, &c), cudaSuccess);
  ExpectPointee("cudaGraphExecMemcpyNodeSetParams", 2, want_copy);

  cudaGraphNodeParams& m = Params(cudaGraphNodeTypeMemset);
  m.memset.dst = reinterpret_cast<void*>(0x7000);
  m.memset.value = 5;
  m.memset.elementSize = 4;
  m.memset.width = 16;
  m.memset.height = 1;
  cudaMemsetParams want_memset = {};
  want_memset.dst = m.memset.dst;
  want_memset.value = 5;
  want_memset.elementSize = 4;
  want_memset.width = 16;
  want_memset.height = 1;
  ASSERT_EQ(set_(node_, &m), cudaSuccess);
  ExpectPointee("cudaGraphMemsetNodeSetParams", 1, want_memset);
  ASSERT_EQ(exec_set_(exec_, node_, &m), cudaSuccess);
  ExpectPointee("cudaGraphExecMemsetNodeSetParams", 2, want_memset);

  static int user_data;
  cudaGraphNodeParams& h = Params(cudaGraphNodeTypeHost);
  h.host.fn = [](void*) {};
  h.host.userData = &user_data;
  const cudaHostNodeParams want_host = {h.host.fn, &user_data};
  ASSERT_EQ(set_(node_, &h), cudaSuccess);
  ExpectPointee("cudaGraphHostNodeSetParams", 1, want_host);
  ASSERT_EQ(exec_set_(exec_, node_, &h), cudaSuccess);
  ExpectPointee("cudaGraphExecHostNodeSetParams", 2, want_host);

  cudaGraphNodeParams& w = Params(cudaGraphNodeTypeWaitEvent);
  w.eventWait.event = reinterpret_cast<cudaEvent_t>(0x9001);
  ASSERT_EQ(set_(node_, &w), cudaSuccess);
  EXPECT_EQ(LastArg<cudaEvent_t>("cudaGraphEventWaitNodeSetEvent", 1), w.eventWait.event);
  ASSERT_EQ(exec_set_(exec_, node_, &w), cudaSuccess);
  EXPECT_EQ(LastArg<cudaEvent_t>("cudaGraphExecEventWaitNodeSetEvent", 2), w.eventWait.event);
  cudaGraphNodeParams& r = Params(cudaGraphNodeTypeEventRecord);
  r.eventRecord.event = reinterpret_cast<cudaEvent_t>(0x9002);
  ASSERT_EQ(set_(node_, &r), cudaSuccess);
  EXPECT_EQ(LastArg<cudaEvent_t>("cudaGraphEventRecordNodeSetEvent", 1), r.eventRecord.event);
  ASSERT_EQ(exec_set_(exec_, node_, &r), cudaSuccess);
  EXPECT_EQ(LastArg<cudaEvent_t>("cudaGraphExecEventRecordNodeSetEvent", 2), r.eventRecord.event);

  cudaExternalSemaphore_t sems[1] = {reinterpret_cast<cudaExternalSemaphore_t>(0xa1)};
  cudaExternalSemaphoreSignalParams signal_params[1] = {};
  cudaGraphNodeParams& ss = Params(cudaGraphNodeTypeExtSemaphoreSignal);
  ss.extSemSignal = {sems, signal_params, 1};
  const cudaExternalSemaphoreSignalNodeParams want_signal = {sems, signal_params, 1};
  ASSERT_EQ(set_(node_, &ss), cudaSuccess);
  ExpectPointee("cudaGraphExternalSemaphoresSignalNodeSetParams", 1, want_signal);
  ASSERT_EQ(exec_set_(exec_, node_, &ss), cudaSuccess);
  ExpectPointee("cudaGraphExecExternalSemaphoresSignalNodeSetParams", 2, want_signal);
  cudaExternalSemaphoreWaitParams wait_params[1] = {};
  cudaGraphNodeParams& sw = Params(cudaGraphNodeTypeExtSemaphoreWait);
  sw.extSemWait = {sems, wait_params, 1};
  const cudaExternalSemaphoreWaitNodeParams want_wait = {sems, wait_params, 1};
  ASSERT_EQ(set_(node_, &sw), cudaSuccess);
  ExpectPointee("cudaGraphExternalSemaphoresWaitNodeSetParams", 1, want_wait);
  ASSERT_EQ(exec_set_(exec_, node_, &sw), cudaSuccess);
  ExpectPointee("cudaGraphExecExternalSemaphoresWaitNodeSetParams", 2, want_wait);

  cudaGraphNodeParams& g = Params(cudaGraphNodeTypeGraph);
  g.graph.graph = reinterpret_cast<cudaGraph_t>(0x8000);
  EXPECT_EQ(set_(node_, &g), cudaErrorNotSupported);
  ASSERT_EQ(exec_set_(exec_, node_, &g), cudaSuccess);
  EXPECT_EQ(LastArg<cudaGraph_t>("cudaGraphExecChildGraphNodeSetParams", 2), g.graph.graph);
  for (cudaGraphNodeType type : {cudaGraphNodeTypeMemAlloc, cudaGraphNodeTypeMemFree}) {
    EXPECT_EQ(set_(node_, &Params(type)), cudaErrorNotSupported) << type;
    EXPECT_EQ(exec_set_(exec_, node_, &Params(type)), cudaErrorNotSupported) << type;
  }
  // Empty: the node's type decides (the fake's cudaGraphNodeGetType writes what it is told).
  const cudaGraphNodeType kernel_type = cudaGraphNodeTypeKernel,
                          empty_type = cudaGraphNodeTypeEmpty;
  set_out_("cudaGraphNodeGetType", 1, &kernel_type, sizeof(kernel_type));
  EXPECT_EQ(set_(node_, &Params(cudaGraphNodeTypeEmpty)), cudaErrorInvalidValue);
  set_out_("cudaGraphNodeGetType", 1, &empty_type, sizeof(empty_type));
  EXPECT_EQ(set_(node_, &Params(cudaGraphNodeTypeEmpty)), cudaSuccess);
  EXPECT_EQ(exec_set_(exec_, node_, &Params(cudaGraphNodeTypeEmpty)), cudaSuccess);
  EXPECT_EQ(LastArg<cudaGraphNode_t>("cudaGraphNodeGetType", 0), node_);
  EXPECT_EQ(RuntimeCalls("cudaGraphNodeGetType"), 3);

  // Refused before any setter: NULL, unknown type, non-zero reserved bytes (13.0: 1).
  const int setters_before = RuntimeCalls("cudaGraphKernelNodeSetParams") +
                             RuntimeCalls("cudaGraphExecKernelNodeSetParams");
  EXPECT_EQ(set_(node_, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(exec_set_(exec_, node_, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(set_(node_, &Params(99)), cudaErrorInvalidValue);
  Params(cudaGraphNodeTypeKernel).reserved0[1] = 1;
  EXPECT_EQ(set_(node_, last_), cudaErrorInvalidValue);
  Params(cudaGraphNodeTypeKernel).reserved2 = 1;
  EXPECT_EQ(exec_set_(exec_, node_, last_), cudaErrorInvalidValue);
  EXPECT_EQ(RuntimeCalls("cudaGraphKernelNodeSetParams") +
                RuntimeCalls("cudaGraphExecKernelNodeSetParams"),
            setters_before);
  // A setter's own answer (a node of another type: 1 on 11.x) comes back.
  set_result_("cudaGraphMemsetNodeSetParams", 1);
  EXPECT_EQ(set_(node_, &Params(cudaGraphNodeTypeMemset)), cudaErrorInvalidValue);
  EXPECT_EQ(drv_.call_count(), 0);
}

// Conditional nodes have no typed runtime call: the driver's cuGraphAddNode /
// cuGraphNodeSetParams / cuGraphExecNodeSetParams with the conditional member as the driver's and
// the runtime's context (its cudaFree(NULL) first); 35 where the driver has no conditional nodes
// (before 12.3: the 12.2 fake driver).
TEST_F(GraphNodes, ConditionalNodesGoToTheDriverWithTheRuntimesContext) {
  const bool has = DriverHas("cuGraphConditionalHandleCreate");
  cudaGraphNodeParams& p = Params(cudaGraphNodeTypeConditional);
  p.conditional.handle = 0x1234567890ull;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  drv_.set_capture("cuGraphAddNode", 4, sizeof(CUgraphNodeParams));
  cudaGraphNode_t node = nullptr;
  EXPECT_EQ(add_(&node, graph_, deps_, nullptr, 2, &p),
            has ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(RuntimeCalls("cudaFree"), has ? 1 : 0);
  auto calls = DriverCalls("cuGraphAddNode");
  ASSERT_EQ(calls.size(), has ? 1u : 0u);
  if (has) {
    EXPECT_EQ(calls[0]->args[0], reinterpret_cast<uintptr_t>(&node));
    EXPECT_EQ(calls[0]->args[1], 0x52u);
    EXPECT_EQ(calls[0]->args[2], reinterpret_cast<uintptr_t>(deps_));
    EXPECT_EQ(calls[0]->args[3], 2u);
    ASSERT_EQ(calls[0]->captured_size, static_cast<int>(sizeof(CUgraphNodeParams)));
    CUgraphNodeParams seen;
    std::memcpy(&seen, calls[0]->captured, sizeof(seen));
    EXPECT_EQ(seen.type, CU_GRAPH_NODE_TYPE_CONDITIONAL);
    EXPECT_EQ(seen.conditional.handle, 0x1234567890ull);
    EXPECT_EQ(seen.conditional.type, CU_GRAPH_COND_TYPE_WHILE);
    EXPECT_EQ(seen.conditional.size, 1u);
    EXPECT_EQ(seen.conditional.phGraph_out, nullptr);
    EXPECT_EQ(seen.conditional.ctx, nullptr);  // what the fake's cuCtxGetCurrent left
    EXPECT_EQ(DriverCalls("cuCtxGetCurrent").size(), 1u);
  }
  EXPECT_EQ(set_(node_, &p), has ? cudaSuccess : cudaErrorInsufficientDriver);
  EXPECT_EQ(exec_set_(exec_, node_, &p), has ? cudaSuccess : cudaErrorInsufficientDriver);
  auto set_calls = DriverCalls("cuGraphNodeSetParams");
  auto exec_calls = DriverCalls("cuGraphExecNodeSetParams");
  ASSERT_EQ(set_calls.size(), has ? 1u : 0u);
  ASSERT_EQ(exec_calls.size(), has ? 1u : 0u);
  if (has) {
    EXPECT_EQ(set_calls[0]->args[0], reinterpret_cast<uintptr_t>(node_));
    EXPECT_EQ(exec_calls[0]->args[0], reinterpret_cast<uintptr_t>(exec_));
    EXPECT_EQ(exec_calls[0]->args[1], reinterpret_cast<uintptr_t>(node_));
    drv_.set_result("cuGraphAddNode", 1);
    EXPECT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &p), cudaErrorInvalidValue);
  }
  for (const char* symbol :
       {"cudaGraphAddKernelNode", "cudaGraphAddEmptyNode", "cudaGraphAddChildGraphNode"}) {
    EXPECT_EQ(RuntimeCalls(symbol), 0) << symbol;
  }
}

// The converted conditional member field by field (cudart_to_driver.inc's ConditionalNodeParams
// rows), as each of the three driver calls receives it: every field its own value, so a row that
// reads or writes another field shows; the bytes no row writes are zero (ctx: what the fake's
// cuCtxGetCurrent left, null).
TEST_F(GraphNodes, ConditionalParamsReachTheDriverFieldByField) {
  if (!DriverHas("cuGraphConditionalHandleCreate")) GTEST_SKIP() << "no conditional nodes";
  cudaGraphNodeParams& p = Params(cudaGraphNodeTypeConditional);
  cudaGraph_t bodies[1] = {};
  p.conditional.handle = 0x1234567890ull;
  p.conditional.type = cudaGraphCondTypeSwitch;
  p.conditional.size = 3;
  p.conditional.phGraph_out = bodies;
  CUgraphNodeParams want;
  std::memset(&want, 0, sizeof want);
  want.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  want.conditional.handle = 0x1234567890ull;
  want.conditional.type = CU_GRAPH_COND_TYPE_SWITCH;
  want.conditional.size = 3;
  want.conditional.phGraph_out = reinterpret_cast<CUgraph*>(bodies);
  drv_.set_capture("cuGraphAddNode", 4, sizeof(CUgraphNodeParams));
  drv_.set_capture("cuGraphNodeSetParams", 1, sizeof(CUgraphNodeParams));
  drv_.set_capture("cuGraphExecNodeSetParams", 2, sizeof(CUgraphNodeParams));
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(add_(&node, graph_, nullptr, nullptr, 0, &p), cudaSuccess);
  ASSERT_EQ(set_(node_, &p), cudaSuccess);
  ASSERT_EQ(exec_set_(exec_, node_, &p), cudaSuccess);
  for (const char* symbol : {"cuGraphAddNode", "cuGraphNodeSetParams", "cuGraphExecNodeSetParams"}) {
    SCOPED_TRACE(symbol);
    auto calls = DriverCalls(symbol);
    ASSERT_EQ(calls.size(), 1u);
    ASSERT_EQ(calls[0]->captured_size, static_cast<int>(sizeof(CUgraphNodeParams)));
    CUgraphNodeParams seen;
    std::memcpy(&seen, calls[0]->captured, sizeof(seen));
    EXPECT_EQ(seen.type, CU_GRAPH_NODE_TYPE_CONDITIONAL);
    EXPECT_EQ(seen.conditional.handle, 0x1234567890ull);
    EXPECT_EQ(seen.conditional.type, CU_GRAPH_COND_TYPE_SWITCH);
    EXPECT_EQ(seen.conditional.size, 3u);
    EXPECT_EQ(reinterpret_cast<const void*>(seen.conditional.phGraph_out),
              static_cast<const void*>(bodies));
    EXPECT_EQ(seen.conditional.ctx, nullptr);
    EXPECT_EQ(std::memcmp(&seen, &want, sizeof want), 0) << "bytes no row writes not zero";
  }
}

// Bound on every family before 12 the fakes stand for (10.2, 11.2, 11.8); native from 12.x; on
// 11.2 a memory allocation node goes through what the tree serves 11.2 with: the driver's
// cuGraphAddMemAllocNode.
TEST_F(GraphNodes, BoundOnOlderFamiliesElevenTwosMemoryNodesFromTheDriver) {
  for (const char* version : {"10.2", "11.2", "11.8"}) {
    std::unique_ptr<Runtime> rt;
    ASSERT_NE(OpenResolved<void*>(version, kCudart_cudaGraphAddNode, &rt), nullptr) << version;
    for (int i : {kCudart_cudaGraphAddNode, kCudart_cudaGraphNodeSetParams,
                  kCudart_cudaGraphExecNodeSetParams}) {
      EXPECT_NE(rt->Resolve(i), nullptr) << version << " " << CudartSymbol(i);
      EXPECT_EQ(rt->status(i), EntryStatus::kAdapter) << version << " " << CudartSymbol(i);
    }
  }
  ExpectNative("12.5", kCudart_cudaGraphNodeSetParams);
  ExpectNative("12.5", kCudart_cudaGraphExecNodeSetParams);
  std::unique_ptr<Runtime> rt112;
  auto add = OpenResolved<decltype(&cudaGraphAddNode)>("11.2", kCudart_cudaGraphAddNode, &rt112);
  ASSERT_NE(add, nullptr);
  cudaMemAccessDesc access = {};
  access.location = {cudaMemLocationTypeDevice, 1};
  access.flags = cudaMemAccessFlagsProtReadWrite;
  cudaGraphNodeParams& a = Params(cudaGraphNodeTypeMemAlloc);
  a.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  a.alloc.poolProps.location = {cudaMemLocationTypeDevice, 1};
  a.alloc.accessDescs = &access;
  a.alloc.accessDescCount = 1;
  a.alloc.bytesize = 4096;
  drv_.set_capture("cuGraphAddMemAllocNode", 4, sizeof(CUDA_MEM_ALLOC_NODE_PARAMS));
  cudaGraphNode_t node = nullptr;
  EXPECT_EQ(add(&node, graph_, nullptr, nullptr, 0, &a), cudaSuccess);
  auto calls = DriverCalls("cuGraphAddMemAllocNode");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->args[1], 0x52u);
  ASSERT_EQ(calls[0]->captured_size, static_cast<int>(sizeof(CUDA_MEM_ALLOC_NODE_PARAMS)));
  CUDA_MEM_ALLOC_NODE_PARAMS seen;
  std::memcpy(&seen, calls[0]->captured, sizeof(seen));
  EXPECT_EQ(seen.poolProps.allocType, CU_MEM_ALLOCATION_TYPE_PINNED);
  EXPECT_EQ(seen.poolProps.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT_EQ(seen.poolProps.location.id, 1);
  EXPECT_EQ(reinterpret_cast<const void*>(seen.accessDescs), static_cast<const void*>(&access));
  EXPECT_EQ(seen.accessDescCount, 1u);
  EXPECT_EQ(seen.bytesize, 4096u);
  EXPECT_EQ(calls[0]->args[0], reinterpret_cast<uintptr_t>(&node));
}

// What 11.3-11.6 runtimes added (user objects, graph memory nodes, ...) on 11.2, which lacks it:
// every entry whose family-11 rule is "native, else driver" binds natively on 11.8 and to its
// Driver_ adapter on 11.2 (each fake exports what its real runtime does); a call on 11.2 reaches
// the driver with the caller's arguments (cudaMemAllocNodeParams read back from the bytes the
// driver received as CUDA_MEM_ALLOC_NODE_PARAMS, field by field).
TEST_F(Served, ElevenTwoGetsFromTheDriverWhatLaterElevensHave) {
  std::unique_ptr<Runtime> rt112;
  ASSERT_NE(OpenResolved<void*>("11.2", kCudart_cudaMalloc, &rt112), nullptr);
  int fallbacks = 0;
  for (int i = 0; i < kCudartEntryCount; ++i) {
    const CudartRule& rule = CudartRuleFor(i, 11);
    if (rule.candidates[0] == '\0' ||
        std::strncmp(CudartAdapterName(rule.adapter), "Driver_", 7) != 0) {
      continue;
    }
    ++fallbacks;
    SCOPED_TRACE(std::string(CudartSymbol(i)));
    EXPECT_EQ(dlsym(rt112->handle(), std::string(CudartSymbol(i)).c_str()), nullptr);
    EXPECT_NE(rt112->Resolve(i), nullptr);
    EXPECT_EQ(rt112->status(i), EntryStatus::kAdapter);
    ExpectNative("11.8", i);
  }
  EXPECT_GT(fallbacks, 0);
  auto create = reinterpret_cast<decltype(&cudaUserObjectCreate)>(
      rt112->Resolve(kCudart_cudaUserObjectCreate));
  ASSERT_NE(create, nullptr);
  cudaUserObject_t object = nullptr;
  static int payload;
  auto destroy = [](void*) {};
  cudaHostFn_t destroy_fn = destroy;
  EXPECT_EQ(create(&object, &payload, destroy_fn, 2, cudaUserObjectNoDestructorSync), cudaSuccess);
  auto uc = DriverCalls("cuUserObjectCreate");
  ASSERT_EQ(uc.size(), 1u);
  const uintptr_t want[] = {reinterpret_cast<uintptr_t>(&object),
                            reinterpret_cast<uintptr_t>(&payload),
                            reinterpret_cast<uintptr_t>(destroy_fn), 2,
                            static_cast<uintptr_t>(CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(uc[0]->args[k], want[k]) << k;
  auto add_alloc = reinterpret_cast<decltype(&cudaGraphAddMemAllocNode)>(
      rt112->Resolve(kCudart_cudaGraphAddMemAllocNode));
  ASSERT_NE(add_alloc, nullptr);
  cudaMemAccessDesc access = {};
  access.location = {cudaMemLocationTypeDevice, 1};
  access.flags = cudaMemAccessFlagsProtReadWrite;
  cudaMemAllocNodeParams params = {};
  params.poolProps.allocType = cudaMemAllocationTypePinned;
  params.poolProps.location = {cudaMemLocationTypeDevice, 1};
  params.poolProps.maxSize = 1 << 20;
  params.accessDescs = &access;
  params.accessDescCount = 1;
  params.bytesize = 4096;
  cudaGraphNode_t node = nullptr;
  const auto graph = reinterpret_cast<cudaGraph_t>(0x52);
  drv_.set_capture("cuGraphAddMemAllocNode", 4, sizeof(params));
  EXPECT_EQ(add_alloc(&node, graph, nullptr, 0, &params), cudaSuccess);
  auto ac = DriverCalls("cuGraphAddMemAllocNode");
  ASSERT_EQ(ac.size(), 1u);
  EXPECT_EQ(ac[0]->args[0], reinterpret_cast<uintptr_t>(&node));
  EXPECT_EQ(ac[0]->args[1], 0x52u);
  EXPECT_EQ(ac[0]->args[4], reinterpret_cast<uintptr_t>(&params));
  ASSERT_EQ(ac[0]->captured_size, static_cast<int>(sizeof(CUDA_MEM_ALLOC_NODE_PARAMS)));
  CUDA_MEM_ALLOC_NODE_PARAMS seen;
  std::memcpy(&seen, ac[0]->captured, sizeof(seen));
  EXPECT_EQ(seen.poolProps.allocType, CU_MEM_ALLOCATION_TYPE_PINNED);
  EXPECT_EQ(seen.poolProps.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT_EQ(seen.poolProps.location.id, 1);
  EXPECT_EQ(seen.poolProps.maxSize, static_cast<size_t>(1 << 20));
  EXPECT_EQ(reinterpret_cast<const void*>(seen.accessDescs), static_cast<const void*>(&access));
  EXPECT_EQ(seen.accessDescs->flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  EXPECT_EQ(seen.accessDescCount, 1u);
  EXPECT_EQ(seen.bytesize, 4096u);
  EXPECT_EQ(seen.dptr, 0u);
  // The runtime's initialisation came first each time (the 11.2 fake's cudaFree).
  auto frees = reinterpret_cast<int (*)(const char*)>(
      dlsym(rt112->handle(), "fake_cudart_call_count"));
  ASSERT_NE(frees, nullptr);
  EXPECT_EQ(frees("cudaFree"), 2);
  // cudaStreamUpdateCaptureDependencies, which 11.2 lacks too: its adapter calls the driver's
  // (11.3+) with the caller's arguments when edge data is absent (or all default edges), refuses
  // a non-default edge (801) as on 11.8; the per-thread twin reaches the driver's per-thread twin.
  for (const bool ptsz : {false, true}) {
    SCOPED_TRACE(ptsz);
    const char* driver_entry =
        ptsz ? "cuStreamUpdateCaptureDependencies_ptsz" : "cuStreamUpdateCaptureDependencies";
    auto update = reinterpret_cast<decltype(&cudaStreamUpdateCaptureDependencies)>(rt112->Resolve(
        ptsz ? kCudart_cudaStreamUpdateCaptureDependencies_ptsz
             : kCudart_cudaStreamUpdateCaptureDependencies));
    ASSERT_NE(update, nullptr);
    cudaGraphNode_t deps[1] = {reinterpret_cast<cudaGraphNode_t>(0x61)};
    cudaGraphEdgeData edge = {};
    edge.type = cudaGraphDependencyTypeProgrammatic;  // out of the default port: invalid
    EXPECT_EQ(update(reinterpret_cast<cudaStream_t>(0x51), deps, &edge, 1, 0),
              cudaErrorInvalidValue);
    edge.from_port = cudaGraphKernelNodePortProgrammatic;
    const int kernel = cudaGraphNodeTypeKernel;
    auto set_out = reinterpret_cast<void (*)(const char*, int, const void*, size_t)>(
        dlsym(rt112->handle(), "fake_cudart_set_out"));
    ASSERT_NE(set_out, nullptr);
    set_out("cudaGraphNodeGetType", 1, &kernel, sizeof(kernel));
    EXPECT_EQ(update(reinterpret_cast<cudaStream_t>(0x51), deps, &edge, 1, 0),
              cudaErrorNotSupported);
    EXPECT_TRUE(DriverCalls(driver_entry).empty());
    EXPECT_EQ(update(reinterpret_cast<cudaStream_t>(0x51), deps, nullptr, 1,
                     cudaStreamSetCaptureDependencies),
              cudaSuccess);
    auto uc2 = DriverCalls(driver_entry);
    ASSERT_EQ(uc2.size(), 1u);
    const uintptr_t want2[] = {0x51, reinterpret_cast<uintptr_t>(deps), 1,
                               static_cast<uintptr_t>(CU_STREAM_SET_CAPTURE_DEPENDENCIES)};
    for (int k = 0; k < 4; ++k) EXPECT_EQ(uc2[0]->args[k], want2[k]) << k;
    drv_.set_result(driver_entry, 400);
    EXPECT_EQ(update(reinterpret_cast<cudaStream_t>(0x51), deps, nullptr, 1, 0),
              cudaErrorInvalidResourceHandle);
  }
  EXPECT_EQ(frees("cudaFree"), 2 + 2 * 2);
}

// An entry no path serves: 35 where the driver is older than the first driver that runs a runtime
// serving it natively (the table's needs_driver), 801 where it is not; the text says which.
TEST_F(Served, MissingEntriesAnswer35Or801ByTheTable) {
  // cudaGetKernel: native from family 12 (needs a 12.0 driver); every fake driver here is 12.2+.
  EXPECT_EQ(CudartRuleFor(kCudart_cudaGetKernel, 11).needs_driver, 12000);
  EXPECT_EQ(rt_->Resolve(kCudart_cudaGetKernel), nullptr);
  EXPECT_EQ(rt_->missing_result(kCudart_cudaGetKernel), cudaErrorNotSupported);
  EXPECT_NE(rt_->last_error().find("returning 801"), std::string::npos) << rt_->last_error();
  // cudaKernelSetAttributeForDevice: native in 13.0 only (composed from the driver before), so
  // were it unserved it would answer 35 below a 13.0 driver.
  EXPECT_EQ(CudartRuleFor(kCudart_cudaKernelSetAttributeForDevice, 12).needs_driver, 13000);
  auto rt12 = OpenFake("12.8", "libcudart.so.12");
  const int want = FakeVersion() < 13000 ? cudaErrorInsufficientDriver : cudaErrorNotSupported;
  EXPECT_EQ(rt12->missing_result(kCudart_cudaKernelSetAttributeForDevice), want);
  // Under a clamp below 12.0 the same 11.x entry answers 35, and the text says so.
  RuntimeOptions o;
  o.runtime_path = testing::Runfile("tests/fake_runtime/11.8/libcudart.so.11.0");
  o.driver_version = 11080;
  auto clamped = Runtime::Open(o);
  ASSERT_TRUE(clamped && clamped->ok());
  EXPECT_EQ(clamped->missing_result(kCudart_cudaGetKernel), cudaErrorInsufficientDriver);
  EXPECT_EQ(clamped->Resolve(kCudart_cudaGetKernel), nullptr);
  EXPECT_NE(clamped->last_error().find("returning 35"), std::string::npos)
      << clamped->last_error();
  // A name that is no entry keeps 302; an entry index out of range too.
  EXPECT_EQ(rt_->missing_result(), 302);
  EXPECT_EQ(rt_->missing_result(-1), 302);
}

// ---- the last-error overlay: what the paths cudyn serves itself answer is the thread's last
// error, as the runtime records its own (cudaGetLastError / cudaPeekAtLastError through cudyn) ----
class LastError : public Served {
 protected:
  cudaError_t Get() { return Entry<cudaError_t (*)()>(kCudart_cudaGetLastError)(); }
  cudaError_t Peek() { return Entry<cudaError_t (*)()>(kCudart_cudaPeekAtLastError)(); }
  void SetRuntimeResult(const char* symbol, int result) {
    auto set = reinterpret_cast<void (*)(const char*, int)>(
        dlsym(rt_->handle(), "fake_cudart_set_result"));
    ASSERT_NE(set, nullptr);
    set(symbol, result);
  }
  // A served entry (the generated Driver_cudaStreamGetId) failing with the driver's 400.
  cudaError_t FailServed() {
    drv_.set_result("cuStreamGetId", 400);  // CUDA_ERROR_INVALID_HANDLE
    unsigned long long id = 0;
    const cudaError_t rc =
        Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId)(nullptr, &id);
    drv_.set_result("cuStreamGetId", 0);
    return rc;
  }
};

TEST_F(LastError, TheOverlayIsBoundOnOlderFamiliesOnly) {
  ASSERT_NE(rt_->Resolve(kCudart_cudaGetLastError), nullptr);
  ASSERT_NE(rt_->Resolve(kCudart_cudaPeekAtLastError), nullptr);
  EXPECT_EQ(rt_->status(kCudart_cudaGetLastError), EntryStatus::kAdapter);
  EXPECT_EQ(rt_->status(kCudart_cudaPeekAtLastError), EntryStatus::kAdapter);
  auto rt13 = OpenFake("13.0", "libcudart.so.13");
  ASSERT_NE(rt13->Resolve(kCudart_cudaGetLastError), nullptr);
  EXPECT_EQ(rt13->bound_symbol(kCudart_cudaGetLastError), "cudaGetLastError");  // native
}

// A generated Driver_ adapter: Peek reports it and keeps it, Get reports it and clears it.
TEST_F(LastError, AServedEntryRecordsItsErrorPeekKeepsGetClears) {
  EXPECT_EQ(Get(), cudaSuccess);
  EXPECT_EQ(FailServed(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Peek(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Peek(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaSuccess);
  EXPECT_EQ(Peek(), cudaSuccess);
  // A later success changes nothing; a later failure replaces it (the most recent wins).
  EXPECT_EQ(FailServed(), cudaErrorInvalidResourceHandle);
  unsigned long long id = 0;
  EXPECT_EQ(Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId)(nullptr, &id), cudaSuccess);
  EXPECT_EQ(Peek(), cudaErrorInvalidResourceHandle);
  drv_.set_result("cuStreamGetId", 201);
  EXPECT_EQ(Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId)(nullptr, &id),
            cudaErrorDeviceUninitialized);
  EXPECT_EQ(Get(), cudaErrorDeviceUninitialized);
  EXPECT_EQ(Get(), cudaSuccess);
}

// A composition (cudaKernelSetAttributeForDevice): cudyn's own 1 for a value that is no
// cudaFuncAttribute (the driver never asked), or 35 where the driver lacks cuKernelSetAttribute.
TEST_F(LastError, ACompositionRecordsItsError) {
  auto fn = Entry<decltype(&cudaKernelSetAttributeForDevice)>(
      kCudart_cudaKernelSetAttributeForDevice);
  ASSERT_NE(fn, nullptr);
  const cudaError_t want =
      FakeVersion() >= 12000 ? cudaErrorInvalidValue : cudaErrorInsufficientDriver;
  EXPECT_EQ(fn(reinterpret_cast<cudaKernel_t>(0x1), static_cast<cudaFuncAttribute>(0), 1, 0), want);
  EXPECT_EQ(Peek(), want);
  EXPECT_EQ(Get(), want);
  EXPECT_EQ(Get(), cudaSuccess);
  // cudaFuncGetName (a composition from registration): 400 for a function no module registered.
  static int not_registered;
  const char* name = nullptr;
  EXPECT_EQ(Entry<decltype(&cudaFuncGetName)>(kCudart_cudaFuncGetName)(&name, &not_registered),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaErrorInvalidResourceHandle);
}

// A layout adapter's refusal (a non-zero cudaResourceDesc.flags the 11.x layout has no room for):
// 801, recorded; the runtime was not called.
TEST_F(LastError, ALayoutAdapterRefusalRecordsItsError) {
  auto fn = Entry<decltype(&cudaCreateSurfaceObject)>(kCudart_cudaCreateSurfaceObject);
  ASSERT_NE(fn, nullptr);
  cudaResourceDesc desc{};
  desc.resType = cudaResourceTypeArray;
  desc.flags = 1;
  cudaSurfaceObject_t surface = 0;
  EXPECT_EQ(fn(&surface, &desc), cudaErrorNotSupported);
  EXPECT_EQ(RuntimeCalls("cudaCreateSurfaceObject"), 0);
  EXPECT_EQ(Peek(), cudaErrorNotSupported);
  EXPECT_EQ(Get(), cudaErrorNotSupported);
  EXPECT_EQ(Get(), cudaSuccess);
}

// An entry no path serves: the drop-in's answer (CudartStubMissingResult: missing_result, then
// NoteCudartMissingAnswer) is the default runtime's last error.
TEST_F(LastError, AMissingEntrysAnswerIsTheDefaultRuntimesLastError) {
  setenv("CUDYN_CUDART_PATH",
         testing::Runfile("tests/fake_runtime/11.8/libcudart.so.11.0").c_str(), 1);
  Runtime& rt = DefaultRuntime();
  ASSERT_TRUE(rt.ok());
  ASSERT_EQ(rt.family(), 11);
  auto get = reinterpret_cast<cudaError_t (*)()>(rt.Resolve(kCudart_cudaGetLastError));
  auto peek = reinterpret_cast<cudaError_t (*)()>(rt.Resolve(kCudart_cudaPeekAtLastError));
  ASSERT_TRUE(get && peek);
  EXPECT_EQ(get(), cudaSuccess);
  ASSERT_EQ(rt.Resolve(kCudart_cudaGetKernel), nullptr);
  const int answer = rt.missing_result(kCudart_cudaGetKernel);
  EXPECT_EQ(answer, cudaErrorNotSupported);  // every fake driver here is 12.2+
  NoteCudartMissingAnswer(answer);
  EXPECT_EQ(peek(), answer);
  EXPECT_EQ(get(), answer);
  EXPECT_EQ(get(), cudaSuccess);
  // Another runtime (another instance) does not see it.
  NoteCudartMissingAnswer(cudaErrorInsufficientDriver);
  EXPECT_EQ(Peek(), cudaSuccess);
  EXPECT_EQ(get(), cudaErrorInsufficientDriver);
}

// Ordering against the runtime's own last error: whichever was recorded last wins; Get clears
// both.
TEST_F(LastError, TheMostRecentErrorWinsAndGetClearsBoth) {
  auto malloc_fn = Entry<decltype(&cudaMalloc)>(kCudart_cudaMalloc);
  ASSERT_NE(malloc_fn, nullptr);
  void* p = nullptr;
  // cudyn's error first, then the runtime records its own (a native cudaMalloc failing): the
  // runtime's is the last error, and one Get clears both.
  EXPECT_EQ(FailServed(), cudaErrorInvalidResourceHandle);
  SetRuntimeResult("cudaMalloc", cudaErrorMemoryAllocation);
  EXPECT_EQ(malloc_fn(&p, 16), cudaErrorMemoryAllocation);
  EXPECT_EQ(Peek(), cudaErrorMemoryAllocation);
  EXPECT_EQ(Get(), cudaErrorMemoryAllocation);
  EXPECT_EQ(Get(), cudaSuccess);
  EXPECT_EQ(Peek(), cudaSuccess);
  // The runtime's error first, then cudyn's: cudyn's is the last error, the runtime's older one
  // gone with it.
  EXPECT_EQ(malloc_fn(&p, 16), cudaErrorMemoryAllocation);
  EXPECT_EQ(FailServed(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Peek(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaSuccess);
}

// Per thread: a second thread sees nothing of the first's, and the first keeps its own.
TEST_F(LastError, ASecondThreadSeesNothing) {
  EXPECT_EQ(FailServed(), cudaErrorInvalidResourceHandle);
  cudaError_t seen_peek = cudaErrorUnknown, seen_get = cudaErrorUnknown, own = cudaErrorUnknown,
              own_after = cudaErrorUnknown;
  std::thread other([&] {
    seen_peek = Peek();
    seen_get = Get();
    // Its own served error stays its own.
    drv_.set_result("cuInit", 100);
    own = Entry<decltype(&cudaLibraryUnload)>(kCudart_cudaLibraryUnload)(nullptr);
    own_after = Peek();
  });
  other.join();
  drv_.set_result("cuInit", 0);
  EXPECT_EQ(seen_peek, cudaSuccess);
  EXPECT_EQ(seen_get, cudaSuccess);
  EXPECT_EQ(own, cudaErrorNoDevice);
  EXPECT_EQ(own_after, cudaErrorNoDevice);
  EXPECT_EQ(Peek(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Get(), cudaSuccess);
}

// What is recorded (driver_types.h): not cudaErrorNotReady ("not actually an error"); a sticky
// error (700: "any further CUDA work will return the same error") is not cleared by Get and not
// replaced.
TEST_F(LastError, NotReadyIsNotRecordedAStickyErrorStays) {
  unsigned long long id = 0;
  auto get_id = Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId);
  drv_.set_result("cuStreamGetId", 600);  // CUDA_ERROR_NOT_READY
  EXPECT_EQ(get_id(nullptr, &id), cudaErrorNotReady);
  EXPECT_EQ(Peek(), cudaSuccess);
  drv_.set_result("cuStreamGetId", 700);  // CUDA_ERROR_ILLEGAL_ADDRESS
  EXPECT_EQ(get_id(nullptr, &id), cudaErrorIllegalAddress);
  EXPECT_EQ(Get(), cudaErrorIllegalAddress);
  EXPECT_EQ(Get(), cudaErrorIllegalAddress);
  EXPECT_EQ(FailServed(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(Peek(), cudaErrorIllegalAddress);
  // A new Runtime of the same instance id starts clean.
  const int id_before = rt_->adapter_instance();
  rt_.reset();
  rt_ = OpenFake("11.8", "libcudart.so.11.0");
  ASSERT_EQ(rt_->adapter_instance(), id_before);
  EXPECT_EQ(Peek(), cudaSuccess);
}

// ---- a driver before 12.0 (cudart_served_fake_11040/11080_test run only these) ----
// Every entry served or composed from a driver entry the driver lacks answers 35
// cudaErrorInsufficientDriver, what a 13.0 runtime answers on any driver before 13.0, and runs
// nothing first: neither the runtime's initialisation nor cuInit nor the runtime's own calls.
using ServedBefore12 = Served;
TEST_F(ServedBefore12, EntriesTheDriverLacksAnswer35AndRunNothing) {
  ASSERT_LT(FakeVersion(), 12000);
  auto set_attr = Entry<decltype(&cudaKernelSetAttributeForDevice)>(
      kCudart_cudaKernelSetAttributeForDevice);
  ASSERT_NE(set_attr, nullptr);
  EXPECT_EQ(set_attr(reinterpret_cast<cudaKernel_t>(0x1), cudaFuncAttributeMaxDynamicSharedMemorySize,
                     1, 0),
            cudaErrorInsufficientDriver);
  EXPECT_EQ(set_attr(reinterpret_cast<cudaKernel_t>(0x1), static_cast<cudaFuncAttribute>(0), 1, 0),
            cudaErrorInsufficientDriver);
  auto param_info = Entry<decltype(&cudaFuncGetParamInfo)>(kCudart_cudaFuncGetParamInfo);
  ASSERT_NE(param_info, nullptr);
  static int host_stub;
  size_t offset = 0, size = 0;
  EXPECT_EQ(param_info(&host_stub, 0, &offset, &size), cudaErrorInsufficientDriver);
  auto batch = Entry<decltype(&cudaMemcpyBatchAsync)>(kCudart_cudaMemcpyBatchAsync);
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr),
            cudaErrorInsufficientDriver);
  auto batch3d = Entry<decltype(&cudaMemcpy3DBatchAsync)>(kCudart_cudaMemcpy3DBatchAsync);
  ASSERT_NE(batch3d, nullptr);
  EXPECT_EQ(batch3d(0, nullptr, 0, nullptr), cudaErrorInsufficientDriver);
  auto stream_id = Entry<decltype(&cudaStreamGetId)>(kCudart_cudaStreamGetId);
  unsigned long long id = 0;
  EXPECT_EQ(stream_id(nullptr, &id), cudaErrorInsufficientDriver);
  // The graph entries served from 12.x drivers: cudaGraphInstantiateWithParams (12.0),
  // cudaStreamBeginCaptureToGraph and cudaGraphConditionalHandleCreate (12.3), the async
  // notifications (12.4).
  auto with_params =
      Entry<decltype(&cudaGraphInstantiateWithParams)>(kCudart_cudaGraphInstantiateWithParams);
  cudaGraphExec_t exec = nullptr;
  cudaGraphInstantiateParams params = {};
  EXPECT_EQ(with_params(&exec, nullptr, &params), cudaErrorInsufficientDriver);
  auto to_graph =
      Entry<decltype(&cudaStreamBeginCaptureToGraph)>(kCudart_cudaStreamBeginCaptureToGraph);
  EXPECT_EQ(to_graph(nullptr, nullptr, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal),
            cudaErrorInsufficientDriver);
  auto conditional = Entry<decltype(&cudaGraphConditionalHandleCreate)>(
      kCudart_cudaGraphConditionalHandleCreate);
  cudaGraphConditionalHandle handle = 0;
  EXPECT_EQ(conditional(&handle, nullptr, 0, 0), cudaErrorInsufficientDriver);
  auto notify = Entry<decltype(&cudaDeviceRegisterAsyncNotification)>(
      kCudart_cudaDeviceRegisterAsyncNotification);
  cudaAsyncCallbackHandle_t callback = nullptr;
  EXPECT_EQ(notify(0, nullptr, nullptr, &callback), cudaErrorInsufficientDriver);
  // cudaGraphAddNode is composed from the runtime's own calls, which need no 12.x driver; only a
  // conditional node needs the driver's (12.3+): 35.
  auto add_node = Entry<decltype(&cudaGraphAddNode)>(kCudart_cudaGraphAddNode);
  ASSERT_NE(add_node, nullptr);
  alignas(cudaGraphNodeParams) unsigned char storage[sizeof(cudaGraphNodeParams)] = {};
  auto* node_params = reinterpret_cast<cudaGraphNodeParams*>(storage);
  node_params->type = cudaGraphNodeTypeEmpty;
  cudaGraphNode_t node = nullptr;
  EXPECT_EQ(add_node(&node, nullptr, nullptr, nullptr, 0, node_params), cudaSuccess);
  EXPECT_EQ(RuntimeCalls("cudaGraphAddEmptyNode"), 1);
  node_params->type = cudaGraphNodeTypeConditional;
  EXPECT_EQ(add_node(&node, nullptr, nullptr, nullptr, 0, node_params),
            cudaErrorInsufficientDriver);
  EXPECT_EQ(RuntimeCalls("cudaFree"), 0);
  EXPECT_EQ(RuntimeCalls("cudaGetFuncBySymbol"), 0);
  EXPECT_TRUE(DriverCalls("cuInit").empty());
  EXPECT_EQ(drv_.call_count(), 0);
}

}  // namespace
}  // namespace cudyn

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // cudyn's driver (DefaultDriver(), which the served entries call) is this process's fake.
  const std::string driver = cudyn::testing::Runfile(
      "tests/fake_driver/cuda_" + std::to_string(cudyn::FakeVersion()) + "/libcuda.so.1");
  setenv("CUDYN_DRIVER_PATH", driver.c_str(), 1);
  setenv("CUDYN_LOG", "off", 1);
  // The 11040 and 11080 runs check what a driver before 12.0 answers; the others everything else.
  if (::testing::GTEST_FLAG(filter) == "*") {
    ::testing::GTEST_FLAG(filter) =
        cudyn::FakeVersion() < 12000 ? "ServedBefore12.*" : "-ServedBefore12.*";
  }
  return RUN_ALL_TESTS();
}
