// Down-level adapters: serve a signature-changing ABI variant on a driver that only has the
// older one (version_tables/inputs/adapters.tsv lists each and what it does). An adapter
// translates the arguments when the older variant can express them exactly, and otherwise
// returns 801 CUDA_ERROR_NOT_SUPPORTED and logs once. Special handles (CU_STREAM_LEGACY,
// CU_STREAM_PER_THREAD, NULL contexts) pass through untouched.
//
// Each adapter is a template over (instance id, own entry index): the instance id finds the
// Driver (adapters are plain C functions and cannot carry it), the entry index finds the
// fallback in the table, so the legacy and _ptsz variants share one body.
//
// Compiled with __CUDA_API_VERSION_INTERNAL so the headers declare every old type; an adapter
// whose types the compiling headers lack is compiled out (the entry is then missing).
#include <cstring>
#include <mutex>

#include "loader/internal.h"

#include "version_tables/cuda_driver_api.h"

namespace cudyn {
namespace internal {
namespace {

// Fn_<symbol>: the exact function type of every entry the headers declare.
#define CUDYN_PROTO(index, symbol, params, args) using Fn_##symbol = CUresult(CUDAAPI*) params;
#define CUDYN_NO_PROTO(index, symbol)
#include "version_tables/generated/cudyn_prototypes.inc"
#undef CUDYN_PROTO
#undef CUDYN_NO_PROTO

InstanceRegistry<Driver, kMaxAdapterInstances> g_instances;

template <int kInstance>
Driver* Self() {
  return g_instances.Get(kInstance);
}

// The older variant this entry falls back to, typed as `Fn`.
template <int kInstance, class Fn>
Fn Fallback(int self) {
  return reinterpret_cast<Fn>(Self<kInstance>()->Resolve(kEntries[self].fallback));
}

template <int kInstance, class Fn>
Fn Entry(int index) {
  return reinterpret_cast<Fn>(Self<kInstance>()->Resolve(index));
}

template <int kInstance>
CUresult CannotExpress(int self, const char* why) {
  AdapterCannotExpress(Self<kInstance>(), self, why);
  return CUDA_ERROR_NOT_SUPPORTED;
}

#if CUDA_VERSION >= 12030
// Before CUDA 12.3 every graph edge is a default edge (all-zero CUgraphEdgeData).
bool AllDefaultEdges(const CUgraphEdgeData* data, size_t count) {
  if (data == nullptr) return true;
  static const CUgraphEdgeData kZero = {};
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(&data[i], &kZero, sizeof(kZero)) != 0) return false;
  }
  return true;
}
void ZeroEdges(CUgraphEdgeData* data, size_t count) {
  if (data != nullptr && count > 0) std::memset(data, 0, count * sizeof(*data));
}
#endif

#if CUDA_VERSION >= 12020
// CUmemLocation -> the CUdevice argument of the pre-12.2 variants.
bool LocationToDevice(CUmemLocation location, CUdevice* device) {
  if (location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
    *device = location.id;
    return true;
  }
  if (location.type == CU_MEM_LOCATION_TYPE_HOST) {
    *device = CU_DEVICE_CPU;
    return true;
  }
  return false;
}
#endif

// Runs `call` with `ctx` current (push/pop), for the 13.0 variants that take the context.
template <int kInstance, class Call>
CUresult WithContext(CUcontext ctx, Call call) {
  if (ctx == nullptr) return call();
  auto push = Entry<kInstance, CUresult(CUDAAPI*)(CUcontext)>(kEntry_cuCtxPushCurrent_v2);
  auto pop = Entry<kInstance, CUresult(CUDAAPI*)(CUcontext*)>(kEntry_cuCtxPopCurrent_v2);
  if (push == nullptr || pop == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  CUresult rc = push(ctx);
  if (rc != CUDA_SUCCESS) return rc;
  CUresult result = call();
  CUcontext popped = nullptr;
  CUresult pop_rc = pop(&popped);
  return result != CUDA_SUCCESS ? result : pop_rc;
}

// ---- adapters --------------------------------------------------------------------------------

#if CUDA_VERSION >= 11040
template <int I, int kSelf>
CUresult CUDAAPI CtxCreateV3(CUcontext* pctx, CUexecAffinityParam* params, int num_params,
                             unsigned int flags, CUdevice dev) {
  (void)params;  // only meaningful with num_params > 0, which v2 cannot express
  if (num_params != 0) return CannotExpress<I>(kSelf, "execution-affinity parameters");
  return Fallback<I, Fn_cuCtxCreate_v2>(kSelf)(pctx, flags, dev);
}
#endif

#if CUDA_VERSION >= 12050
template <int I, int kSelf>
CUresult CUDAAPI CtxCreateV4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags,
                             CUdevice dev) {
  if (params == nullptr) return Fallback<I, Fn_cuCtxCreate_v3>(kSelf)(pctx, nullptr, 0, flags, dev);
  if (params->cigParams != nullptr) {
    return CannotExpress<I>(kSelf, "CIG (shared-memory context) parameters");
  }
  return Fallback<I, Fn_cuCtxCreate_v3>(kSelf)(pctx, params->execAffinityParams,
                                               params->numExecAffinityParams, flags, dev);
}
#endif

#if CUDA_VERSION >= 13000
template <int I, int kSelf>
CUresult CUDAAPI CtxGetDeviceV2(CUdevice* device, CUcontext ctx) {
  auto v1 = Fallback<I, Fn_cuCtxGetDevice>(kSelf);
  return WithContext<I>(ctx, [&] { return v1(device); });
}

template <int I, int kSelf>
CUresult CUDAAPI CtxSynchronizeV2(CUcontext ctx) {
  auto v1 = Fallback<I, Fn_cuCtxSynchronize>(kSelf);
  return WithContext<I>(ctx, [&] { return v1(); });
}
#endif

#if CUDA_VERSION >= 12000
template <int I, int kSelf>
CUresult CUDAAPI GetProcAddressV2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                  CUdriverProcAddressQueryResult* status) {
  CUresult rc = Fallback<I, Fn_cuGetProcAddress>(kSelf)(symbol, pfn, version, flags);
  if (status != nullptr) {
    *status = rc == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  if (rc == CUDA_ERROR_NOT_FOUND) {
    if (pfn != nullptr) *pfn = nullptr;
    return CUDA_SUCCESS;  // v2 reports not-found through symbolStatus
  }
  return rc;
}

// CUDA_KERNEL_NODE_PARAMS_v2 adds kern and ctx; v1 expresses the rest exactly.
bool KernelParamsToV1(const CUDA_KERNEL_NODE_PARAMS* in, CUDA_KERNEL_NODE_PARAMS_v1* out) {
  if (in->kern != nullptr || in->ctx != nullptr) return false;
  out->func = in->func;
  out->gridDimX = in->gridDimX;
  out->gridDimY = in->gridDimY;
  out->gridDimZ = in->gridDimZ;
  out->blockDimX = in->blockDimX;
  out->blockDimY = in->blockDimY;
  out->blockDimZ = in->blockDimZ;
  out->sharedMemBytes = in->sharedMemBytes;
  out->kernelParams = in->kernelParams;
  out->extra = in->extra;
  return true;
}

template <int I, int kSelf>
CUresult CUDAAPI GraphAddKernelNodeV2(CUgraphNode* node, CUgraph graph, const CUgraphNode* deps,
                                      size_t num_deps, const CUDA_KERNEL_NODE_PARAMS* params) {
  CUDA_KERNEL_NODE_PARAMS_v1 v1 = {};
  if (params == nullptr) return Fallback<I, Fn_cuGraphAddKernelNode>(kSelf)(node, graph, deps, num_deps, nullptr);
  if (!KernelParamsToV1(params, &v1)) return CannotExpress<I>(kSelf, "kernel params with kern/ctx");
  return Fallback<I, Fn_cuGraphAddKernelNode>(kSelf)(node, graph, deps, num_deps, &v1);
}

template <int I, int kSelf>
CUresult CUDAAPI GraphKernelNodeSetParamsV2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* params) {
  CUDA_KERNEL_NODE_PARAMS_v1 v1 = {};
  if (params == nullptr) return Fallback<I, Fn_cuGraphKernelNodeSetParams>(kSelf)(node, nullptr);
  if (!KernelParamsToV1(params, &v1)) return CannotExpress<I>(kSelf, "kernel params with kern/ctx");
  return Fallback<I, Fn_cuGraphKernelNodeSetParams>(kSelf)(node, &v1);
}

template <int I, int kSelf>
CUresult CUDAAPI GraphExecKernelNodeSetParamsV2(CUgraphExec exec, CUgraphNode node,
                                                const CUDA_KERNEL_NODE_PARAMS* params) {
  CUDA_KERNEL_NODE_PARAMS_v1 v1 = {};
  if (params == nullptr) return Fallback<I, Fn_cuGraphExecKernelNodeSetParams>(kSelf)(exec, node, nullptr);
  if (!KernelParamsToV1(params, &v1)) return CannotExpress<I>(kSelf, "kernel params with kern/ctx");
  return Fallback<I, Fn_cuGraphExecKernelNodeSetParams>(kSelf)(exec, node, &v1);
}

template <int I, int kSelf>
CUresult CUDAAPI GraphKernelNodeGetParamsV2(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS* params) {
  if (params == nullptr) return Fallback<I, Fn_cuGraphKernelNodeGetParams>(kSelf)(node, nullptr);
  CUDA_KERNEL_NODE_PARAMS_v1 v1 = {};
  CUresult rc = Fallback<I, Fn_cuGraphKernelNodeGetParams>(kSelf)(node, &v1);
  if (rc != CUDA_SUCCESS) return rc;
  *params = CUDA_KERNEL_NODE_PARAMS{};
  params->func = v1.func;
  params->gridDimX = v1.gridDimX;
  params->gridDimY = v1.gridDimY;
  params->gridDimZ = v1.gridDimZ;
  params->blockDimX = v1.blockDimX;
  params->blockDimY = v1.blockDimY;
  params->blockDimZ = v1.blockDimZ;
  params->sharedMemBytes = v1.sharedMemBytes;
  params->kernelParams = v1.kernelParams;
  params->extra = v1.extra;
  return CUDA_SUCCESS;
}

template <int I, int kSelf>
CUresult CUDAAPI GraphExecUpdateV2(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo* info) {
  CUgraphNode error_node = nullptr;
  CUgraphExecUpdateResult result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
  CUresult rc = Fallback<I, Fn_cuGraphExecUpdate>(kSelf)(exec, graph, &error_node, &result);
  if (info != nullptr) {
    info->result = result;
    info->errorNode = error_node;
    info->errorFromNode = nullptr;
  }
  return rc;
}
#endif  // 12000

#if CUDA_VERSION >= 12030
template <int I, int kSelf>
CUresult CUDAAPI GraphAddDependenciesV2(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                        const CUgraphEdgeData* data, size_t n) {
  if (!AllDefaultEdges(data, n)) return CannotExpress<I>(kSelf, "non-default edge data");
  return Fallback<I, Fn_cuGraphAddDependencies>(kSelf)(graph, from, to, n);
}

template <int I, int kSelf>
CUresult CUDAAPI GraphRemoveDependenciesV2(CUgraph graph, const CUgraphNode* from,
                                           const CUgraphNode* to, const CUgraphEdgeData* data,
                                           size_t n) {
  if (!AllDefaultEdges(data, n)) return CannotExpress<I>(kSelf, "non-default edge data");
  return Fallback<I, Fn_cuGraphRemoveDependencies>(kSelf)(graph, from, to, n);
}

template <int I, int kSelf>
CUresult CUDAAPI GraphAddNodeV2(CUgraphNode* node, CUgraph graph, const CUgraphNode* deps,
                                const CUgraphEdgeData* data, size_t n, CUgraphNodeParams* params) {
  if (!AllDefaultEdges(data, n)) return CannotExpress<I>(kSelf, "non-default edge data");
  return Fallback<I, Fn_cuGraphAddNode>(kSelf)(node, graph, deps, n, params);
}

template <int I, int kSelf>
CUresult CUDAAPI GraphGetEdgesV2(CUgraph graph, CUgraphNode* from, CUgraphNode* to,
                                 CUgraphEdgeData* data, size_t* num) {
  size_t capacity = num != nullptr ? *num : 0;
  CUresult rc = Fallback<I, Fn_cuGraphGetEdges>(kSelf)(graph, from, to, num);
  if (rc == CUDA_SUCCESS && from != nullptr) ZeroEdges(data, capacity);
  return rc;
}

template <int I, int kSelf>
CUresult CUDAAPI GraphNodeGetDependenciesV2(CUgraphNode node, CUgraphNode* deps, CUgraphEdgeData* data,
                                            size_t* num) {
  size_t capacity = num != nullptr ? *num : 0;
  CUresult rc = Fallback<I, Fn_cuGraphNodeGetDependencies>(kSelf)(node, deps, num);
  if (rc == CUDA_SUCCESS && deps != nullptr) ZeroEdges(data, capacity);
  return rc;
}

template <int I, int kSelf>
CUresult CUDAAPI GraphNodeGetDependentNodesV2(CUgraphNode node, CUgraphNode* deps,
                                              CUgraphEdgeData* data, size_t* num) {
  size_t capacity = num != nullptr ? *num : 0;
  CUresult rc = Fallback<I, Fn_cuGraphNodeGetDependentNodes>(kSelf)(node, deps, num);
  if (rc == CUDA_SUCCESS && deps != nullptr) ZeroEdges(data, capacity);
  return rc;
}

template <int I, int kSelf>
CUresult CUDAAPI StreamUpdateCaptureDependenciesV2(CUstream stream, CUgraphNode* deps,
                                                   const CUgraphEdgeData* data, size_t n,
                                                   unsigned int flags) {
  if (!AllDefaultEdges(data, n)) return CannotExpress<I>(kSelf, "non-default edge data");
  return Fallback<I, Fn_cuStreamUpdateCaptureDependencies>(kSelf)(stream, deps, n, flags);
}

// Edge data handed back by the v3 adapter: the driver owns the dependency array, so the zeroed
// edge array must outlive the call; a fixed static block covers all realistic captures.
constexpr size_t kMaxReportedEdges = 4096;
const CUgraphEdgeData kDefaultEdges[kMaxReportedEdges] = {};

template <int I, int kSelf>
CUresult CUDAAPI StreamGetCaptureInfoV3(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id,
                                        CUgraph* graph, const CUgraphNode** deps,
                                        const CUgraphEdgeData** data, size_t* num) {
  size_t local_num = 0;
  if (data != nullptr && num == nullptr) num = &local_num;
  CUresult rc = Fallback<I, Fn_cuStreamGetCaptureInfo_v2>(kSelf)(stream, status, id, graph, deps, num);
  if (rc == CUDA_SUCCESS && data != nullptr) {
    if (*num > kMaxReportedEdges) return CannotExpress<I>(kSelf, "more than 4096 dependencies");
    *data = kDefaultEdges;
  }
  return rc;
}
#endif  // 12030

#if CUDA_VERSION >= 12020
template <int I, int kSelf>
CUresult CUDAAPI MemAdviseV2(CUdeviceptr ptr, size_t count, CUmem_advise advice, CUmemLocation location) {
  CUdevice device;
  if (!LocationToDevice(location, &device)) {
    return CannotExpress<I>(kSelf, "a location other than DEVICE or HOST");
  }
  return Fallback<I, Fn_cuMemAdvise>(kSelf)(ptr, count, advice, device);
}

template <int I, int kSelf>
CUresult CUDAAPI MemPrefetchAsyncV2(CUdeviceptr ptr, size_t count, CUmemLocation location,
                                    unsigned int flags, CUstream stream) {
  CUdevice device;
  if (flags != 0) return CannotExpress<I>(kSelf, "non-zero flags");
  if (!LocationToDevice(location, &device)) {
    return CannotExpress<I>(kSelf, "a location other than DEVICE or HOST");
  }
  return Fallback<I, Fn_cuMemPrefetchAsync>(kSelf)(ptr, count, device, stream);
}
#endif

#if CUDA_VERSION >= 13000
template <int I, int kSelf>
CUresult CUDAAPI MemcpyBatchAsyncV2(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count,
                                    CUmemcpyAttributes* attrs, size_t* attrs_idxs, size_t num_attrs,
                                    CUstream stream) {
  size_t fail_index = 0;
  return Fallback<I, Fn_cuMemcpyBatchAsync>(kSelf)(dsts, srcs, sizes, count, attrs, attrs_idxs,
                                                   num_attrs, &fail_index, stream);
}

template <int I, int kSelf>
CUresult CUDAAPI Memcpy3DBatchAsyncV2(size_t num_ops, CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long flags,
                                      CUstream stream) {
  size_t fail_index = 0;
  return Fallback<I, Fn_cuMemcpy3DBatchAsync>(kSelf)(num_ops, ops, &fail_index, flags, stream);
}
#endif

template <int I, int kSelf>
CUresult CUDAAPI StreamBeginCaptureV2(CUstream stream, CUstreamCaptureMode mode) {
  // The CUDA 10.0 variant always captured in global mode.
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL) return CannotExpress<I>(kSelf, "a capture mode other than GLOBAL");
  return Fallback<I, Fn_cuStreamBeginCapture>(kSelf)(stream);
}

#if CUDA_VERSION >= 11030
template <int I, int kSelf>
CUresult CUDAAPI StreamGetCaptureInfoV2(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id,
                                        CUgraph* graph, const CUgraphNode** deps, size_t* num) {
  CUstreamCaptureStatus local_status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (status == nullptr) status = &local_status;
  CUresult rc = Fallback<I, Fn_cuStreamGetCaptureInfo>(kSelf)(stream, status, id);
  if (rc != CUDA_SUCCESS) return rc;
  if (*status == CU_STREAM_CAPTURE_STATUS_ACTIVE && (graph != nullptr || deps != nullptr || num != nullptr)) {
    return CannotExpress<I>(kSelf, "the capture graph/dependencies of an active capture");
  }
  if (graph != nullptr) *graph = nullptr;
  if (deps != nullptr) *deps = nullptr;
  if (num != nullptr) *num = 0;
  return rc;
}
#endif

#if CUDA_VERSION >= 12050
template <int I, int kSelf>
CUresult CUDAAPI StreamGetCtxV2(CUstream stream, CUcontext* ctx, CUgreenCtx* green) {
  CUresult rc = Fallback<I, Fn_cuStreamGetCtx>(kSelf)(stream, ctx);
  if (rc == CUDA_SUCCESS && green != nullptr) *green = nullptr;  // no green contexts before 12.4
  return rc;
}
#endif

// ---- dispatch --------------------------------------------------------------------------------

struct AdapterRow {
  int index;
  void* instances[kMaxAdapterInstances];
};

#define CUDYN_INSTANCES(fn, self)                                                            \
  {                                                                                          \
    self, {                                                                                  \
      reinterpret_cast<void*>(&fn<0, self>), reinterpret_cast<void*>(&fn<1, self>),          \
          reinterpret_cast<void*>(&fn<2, self>), reinterpret_cast<void*>(&fn<3, self>),      \
          reinterpret_cast<void*>(&fn<4, self>), reinterpret_cast<void*>(&fn<5, self>),      \
          reinterpret_cast<void*>(&fn<6, self>), reinterpret_cast<void*>(&fn<7, self>),      \
          reinterpret_cast<void*>(&fn<8, self>), reinterpret_cast<void*>(&fn<9, self>),      \
          reinterpret_cast<void*>(&fn<10, self>), reinterpret_cast<void*>(&fn<11, self>),    \
          reinterpret_cast<void*>(&fn<12, self>), reinterpret_cast<void*>(&fn<13, self>),    \
          reinterpret_cast<void*>(&fn<14, self>), reinterpret_cast<void*>(&fn<15, self>)     \
    }                                                                                        \
  }

const AdapterRow kAdapterRows[] = {
#if CUDA_VERSION >= 11040
    CUDYN_INSTANCES(CtxCreateV3, kEntry_cuCtxCreate_v3),
#endif
#if CUDA_VERSION >= 12050
    CUDYN_INSTANCES(CtxCreateV4, kEntry_cuCtxCreate_v4),
    CUDYN_INSTANCES(StreamGetCtxV2, kEntry_cuStreamGetCtx_v2),
    CUDYN_INSTANCES(StreamGetCtxV2, kEntry_cuStreamGetCtx_v2_ptsz),
#endif
#if CUDA_VERSION >= 13000
    CUDYN_INSTANCES(CtxGetDeviceV2, kEntry_cuCtxGetDevice_v2),
    CUDYN_INSTANCES(CtxSynchronizeV2, kEntry_cuCtxSynchronize_v2),
    CUDYN_INSTANCES(MemcpyBatchAsyncV2, kEntry_cuMemcpyBatchAsync_v2),
    CUDYN_INSTANCES(MemcpyBatchAsyncV2, kEntry_cuMemcpyBatchAsync_v2_ptsz),
    CUDYN_INSTANCES(Memcpy3DBatchAsyncV2, kEntry_cuMemcpy3DBatchAsync_v2),
    CUDYN_INSTANCES(Memcpy3DBatchAsyncV2, kEntry_cuMemcpy3DBatchAsync_v2_ptsz),
#endif
#if CUDA_VERSION >= 12000
    CUDYN_INSTANCES(GetProcAddressV2, kEntry_cuGetProcAddress_v2),
    CUDYN_INSTANCES(GraphAddKernelNodeV2, kEntry_cuGraphAddKernelNode_v2),
    CUDYN_INSTANCES(GraphKernelNodeSetParamsV2, kEntry_cuGraphKernelNodeSetParams_v2),
    CUDYN_INSTANCES(GraphExecKernelNodeSetParamsV2, kEntry_cuGraphExecKernelNodeSetParams_v2),
    CUDYN_INSTANCES(GraphKernelNodeGetParamsV2, kEntry_cuGraphKernelNodeGetParams_v2),
    CUDYN_INSTANCES(GraphExecUpdateV2, kEntry_cuGraphExecUpdate_v2),
#endif
#if CUDA_VERSION >= 12030
    CUDYN_INSTANCES(GraphAddDependenciesV2, kEntry_cuGraphAddDependencies_v2),
    CUDYN_INSTANCES(GraphRemoveDependenciesV2, kEntry_cuGraphRemoveDependencies_v2),
    CUDYN_INSTANCES(GraphAddNodeV2, kEntry_cuGraphAddNode_v2),
    CUDYN_INSTANCES(GraphGetEdgesV2, kEntry_cuGraphGetEdges_v2),
    CUDYN_INSTANCES(GraphNodeGetDependenciesV2, kEntry_cuGraphNodeGetDependencies_v2),
    CUDYN_INSTANCES(GraphNodeGetDependentNodesV2, kEntry_cuGraphNodeGetDependentNodes_v2),
    CUDYN_INSTANCES(StreamUpdateCaptureDependenciesV2, kEntry_cuStreamUpdateCaptureDependencies_v2),
    CUDYN_INSTANCES(StreamUpdateCaptureDependenciesV2, kEntry_cuStreamUpdateCaptureDependencies_v2_ptsz),
    CUDYN_INSTANCES(StreamGetCaptureInfoV3, kEntry_cuStreamGetCaptureInfo_v3),
    CUDYN_INSTANCES(StreamGetCaptureInfoV3, kEntry_cuStreamGetCaptureInfo_v3_ptsz),
#endif
#if CUDA_VERSION >= 12020
    CUDYN_INSTANCES(MemAdviseV2, kEntry_cuMemAdvise_v2),
    CUDYN_INSTANCES(MemPrefetchAsyncV2, kEntry_cuMemPrefetchAsync_v2),
    CUDYN_INSTANCES(MemPrefetchAsyncV2, kEntry_cuMemPrefetchAsync_v2_ptsz),
#endif
    CUDYN_INSTANCES(StreamBeginCaptureV2, kEntry_cuStreamBeginCapture_v2),
    CUDYN_INSTANCES(StreamBeginCaptureV2, kEntry_cuStreamBeginCapture_v2_ptsz),
#if CUDA_VERSION >= 11030
    CUDYN_INSTANCES(StreamGetCaptureInfoV2, kEntry_cuStreamGetCaptureInfo_v2),
    CUDYN_INSTANCES(StreamGetCaptureInfoV2, kEntry_cuStreamGetCaptureInfo_v2_ptsz),
#endif
};
#undef CUDYN_INSTANCES

}  // namespace

int AcquireAdapterInstance(Driver* driver) { return g_instances.Acquire(driver); }

void ReleaseAdapterInstance(int id) { g_instances.Release(id); }

Driver* AdapterInstanceDriver(int id) { return g_instances.Get(id); }

void* CustomAdapter(int index, int id) {
  if (id < 0 || id >= kMaxAdapterInstances) return nullptr;
  for (const AdapterRow& row : kAdapterRows) {
    if (row.index == index) return row.instances[id];
  }
  return nullptr;
}

}  // namespace internal

bool AdapterCompiledIn(int index) {
  if (index < 0 || index >= kEntryCount) return false;
  switch (kEntries[index].adapter) {
    case AdapterKind::kSameSignature:
      return true;
    case AdapterKind::kCustom:
      return internal::CustomAdapter(index, 0) != nullptr;
    default:
      return false;
  }
}

}  // namespace cudyn
