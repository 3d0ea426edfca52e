// Runtime-API adapters: an entry of the compiling (13.0) headers served on a runtime family that
// spells it differently (version_tables/inputs/cudart_adapters.tsv says which, and why). Each is a
// plain function with the 13.0 prototype, instantiated once per adapter instance id so it can
// find its Runtime without an extra argument; it calls the runtime's older function by name.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "loader/cudart.h"
#include "loader/cudyn.h"
#include "loader/internal.h"
#include "version_tables/api_table.h"

// The adapters are written for the CUDA 13.0 headers (the entries' prototypes); built against
// older headers (CI's 11.8 step) they are compiled out and entries needing one are missing.
#if CUDART_VERSION >= 13000
#define CUDYN_CUDART_ADAPTERS 1
#else
#define CUDYN_CUDART_ADAPTERS 0
#endif

namespace cudyn {
namespace internal {
namespace {

constexpr int kMaxCudartInstances = 8;
InstanceRegistry<Runtime, kMaxCudartInstances> g_cudart_instances;

// ---- the last-error overlay: what cudyn-served paths answered, as a runtime keeps its last error
// A real runtime records each failing call's error as the calling thread's last error of that
// runtime instance (cuda_runtime_api.h, cudaGetLastError / cudaPeekAtLastError). Entries cudyn
// serves itself (driver-served, composed, an adapter's refusal, an entry no path serves) never
// reach the chosen runtime's bookkeeping, so cudyn keeps their error here: per thread and per
// runtime instance (an epoch per instance id forgets what an earlier Runtime of that id left).
// Ordering: recording an error first clears the runtime's own last error (it is older, and a real
// runtime keeps only the latest), so a non-zero runtime error seen later was recorded after
// cudyn's and wins; cudaGetLastError clears both. Only these paths and the two last-error calls
// touch it: native entries never do.
struct OverlayError {
  unsigned epoch;
  int error;
};
thread_local OverlayError t_overlay[kMaxCudartInstances];
std::atomic<unsigned> g_overlay_epoch[kMaxCudartInstances];

// What a runtime records (driver_types.h): every error but cudaErrorNotReady (600), which "is
// not actually an error" (cudaStreamQuery / cudaEventQuery report work still running with it).
constexpr bool RecordedAsLastError(int error) {
  return error != cudaSuccess && error != cudaErrorNotReady;
}
// The sticky errors: those driver_types.h says leave "the process in an inconsistent state" where
// "any further CUDA work will return the same error". Once recorded, cudaGetLastError reports them
// without clearing them, and no later error of cudyn's replaces them.
constexpr int kStickyErrors[] = {226, 700, 702, 714, 715, 716, 717, 718, 719, 911};
#if CUDART_VERSION >= 13000
static_assert(cudaErrorContained == 226 && cudaErrorIllegalAddress == 700 &&
                  cudaErrorLaunchTimeout == 702 && cudaErrorHardwareStackError == 714 &&
                  cudaErrorIllegalInstruction == 715 && cudaErrorMisalignedAddress == 716 &&
                  cudaErrorInvalidAddressSpace == 717 && cudaErrorInvalidPc == 718 &&
                  cudaErrorLaunchFailure == 719 && cudaErrorExternalDevice == 911,
              "the sticky errors of the 13.0 driver_types.h");
#endif
constexpr bool IsStickyError(int error) {
  for (int sticky : kStickyErrors) {
    if (sticky == error) return true;
  }
  return false;
}

// This thread's overlay error of instance `id` (0 when none or left by an earlier Runtime).
OverlayError* Overlay(int id) {
  if (id < 0 || id >= kMaxCudartInstances) return nullptr;
  OverlayError* o = &t_overlay[id];
  const unsigned epoch = g_overlay_epoch[id].load(std::memory_order_acquire);
  if (o->epoch != epoch) *o = OverlayError{epoch, cudaSuccess};
  return o;
}

void RecordOverlay(Runtime* rt, int id, int error) noexcept {
  if (rt == nullptr || !RecordedAsLastError(error)) return;
  OverlayError* o = Overlay(id);
  if (o == nullptr || IsStickyError(o->error)) return;
  // The runtime's own last error is older than this one: cleared, so that one it records later
  // is known to be newer.
  if (auto reset = reinterpret_cast<int (*)()>(rt->Symbol("cudaGetLastError"))) reset();
  o->error = error;
}

#if CUDYN_CUDART_ADAPTERS

cudaError_t CudaErrorFromDriver(int result);
void* ServedDriverEntry(int index);

template <typename Fn>
Fn Old(Runtime* rt, const char* name) {
  return rt != nullptr ? reinterpret_cast<Fn>(rt->Symbol(name)) : nullptr;
}

// The runtime's older functions an adapter may call, any of which makes it usable.
#define CUDYN_NO_RUNTIME static_cast<cudaError_t>(kCudartErrorInitFailed)
#define CUDYN_MISSING static_cast<cudaError_t>(kCudartErrorSymbolNotFound)

cudaError_t CannotExpress(Runtime* rt, int index, const char* why) {
  if (rt != nullptr) {
    rt->NoteAdapterCannotExpress(index, why);
    RecordOverlay(rt, rt->adapter_instance(), cudaErrorNotSupported);
  }
  return cudaErrorNotSupported;
}

// An answer of a path cudyn serves itself (instance I), recorded as the last error when it fails.
template <int I>
cudaError_t Served(cudaError_t rc) {
  if (rc != cudaSuccess) RecordOverlay(CudartAdapterRuntime(I), I, rc);
  return rc;
}

// cudaMemLocation -> the device ordinal / cudaCpuDeviceId 11.x takes.
bool LocationToDevice(const cudaMemLocation& location, int* device) {
  switch (location.type) {
    case cudaMemLocationTypeDevice:
      *device = location.id;
      return true;
    case cudaMemLocationTypeHost:
      *device = cudaCpuDeviceId;
      return true;
    default:
      return false;
  }
}

// ---- cudaDeviceProp: 728 B (11.x), 1032 B (12.x), 1008 B (13.0), converted field by field ----
struct DevicePropField {
  int off13, size, off12, off11;
};
constexpr DevicePropField kDevicePropFields[] = {
#define CUDYN_DEVICE_PROP_FIELD(name, off13, size, off12, off11) {off13, size, off12, off11},
#define CUDYN_DEVICE_PROP_SIZE(family, size)
#include "version_tables/generated_cudart/cudart_device_prop.inc"
#undef CUDYN_DEVICE_PROP_FIELD
#undef CUDYN_DEVICE_PROP_SIZE
};
constexpr int DevicePropSize(int family) {
#define CUDYN_DEVICE_PROP_FIELD(name, off13, size, off12, off11)
#define CUDYN_DEVICE_PROP_SIZE(f, size) \
  if (family == f) return size;
#include "version_tables/generated_cudart/cudart_device_prop.inc"
#undef CUDYN_DEVICE_PROP_FIELD
#undef CUDYN_DEVICE_PROP_SIZE
  return 0;
}
static_assert(DevicePropSize(13) == sizeof(cudaDeviceProp), "facts disagree with the headers");
constexpr int kMaxDevicePropSize = 4096;
static_assert(DevicePropSize(12) <= kMaxDevicePropSize && DevicePropSize(11) <= kMaxDevicePropSize,
              "a runtime's cudaDeviceProp outgrew the conversion buffer");

int FieldOffset(const DevicePropField& f, int family) {
  return family == 12 ? f.off12 : f.off11;  // 10.x runtimes share the 11.x layout
}

// Runtime layout -> 13.0 layout; fields 13.0 has and the runtime lacks stay zero.
void DevicePropToCurrent(const unsigned char* old, int family, cudaDeviceProp* prop) {
  std::memset(prop, 0, sizeof(*prop));
  auto* out = reinterpret_cast<unsigned char*>(prop);
  for (const DevicePropField& f : kDevicePropFields) {
    int off = FieldOffset(f, family);
    if (off >= 0) std::memcpy(out + f.off13, old + off, f.size);
  }
}

// 13.0 layout -> the runtime's; fields only the runtime has stay zero.
void DevicePropFromCurrent(const cudaDeviceProp* prop, int family, unsigned char* old) {
  std::memset(old, 0, kMaxDevicePropSize);
  const auto* in = reinterpret_cast<const unsigned char*>(prop);
  for (const DevicePropField& f : kDevicePropFields) {
    int off = FieldOffset(f, family);
    if (off >= 0) std::memcpy(old + off, in + f.off13, f.size);
  }
}

// ---- texture / surface descriptors: converted field by field (cudart_layouts.inc) ----
// Why this is faithful (the 11.2, 11.8, 12.4, 12.5 and 13.0 driver_types.h): cudaResourceDesc is
// {resType; union res; } before 13.0 and {resType; union res; flags} in 13.0; the union's
// array/mipmap/linear/pitch2D members are the same structs at the same offsets in every version,
// 13.0 only adds `int reserved[32]` to it (the union grows from 56 to 128 B). So every member the
// discriminant resType can select is carried at its own offset, and the 13.0-only bytes of the
// union are spare room (the generator marks 13.0-only fields that overlap a carried one as not
// "must be zero"). flags ("must be zero" in 13.0) and cudaResourceViewDesc's appended
// reserved[16] have no place in the older layout: a non-zero value there cannot be expressed and is
// refused (cudaErrorNotSupported) rather than dropped, as cudaTextureDesc.seamlessCubemap is on a
// runtime with neither a 72-B cudaTextureDesc (12.x) nor cudaCreateTextureObject_v2 (11.6+).
// Outputs: the runtime's fields are copied to their 13.0 offsets; flags, reserved and any padding
// read as zero, the value a 13.0 runtime reports for them.
enum class LayoutId {
#define CUDYN_CUDART_LAYOUT(name, size13, size12, size11) k##name,
#define CUDYN_CUDART_LAYOUT_FIELD(layout, path, off13, size, off12, off11, zero12, zero11, out)
#include "version_tables/generated_cudart/cudart_layouts.inc"
#undef CUDYN_CUDART_LAYOUT
#undef CUDYN_CUDART_LAYOUT_FIELD
};
struct LayoutSize {
  LayoutId id;
  const char* name;  // the 13.0 struct
  int size13, size12, size11;
};
constexpr LayoutSize kLayoutSizes[] = {
#define CUDYN_CUDART_LAYOUT(name, size13, size12, size11) \
  {LayoutId::k##name, #name, size13, size12, size11},
#define CUDYN_CUDART_LAYOUT_FIELD(layout, path, off13, size, off12, off11, zero12, zero11, out)
#include "version_tables/generated_cudart/cudart_layouts.inc"
#undef CUDYN_CUDART_LAYOUT
#undef CUDYN_CUDART_LAYOUT_FIELD
};
struct LayoutField {
  LayoutId id;
  const char* path;
  int off13, size, off12, off11;
  bool zero12, zero11;  // must be zero in the caller's 13.0 struct for that family
  bool out;             // the older runtime writes it (copied back after the call)
};
constexpr LayoutField kLayoutFields[] = {
#define CUDYN_CUDART_LAYOUT(name, size13, size12, size11)
#define CUDYN_CUDART_LAYOUT_FIELD(layout, path, off13, size, off12, off11, zero12, zero11, out) \
  {LayoutId::k##layout, path, off13, size, off12, off11, zero12 != 0, zero11 != 0, out != 0},
#include "version_tables/generated_cudart/cudart_layouts.inc"
#undef CUDYN_CUDART_LAYOUT
#undef CUDYN_CUDART_LAYOUT_FIELD
};

// Sizes by family: 13, 12, and 11 for 10.x/11.x (10.x runtimes share the 11.x layouts).
constexpr int LayoutBytes(LayoutId id, int family) {
  for (const LayoutSize& s : kLayoutSizes) {
    if (s.id == id) return family >= 13 ? s.size13 : family == 12 ? s.size12 : s.size11;
  }
  return 0;
}
constexpr int kMaxLayoutSize = 512;
static_assert(LayoutBytes(LayoutId::kcudaResourceDesc, 13) == sizeof(cudaResourceDesc) &&
                  LayoutBytes(LayoutId::kcudaResourceViewDesc, 13) ==
                      sizeof(cudaResourceViewDesc) &&
                  LayoutBytes(LayoutId::kcudaTextureDesc, 13) == sizeof(cudaTextureDesc) &&
                  LayoutBytes(LayoutId::kcudaTextureDescV2, 13) == sizeof(cudaTextureDesc),
              "facts disagree with the headers");
static_assert(LayoutBytes(LayoutId::kcudaResourceDesc, 13) <= kMaxLayoutSize &&
                  LayoutBytes(LayoutId::kcudaResourceDesc, 12) <= kMaxLayoutSize &&
                  LayoutBytes(LayoutId::kcudaResourceDesc, 11) <= kMaxLayoutSize,
              "a descriptor outgrew the conversion buffer");

bool AllZero(const unsigned char* p, int n) {
  for (int k = 0; k < n; ++k) {
    if (p[k] != 0) return false;
  }
  return true;
}

// The caller's 13.0 struct -> the family's layout in `old` (zero-filled first); returns the path
// of a must-be-zero field that is not zero (nothing written then is used), or nullptr.
const char* ToRuntimeLayout(LayoutId id, const void* in13, int family, unsigned char* old) {
  std::memset(old, 0, kMaxLayoutSize);
  const auto* in = static_cast<const unsigned char*>(in13);
  for (const LayoutField& f : kLayoutFields) {
    if (f.id != id) continue;
    const int off = family == 12 ? f.off12 : f.off11;
    const bool must_be_zero = family == 12 ? f.zero12 : f.zero11;
    if (off >= 0) {
      std::memcpy(old + off, in + f.off13, f.size);
    } else if (must_be_zero && !AllZero(in + f.off13, f.size)) {
      return f.path;
    }
  }
  return nullptr;
}

// The family's layout -> the caller's 13.0 struct; fields the family lacks read as zero.
void FromRuntimeLayout(LayoutId id, const unsigned char* old, int family, void* out13) {
  auto* out = static_cast<unsigned char*>(out13);
  std::memset(out, 0, LayoutBytes(id, 13));
  for (const LayoutField& f : kLayoutFields) {
    if (f.id != id) continue;
    const int off = family == 12 ? f.off12 : f.off11;
    if (off >= 0) std::memcpy(out + f.off13, old + off, f.size);
  }
}

// The fields the older runtime wrote (out) of the family's layout -> the caller's 13.0 struct; the
// caller's other fields are left as they are.
void OutputsFromRuntimeLayout(LayoutId id, const unsigned char* old, int family, void* out13) {
  auto* out = static_cast<unsigned char*>(out13);
  for (const LayoutField& f : kLayoutFields) {
    if (f.id != id || !f.out) continue;
    const int off = family == 12 ? f.off12 : f.off11;
    if (off >= 0) std::memcpy(out + f.off13, old + off, f.size);
  }
}

const char* LayoutName(LayoutId id) {
  for (const LayoutSize& s : kLayoutSizes) {
    if (s.id == id) return s.name;
  }
  return "?";
}

// A refused conversion: "a non-zero cudaResourceDesc.flags (not in the <family> layout)".
cudaError_t CannotExpressField(Runtime* rt, int index, const char* type, const char* path) {
  char why[160];
  std::snprintf(why, sizeof(why), "a non-zero %s.%s (the runtime's layout has no such field)",
                type, path);
  return CannotExpress(rt, index, why);
}

// ---- the adapters ----
template <int I>
cudaError_t MemAdviseLocation(const void* devPtr, size_t count, enum cudaMemoryAdvise advice,
                              struct cudaMemLocation location) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(const void*, size_t, enum cudaMemoryAdvise, int);
  auto fn = Old<Fn>(rt, "cudaMemAdvise");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  int device = 0;
  if (!LocationToDevice(location, &device)) {
    return CannotExpress(rt, kCudart_cudaMemAdvise, "a cudaMemLocation other than DEVICE/HOST");
  }
  return fn(devPtr, count, advice, device);
}

template <int I, bool kPtsz>
cudaError_t MemPrefetchLocationImpl(const void* devPtr, size_t count,
                                    struct cudaMemLocation location, unsigned int flags,
                                    cudaStream_t stream) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(const void*, size_t, int, cudaStream_t);
  auto fn = Old<Fn>(rt, kPtsz ? "cudaMemPrefetchAsync_ptsz" : "cudaMemPrefetchAsync");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  const int index = kPtsz ? kCudart_cudaMemPrefetchAsync_ptsz : kCudart_cudaMemPrefetchAsync;
  int device = 0;
  if (!LocationToDevice(location, &device)) {
    return CannotExpress(rt, index, "a cudaMemLocation other than DEVICE/HOST");
  }
  if (flags != 0) return CannotExpress(rt, index, "prefetch flags other than 0");
  return fn(devPtr, count, device, stream);
}
template <int I>
cudaError_t MemPrefetchLocation(const void* devPtr, size_t count, struct cudaMemLocation location,
                                unsigned int flags, cudaStream_t stream) {
  return MemPrefetchLocationImpl<I, false>(devPtr, count, location, flags, stream);
}
template <int I>
cudaError_t MemPrefetchLocationPtsz(const void* devPtr, size_t count,
                                    struct cudaMemLocation location, unsigned int flags,
                                    cudaStream_t stream) {
  return MemPrefetchLocationImpl<I, true>(devPtr, count, location, flags, stream);
}

template <int I>
cudaError_t GraphInstantiateFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                  unsigned long long flags) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (flags != 0) {
    // 11.4+ has the flags in their own function; 11.2 has none.
    using WithFlags = cudaError_t (*)(cudaGraphExec_t*, cudaGraph_t, unsigned long long);
    if (auto fn = Old<WithFlags>(rt, "cudaGraphInstantiateWithFlags")) {
      return fn(pGraphExec, graph, flags);
    }
    return CannotExpress(rt, kCudart_cudaGraphInstantiate,
                         "instantiate flags (no cudaGraphInstantiateWithFlags before 11.4)");
  }
  using Fn = cudaError_t (*)(cudaGraphExec_t*, cudaGraph_t, cudaGraphNode_t*, char*, size_t);
  auto fn = Old<Fn>(rt, "cudaGraphInstantiate");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  return fn(pGraphExec, graph, nullptr, nullptr, 0);
}

template <int I>
cudaError_t GraphExecUpdateResultInfo(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                      cudaGraphExecUpdateResultInfo* resultInfo) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(cudaGraphExec_t, cudaGraph_t, cudaGraphNode_t*,
                             enum cudaGraphExecUpdateResult*);
  auto fn = Old<Fn>(rt, "cudaGraphExecUpdate");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  cudaGraphNode_t error_node = nullptr;
  enum cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
  cudaError_t rc = fn(hGraphExec, hGraph, &error_node, &result);
  if (resultInfo != nullptr) {
    std::memset(resultInfo, 0, sizeof(*resultInfo));
    resultInfo->result = result;
    resultInfo->errorNode = error_node;
    resultInfo->errorFromNode = nullptr;  // 11.x does not report it
  }
  return rc;
}

// `n` zeroed (default) edges, per thread; nullptr when out of memory.
const cudaGraphEdgeData* DefaultEdges(size_t n) {
  thread_local std::vector<cudaGraphEdgeData> edges;
  try {
    if (edges.size() < n) edges.resize(n);
  } catch (...) {
    return nullptr;
  }
  std::memset(edges.data(), 0, n * sizeof(cudaGraphEdgeData));
  return edges.data();
}

template <int I, bool kPtsz>
cudaError_t StreamGetCaptureInfoImpl(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out,
                                     const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
  Runtime* rt = CudartAdapterRuntime(I);
  using V2 = cudaError_t (*)(cudaStream_t, enum cudaStreamCaptureStatus*, unsigned long long*,
                             cudaGraph_t*, const cudaGraphNode_t**, size_t*);
  if (edgeData_out != nullptr) *edgeData_out = nullptr;
  if (auto fn = Old<V2>(rt, kPtsz ? "cudaStreamGetCaptureInfo_v2_ptsz" : "cudaStreamGetCaptureInfo_v2")) {
    cudaError_t rc = fn(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                        numDependencies_out);
    if (rc == cudaSuccess && edgeData_out != nullptr && numDependencies_out != nullptr &&
        *numDependencies_out > 0) {
      // A runtime without edge data has only default edges. The 13.0 runtime reports them as an
      // array of zeroed edge data (measured on the H100), valid until the next call on this
      // thread; so does this adapter.
      *edgeData_out = DefaultEdges(*numDependencies_out);
    }
    return rc;
  }
  using V1 = cudaError_t (*)(cudaStream_t, enum cudaStreamCaptureStatus*, unsigned long long*);
  auto fn = Old<V1>(rt, kPtsz ? "cudaStreamGetCaptureInfo_ptsz" : "cudaStreamGetCaptureInfo");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  if (graph_out != nullptr || dependencies_out != nullptr || numDependencies_out != nullptr) {
    return CannotExpress(rt,
                         kPtsz ? kCudart_cudaStreamGetCaptureInfo_ptsz
                               : kCudart_cudaStreamGetCaptureInfo,
                         "the capture graph or dependencies (no cudaStreamGetCaptureInfo_v2 "
                         "before 11.3)");
  }
  return fn(stream, captureStatus_out, id_out);
}
template <int I>
cudaError_t StreamGetCaptureInfoNoEdges(cudaStream_t stream,
                                        enum cudaStreamCaptureStatus* captureStatus_out,
                                        unsigned long long* id_out, cudaGraph_t* graph_out,
                                        const cudaGraphNode_t** dependencies_out,
                                        const cudaGraphEdgeData** edgeData_out,
                                        size_t* numDependencies_out) {
  return StreamGetCaptureInfoImpl<I, false>(stream, captureStatus_out, id_out, graph_out,
                                            dependencies_out, edgeData_out, numDependencies_out);
}
template <int I>
cudaError_t StreamGetCaptureInfoNoEdgesPtsz(cudaStream_t stream,
                                            enum cudaStreamCaptureStatus* captureStatus_out,
                                            unsigned long long* id_out, cudaGraph_t* graph_out,
                                            const cudaGraphNode_t** dependencies_out,
                                            const cudaGraphEdgeData** edgeData_out,
                                            size_t* numDependencies_out) {
  return StreamGetCaptureInfoImpl<I, true>(stream, captureStatus_out, id_out, graph_out,
                                           dependencies_out, edgeData_out, numDependencies_out);
}

// Edge data an older runtime can express: none, or every edge the default (all bytes zero: port
// 0, cudaGraphDependencyTypeDefault), which is what NULL means.
bool DefaultEdgesOnly(const cudaGraphEdgeData* edges, size_t n) {
  if (edges == nullptr) return true;
  for (size_t k = 0; k < n; ++k) {
    if (!AllZero(reinterpret_cast<const unsigned char*>(&edges[k]), sizeof(edges[k]))) return false;
  }
  return true;
}

// Edges into a graph on a runtime before 12.3, which has default edges only. A valid non-default
// edge cannot be expressed there (801); an invalid one gets the 13.0 runtime's answer, 1. Valid,
// by cudaGraphEdgeData's documentation and as the 13.0 runtime answers on a GPU (H200,
// tests/gpu/RESULTS.md): reserved bytes and to_port zero; a type of Default or Programmatic; a
// from_port of Default, Programmatic or LaunchCompletion; a non-default port only out of a kernel
// node; the Programmatic port only with the Programmatic type, and that type only out of a
// non-default port, between kernel nodes.
enum class EdgesIn { kDefault, kInvalid, kCannotExpress };

// Whether `node` is a kernel node, by the runtime's own cudaGraphNodeGetType.
bool IsKernelNode(Runtime* rt, cudaGraphNode_t node) {
  auto get_type = Old<cudaError_t (*)(cudaGraphNode_t, enum cudaGraphNodeType*)>(
      rt, "cudaGraphNodeGetType");
  enum cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  return get_type != nullptr && get_type(node, &type) == cudaSuccess &&
         type == cudaGraphNodeTypeKernel;
}

// from[k] -> to[k] for k < n; `to` null where the downstream node is not known yet (stream
// capture: the next captured node, judged by the runtime that captures it), `to_kernel` the
// answer for a downstream node given by its parameters (cudaGraphAddNode).
EdgesIn JudgeEdgesIn(Runtime* rt, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                     std::optional<bool> to_kernel, const cudaGraphEdgeData* edges, size_t n) {
  if (DefaultEdgesOnly(edges, n)) return EdgesIn::kDefault;
  static_assert(cudaGraphDependencyTypeDefault == 0 && cudaGraphDependencyTypeProgrammatic == 1 &&
                    cudaGraphKernelNodePortDefault == 0 &&
                    cudaGraphKernelNodePortProgrammatic == 1 &&
                    cudaGraphKernelNodePortLaunchCompletion == 2,
                "the edge rules below are written for these values");
  for (size_t k = 0; k < n; ++k) {
    const cudaGraphEdgeData& e = edges[k];
    const bool programmatic_type = e.type == cudaGraphDependencyTypeProgrammatic;
    if (!AllZero(e.reserved, sizeof(e.reserved)) || e.to_port != 0 ||
        e.type > cudaGraphDependencyTypeProgrammatic ||
        e.from_port > cudaGraphKernelNodePortLaunchCompletion ||
        (e.from_port == cudaGraphKernelNodePortProgrammatic && !programmatic_type) ||
        (programmatic_type && e.from_port == cudaGraphKernelNodePortDefault)) {
      return EdgesIn::kInvalid;
    }
    if (e.from_port == cudaGraphKernelNodePortDefault) continue;  // a default edge
    if (from == nullptr || !IsKernelNode(rt, from[k])) return EdgesIn::kInvalid;
    if (programmatic_type) {
      const bool kernel = to_kernel ? *to_kernel : to == nullptr || IsKernelNode(rt, to[k]);
      if (!kernel) return EdgesIn::kInvalid;
    }
  }
  return EdgesIn::kCannotExpress;
}

// Edges out of a graph on such a runtime: only default edges exist there, so one named with a
// non-default port is no edge (the 13.0 runtime's 1); the type is not compared (measured: 13.0
// removes a default edge named with the Programmatic type).
bool PortsDefault(const cudaGraphEdgeData* edges, size_t n) {
  for (size_t k = 0; edges != nullptr && k < n; ++k) {
    if (edges[k].from_port != 0 || edges[k].to_port != 0) return false;
  }
  return true;
}

// The answer for edges that are not all default (the caller passes default ones on), recorded
// as the last error.
template <int I>
cudaError_t EdgesInRefusal(Runtime* rt, int index, EdgesIn verdict) {
  if (verdict == EdgesIn::kInvalid) return Served<I>(cudaErrorInvalidValue);
  return CannotExpress(rt, index, "edge data (runtimes before 12.3 have only default edges)");
}

template <int I, bool kPtsz>
cudaError_t StreamUpdateCaptureDependenciesImpl(cudaStream_t stream,
                                                cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* dependencyData,
                                                size_t numDependencies, unsigned int flags) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  using Fn = cudaError_t (*)(cudaStream_t, cudaGraphNode_t*, size_t, unsigned int);
  auto fn = Old<Fn>(rt, kPtsz ? "cudaStreamUpdateCaptureDependencies_ptsz"
                              : "cudaStreamUpdateCaptureDependencies");
  // Before 11.3 (11.2) the runtime has none: the driver's cuStreamUpdateCaptureDependencies(_ptsz)
  // (11.3+, the same arguments: what 11.3+ runtimes wrap; 35 where the driver lacks it, nothing
  // run), after the runtime's initialisation (cudaFree(NULL), its error the answer).
  using DriverFn = int (*)(cudaStream_t, cudaGraphNode_t*, size_t, unsigned int);
  auto driver_fn = fn == nullptr ? reinterpret_cast<DriverFn>(ServedDriverEntry(
                                       kPtsz ? kEntry_cuStreamUpdateCaptureDependencies_ptsz
                                             : kEntry_cuStreamUpdateCaptureDependencies))
                                 : nullptr;
  if (fn == nullptr && driver_fn == nullptr) return Served<I>(cudaErrorInsufficientDriver);
  const EdgesIn edges =
      JudgeEdgesIn(rt, dependencies, nullptr, std::nullopt, dependencyData, numDependencies);
  if (edges != EdgesIn::kDefault) {
    return EdgesInRefusal<I>(rt,
                             kPtsz ? kCudart_cudaStreamUpdateCaptureDependencies_ptsz
                                   : kCudart_cudaStreamUpdateCaptureDependencies,
                             edges);
  }
  if (fn != nullptr) return fn(stream, dependencies, numDependencies, flags);
  auto runtime_free = Old<cudaError_t (*)(void*)>(rt, "cudaFree");
  const cudaError_t init_rc = runtime_free != nullptr ? runtime_free(nullptr) : CUDYN_MISSING;
  if (init_rc != cudaSuccess) return Served<I>(init_rc);
  return Served<I>(CudaErrorFromDriver(driver_fn(stream, dependencies, numDependencies, flags)));
}
template <int I>
cudaError_t StreamUpdateCaptureDependenciesNoEdges(cudaStream_t stream,
                                                   cudaGraphNode_t* dependencies,
                                                   const cudaGraphEdgeData* dependencyData,
                                                   size_t numDependencies, unsigned int flags) {
  return StreamUpdateCaptureDependenciesImpl<I, false>(stream, dependencies, dependencyData,
                                                       numDependencies, flags);
}
template <int I>
cudaError_t StreamUpdateCaptureDependenciesNoEdgesPtsz(cudaStream_t stream,
                                                       cudaGraphNode_t* dependencies,
                                                       const cudaGraphEdgeData* dependencyData,
                                                       size_t numDependencies,
                                                       unsigned int flags) {
  return StreamUpdateCaptureDependenciesImpl<I, true>(stream, dependencies, dependencyData,
                                                      numDependencies, flags);
}

// Adding or removing edges: the older call, where the edges are ones it has (JudgeEdgesIn,
// PortsDefault).
template <int I, int kIndex>
cudaError_t EdgesInImpl(const char* old_name, cudaGraph_t graph, const cudaGraphNode_t* from,
                        const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                        size_t numDependencies) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(cudaGraph_t, const cudaGraphNode_t*, const cudaGraphNode_t*, size_t);
  auto fn = Old<Fn>(rt, old_name);
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  if constexpr (kIndex == kCudart_cudaGraphRemoveDependencies) {
    if (!PortsDefault(edgeData, numDependencies)) return Served<I>(cudaErrorInvalidValue);
  } else {
    const EdgesIn edges = JudgeEdgesIn(rt, from, to, std::nullopt, edgeData, numDependencies);
    if (edges != EdgesIn::kDefault) return EdgesInRefusal<I>(rt, kIndex, edges);
  }
  return fn(graph, from, to, numDependencies);
}
template <int I>
cudaError_t GraphAddDependenciesNoEdges(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edgeData,
                                        size_t numDependencies) {
  return EdgesInImpl<I, kCudart_cudaGraphAddDependencies>("cudaGraphAddDependencies", graph, from,
                                                          to, edgeData, numDependencies);
}
template <int I>
cudaError_t GraphRemoveDependenciesNoEdges(cudaGraph_t graph, const cudaGraphNode_t* from,
                                           const cudaGraphNode_t* to,
                                           const cudaGraphEdgeData* edgeData,
                                           size_t numDependencies) {
  return EdgesInImpl<I, kCudart_cudaGraphRemoveDependencies>(
      "cudaGraphRemoveDependencies", graph, from, to, edgeData, numDependencies);
}

// Edges out: the older call fills the nodes; every edge it reports is a default edge, so the
// caller's edge data array (when given) is zero-filled for the entries written.
void ZeroEdges(cudaGraphEdgeData* edgeData, size_t capacity, size_t reported) {
  if (edgeData == nullptr) return;
  size_t n = capacity < reported ? capacity : reported;
  std::memset(edgeData, 0, n * sizeof(*edgeData));
}

template <int I>
cudaError_t GraphGetEdgesNoEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                 cudaGraphEdgeData* edgeData, size_t* numEdges) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(cudaGraph_t, cudaGraphNode_t*, cudaGraphNode_t*, size_t*);
  auto fn = Old<Fn>(rt, "cudaGraphGetEdges");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  size_t capacity = numEdges != nullptr ? *numEdges : 0;
  cudaError_t rc = fn(graph, from, to, numEdges);
  if (rc == cudaSuccess && from != nullptr && numEdges != nullptr) {
    ZeroEdges(edgeData, capacity, *numEdges);
  }
  return rc;
}

template <int I>
cudaError_t NodeEdgesImpl(const char* old_name, cudaGraphNode_t node, cudaGraphNode_t* nodes,
                          cudaGraphEdgeData* edgeData, size_t* count) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(cudaGraphNode_t, cudaGraphNode_t*, size_t*);
  auto fn = Old<Fn>(rt, old_name);
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  size_t capacity = count != nullptr ? *count : 0;
  cudaError_t rc = fn(node, nodes, count);
  if (rc == cudaSuccess && nodes != nullptr && count != nullptr) {
    ZeroEdges(edgeData, capacity, *count);
  }
  return rc;
}
template <int I>
cudaError_t GraphNodeGetDependenciesNoEdges(cudaGraphNode_t node, cudaGraphNode_t* pDependencies,
                                            cudaGraphEdgeData* edgeData,
                                            size_t* pNumDependencies) {
  return NodeEdgesImpl<I>("cudaGraphNodeGetDependencies", node, pDependencies, edgeData,
                          pNumDependencies);
}
template <int I>
cudaError_t GraphNodeGetDependentNodesNoEdges(cudaGraphNode_t node,
                                              cudaGraphNode_t* pDependentNodes,
                                              cudaGraphEdgeData* edgeData,
                                              size_t* pNumDependentNodes) {
  return NodeEdgesImpl<I>("cudaGraphNodeGetDependentNodes", node, pDependentNodes, edgeData,
                          pNumDependentNodes);
}

// cudaGetDriverEntryPoint where the runtime predates it (11.2): what 11.3+ runtimes do — ask the
// driver's cuGetProcAddress at the runtime's version (never above the driver's) with the same
// flags (cudaEnable* and CU_GET_PROC_ADDRESS_* share their values); drivers before 11.3 have no
// cuGetProcAddress, so the exact exported name is looked up there.
cudaError_t DriverEntryPoint(const Runtime& rt, const char* symbol, void** funcPtr,
                             unsigned long long flags) {
  if (symbol == nullptr || funcPtr == nullptr) return cudaErrorInvalidValue;
  *funcPtr = nullptr;
  Driver& driver = DefaultDriver();
  if (!driver.ok()) return cudaErrorInsufficientDriver;
  using GetProcAddressFn = int (*)(const char*, void**, int, unsigned long long);
  auto gpa = reinterpret_cast<GetProcAddressFn>(dlsym(driver.handle(), "cuGetProcAddress"));
  if (gpa != nullptr) {
    const int version = rt.version() < driver.cuda_version() ? rt.version() : driver.cuda_version();
    return gpa(symbol, funcPtr, version, flags) == 0 && *funcPtr != nullptr
               ? cudaSuccess
               : cudaErrorSymbolNotFound;
  }
  *funcPtr = dlsym(driver.handle(), symbol);
  return *funcPtr != nullptr ? cudaSuccess : cudaErrorSymbolNotFound;
}

template <int I, bool kPtsz>
cudaError_t GetDriverEntryPointStatusImpl(const char* symbol, void** funcPtr,
                                          unsigned long long flags,
                                          enum cudaDriverEntryPointQueryResult* driverStatus) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(const char*, void**, unsigned long long);
  auto fn = Old<Fn>(rt, kPtsz ? "cudaGetDriverEntryPoint_ptsz" : "cudaGetDriverEntryPoint");
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  // The runtime's own answer, or cudyn's (recorded as the runtime would record it).
  cudaError_t rc = fn != nullptr ? fn(symbol, funcPtr, flags)
                                 : Served<I>(DriverEntryPoint(*rt, symbol, funcPtr, flags));
  if (driverStatus != nullptr) {
    // 11.x reports a symbol it cannot find as an error; 12.x+ as success + this status.
    *driverStatus = rc == cudaSuccess ? cudaDriverEntryPointSuccess
                                      : cudaDriverEntryPointSymbolNotFound;
  }
  return rc;
}
template <int I>
cudaError_t GetDriverEntryPointStatus(const char* symbol, void** funcPtr,
                                      unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult* driverStatus) {
  return GetDriverEntryPointStatusImpl<I, false>(symbol, funcPtr, flags, driverStatus);
}
template <int I>
cudaError_t GetDriverEntryPointStatusPtsz(const char* symbol, void** funcPtr,
                                          unsigned long long flags,
                                          enum cudaDriverEntryPointQueryResult* driverStatus) {
  return GetDriverEntryPointStatusImpl<I, true>(symbol, funcPtr, flags, driverStatus);
}

cudaError_t CudaErrorFromDriver(int result);
void* ServedDriverEntry(int index);

// ---- composed entries: 13.0 entries an older runtime lacks, built from what it and the driver
// have (inputs/cudart_adapters.tsv names the families). Answers measured with the real 13.0 runtime
// on an H200 with the 580 driver are noted as "13.0:".

// cudaInitDevice (12.0+): initialise `device`'s primary context and the runtime's state for it,
// with deviceFlags applied when flags has cudaInitDeviceFlagsAreValid, without making it current
// (13.0 in a fresh process: 0, the primary context active with the flags, cuCtxGetCurrent NULL).
// Composed from the runtime's own calls rather than the driver's cuDevicePrimaryCtxRetain/SetFlags:
// the runtime then knows the device is initialised and holds the flags it reports through
// cudaGetDeviceFlags, and its own checks give the errors (13.0: a bad ordinal 101, bad deviceFlags
// 1 — what cudaSetDevice and cudaSetDeviceFlags answer on 11.x). 11.x applies cudaSetDeviceFlags
// to the current device and initialises lazily (cudaFree(NULL)), which makes the context current;
// so the caller's device and the driver's current context (cuCtxGetCurrent before, cuCtxSetCurrent
// after) are restored, and the runtime's next call finds its context again as after any
// cuCtxSetCurrent. Other flag bits are ignored (13.0: flags 2 answers 0, flags not applied).
template <int I>
cudaError_t InitDeviceComposedImpl(int device, unsigned int deviceFlags, unsigned int flags) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  auto get = Old<cudaError_t (*)(int*)>(rt, "cudaGetDevice");
  auto set = Old<cudaError_t (*)(int)>(rt, "cudaSetDevice");
  auto set_flags = Old<cudaError_t (*)(unsigned int)>(rt, "cudaSetDeviceFlags");
  auto free_fn = Old<cudaError_t (*)(void*)>(rt, "cudaFree");
  if (get == nullptr || set == nullptr || set_flags == nullptr || free_fn == nullptr) {
    return static_cast<cudaError_t>(rt->missing_result(kCudart_cudaInitDevice));
  }
  using CtxFn = int (*)(void**);
  auto ctx_get = reinterpret_cast<CtxFn>(ServedDriverEntry(kEntry_cuCtxGetCurrent));
  auto ctx_set = reinterpret_cast<int (*)(void*)>(ServedDriverEntry(kEntry_cuCtxSetCurrent));
  // Before cuInit cuCtxGetCurrent fails (3): no context is current then, and none is after.
  void* context = nullptr;
  const bool restore_context = ctx_get != nullptr && ctx_set != nullptr;
  if (restore_context && ctx_get(&context) != 0) context = nullptr;
  int previous = 0;
  cudaError_t rc = get(&previous);
  if (rc != cudaSuccess) return rc;
  const bool switch_device = device != previous;
  if (switch_device && (rc = set(device)) != cudaSuccess) return rc;
  if ((flags & cudaInitDeviceFlagsAreValid) != 0) rc = set_flags(deviceFlags);
  if (rc == cudaSuccess) rc = free_fn(nullptr);  // the runtime's lazy initialisation
  if (switch_device) {
    const cudaError_t restored = set(previous);
    if (rc == cudaSuccess) rc = restored;
  }
  if (restore_context) ctx_set(context);
  return rc;
}
template <int I>
cudaError_t InitDeviceComposed(int device, unsigned int deviceFlags, unsigned int flags) {
  return Served<I>(InitDeviceComposedImpl<I>(device, deviceFlags, flags));
}

// cudaFuncGetName (12.3+): the device name nvcc's registration code handed the drop-in for the
// host stub (__cudaRegisterFunction: NoteCudartFunction). 13.0: the mangled name
// ("_Z8mykernelPf", "ckernel" for extern "C"), 98 for a NULL func, 400 for a host function no
// module registered; a NULL name is answered 1 here (13.0 documents cudaErrorInvalidValue).
template <int I>
cudaError_t FuncGetNameRegisteredImpl(const char** name, const void* func) {
  if (CudartAdapterRuntime(I) == nullptr) return CUDYN_NO_RUNTIME;
  if (func == nullptr) return cudaErrorInvalidDeviceFunction;
  if (name == nullptr) return cudaErrorInvalidValue;
  const char* found = RegisteredCudartFunctionName(func);
  if (found == nullptr) return cudaErrorInvalidResourceHandle;
  *name = found;
  return cudaSuccess;
}
template <int I>
cudaError_t FuncGetNameRegistered(const char** name, const void* func) {
  return Served<I>(FuncGetNameRegisteredImpl<I>(name, func));
}

// cudaGetDriverEntryPointByVersion (12.5+): the driver's own cuGetProcAddress at the caller's
// version, never above the driver's version after cudyn's clamp (a clamped driver answers as the
// older driver would). cudaDriverEntryPointQueryResult and CUdriverProcAddressQueryResult share
// their values, as cudaEnable* and CU_GET_PROC_ADDRESS_* do. 13.0: a symbol the driver lacks
// answers 0 with status 1 and *funcPtr NULL; one newer than the version 0 with status 2; a NULL
// symbol crashes it (answered 1 here).
// Drivers before 12.0 have no status: cuGetProcAddress (11.3+) or the exact name (before).
static_assert(cudaDriverEntryPointSuccess == 0 && cudaDriverEntryPointSymbolNotFound == 1 &&
                  cudaDriverEntryPointVersionNotSufficent == 2,
              "cudaDriverEntryPointQueryResult is CUdriverProcAddressQueryResult");
static_assert(cudaEnableDefault == 0 && cudaEnableLegacyStream == 1 &&
                  cudaEnablePerThreadDefaultStream == 2,
              "cudaEnable* are CU_GET_PROC_ADDRESS_*");
cudaError_t DriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                      unsigned long long flags,
                                      cudaDriverEntryPointQueryResult* driverStatus) {
  // 13.0: a version above its own (99000) answers 1 and leaves the outputs alone.
  if (symbol == nullptr || funcPtr == nullptr || cudaVersion > CUDART_VERSION) {
    return cudaErrorInvalidValue;
  }
  Driver& driver = DefaultDriver();
  if (!driver.ok()) return cudaErrorInsufficientDriver;
  const int limit = driver.effective_version();
  const int version = static_cast<int>(cudaVersion) < limit ? static_cast<int>(cudaVersion) : limit;
  *funcPtr = nullptr;
  int status = cudaDriverEntryPointSymbolNotFound;
  int rc = 0;
  if (auto v2 = reinterpret_cast<int (*)(const char*, void**, int, unsigned long long, int*)>(
          driver.real_get_proc_address_v2())) {
    rc = v2(symbol, funcPtr, version, flags, &status);
    if (rc == 500) rc = 0;  // CUDA_ERROR_NOT_FOUND: the status says which
  } else if (auto v1 = reinterpret_cast<int (*)(const char*, void**, int, unsigned long long)>(
                 driver.real_get_proc_address())) {
    rc = v1(symbol, funcPtr, version, flags);
    if (rc == 0 && *funcPtr != nullptr) status = cudaDriverEntryPointSuccess;
    if (rc == 500) rc = 0;  // CUDA_ERROR_NOT_FOUND: 12.x+ answers success with the status
  } else {
    *funcPtr = dlsym(driver.handle(), symbol);
    if (*funcPtr != nullptr) status = cudaDriverEntryPointSuccess;
  }
  if (rc != 0) return CudaErrorFromDriver(rc);
  if (status != cudaDriverEntryPointSuccess) *funcPtr = nullptr;
  if (driverStatus != nullptr) *driverStatus = static_cast<cudaDriverEntryPointQueryResult>(status);
  return cudaSuccess;
}
template <int I>
cudaError_t GetDriverEntryPointByVersionDriverImpl(const char* symbol, void** funcPtr,
                                               unsigned int cudaVersion, unsigned long long flags,
                                               cudaDriverEntryPointQueryResult* driverStatus) {
  if (CudartAdapterRuntime(I) == nullptr) return CUDYN_NO_RUNTIME;
  return DriverEntryPointByVersion(symbol, funcPtr, cudaVersion, flags, driverStatus);
}
template <int I>
cudaError_t GetDriverEntryPointByVersionDriver(const char* symbol, void** funcPtr, unsigned int cudaVersion,
    unsigned long long flags, cudaDriverEntryPointQueryResult* driverStatus) {
  return Served<I>(
      GetDriverEntryPointByVersionDriverImpl<I>(symbol, funcPtr, cudaVersion, flags, driverStatus));
}
// The per-thread twin is what a program built with per-thread default streams calls: its
// cudaEnableDefault asks for the per-thread variants.
template <int I>
cudaError_t GetDriverEntryPointByVersionDriverPtszImpl(const char* symbol, void** funcPtr,
                                                   unsigned int cudaVersion,
                                                   unsigned long long flags,
                                                   cudaDriverEntryPointQueryResult* driverStatus) {
  if (CudartAdapterRuntime(I) == nullptr) return CUDYN_NO_RUNTIME;
  return DriverEntryPointByVersion(symbol, funcPtr, cudaVersion,
                                   flags == cudaEnableDefault
                                       ? static_cast<unsigned long long>(
                                             cudaEnablePerThreadDefaultStream)
                                       : flags,
                                   driverStatus);
}
template <int I>
cudaError_t GetDriverEntryPointByVersionDriverPtsz(const char* symbol, void** funcPtr, unsigned int cudaVersion,
    unsigned long long flags, cudaDriverEntryPointQueryResult* driverStatus) {
  return Served<I>(
      GetDriverEntryPointByVersionDriverPtszImpl<I>(symbol, funcPtr, cudaVersion, flags, driverStatus));
}

// cudaFuncGetParamInfo (12.4+): the runtime's own cudaGetFuncBySymbol (11.0+) gives the host
// stub's CUfunction in the current context (cudaFunction_t is CUfunction: struct CUfunc_st*), after
// the runtime's initialisation and with its errors; then the driver's cuFuncGetParamInfo (driver
// 12.4+), its CUresult translated (1 for an index past the last parameter). A driver without it
// answers 35 before anything runs, as the Driver_ entries do. What is no device entry function
// (cudaGetFuncBySymbol: 98) 13.0 takes for a cudaKernel_t "used as is" (\note_cudaKernel_t of
// cuda_runtime_api.h; on these runtimes one comes from the served cudaLibraryGetKernel): asked of
// the driver's cuKernelGetParamInfo (12.4+, CUkernel is cudaKernel_t), and the runtime's last error
// that the failed lookup left is cleared when there was none before (13.0 records none). A NULL
// func keeps the runtime's answer. 13.0 (H100, driver 580): a kernel's parameters (int, double,
// char) at offsets 0/8/16, sizes 4/8/1; index 3 answers 1; the kernel's cudaKernel_t (cudaGetKernel)
// index 1 -> 0, offset 8, size 8, no last error; a host pointer that is neither 400 (the driver's
// answer for it as a kernel); NULL 98.
// The driver's cuFuncGetParamInfo or cuKernelGetParamInfo (entry), one shape: (the function or
// kernel handle, index, offset out, size out), its CUresult translated.
template <typename Handle>
cudaError_t ParamInfoFromDriver(int entry, Handle handle, size_t paramIndex, size_t* paramOffset,
                                size_t* paramSize) {
  using ParamInfoFn = int (*)(Handle, size_t, size_t*, size_t*);
  auto info = reinterpret_cast<ParamInfoFn>(ServedDriverEntry(entry));
  if (info == nullptr) return cudaErrorInsufficientDriver;
  return CudaErrorFromDriver(info(handle, paramIndex, paramOffset, paramSize));
}
template <int I>
cudaError_t FuncGetParamInfoDriverImpl(const void* func, size_t paramIndex, size_t* paramOffset,
                                   size_t* paramSize) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  if (ServedDriverEntry(kEntry_cuFuncGetParamInfo) == nullptr) return cudaErrorInsufficientDriver;
  auto by_symbol = Old<cudaError_t (*)(cudaFunction_t*, const void*)>(rt, "cudaGetFuncBySymbol");
  if (by_symbol == nullptr) {
    return static_cast<cudaError_t>(rt->missing_result(kCudart_cudaFuncGetParamInfo));
  }
  auto peek = Old<cudaError_t (*)()>(rt, "cudaPeekAtLastError");
  auto reset = Old<cudaError_t (*)()>(rt, "cudaGetLastError");
  const bool clear_before = peek != nullptr && peek() == cudaSuccess;
  cudaFunction_t function = nullptr;
  const cudaError_t rc = by_symbol(&function, func);
  if (rc == cudaErrorInvalidDeviceFunction && func != nullptr) {
    if (ServedDriverEntry(kEntry_cuKernelGetParamInfo) == nullptr) return rc;
    if (clear_before && reset != nullptr) reset();
    auto kernel = reinterpret_cast<CUkernel>(const_cast<void*>(func));
    return ParamInfoFromDriver(kEntry_cuKernelGetParamInfo, kernel, paramIndex, paramOffset,
                               paramSize);
  }
  if (rc != cudaSuccess) return rc;
  return ParamInfoFromDriver(kEntry_cuFuncGetParamInfo, reinterpret_cast<CUfunction>(function),
                             paramIndex, paramOffset, paramSize);
}
template <int I>
cudaError_t FuncGetParamInfoDriver(const void* func, size_t paramIndex, size_t* paramOffset,
    size_t* paramSize) {
  return Served<I>(FuncGetParamInfoDriverImpl<I>(func, paramIndex, paramOffset, paramSize));
}

// cudaKernelSetAttributeForDevice (13.0): the driver's cuKernelSetAttribute (driver 12.0+), whose
// arguments come in another order (attribute, value, kernel, device). cudaKernel_t is CUkernel
// (struct CUkern_st*); the device ordinal is the CUdevice (both count the visible devices alike).
// cudaFuncAttribute is mapped by name to CUfunction_attribute below; a value that names no
// cudaFuncAttribute (the driver's read-only attributes 0-7 among them) answers 1
// cudaErrorInvalidValue without a driver call. Order: 35 where the driver lacks the entry, then the
// runtime's initialisation (cuInit(0): the call is context-free), then the attribute, then the call.
// 13.0 (H100, driver 580): attributes 0, 4, 7, 16 (cudaFuncAttributeMax), -1, 100 answer 1; 8 and 9
// 0; device 99 101; a NULL kernel 400 with a valid attribute, 1 with attribute 0 (the attribute is
// checked before the kernel, as here).
struct FuncAttributePair {
  cudaFuncAttribute runtime;
  CUfunction_attribute driver;
};
constexpr FuncAttributePair kFuncAttributePairs[] = {
    {cudaFuncAttributeMaxDynamicSharedMemorySize, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
    {cudaFuncAttributePreferredSharedMemoryCarveout,
     CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT},
    {cudaFuncAttributeClusterDimMustBeSet, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET},
    {cudaFuncAttributeRequiredClusterWidth, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH},
    {cudaFuncAttributeRequiredClusterHeight, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT},
    {cudaFuncAttributeRequiredClusterDepth, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH},
    {cudaFuncAttributeNonPortableClusterSizeAllowed,
     CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED},
    {cudaFuncAttributeClusterSchedulingPolicyPreference,
     CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE},
};
// Every cudaFuncAttribute (they run from MaxDynamicSharedMemorySize up to cudaFuncAttributeMax) is
// paired exactly once, and the headers give each pair one value (so a new enumerator in a later
// header fails the build here rather than answering 1).
constexpr bool FuncAttributesPairedOnce() {
  constexpr int first = cudaFuncAttributeMaxDynamicSharedMemorySize;
  constexpr int n = sizeof(kFuncAttributePairs) / sizeof(kFuncAttributePairs[0]);
  if (cudaFuncAttributeMax - first != n) return false;
  for (int v = first; v < cudaFuncAttributeMax; ++v) {
    int seen = 0;
    for (const FuncAttributePair& p : kFuncAttributePairs) seen += p.runtime == v ? 1 : 0;
    if (seen != 1) return false;
  }
  return true;
}
static_assert(FuncAttributesPairedOnce(), "a cudaFuncAttribute without its CUfunction_attribute");
constexpr bool FuncAttributeValuesEqual() {
  for (const FuncAttributePair& p : kFuncAttributePairs) {
    if (static_cast<int>(p.runtime) != static_cast<int>(p.driver)) return false;
  }
  return true;
}
static_assert(FuncAttributeValuesEqual(), "cudaFuncAttribute values are CUfunction_attribute's");

template <int I>
cudaError_t KernelSetAttributeForDeviceDriverImpl(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                              int value, int device) {
  if (CudartAdapterRuntime(I) == nullptr) return CUDYN_NO_RUNTIME;
  using SetFn = int (*)(CUfunction_attribute, int, CUkernel, CUdevice);
  auto set = reinterpret_cast<SetFn>(ServedDriverEntry(kEntry_cuKernelSetAttribute));
  if (set == nullptr) return cudaErrorInsufficientDriver;
  using InitFn = int (*)(unsigned int);
  auto cu_init = reinterpret_cast<InitFn>(ServedDriverEntry(kEntry_cuInit));
  if (cu_init == nullptr) return cudaErrorInsufficientDriver;
  const int init_rc = cu_init(0);
  if (init_rc != 0) return CudaErrorFromDriver(init_rc);
  for (const FuncAttributePair& p : kFuncAttributePairs) {
    if (p.runtime == attr) return CudaErrorFromDriver(set(p.driver, value, kernel, device));
  }
  return cudaErrorInvalidValue;
}
template <int I>
cudaError_t KernelSetAttributeForDeviceDriver(cudaKernel_t kernel, enum cudaFuncAttribute attr,
    int value, int device) {
  return Served<I>(KernelSetAttributeForDeviceDriverImpl<I>(kernel, attr, value, device));
}

// ---- launches and cluster occupancy on 11.2 (11.8+ runtimes have them) ----
// cudaLaunchKernelExC(_ptsz), cudaOccupancyMaxPotentialClusterSize and
// cudaOccupancyMaxActiveClusters take a cudaLaunchConfig_t; the driver's cuLaunchKernelEx(_ptsz),
// cuOccupancyMaxPotentialClusterSize and cuOccupancyMaxActiveClusters (driver 11.8+) a
// CUlaunchConfig: the same grid, block and stream (cudaStream_t is CUstream; cudaStreamLegacy /
// cudaStreamPerThread are CU_STREAM_LEGACY / CU_STREAM_PER_THREAD; a NULL stream is the legacy
// default stream for the plain entries and the per-thread one for the _ptsz twins, in both APIs),
// dynamicSmemBytes a size_t where sharedMemBytes is an unsigned (13.0 truncates it: 2^32 bytes
// launch as 0, measured on the H100), and an attribute array of the driver's layout and values
// (asserted below), passed as it is. 13.0 (H100, driver 580): a cluster launch (cluster 2x1x1)
// runs with %cluster_nctarank 2; a host function no module registered answers 400 (launch and
// both occupancy calls, with or without attributes), a NULL func 98, attributes counted but NULL
// 1; a NULL config crashes it (answered 1 here).
static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute) &&
                  offsetof(cudaLaunchAttribute, id) == offsetof(CUlaunchAttribute, id) &&
                  offsetof(cudaLaunchAttribute, val) == offsetof(CUlaunchAttribute, value) &&
                  sizeof(cudaLaunchAttributeValue) == sizeof(CUlaunchAttributeValue) &&
                  sizeof(cudaLaunchAttributeID) == sizeof(CUlaunchAttributeID),
              "cudaLaunchAttribute is CUlaunchAttribute");
// Every member of the value union starts at 0; each has the driver member's size (and fields).
#define CUDYN_SAME_MEMBER(rt_member, cu_member)                                        \
  static_assert(sizeof(static_cast<cudaLaunchAttributeValue*>(nullptr)->rt_member) ==  \
                    sizeof(static_cast<CUlaunchAttributeValue*>(nullptr)->cu_member) && \
                    offsetof(cudaLaunchAttributeValue, rt_member) ==                    \
                        offsetof(CUlaunchAttributeValue, cu_member),                    \
                "cudaLaunchAttributeValue." #rt_member " is CUlaunchAttributeValue." #cu_member);
CUDYN_SAME_MEMBER(accessPolicyWindow, accessPolicyWindow)
CUDYN_SAME_MEMBER(accessPolicyWindow.base_ptr, accessPolicyWindow.base_ptr)
CUDYN_SAME_MEMBER(accessPolicyWindow.num_bytes, accessPolicyWindow.num_bytes)
CUDYN_SAME_MEMBER(accessPolicyWindow.hitRatio, accessPolicyWindow.hitRatio)
CUDYN_SAME_MEMBER(accessPolicyWindow.hitProp, accessPolicyWindow.hitProp)
CUDYN_SAME_MEMBER(accessPolicyWindow.missProp, accessPolicyWindow.missProp)
CUDYN_SAME_MEMBER(cooperative, cooperative)
CUDYN_SAME_MEMBER(syncPolicy, syncPolicy)
CUDYN_SAME_MEMBER(clusterDim.x, clusterDim.x)
CUDYN_SAME_MEMBER(clusterDim.y, clusterDim.y)
CUDYN_SAME_MEMBER(clusterDim.z, clusterDim.z)
CUDYN_SAME_MEMBER(clusterSchedulingPolicyPreference, clusterSchedulingPolicyPreference)
CUDYN_SAME_MEMBER(programmaticStreamSerializationAllowed, programmaticStreamSerializationAllowed)
CUDYN_SAME_MEMBER(programmaticEvent.event, programmaticEvent.event)
CUDYN_SAME_MEMBER(programmaticEvent.flags, programmaticEvent.flags)
CUDYN_SAME_MEMBER(programmaticEvent.triggerAtBlockStart, programmaticEvent.triggerAtBlockStart)
CUDYN_SAME_MEMBER(priority, priority)
CUDYN_SAME_MEMBER(memSyncDomainMap.default_, memSyncDomainMap.default_)
CUDYN_SAME_MEMBER(memSyncDomainMap.remote, memSyncDomainMap.remote)
CUDYN_SAME_MEMBER(memSyncDomain, memSyncDomain)
CUDYN_SAME_MEMBER(preferredClusterDim.x, preferredClusterDim.x)
CUDYN_SAME_MEMBER(preferredClusterDim.y, preferredClusterDim.y)
CUDYN_SAME_MEMBER(preferredClusterDim.z, preferredClusterDim.z)
CUDYN_SAME_MEMBER(launchCompletionEvent.event, launchCompletionEvent.event)
CUDYN_SAME_MEMBER(launchCompletionEvent.flags, launchCompletionEvent.flags)
CUDYN_SAME_MEMBER(deviceUpdatableKernelNode.deviceUpdatable,
                  deviceUpdatableKernelNode.deviceUpdatable)
CUDYN_SAME_MEMBER(deviceUpdatableKernelNode.devNode, deviceUpdatableKernelNode.devNode)
CUDYN_SAME_MEMBER(sharedMemCarveout, sharedMemCarveout)
CUDYN_SAME_MEMBER(nvlinkUtilCentricScheduling, nvlinkUtilCentricScheduling)
#undef CUDYN_SAME_MEMBER
// The attribute ids and the enums inside the values have the driver's numbers (as integers).
constexpr bool SameNumber(long long runtime_value, long long driver_value) {
  return runtime_value == driver_value;
}
static_assert(SameNumber(cudaLaunchAttributeIgnore, CU_LAUNCH_ATTRIBUTE_IGNORE) &&
                  SameNumber(cudaLaunchAttributeAccessPolicyWindow,
                             CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) &&
                  SameNumber(cudaLaunchAttributeCooperative, CU_LAUNCH_ATTRIBUTE_COOPERATIVE) &&
                  SameNumber(cudaLaunchAttributeSynchronizationPolicy,
                             CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY) &&
                  SameNumber(cudaLaunchAttributeClusterDimension,
                             CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) &&
                  SameNumber(cudaLaunchAttributeClusterSchedulingPolicyPreference,
                             CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) &&
                  SameNumber(cudaLaunchAttributeProgrammaticStreamSerialization,
                             CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) &&
                  SameNumber(cudaLaunchAttributeProgrammaticEvent,
                             CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT) &&
                  SameNumber(cudaLaunchAttributePriority, CU_LAUNCH_ATTRIBUTE_PRIORITY) &&
                  SameNumber(cudaLaunchAttributeMemSyncDomainMap,
                             CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP) &&
                  SameNumber(cudaLaunchAttributeMemSyncDomain,
                             CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN) &&
                  SameNumber(cudaLaunchAttributePreferredClusterDimension,
                             CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION) &&
                  SameNumber(cudaLaunchAttributeLaunchCompletionEvent,
                             CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT) &&
                  SameNumber(cudaLaunchAttributeDeviceUpdatableKernelNode,
                             CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE) &&
                  SameNumber(cudaLaunchAttributePreferredSharedMemoryCarveout,
                             CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) &&
                  SameNumber(cudaLaunchAttributeNvlinkUtilCentricScheduling,
                             CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING),
              "cudaLaunchAttributeID is CUlaunchAttributeID");
static_assert(SameNumber(cudaAccessPropertyNormal, CU_ACCESS_PROPERTY_NORMAL) &&
                  SameNumber(cudaAccessPropertyStreaming, CU_ACCESS_PROPERTY_STREAMING) &&
                  SameNumber(cudaAccessPropertyPersisting, CU_ACCESS_PROPERTY_PERSISTING) &&
                  SameNumber(cudaSyncPolicyAuto, CU_SYNC_POLICY_AUTO) &&
                  SameNumber(cudaSyncPolicySpin, CU_SYNC_POLICY_SPIN) &&
                  SameNumber(cudaSyncPolicyYield, CU_SYNC_POLICY_YIELD) &&
                  SameNumber(cudaSyncPolicyBlockingSync, CU_SYNC_POLICY_BLOCKING_SYNC) &&
                  SameNumber(cudaClusterSchedulingPolicyDefault,
                             CU_CLUSTER_SCHEDULING_POLICY_DEFAULT) &&
                  SameNumber(cudaClusterSchedulingPolicySpread,
                             CU_CLUSTER_SCHEDULING_POLICY_SPREAD) &&
                  SameNumber(cudaClusterSchedulingPolicyLoadBalancing,
                             CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING) &&
                  SameNumber(cudaLaunchMemSyncDomainDefault, CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT) &&
                  SameNumber(cudaLaunchMemSyncDomainRemote, CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE),
              "the enums of cudaLaunchAttributeValue are the driver's");
static_assert(sizeof(cudaEvent_t) == sizeof(CUevent) && sizeof(cudaStream_t) == sizeof(CUstream) &&
                  sizeof(cudaGraphDeviceNode_t) == sizeof(CUgraphDeviceNode),
              "the handles in a launch configuration are the driver's");

static_assert(SameNumber(cudaGraphNodeTypeConditional, CU_GRAPH_NODE_TYPE_CONDITIONAL) &&
                  sizeof(cudaGraphConditionalHandle) == sizeof(CUgraphConditionalHandle) &&
                  sizeof(cudaGraphConditionalNodeType) == sizeof(CUgraphConditionalNodeType) &&
                  sizeof(cudaGraph_t) == sizeof(CUgraph),
              "a conditional node's type, handle, condition type and graphs are the driver's");

// ---- runtime structs handed to the driver: converted field by field (cudart_to_driver.inc) ----
// version_tables/generate_runtime.py's DRIVER_CONVERSIONS pair the fields by name; the offsets and
// sizes are the 13.0 facts', asserted below against the compiling headers. A byte copy is
// faithful because each pair holds the same thing in the same size (handles, pointers and enums,
// asserted equal above), except the rows marked narrow: an unsigned integer the driver holds in
// fewer bytes, truncated as 13.0 does (dynamicSmemBytes -> sharedMemBytes). Driver fields without
// a row are zero, or the caller sets them (a conditional node's ctx).
enum class ToDriverId {
#define CUDYN_CUDART_TO_DRIVER(name, rt_type, rt_size, drv_type, drv_size) k##name,
#define CUDYN_CUDART_TO_DRIVER_FIELD(name, rt_type, rt_path, rt_off, rt_size, drv_type, drv_path, \
                                     drv_off, drv_size, narrow)
#include "version_tables/generated_cudart/cudart_to_driver.inc"
#undef CUDYN_CUDART_TO_DRIVER
#undef CUDYN_CUDART_TO_DRIVER_FIELD
};
// Every row against the compiling headers: the facts and the headers must agree.
#define CUDYN_CUDART_TO_DRIVER(name, rt_type, rt_size, drv_type, drv_size)    \
  static_assert(sizeof(rt_type) == (rt_size) && sizeof(drv_type) == (drv_size), \
                "cudart_to_driver.inc: " #name "'s struct sizes are not the headers'");
#define CUDYN_CUDART_TO_DRIVER_FIELD(name, rt_type, rt_path, rt_off, rt_size, drv_type, drv_path, \
                                     drv_off, drv_size, narrow)                                  \
  static_assert(offsetof(rt_type, rt_path) == (rt_off) &&                                         \
                    sizeof(static_cast<rt_type*>(nullptr)->rt_path) == (rt_size) &&              \
                    offsetof(drv_type, drv_path) == (drv_off) &&                                 \
                    sizeof(static_cast<drv_type*>(nullptr)->drv_path) == (drv_size) &&           \
                    ((narrow) ? (drv_size) < (rt_size) : (drv_size) == (rt_size)),               \
                "cudart_to_driver.inc: " #name " " #rt_path " -> " #drv_path                     \
                " disagrees with the headers");
#include "version_tables/generated_cudart/cudart_to_driver.inc"
#undef CUDYN_CUDART_TO_DRIVER
#undef CUDYN_CUDART_TO_DRIVER_FIELD
struct ToDriverSizes {
  ToDriverId id;
  int runtime_size, driver_size;
};
constexpr ToDriverSizes kToDriverSizes[] = {
#define CUDYN_CUDART_TO_DRIVER(name, rt_type, rt_size, drv_type, drv_size) \
  {ToDriverId::k##name, rt_size, drv_size},
#define CUDYN_CUDART_TO_DRIVER_FIELD(name, rt_type, rt_path, rt_off, rt_size, drv_type, drv_path, \
                                     drv_off, drv_size, narrow)
#include "version_tables/generated_cudart/cudart_to_driver.inc"
#undef CUDYN_CUDART_TO_DRIVER
#undef CUDYN_CUDART_TO_DRIVER_FIELD
};
struct ToDriverField {
  ToDriverId id;
  int rt_off, rt_size, drv_off, drv_size;  // drv_size < rt_size: narrowed
};
constexpr ToDriverField kToDriverFields[] = {
#define CUDYN_CUDART_TO_DRIVER(name, rt_type, rt_size, drv_type, drv_size)
#define CUDYN_CUDART_TO_DRIVER_FIELD(name, rt_type, rt_path, rt_off, rt_size, drv_type, drv_path, \
                                     drv_off, drv_size, narrow)                                  \
  {ToDriverId::k##name, rt_off, rt_size, drv_off, drv_size},
#include "version_tables/generated_cudart/cudart_to_driver.inc"
#undef CUDYN_CUDART_TO_DRIVER
#undef CUDYN_CUDART_TO_DRIVER_FIELD
};
constexpr bool ToDriverTypes(ToDriverId id, size_t runtime_size, size_t driver_size) {
  for (const ToDriverSizes& s : kToDriverSizes) {
    if (s.id == id) {
      return static_cast<size_t>(s.runtime_size) == runtime_size &&
             static_cast<size_t>(s.driver_size) == driver_size;
    }
  }
  return false;
}

// The unsigned integer of `size` bytes (1, 2, 4 or 8) at `p`, and its store: a narrowing row
// converts the value as a cast does (the low bytes kept), whatever the byte order.
template <typename T>
unsigned long long Load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename T>
void Store(unsigned char* p, unsigned long long value) {
  const T v = static_cast<T>(value);
  std::memcpy(p, &v, sizeof(v));
}
unsigned long long LoadUnsigned(const unsigned char* p, int size) {
  return size == 1 ? Load<std::uint8_t>(p) : size == 2 ? Load<std::uint16_t>(p)
                   : size == 4 ? Load<std::uint32_t>(p) : Load<std::uint64_t>(p);
}
void StoreUnsigned(unsigned char* p, int size, unsigned long long value) {
  if (size == 1) return Store<std::uint8_t>(p, value);
  if (size == 2) return Store<std::uint16_t>(p, value);
  if (size == 4) return Store<std::uint32_t>(p, value);
  Store<std::uint64_t>(p, value);
}

// The runtime struct `in` as the driver struct `*out` (zero-filled first) by the rows of `kId`.
template <ToDriverId kId, typename Runtime, typename Driver>
void ToDriver(const Runtime& in, Driver* out) {
  static_assert(ToDriverTypes(kId, sizeof(Runtime), sizeof(Driver)),
                "the conversion's rows are for other types");
  const auto* src = reinterpret_cast<const unsigned char*>(&in);
  auto* dst = reinterpret_cast<unsigned char*>(out);
  std::memset(dst, 0, sizeof(Driver));
  for (const ToDriverField& f : kToDriverFields) {
    if (f.id != kId) continue;
    if (f.drv_size == f.rt_size) {
      std::memcpy(dst + f.drv_off, src + f.rt_off, f.rt_size);
    } else {
      StoreUnsigned(dst + f.drv_off, f.drv_size, LoadUnsigned(src + f.rt_off, f.rt_size));
    }
  }
}

// The caller's configuration as the driver takes it; its attribute array is the caller's.
CUlaunchConfig DriverLaunchConfig(const cudaLaunchConfig_t& config) {
  CUlaunchConfig out;
  ToDriver<ToDriverId::kLaunchConfig>(config, &out);
  return out;
}

// The CUfunction to launch for `func` in the runtime's current context, after the runtime's
// initialisation (its cudaFree(NULL), its error the answer). A host stub: the runtime's own
// cudaGetFuncBySymbol (11.0+; a 10.x runtime has none: entry `index` answers as one no path
// serves), with its errors. What the runtime does not know (98) and is not
// NULL 13.0 uses as a cudaKernel_t (\note_cudaKernel_t of cuda_runtime_api.h; on these runtimes
// one comes from the served cudaLibraryGetKernel): the driver's cuKernelGetFunction (12.0+; a
// driver without it has no cudaKernel_t, so 98 stays the answer), its error translated (13.0: an
// unregistered host function 400), the runtime's last error from the failed lookup cleared when it
// had none before (13.0 records only the final answer).
cudaError_t KernelAsFunction(Runtime* rt, const void* func, bool clear_before,
                             CUfunction* function) {
  using GetFn = int (*)(CUfunction*, CUkernel);
  auto get = reinterpret_cast<GetFn>(ServedDriverEntry(kEntry_cuKernelGetFunction));
  if (get == nullptr) return cudaErrorInvalidDeviceFunction;
  auto reset = Old<cudaError_t (*)()>(rt, "cudaGetLastError");
  if (clear_before && reset != nullptr) reset();
  return CudaErrorFromDriver(get(function, reinterpret_cast<CUkernel>(const_cast<void*>(func))));
}
bool NoLastError(Runtime* rt) {
  auto peek = Old<cudaError_t (*)()>(rt, "cudaPeekAtLastError");
  return peek != nullptr && peek() == cudaSuccess;
}
cudaError_t FunctionOf(Runtime* rt, int index, const void* func, CUfunction* function) {
  auto runtime_free = Old<cudaError_t (*)(void*)>(rt, "cudaFree");
  auto by_symbol = Old<cudaError_t (*)(cudaFunction_t*, const void*)>(rt, "cudaGetFuncBySymbol");
  if (runtime_free == nullptr || by_symbol == nullptr) {
    return static_cast<cudaError_t>(rt->missing_result(index));
  }
  const cudaError_t init_rc = runtime_free(nullptr);
  if (init_rc != cudaSuccess) return init_rc;
  const bool clear_before = NoLastError(rt);
  cudaFunction_t found = nullptr;
  const cudaError_t rc = by_symbol(&found, func);
  if (rc == cudaErrorInvalidDeviceFunction && func != nullptr) {
    return KernelAsFunction(rt, func, clear_before, function);
  }
  if (rc == cudaSuccess) *function = reinterpret_cast<CUfunction>(found);  // CUfunc_st* both
  return rc;
}

// cudaLaunchKernelExC(_ptsz) where the runtime lacks it (11.2). Without attributes it is the
// runtime's own cudaLaunchKernel(_ptsz) (its answers and its last error; a func it does not know
// goes on as a cudaKernel_t, above); with attributes the driver's cuLaunchKernelEx(_ptsz) (35
// where the driver lacks it, nothing run) on FunctionOf's CUfunction.
template <int I, bool kPtsz>
cudaError_t LaunchKernelExCImpl(const cudaLaunchConfig_t* config, const void* func, void** args) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  if (config == nullptr) return cudaErrorInvalidValue;
  using DriverFn = int (*)(const CUlaunchConfig*, CUfunction, void**, void**);
  auto driver_launch = reinterpret_cast<DriverFn>(
      ServedDriverEntry(kPtsz ? kEntry_cuLaunchKernelEx_ptsz : kEntry_cuLaunchKernelEx));
  CUfunction function = nullptr;
  if (config->numAttrs == 0) {
    using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
    auto launch = Old<LaunchFn>(rt, kPtsz ? "cudaLaunchKernel_ptsz" : "cudaLaunchKernel");
    if (launch == nullptr) return CUDYN_MISSING;
    const bool clear_before = NoLastError(rt);
    const cudaError_t rc = launch(func, config->gridDim, config->blockDim, args,
                                  config->dynamicSmemBytes, config->stream);
    if (rc != cudaErrorInvalidDeviceFunction || func == nullptr || driver_launch == nullptr) {
      return rc;
    }
    const cudaError_t kernel_rc = KernelAsFunction(rt, func, clear_before, &function);
    if (kernel_rc != cudaSuccess) return kernel_rc;
  } else {
    if (driver_launch == nullptr) return cudaErrorInsufficientDriver;
    const cudaError_t rc = FunctionOf(
        rt, kPtsz ? kCudart_cudaLaunchKernelExC_ptsz : kCudart_cudaLaunchKernelExC, func,
        &function);
    if (rc != cudaSuccess) return rc;
  }
  const CUlaunchConfig driver_config = DriverLaunchConfig(*config);
  return CudaErrorFromDriver(driver_launch(&driver_config, function, args, nullptr));
}
template <int I>
cudaError_t LaunchKernelExCDriver(const cudaLaunchConfig_t* config, const void* func,
                                  void** args) {
  return Served<I>(LaunchKernelExCImpl<I, false>(config, func, args));
}
template <int I>
cudaError_t LaunchKernelExCDriverPtsz(const cudaLaunchConfig_t* config, const void* func,
                                      void** args) {
  return Served<I>(LaunchKernelExCImpl<I, true>(config, func, args));
}

// cudaOccupancyMaxPotentialClusterSize / cudaOccupancyMaxActiveClusters where the runtime lacks
// them (11.2): the driver's entry (35 where the driver lacks it, nothing run) on FunctionOf's
// CUfunction with the converted configuration.
template <int I>
cudaError_t ClusterOccupancyImpl(int index, int entry, int* out, const void* func,
                                 const cudaLaunchConfig_t* config) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  using DriverFn = int (*)(int*, CUfunction, const CUlaunchConfig*);
  auto occupancy = reinterpret_cast<DriverFn>(ServedDriverEntry(entry));
  if (occupancy == nullptr) return cudaErrorInsufficientDriver;
  if (config == nullptr) return cudaErrorInvalidValue;
  CUfunction function = nullptr;
  const cudaError_t rc = FunctionOf(rt, index, func, &function);
  if (rc != cudaSuccess) return rc;
  const CUlaunchConfig driver_config = DriverLaunchConfig(*config);
  return CudaErrorFromDriver(occupancy(out, function, &driver_config));
}
template <int I>
cudaError_t OccupancyMaxPotentialClusterSizeDriver(int* clusterSize, const void* func,
                                                   const cudaLaunchConfig_t* launchConfig) {
  return Served<I>(ClusterOccupancyImpl<I>(kCudart_cudaOccupancyMaxPotentialClusterSize,
                                           kEntry_cuOccupancyMaxPotentialClusterSize, clusterSize,
                                           func, launchConfig));
}
template <int I>
cudaError_t OccupancyMaxActiveClustersDriver(int* numClusters, const void* func,
                                             const cudaLaunchConfig_t* launchConfig) {
  return Served<I>(ClusterOccupancyImpl<I>(kCudart_cudaOccupancyMaxActiveClusters,
                                           kEntry_cuOccupancyMaxActiveClusters, numClusters, func,
                                           launchConfig));
}

template <int I>
cudaError_t DevicePropConvert(struct cudaDeviceProp* prop, int device) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(void*, int);
  auto fn = Old<Fn>(rt, "cudaGetDeviceProperties_v2");  // 12.x: its own (1032 B) layout
  if (fn == nullptr) fn = Old<Fn>(rt, "cudaGetDeviceProperties");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  if (prop == nullptr) return Served<I>(cudaErrorInvalidValue);
  alignas(16) unsigned char old[kMaxDevicePropSize] = {};
  cudaError_t rc = fn(old, device);
  if (rc == cudaSuccess) DevicePropToCurrent(old, rt->family(), prop);
  return rc;
}

template <int I>
cudaError_t ChooseDevicePropConvert(int* device, const struct cudaDeviceProp* prop) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(int*, const void*);
  auto fn = Old<Fn>(rt, "cudaChooseDevice");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  if (prop == nullptr) return fn(device, nullptr);
  alignas(16) unsigned char old[kMaxDevicePropSize];
  DevicePropFromCurrent(prop, rt->family(), old);
  return fn(device, old);
}

// cudaCreateTextureObject: 12.x takes the 13.0 cudaTextureDesc (72 B) but the 64-B resource and
// 48-B view descriptors; 11.6+ (11.8 here) takes a 72-B cudaTextureDesc_v2 through
// cudaCreateTextureObject_v2; older runtimes a 68-B cudaTextureDesc without seamlessCubemap.
template <int I>
cudaError_t CreateTextureObjectConvert(cudaTextureObject_t* pTexObject,
                                       const struct cudaResourceDesc* pResDesc,
                                       const struct cudaTextureDesc* pTexDesc,
                                       const struct cudaResourceViewDesc* pResViewDesc) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(cudaTextureObject_t*, const void*, const void*, const void*);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  const int family = rt->family();
  Fn fn = family <= 11 ? Old<Fn>(rt, "cudaCreateTextureObject_v2") : nullptr;
  const LayoutId tex_layout =
      fn != nullptr ? LayoutId::kcudaTextureDescV2 : LayoutId::kcudaTextureDesc;
  if (fn == nullptr) fn = Old<Fn>(rt, "cudaCreateTextureObject");
  if (fn == nullptr) return CUDYN_MISSING;
  constexpr int kIndex = kCudart_cudaCreateTextureObject;
  alignas(16) unsigned char res[kMaxLayoutSize], tex[kMaxLayoutSize], view[kMaxLayoutSize];
  if (pResDesc != nullptr) {
    if (const char* f = ToRuntimeLayout(LayoutId::kcudaResourceDesc, pResDesc, family, res)) {
      return CannotExpressField(rt, kIndex, "cudaResourceDesc", f);
    }
  }
  if (pTexDesc != nullptr) {
    if (const char* f = ToRuntimeLayout(tex_layout, pTexDesc, family, tex)) {
      return CannotExpressField(rt, kIndex, "cudaTextureDesc", f);
    }
  }
  if (pResViewDesc != nullptr) {
    if (const char* f =
            ToRuntimeLayout(LayoutId::kcudaResourceViewDesc, pResViewDesc, family, view)) {
      return CannotExpressField(rt, kIndex, "cudaResourceViewDesc", f);
    }
  }
  return fn(pTexObject, pResDesc != nullptr ? res : nullptr, pTexDesc != nullptr ? tex : nullptr,
            pResViewDesc != nullptr ? view : nullptr);
}

template <int I>
cudaError_t CreateSurfaceObjectConvert(cudaSurfaceObject_t* pSurfObject,
                                       const struct cudaResourceDesc* pResDesc) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(cudaSurfaceObject_t*, const void*);
  auto fn = Old<Fn>(rt, "cudaCreateSurfaceObject");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  if (pResDesc == nullptr) return fn(pSurfObject, nullptr);  // the runtime's own answer
  alignas(16) unsigned char res[kMaxLayoutSize];
  if (const char* f = ToRuntimeLayout(LayoutId::kcudaResourceDesc, pResDesc, rt->family(), res)) {
    return CannotExpressField(rt, kCudart_cudaCreateSurfaceObject, "cudaResourceDesc", f);
  }
  return fn(pSurfObject, res);
}

// cudaGet{Texture,Surface}ObjectResourceDesc: the runtime writes its 64-B layout into a buffer,
// converted into the caller's 144-B struct (flags and the union's spare room zero).
template <int I, bool kSurface>
cudaError_t GetResourceDescImpl(struct cudaResourceDesc* pResDesc, unsigned long long object) {
  Runtime* rt = CudartAdapterRuntime(I);
  using Fn = cudaError_t (*)(void*, unsigned long long);
  auto fn = Old<Fn>(rt, kSurface ? "cudaGetSurfaceObjectResourceDesc"
                                 : "cudaGetTextureObjectResourceDesc");
  if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;
  if (pResDesc == nullptr) return fn(nullptr, object);  // the runtime's own answer
  alignas(16) unsigned char old[kMaxLayoutSize] = {};
  cudaError_t rc = fn(old, object);
  if (rc == cudaSuccess) {
    FromRuntimeLayout(LayoutId::kcudaResourceDesc, old, rt->family(), pResDesc);
  }
  return rc;
}
template <int I>
cudaError_t GetTextureObjectResourceDescConvert(struct cudaResourceDesc* pResDesc,
                                                cudaTextureObject_t texObject) {
  return GetResourceDescImpl<I, false>(pResDesc, texObject);
}
template <int I>
cudaError_t GetSurfaceObjectResourceDescConvert(struct cudaResourceDesc* pResDesc,
                                                cudaSurfaceObject_t surfObject) {
  return GetResourceDescImpl<I, true>(pResDesc, surfObject);
}

// ---- generated zero-tail adapters (version_tables/generated_cudart/cudart_zero_tail.inc) ----
// An entry whose only difference from an older runtime's symbol is output structs to which 13.0
// only appended fields: each non-null output struct is zero-filled at its 13.0 size, then the
// first older symbol present is called with the same arguments. The older runtime writes its
// (shorter) prefix; the appended fields stay zero, their "not reported" value.
#define CUDYN_CUDART_ZERO_OUT(arg, size13)                                    \
  static_assert(sizeof(*(arg)) == (size13), "facts disagree with the headers"); \
  if ((arg) != nullptr) std::memset((arg), 0, sizeof(*(arg)));
#define CUDYN_EXPAND(...) __VA_ARGS__
#define CUDYN_CUDART_ZERO_TAIL(name, ret, params, args, olds, zero_outs)              \
  template <int I>                                                                    \
  ret name params {                                                                   \
    Runtime* rt = CudartAdapterRuntime(I);                                            \
    using Fn = ret(*) params;                                                         \
    Fn fn = nullptr;                                                                  \
    const char* old_names = olds "\0";                                                \
    for (const char* n = old_names; fn == nullptr && *n != '\0'; n += std::strlen(n) + 1) { \
      fn = Old<Fn>(rt, n);                                                            \
    }                                                                                 \
    if (fn == nullptr) return rt == nullptr ? CUDYN_NO_RUNTIME : CUDYN_MISSING;       \
    CUDYN_EXPAND zero_outs                                                            \
    return fn args;                                                                   \
  }
#include "version_tables/generated_cudart/cudart_zero_tail.inc"
#undef CUDYN_CUDART_ZERO_TAIL
#undef CUDYN_CUDART_ZERO_OUT

// ---- generated driver-served entries (version_tables/generated_cudart/cudart_served.inc) ----
// A 13.0 entry the runtime lacks that is a thin wrapper over one driver entry with the same
// arguments (inputs/cudart_served.tsv): served as the 13.0 runtime serves it. No usable driver,
// or one without the entry (older than its first driver): 35 cudaErrorInsufficientDriver, what a
// 13.0 runtime answers on any driver before 13.0. Then the initialisation the runtime does first
// (init context: the runtime's own cudaFree(NULL), which makes the device's primary context
// current on this thread, its error answered as it is; init driver: cuInit(0)), then the driver
// entry, bound through cudyn's driver layer (DefaultDriver(): cuGetProcAddress where the driver
// has it), its CUresult translated.

// CUresult -> cudaError_t as the runtime translates it: since CUDA 10.1 every cudaError_t the
// runtime gives a driver condition has the CUresult's number (100 CUDA_ERROR_NO_DEVICE ->
// cudaErrorNoDevice, 201 CUDA_ERROR_INVALID_CONTEXT -> cudaErrorDeviceUninitialized, 400
// CUDA_ERROR_INVALID_HANDLE -> cudaErrorInvalidResourceHandle, 500 CUDA_ERROR_NOT_FOUND ->
// cudaErrorSymbolNotFound, ...).
cudaError_t CudaErrorFromDriver(int result) { return static_cast<cudaError_t>(result); }
static_assert(cudaErrorNoDevice == 100 && cudaErrorDeviceUninitialized == 201 &&
                  cudaErrorInvalidResourceHandle == 400 && cudaErrorSymbolNotFound == 500 &&
                  cudaErrorNotSupported == 801 && cudaErrorInitializationError == 3,
              "cudaError_t numbering is the driver's");

// The enums and structs the served entries pass through unchanged have the driver's values and
// layout (cuda.h: CUmemLocationType, CUmemAllocationType, CUatomicOperation, CUmemLocation,
// CUjit_option, CUlibraryOption); the 13.0 runtime's headers must agree.
static_assert(cudaMemLocationTypeDevice == 1 && cudaMemLocationTypeHost == 2 &&
                  cudaMemLocationTypeHostNuma == 3 && cudaMemLocationTypeHostNumaCurrent == 4,
              "cudaMemLocationType is CUmemLocationType");
static_assert(sizeof(cudaMemLocation) == 8, "cudaMemLocation is CUmemLocation {type, id}");
static_assert(cudaMemAllocationTypePinned == 1 && cudaMemAllocationTypeManaged == 2,
              "cudaMemAllocationType is CUmemAllocationType");
static_assert(cudaAtomicOperationIntegerAdd == 0 && cudaAtomicOperationCAS == 9 &&
                  cudaAtomicOperationFloatMax == 12,
              "cudaAtomicOperation is CUatomicOperation");
static_assert(cudaJitMaxRegisters == 0 && cudaLibraryHostUniversalFunctionAndDataTable == 0 &&
                  cudaLibraryBinaryIsPreserved == 1,
              "cudaJitOption / cudaLibraryOption are CUjit_option / CUlibraryOption");

// The batch copies (cudaMemcpyBatchAsync, cudaMemcpy3DBatchAsync) pass their descriptors to the
// driver's cuMemcpyBatchAsync_v2 / cuMemcpy3DBatchAsync_v2 as they are: each runtime struct is the
// driver's field for field (offset and size of every field, union members included) and the enums
// in them have the driver's values. An array operand's cudaArray_t is the CUarray ("Memcpy operand
// is a CUarray", driver_types.h). 13.0 (H100, driver 580): a host-to-device batch copy and a 3D batch
// copy from host memory into a cudaMallocArray array land; source access order Invalid answers 1.
#define CUDYN_SAME_FIELD(rt_type, rt_field, cu_type, cu_field)               \
  static_assert(offsetof(rt_type, rt_field) == offsetof(cu_type, cu_field) && \
                    sizeof(static_cast<rt_type*>(nullptr)->rt_field) ==           \
                        sizeof(static_cast<cu_type*>(nullptr)->cu_field),     \
                #rt_type "." #rt_field " is " #cu_type "." #cu_field);
static_assert(sizeof(cudaMemcpyAttributes) == sizeof(CUmemcpyAttributes), "cudaMemcpyAttributes");
CUDYN_SAME_FIELD(cudaMemcpyAttributes, srcAccessOrder, CUmemcpyAttributes, srcAccessOrder)
CUDYN_SAME_FIELD(cudaMemcpyAttributes, srcLocHint, CUmemcpyAttributes, srcLocHint)
CUDYN_SAME_FIELD(cudaMemcpyAttributes, dstLocHint, CUmemcpyAttributes, dstLocHint)
CUDYN_SAME_FIELD(cudaMemcpyAttributes, flags, CUmemcpyAttributes, flags)
CUDYN_SAME_FIELD(cudaMemLocation, type, CUmemLocation, type)
CUDYN_SAME_FIELD(cudaMemLocation, id, CUmemLocation, id)
static_assert(sizeof(cudaMemcpy3DBatchOp) == sizeof(CUDA_MEMCPY3D_BATCH_OP), "cudaMemcpy3DBatchOp");
CUDYN_SAME_FIELD(cudaMemcpy3DBatchOp, src, CUDA_MEMCPY3D_BATCH_OP, src)
CUDYN_SAME_FIELD(cudaMemcpy3DBatchOp, dst, CUDA_MEMCPY3D_BATCH_OP, dst)
CUDYN_SAME_FIELD(cudaMemcpy3DBatchOp, extent, CUDA_MEMCPY3D_BATCH_OP, extent)
CUDYN_SAME_FIELD(cudaMemcpy3DBatchOp, srcAccessOrder, CUDA_MEMCPY3D_BATCH_OP, srcAccessOrder)
CUDYN_SAME_FIELD(cudaMemcpy3DBatchOp, flags, CUDA_MEMCPY3D_BATCH_OP, flags)
static_assert(sizeof(cudaMemcpy3DOperand) == sizeof(CUmemcpy3DOperand), "cudaMemcpy3DOperand");
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, type, CUmemcpy3DOperand, type)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op, CUmemcpy3DOperand, op)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op.ptr.ptr, CUmemcpy3DOperand, op.ptr.ptr)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op.ptr.rowLength, CUmemcpy3DOperand, op.ptr.rowLength)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op.ptr.layerHeight, CUmemcpy3DOperand, op.ptr.layerHeight)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op.ptr.locHint, CUmemcpy3DOperand, op.ptr.locHint)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op.array.array, CUmemcpy3DOperand, op.array.array)
CUDYN_SAME_FIELD(cudaMemcpy3DOperand, op.array.offset, CUmemcpy3DOperand, op.array.offset)
CUDYN_SAME_FIELD(cudaOffset3D, x, CUoffset3D, x)
CUDYN_SAME_FIELD(cudaOffset3D, y, CUoffset3D, y)
CUDYN_SAME_FIELD(cudaOffset3D, z, CUoffset3D, z)
CUDYN_SAME_FIELD(cudaExtent, width, CUextent3D, width)
CUDYN_SAME_FIELD(cudaExtent, height, CUextent3D, height)
CUDYN_SAME_FIELD(cudaExtent, depth, CUextent3D, depth)
// The graph, user-object, async-notification and array entries served from the driver
// (inputs/cudart_served.tsv: cudaStreamBeginCaptureToGraph, cudaGraphInstantiateWithParams,
// cudaDeviceRegisterAsyncNotification, 11.2's graph memory nodes, ...) pass their structs as they
// are: each is the driver's field for field.
static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData), "cudaGraphEdgeData");
CUDYN_SAME_FIELD(cudaGraphEdgeData, from_port, CUgraphEdgeData, from_port)
CUDYN_SAME_FIELD(cudaGraphEdgeData, to_port, CUgraphEdgeData, to_port)
CUDYN_SAME_FIELD(cudaGraphEdgeData, type, CUgraphEdgeData, type)
CUDYN_SAME_FIELD(cudaGraphEdgeData, reserved, CUgraphEdgeData, reserved)
static_assert(sizeof(cudaGraphInstantiateParams) == sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS),
              "cudaGraphInstantiateParams");
CUDYN_SAME_FIELD(cudaGraphInstantiateParams, flags, CUDA_GRAPH_INSTANTIATE_PARAMS, flags)
CUDYN_SAME_FIELD(cudaGraphInstantiateParams, uploadStream, CUDA_GRAPH_INSTANTIATE_PARAMS,
                 hUploadStream)
CUDYN_SAME_FIELD(cudaGraphInstantiateParams, errNode_out, CUDA_GRAPH_INSTANTIATE_PARAMS,
                 hErrNode_out)
CUDYN_SAME_FIELD(cudaGraphInstantiateParams, result_out, CUDA_GRAPH_INSTANTIATE_PARAMS, result_out)
static_assert(sizeof(cudaAsyncNotificationInfo_t) == sizeof(CUasyncNotificationInfo),
              "cudaAsyncNotificationInfo_t");
CUDYN_SAME_FIELD(cudaAsyncNotificationInfo_t, type, CUasyncNotificationInfo, type)
CUDYN_SAME_FIELD(cudaAsyncNotificationInfo_t, info.overBudget.bytesOverBudget,
                 CUasyncNotificationInfo, info.overBudget.bytesOverBudget)
static_assert(sizeof(cudaAsyncCallbackHandle_t) == sizeof(CUasyncCallbackHandle),
              "both async callback handles are one pointer");
static_assert(sizeof(cudaMemAllocNodeParams) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS),
              "cudaMemAllocNodeParams");
CUDYN_SAME_FIELD(cudaMemAllocNodeParams, poolProps, CUDA_MEM_ALLOC_NODE_PARAMS, poolProps)
CUDYN_SAME_FIELD(cudaMemAllocNodeParams, accessDescs, CUDA_MEM_ALLOC_NODE_PARAMS, accessDescs)
CUDYN_SAME_FIELD(cudaMemAllocNodeParams, accessDescCount, CUDA_MEM_ALLOC_NODE_PARAMS,
                 accessDescCount)
CUDYN_SAME_FIELD(cudaMemAllocNodeParams, bytesize, CUDA_MEM_ALLOC_NODE_PARAMS, bytesize)
CUDYN_SAME_FIELD(cudaMemAllocNodeParams, dptr, CUDA_MEM_ALLOC_NODE_PARAMS, dptr)
static_assert(sizeof(cudaMemPoolProps) == sizeof(CUmemPoolProps), "cudaMemPoolProps");
CUDYN_SAME_FIELD(cudaMemPoolProps, allocType, CUmemPoolProps, allocType)
CUDYN_SAME_FIELD(cudaMemPoolProps, handleTypes, CUmemPoolProps, handleTypes)
CUDYN_SAME_FIELD(cudaMemPoolProps, location, CUmemPoolProps, location)
CUDYN_SAME_FIELD(cudaMemPoolProps, win32SecurityAttributes, CUmemPoolProps,
                 win32SecurityAttributes)
CUDYN_SAME_FIELD(cudaMemPoolProps, maxSize, CUmemPoolProps, maxSize)
CUDYN_SAME_FIELD(cudaMemPoolProps, usage, CUmemPoolProps, usage)
CUDYN_SAME_FIELD(cudaMemPoolProps, reserved, CUmemPoolProps, reserved)
static_assert(sizeof(cudaMemAccessDesc) == sizeof(CUmemAccessDesc), "cudaMemAccessDesc");
CUDYN_SAME_FIELD(cudaMemAccessDesc, location, CUmemAccessDesc, location)
CUDYN_SAME_FIELD(cudaMemAccessDesc, flags, CUmemAccessDesc, flags)
static_assert(sizeof(cudaArrayMemoryRequirements) == sizeof(CUDA_ARRAY_MEMORY_REQUIREMENTS),
              "cudaArrayMemoryRequirements");
CUDYN_SAME_FIELD(cudaArrayMemoryRequirements, size, CUDA_ARRAY_MEMORY_REQUIREMENTS, size)
CUDYN_SAME_FIELD(cudaArrayMemoryRequirements, alignment, CUDA_ARRAY_MEMORY_REQUIREMENTS, alignment)
CUDYN_SAME_FIELD(cudaArrayMemoryRequirements, reserved, CUDA_ARRAY_MEMORY_REQUIREMENTS, reserved)
#undef CUDYN_SAME_FIELD
static_assert(sizeof(cudaOffset3D) == sizeof(CUoffset3D) && sizeof(cudaExtent) == sizeof(CUextent3D),
              "cudaOffset3D / cudaExtent");
// The runtime's enumerator has the driver's value (compared as integers: the enums differ).
template <typename R, typename D>
constexpr bool SameValue(R runtime_value, D driver_value) {
  return static_cast<long long>(runtime_value) == static_cast<long long>(driver_value);
}
static_assert(SameValue(cudaMemcpySrcAccessOrderInvalid, CU_MEMCPY_SRC_ACCESS_ORDER_INVALID) &&
                  SameValue(cudaMemcpySrcAccessOrderStream, CU_MEMCPY_SRC_ACCESS_ORDER_STREAM) &&
                  SameValue(cudaMemcpySrcAccessOrderDuringApiCall,
                            CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL) &&
                  SameValue(cudaMemcpySrcAccessOrderAny, CU_MEMCPY_SRC_ACCESS_ORDER_ANY) &&
                  SameValue(cudaMemcpySrcAccessOrderMax, CU_MEMCPY_SRC_ACCESS_ORDER_MAX),
              "cudaMemcpySrcAccessOrder is CUmemcpySrcAccessOrder");
static_assert(SameValue(cudaMemcpyFlagDefault, CU_MEMCPY_FLAG_DEFAULT) &&
                  SameValue(cudaMemcpyFlagPreferOverlapWithCompute,
                            CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE),
              "cudaMemcpyFlags are CUmemcpyFlags");
static_assert(SameValue(cudaMemcpyOperandTypePointer, CU_MEMCPY_OPERAND_TYPE_POINTER) &&
                  SameValue(cudaMemcpyOperandTypeArray, CU_MEMCPY_OPERAND_TYPE_ARRAY) &&
                  SameValue(cudaMemcpyOperandTypeMax, CU_MEMCPY_OPERAND_TYPE_MAX),
              "cudaMemcpy3DOperandType is CUmemcpy3DOperandType");
static_assert(sizeof(cudaArray_t) == sizeof(CUarray), "an array operand is a CUarray");
static_assert(SameValue(cudaStreamCaptureModeGlobal, CU_STREAM_CAPTURE_MODE_GLOBAL) &&
                  SameValue(cudaStreamCaptureModeThreadLocal, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) &&
                  SameValue(cudaStreamCaptureModeRelaxed, CU_STREAM_CAPTURE_MODE_RELAXED),
              "cudaStreamCaptureMode is CUstreamCaptureMode");
static_assert(SameValue(cudaGraphDependencyTypeDefault, CU_GRAPH_DEPENDENCY_TYPE_DEFAULT) &&
                  SameValue(cudaGraphDependencyTypeProgrammatic,
                            CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC),
              "cudaGraphDependencyType is CUgraphDependencyType");
static_assert(SameValue(cudaGraphInstantiateSuccess, CUDA_GRAPH_INSTANTIATE_SUCCESS) &&
                  SameValue(cudaGraphInstantiateError, CUDA_GRAPH_INSTANTIATE_ERROR) &&
                  SameValue(cudaGraphInstantiateInvalidStructure,
                            CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE) &&
                  SameValue(cudaGraphInstantiateNodeOperationNotSupported,
                            CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED) &&
                  SameValue(cudaGraphInstantiateMultipleDevicesNotSupported,
                            CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED) &&
                  SameValue(cudaGraphInstantiateConditionalHandleUnused,
                            CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED),
              "cudaGraphInstantiateResult is CUgraphInstantiateResult");
static_assert(SameValue(cudaGraphInstantiateFlagAutoFreeOnLaunch,
                        CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) &&
                  SameValue(cudaGraphInstantiateFlagUpload, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) &&
                  SameValue(cudaGraphInstantiateFlagDeviceLaunch,
                            CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) &&
                  SameValue(cudaGraphInstantiateFlagUseNodePriority,
                            CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY),
              "cudaGraphInstantiateFlags are CUgraphInstantiate_flags");
static_assert(SameValue(cudaAsyncNotificationTypeOverBudget,
                        CU_ASYNC_NOTIFICATION_TYPE_OVER_BUDGET),
              "cudaAsyncNotificationType is CUasyncNotificationType");
static_assert(SameValue(cudaUserObjectNoDestructorSync, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) &&
                  SameValue(cudaGraphUserObjectMove, CU_GRAPH_USER_OBJECT_MOVE),
              "cudaUserObjectFlags / cudaUserObjectRetainFlags are the driver's");
static_assert(SameValue(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                        CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX) &&
                  SameValue(cudaFlushGPUDirectRDMAWritesToOwner,
                            CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER) &&
                  SameValue(cudaFlushGPUDirectRDMAWritesToAllDevices,
                            CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES),
              "cudaFlushGPUDirectRDMAWrites target / scope are the driver's");
static_assert(SameValue(cudaGraphMemAttrUsedMemCurrent, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) &&
                  SameValue(cudaGraphMemAttrUsedMemHigh, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH) &&
                  SameValue(cudaGraphMemAttrReservedMemCurrent,
                            CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) &&
                  SameValue(cudaGraphMemAttrReservedMemHigh, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH),
              "cudaGraphMemAttributeType is CUgraphMem_attribute");
// cudaGraphDebugDotPrint (11.2's served row): every runtime flag is the driver's of the same name;
// the driver's CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES (1 << 1) has no runtime flag, and 13.0 does
// not add it (H100: its file is the driver's with the caller's flags, byte for byte).
static_assert(SameValue(cudaGraphDebugDotFlagsVerbose, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) &&
                  SameValue(cudaGraphDebugDotFlagsKernelNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsMemcpyNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsMemsetNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsHostNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsEventNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsExtSemasSignalNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_EXT_SEMAS_SIGNAL_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsExtSemasWaitNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_EXT_SEMAS_WAIT_NODE_PARAMS) &&
                  SameValue(cudaGraphDebugDotFlagsKernelNodeAttributes,
                            CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES) &&
                  SameValue(cudaGraphDebugDotFlagsHandles, CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES) &&
                  SameValue(cudaGraphDebugDotFlagsConditionalNodeParams,
                            CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS),
              "cudaGraphDebugDotFlags are CUgraphDebugDot_flags");
static_assert(sizeof(cudaHostFn_t) == sizeof(CUhostFn) &&
                  sizeof(cudaMipmappedArray_t) == sizeof(CUmipmappedArray),
              "cudaHostFn_t / cudaMipmappedArray_t are CUhostFn / CUmipmappedArray");

enum class ServedInit { kContext, kDriver };
constexpr ServedInit kServedInit_context = ServedInit::kContext;
constexpr ServedInit kServedInit_driver = ServedInit::kDriver;

// The driver entry `index`, or null when there is no usable driver or it lacks the entry.
void* ServedDriverEntry(int index) {
  Driver& driver = DefaultDriver();
  return driver.ok() ? driver.Probe(index) : nullptr;
}

cudaError_t ServedInitialise(Runtime* rt, ServedInit init) {
  if (init == ServedInit::kContext) {
    using FreeFn = cudaError_t (*)(void*);
    auto fn = Old<FreeFn>(rt, "cudaFree");
    return fn != nullptr ? fn(nullptr) : CUDYN_MISSING;
  }
  using InitFn = int (*)(unsigned int);
  auto cu_init = reinterpret_cast<InitFn>(ServedDriverEntry(kEntry_cuInit));
  return cu_init != nullptr ? CudaErrorFromDriver(cu_init(0)) : cudaErrorInsufficientDriver;
}

#define CUDYN_CUDART_SERVED(name, index, ret, params, args, driver_symbol, init)   \
  template <int I>                                                                \
  ret name##Impl params {                                                         \
    Runtime* rt = CudartAdapterRuntime(I);                                        \
    if (rt == nullptr) return CUDYN_NO_RUNTIME;                                   \
    using Fn = int(*) params;                                                     \
    auto fn = reinterpret_cast<Fn>(ServedDriverEntry(kEntry_##driver_symbol));    \
    if (fn == nullptr) return cudaErrorInsufficientDriver;                        \
    const cudaError_t init_rc = ServedInitialise(rt, kServedInit_##init);         \
    if (init_rc != cudaSuccess) return init_rc;                                   \
    return CudaErrorFromDriver(fn args);                                          \
  }                                                                               \
  template <int I>                                                                \
  ret name params {                                                               \
    return Served<I>(name##Impl<I> args);                                         \
  }
#include "version_tables/generated_cudart/cudart_served.inc"
#undef CUDYN_CUDART_SERVED

// cudaGraphConditionalHandleCreate (12.3+): the driver's cuGraphConditionalHandleCreate (driver
// 12.3+; 35 where the driver lacks it, nothing run), which also takes the context the handle's
// conditional nodes run in: the runtime's, i.e. its current device's primary context that its own
// initialisation (cudaFree(NULL), its error the answer) makes current on this thread, read back
// with cuCtxGetCurrent. cudaGraphConditionalHandle is CUgraphConditionalHandle (both 64-bit) and
// cudaGraphCondAssignDefault is CU_GRAPH_COND_ASSIGN_DEFAULT.
static_assert(sizeof(cudaGraphConditionalHandle) == sizeof(CUgraphConditionalHandle),
              "cudaGraphConditionalHandle is CUgraphConditionalHandle");
static_assert(SameValue(cudaStreamAddCaptureDependencies, CU_STREAM_ADD_CAPTURE_DEPENDENCIES) &&
                  SameValue(cudaStreamSetCaptureDependencies, CU_STREAM_SET_CAPTURE_DEPENDENCIES),
              "cudaStreamUpdateCaptureDependenciesFlags are CUstreamUpdateCaptureDependencies_flags");
static_assert(SameValue(cudaGraphCondAssignDefault, CU_GRAPH_COND_ASSIGN_DEFAULT),
              "cudaGraphCondAssignDefault is CU_GRAPH_COND_ASSIGN_DEFAULT");
template <int I>
cudaError_t GraphConditionalHandleCreateDriverImpl(cudaGraphConditionalHandle* pHandle_out,
                                                   cudaGraph_t graph,
                                                   unsigned int defaultLaunchValue,
                                                   unsigned int flags) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  using CreateFn = int (*)(cudaGraphConditionalHandle*, CUgraph, CUcontext, unsigned int,
                           unsigned int);
  auto create =
      reinterpret_cast<CreateFn>(ServedDriverEntry(kEntry_cuGraphConditionalHandleCreate));
  if (create == nullptr) return cudaErrorInsufficientDriver;  // before anything is asked
  auto ctx_get = reinterpret_cast<int (*)(CUcontext*)>(ServedDriverEntry(kEntry_cuCtxGetCurrent));
  if (ctx_get == nullptr) return cudaErrorInsufficientDriver;
  const cudaError_t init_rc = ServedInitialise(rt, ServedInit::kContext);
  if (init_rc != cudaSuccess) return init_rc;
  CUcontext context = nullptr;
  const int ctx_rc = ctx_get(&context);
  if (ctx_rc != 0) return CudaErrorFromDriver(ctx_rc);
  return CudaErrorFromDriver(create(pHandle_out, graph, context, defaultLaunchValue, flags));
}
template <int I>
cudaError_t GraphConditionalHandleCreateDriver(cudaGraphConditionalHandle* pHandle_out,
                                               cudaGraph_t graph, unsigned int defaultLaunchValue,
                                               unsigned int flags) {
  return Served<I>(
      GraphConditionalHandleCreateDriverImpl<I>(pHandle_out, graph, defaultLaunchValue, flags));
}

// ---- cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams (12.2+) on runtimes
// that lack them: composed from the runtime's own typed node calls (cudaGraph_t, cudaGraphNode_t
// and cudaGraphExec_t are the same handles), dispatched on cudaGraphNodeParams::type. Each typed
// call is the runtime's binding of that 13.0 entry (Runtime::Probe: its own symbol, or what the
// tree serves it with, e.g. 11.2's graph memory nodes from the driver). Why this is faithful: each
// union member the typed call takes as a struct (a ...V2 struct of the 13.0 headers) is converted
// by a row of cudart_layouts.inc into the typed struct of the runtime's family, field by field by
// name (the generator fails if the older struct has a field the ...V2 struct lacks; a ...V2-only
// field would be "must be zero", refused with CannotExpressField; the real headers have none), its
// out fields (the allocation node's dptr) copied back after the call. A memcpy node's copyParams
// and the external semaphore nodes' parameter arrays are passed as they are: asserted below to have
// every field at its 13.0 offset in every older family. The runtime structs carry no context (the
// driver's CUDA_MEMCPY_NODE_PARAMS.copyCtx and CUDA_MEMSET_NODE_PARAMS_v2.ctx have no
// cudaMemcpyNodeParams / cudaMemsetParamsV2 field): a runtime fills them with the one context it
// has, its current device's, which is where the older runtime's typed call puts the node too.
// Conditional nodes have no typed runtime call: the driver's cuGraphAddNode / cuGraphNodeSetParams
// / cuGraphExecNodeSetParams (12.2+) with the runtime's context, as
// cudaGraphConditionalHandleCreate is served; a driver before 12.3 (no conditional nodes, no
// cuGraphConditionalHandleCreate) answers 35, what a 13.0 runtime answers on a driver older than
// it.
#define CUDYN_SAME_FIELD(rt_type, rt_field, cu_type, cu_field)                \
  static_assert(offsetof(rt_type, rt_field) == offsetof(cu_type, cu_field) && \
                    sizeof(static_cast<rt_type*>(nullptr)->rt_field) ==       \
                        sizeof(static_cast<cu_type*>(nullptr)->cu_field),     \
                #rt_type "." #rt_field " is " #cu_type "." #cu_field);
// The conditional member goes to the driver as CUgraphNodeParams (its ctx the runtime's).
static_assert(sizeof(cudaGraphNodeParams) == sizeof(CUgraphNodeParams),
              "cudaGraphNodeParams is CUgraphNodeParams");
CUDYN_SAME_FIELD(cudaGraphNodeParams, type, CUgraphNodeParams, type)
CUDYN_SAME_FIELD(cudaGraphNodeParams, reserved0, CUgraphNodeParams, reserved0)
CUDYN_SAME_FIELD(cudaGraphNodeParams, reserved2, CUgraphNodeParams, reserved2)
CUDYN_SAME_FIELD(cudaGraphNodeParams, conditional.handle, CUgraphNodeParams, conditional.handle)
CUDYN_SAME_FIELD(cudaGraphNodeParams, conditional.type, CUgraphNodeParams, conditional.type)
CUDYN_SAME_FIELD(cudaGraphNodeParams, conditional.size, CUgraphNodeParams, conditional.size)
CUDYN_SAME_FIELD(cudaGraphNodeParams, conditional.phGraph_out, CUgraphNodeParams,
                 conditional.phGraph_out)
static_assert(SameValue(cudaGraphNodeTypeConditional, CU_GRAPH_NODE_TYPE_CONDITIONAL) &&
                  SameValue(cudaGraphCondTypeIf, CU_GRAPH_COND_TYPE_IF) &&
                  SameValue(cudaGraphCondTypeWhile, CU_GRAPH_COND_TYPE_WHILE) &&
                  SameValue(cudaGraphCondTypeSwitch, CU_GRAPH_COND_TYPE_SWITCH),
              "cudaGraphNodeTypeConditional / cudaGraphConditionalNodeType are the driver's");
static_assert(sizeof(cudaGraph_t) == sizeof(CUgraph) &&
                  sizeof(cudaGraphNode_t) == sizeof(CUgraphNode) &&
                  sizeof(cudaGraphExec_t) == sizeof(CUgraphExec),
              "the runtime's graph handles are the driver's");

// Where a typed call takes a struct of the caller's as it is, the older families have each field
// where 13.0 has it (the real headers' facts, cudart_layouts.inc), so the 13.0 struct is what they
// read.
constexpr bool LayoutUnchanged(LayoutId id) {
  if (LayoutBytes(id, 13) == 0 || LayoutBytes(id, 12) != LayoutBytes(id, 13) ||
      LayoutBytes(id, 11) != LayoutBytes(id, 13)) {
    return false;
  }
  for (const LayoutField& f : kLayoutFields) {
    if (f.id == id && (f.off12 != f.off13 || f.off11 != f.off13)) return false;
  }
  return true;
}
static_assert(LayoutUnchanged(LayoutId::kcudaMemcpy3DParms) &&
                  LayoutBytes(LayoutId::kcudaMemcpy3DParms, 13) == sizeof(cudaMemcpy3DParms),
              "cudaMemcpy3DParms moved in an older runtime");
static_assert(LayoutUnchanged(LayoutId::kcudaExternalSemaphoreSignalParams) &&
                  LayoutBytes(LayoutId::kcudaExternalSemaphoreSignalParams, 13) ==
                      sizeof(cudaExternalSemaphoreSignalParams),
              "cudaExternalSemaphoreSignalParams moved in an older runtime");
static_assert(LayoutUnchanged(LayoutId::kcudaExternalSemaphoreWaitParams) &&
                  LayoutBytes(LayoutId::kcudaExternalSemaphoreWaitParams, 13) ==
                      sizeof(cudaExternalSemaphoreWaitParams),
              "cudaExternalSemaphoreWaitParams moved in an older runtime");
// 11.2's memory nodes are served from the driver, which reads CUDA_MEM_ALLOC_NODE_PARAMS, the 13.0
// cudaMemAllocNodeParams (asserted with the served entries), while family 11's layout comes from
// 11.8's headers: they agree, as 11.8's struct is 13.0's cudaMemAllocNodeParamsV2 and that is the
// 13.0 cudaMemAllocNodeParams field for field.
static_assert(LayoutUnchanged(LayoutId::kcudaMemAllocNodeParamsV2),
              "cudaMemAllocNodeParams moved in an older runtime");
static_assert(sizeof(cudaMemAllocNodeParamsV2) == sizeof(cudaMemAllocNodeParams),
              "cudaMemAllocNodeParamsV2 is cudaMemAllocNodeParams");
CUDYN_SAME_FIELD(cudaMemAllocNodeParamsV2, poolProps, cudaMemAllocNodeParams, poolProps)
CUDYN_SAME_FIELD(cudaMemAllocNodeParamsV2, accessDescs, cudaMemAllocNodeParams, accessDescs)
CUDYN_SAME_FIELD(cudaMemAllocNodeParamsV2, accessDescCount, cudaMemAllocNodeParams, accessDescCount)
CUDYN_SAME_FIELD(cudaMemAllocNodeParamsV2, bytesize, cudaMemAllocNodeParams, bytesize)
CUDYN_SAME_FIELD(cudaMemAllocNodeParamsV2, dptr, cudaMemAllocNodeParams, dptr)
#undef CUDYN_SAME_FIELD

// An enum field of the caller's struct as an int: any value may arrive, and one no enumerator has
// is not loaded as the enum (UBSan's enum check; its value is still what the caller meant).
template <typename Enum>
int EnumValue(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int), "an int-sized enum");
  int value = 0;
  std::memcpy(&value, &field, sizeof(value));
  return value;
}
int NodeTypeOf(const cudaGraphNodeParams& p) { return EnumValue(p.type); }

// The union member of each node type whose typed call takes a struct: its cudart_layouts.inc row.
struct TypedMember {
  int type;  // cudaGraphNodeType
  LayoutId layout;
  int size13;
};
constexpr TypedMember kTypedMembers[] = {
    {cudaGraphNodeTypeKernel, LayoutId::kcudaKernelNodeParamsV2, sizeof(cudaKernelNodeParamsV2)},
    {cudaGraphNodeTypeMemset, LayoutId::kcudaMemsetParamsV2, sizeof(cudaMemsetParamsV2)},
    {cudaGraphNodeTypeHost, LayoutId::kcudaHostNodeParamsV2, sizeof(cudaHostNodeParamsV2)},
    {cudaGraphNodeTypeExtSemaphoreSignal, LayoutId::kcudaExternalSemaphoreSignalNodeParamsV2,
     sizeof(cudaExternalSemaphoreSignalNodeParamsV2)},
    {cudaGraphNodeTypeExtSemaphoreWait, LayoutId::kcudaExternalSemaphoreWaitNodeParamsV2,
     sizeof(cudaExternalSemaphoreWaitNodeParamsV2)},
    {cudaGraphNodeTypeMemAlloc, LayoutId::kcudaMemAllocNodeParamsV2,
     sizeof(cudaMemAllocNodeParamsV2)},
};
constexpr bool TypedMembersFit() {
  for (const TypedMember& m : kTypedMembers) {
    if (LayoutBytes(m.layout, 13) != m.size13 || LayoutBytes(m.layout, 12) > kMaxLayoutSize ||
        LayoutBytes(m.layout, 11) > kMaxLayoutSize) {
      return false;
    }
  }
  return true;
}
static_assert(TypedMembersFit(), "facts disagree with the headers, or a struct outgrew the buffer");

// The caller's union member in the layout of the typed call of the runtime's family (zero-filled
// first: padding and fields the family lacks stay zero). `member` is null for a node type whose
// typed call takes no struct.
struct TypedParams {
  const TypedMember* member = nullptr;
  int family = 0;
  alignas(16) unsigned char bytes[kMaxLayoutSize];
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(bytes);
  }
};
// Converts `p`'s union member for `rt` into `out`: cudaSuccess, or the refusal of a field the
// family has no place for.
cudaError_t ToTypedParams(Runtime* rt, int index, const cudaGraphNodeParams& p, TypedParams* out) {
  const int type = NodeTypeOf(p);
  for (const TypedMember& m : kTypedMembers) {
    if (m.type != type) continue;
    out->member = &m;
    out->family = rt->family();
    const auto* member = reinterpret_cast<const unsigned char*>(&p) +
                         offsetof(cudaGraphNodeParams, reserved1);  // the union
    if (const char* f = ToRuntimeLayout(m.layout, member, out->family, out->bytes)) {
      return CannotExpressField(rt, index, LayoutName(m.layout), f);
    }
  }
  return cudaSuccess;
}
// The typed call's out fields back into the caller's union member.
void FromTypedParams(const TypedParams& typed, cudaGraphNodeParams* p) {
  if (typed.member == nullptr) return;
  OutputsFromRuntimeLayout(typed.member->layout, typed.bytes, typed.family,
                           reinterpret_cast<unsigned char*>(p) +
                               offsetof(cudaGraphNodeParams, reserved1));
}

// The union member a node type uses (its size), or -1 for a type 13.0 does not know.
int UnionMemberSize(const cudaGraphNodeParams& p) {
  switch (NodeTypeOf(p)) {
    case cudaGraphNodeTypeKernel: return sizeof(p.kernel);
    case cudaGraphNodeTypeMemcpy: return sizeof(p.memcpy);
    case cudaGraphNodeTypeMemset: return sizeof(p.memset);
    case cudaGraphNodeTypeHost: return sizeof(p.host);
    case cudaGraphNodeTypeGraph: return sizeof(p.graph);
    case cudaGraphNodeTypeEmpty: return 0;
    case cudaGraphNodeTypeWaitEvent: return sizeof(p.eventWait);
    case cudaGraphNodeTypeEventRecord: return sizeof(p.eventRecord);
    case cudaGraphNodeTypeExtSemaphoreSignal: return sizeof(p.extSemSignal);
    case cudaGraphNodeTypeExtSemaphoreWait: return sizeof(p.extSemWait);
    case cudaGraphNodeTypeMemAlloc: return sizeof(p.alloc);
    case cudaGraphNodeTypeMemFree: return sizeof(p.free);
    case cudaGraphNodeTypeConditional: return sizeof(p.conditional);
    default: return -1;
  }
}
// What a 13.0 runtime checks of the caller's cudaGraphNodeParams before any node call ("all
// unused bytes - that is, reserved0 and all bytes past the utilized union member - must be set to
// zero"). 13.0 (H100, driver 580): a NULL nodeParams, a type it does not know (0x0c, 99, -1,
// cudaGraphNodeTypeCount), a non-zero reserved0 or reserved2, a non-zero byte past the kernel
// member or anywhere in an empty node's union answer 1 cudaErrorInvalidValue, from all three calls.
bool UnusedBytesZero(const cudaGraphNodeParams& p) {
  const int used = UnionMemberSize(p);
  if (used < 0) return false;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&p);
  const int union_at = static_cast<int>(offsetof(cudaGraphNodeParams, reserved1));
  return AllZero(reinterpret_cast<const unsigned char*>(p.reserved0), sizeof(p.reserved0)) &&
         p.reserved2 == 0 &&
         AllZero(bytes + union_at + used, static_cast<int>(sizeof(p.reserved1)) - used);
}
static_assert(sizeof(cudaGraphNodeParams::reserved1) >= sizeof(cudaMemcpyNodeParams) &&
                  sizeof(cudaGraphNodeParams::reserved1) >= sizeof(cudaMemAllocNodeParamsV2),
              "reserved1 spans the union");
// cudaMemcpyNodeParams::flags and reserved ("must be zero"): 13.0 answers 1 for flags 1 or a
// non-zero reserved (H100, driver 580), as here; no flag exists an older runtime would need to
// pass.
bool MemcpyNodeFlagsZero(const cudaMemcpyNodeParams& p) {
  return p.flags == 0 &&
         AllZero(reinterpret_cast<const unsigned char*>(p.reserved), sizeof(p.reserved));
}

// The runtime's binding of the typed 13.0 entry `index` (its own symbol, or the tree's adapter).
template <typename Fn>
Fn TypedCall(Runtime* rt, int index) {
  return reinterpret_cast<Fn>(rt->Probe(index));
}

// The caller's conditional member as the driver's CUgraphNodeParams, with the runtime's context
// (its initialisation first, then cuCtxGetCurrent: the context the handle was created in).
cudaError_t ConditionalForDriver(Runtime* rt, const cudaGraphNodeParams& in,
                                 CUgraphNodeParams* out) {
  auto ctx_get = reinterpret_cast<int (*)(CUcontext*)>(ServedDriverEntry(kEntry_cuCtxGetCurrent));
  if (ctx_get == nullptr) return cudaErrorInsufficientDriver;
  const cudaError_t init_rc = ServedInitialise(rt, ServedInit::kContext);
  if (init_rc != cudaSuccess) return init_rc;
  // type (cudaGraphNodeTypeConditional: the callers' case), handle, condition type, size and
  // phGraph_out by the table; the context is the driver's own answer.
  ToDriver<ToDriverId::kConditionalNodeParams>(in, out);
  CUcontext context = nullptr;
  const int ctx_rc = ctx_get(&context);
  if (ctx_rc != 0) return CudaErrorFromDriver(ctx_rc);
  out->conditional.ctx = context;
  return cudaSuccess;
}
// The driver entry `index` for a conditional node, or null where the driver has no conditional
// nodes (before 12.3: no cuGraphConditionalHandleCreate, so no handle such a node could name).
void* ConditionalDriverEntry(int index) {
  if (ServedDriverEntry(kEntry_cuGraphConditionalHandleCreate) == nullptr) return nullptr;
  return ServedDriverEntry(index);
}

constexpr const char* kNoTypedCall = "a node type this runtime has no typed call for";

template <int I>
cudaError_t GraphAddNodeComposedImpl(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps,
                                     const cudaGraphEdgeData* dependencyData, size_t n,
                                     cudaGraphNodeParams* p) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  constexpr int kIndex = kCudart_cudaGraphAddNode;
  if (p == nullptr || !UnusedBytesZero(*p)) return cudaErrorInvalidValue;
  if (const EdgesIn edges = JudgeEdgesIn(rt, deps, nullptr,
                                         NodeTypeOf(*p) == cudaGraphNodeTypeKernel,
                                         dependencyData, n);
      edges != EdgesIn::kDefault) {
    return EdgesInRefusal<I>(rt, kIndex, edges);
  }
  TypedParams typed;
  if (const cudaError_t rc = ToTypedParams(rt, kIndex, *p, &typed); rc != cudaSuccess) return rc;
  switch (NodeTypeOf(*p)) {
    case cudaGraphNodeTypeKernel: {
      auto fn = TypedCall<decltype(&cudaGraphAddKernelNode)>(rt, kCudart_cudaGraphAddKernelNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, typed.as<const cudaKernelNodeParams>());
    }
    case cudaGraphNodeTypeMemcpy: {
      auto fn = TypedCall<decltype(&cudaGraphAddMemcpyNode)>(rt, kCudart_cudaGraphAddMemcpyNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      if (!MemcpyNodeFlagsZero(p->memcpy)) return cudaErrorInvalidValue;
      return fn(pGraphNode, graph, deps, n, &p->memcpy.copyParams);
    }
    case cudaGraphNodeTypeMemset: {
      auto fn = TypedCall<decltype(&cudaGraphAddMemsetNode)>(rt, kCudart_cudaGraphAddMemsetNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, typed.as<const cudaMemsetParams>());
    }
    case cudaGraphNodeTypeHost: {
      auto fn = TypedCall<decltype(&cudaGraphAddHostNode)>(rt, kCudart_cudaGraphAddHostNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, typed.as<const cudaHostNodeParams>());
    }
    case cudaGraphNodeTypeGraph: {
      auto fn =
          TypedCall<decltype(&cudaGraphAddChildGraphNode)>(rt, kCudart_cudaGraphAddChildGraphNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      // Older runtimes only clone. 13.0 takes any ownership but Move as a clone (ownership 7
      // answered 0 on the H100), so only Move cannot be expressed.
      if (EnumValue(p->graph.ownership) == cudaGraphChildGraphOwnershipMove) {
        return CannotExpress(rt, kIndex,
                             "a child graph moved into its node (older runtimes clone)");
      }
      return fn(pGraphNode, graph, deps, n, p->graph.graph);
    }
    case cudaGraphNodeTypeEmpty: {
      auto fn = TypedCall<decltype(&cudaGraphAddEmptyNode)>(rt, kCudart_cudaGraphAddEmptyNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n);
    }
    case cudaGraphNodeTypeWaitEvent: {
      auto fn =
          TypedCall<decltype(&cudaGraphAddEventWaitNode)>(rt, kCudart_cudaGraphAddEventWaitNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, p->eventWait.event);
    }
    case cudaGraphNodeTypeEventRecord: {
      auto fn = TypedCall<decltype(&cudaGraphAddEventRecordNode)>(
          rt, kCudart_cudaGraphAddEventRecordNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, p->eventRecord.event);
    }
    case cudaGraphNodeTypeExtSemaphoreSignal: {
      auto fn = TypedCall<decltype(&cudaGraphAddExternalSemaphoresSignalNode)>(
          rt, kCudart_cudaGraphAddExternalSemaphoresSignalNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n,
                typed.as<const cudaExternalSemaphoreSignalNodeParams>());
    }
    case cudaGraphNodeTypeExtSemaphoreWait: {
      auto fn = TypedCall<decltype(&cudaGraphAddExternalSemaphoresWaitNode)>(
          rt, kCudart_cudaGraphAddExternalSemaphoresWaitNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, typed.as<const cudaExternalSemaphoreWaitNodeParams>());
    }
    case cudaGraphNodeTypeMemAlloc: {
      auto fn =
          TypedCall<decltype(&cudaGraphAddMemAllocNode)>(rt, kCudart_cudaGraphAddMemAllocNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      const cudaError_t rc = fn(pGraphNode, graph, deps, n, typed.as<cudaMemAllocNodeParams>());
      FromTypedParams(typed, p);  // dptr, the out parameter, as 13.0 writes it
      return rc;
    }
    case cudaGraphNodeTypeMemFree: {
      auto fn = TypedCall<decltype(&cudaGraphAddMemFreeNode)>(rt, kCudart_cudaGraphAddMemFreeNode);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(pGraphNode, graph, deps, n, p->free.dptr);
    }
    case cudaGraphNodeTypeConditional: {
      using AddFn = int (*)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t, CUgraphNodeParams*);
      auto add = reinterpret_cast<AddFn>(ConditionalDriverEntry(kEntry_cuGraphAddNode));
      if (add == nullptr) return cudaErrorInsufficientDriver;
      CUgraphNodeParams cu;
      const cudaError_t rc = ConditionalForDriver(rt, *p, &cu);
      if (rc != cudaSuccess) return rc;
      const int add_rc =
          add(reinterpret_cast<CUgraphNode*>(pGraphNode), reinterpret_cast<CUgraph>(graph),
              reinterpret_cast<const CUgraphNode*>(deps), n, &cu);
      // The driver hands back its array of body graphs in phGraph_out.
      p->conditional.phGraph_out = reinterpret_cast<cudaGraph_t*>(cu.conditional.phGraph_out);
      return CudaErrorFromDriver(add_rc);
    }
    default: return cudaErrorInvalidValue;  // no node type 13.0 knows
  }
}
template <int I>
cudaError_t GraphAddNodeComposed(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t* pDependencies,
                                 const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                 cudaGraphNodeParams* nodeParams) {
  return Served<I>(GraphAddNodeComposedImpl<I>(pGraphNode, graph, pDependencies, dependencyData,
                                               numDependencies, nodeParams));
}

// Setting a node's parameters, in the graph (exec == nullptr and kExec false) or in an executable
// graph: the typed setter of the node type; the typed call checks the node has that type.
template <int I, bool kExec>
cudaError_t NodeSetParamsImpl(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeParams* p) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return CUDYN_NO_RUNTIME;
  constexpr int kIndex =
      kExec ? kCudart_cudaGraphExecNodeSetParams : kCudart_cudaGraphNodeSetParams;
  if (p == nullptr || !UnusedBytesZero(*p)) return cudaErrorInvalidValue;
  TypedParams typed;
  if (const cudaError_t rc = ToTypedParams(rt, kIndex, *p, &typed); rc != cudaSuccess) return rc;
    // One typed setter per kind: graph (node, X) or exec (exec, node, X).
#define CUDYN_SET(plain, exec_entry, ...)                                   \
  do {                                                                      \
    if (kExec) {                                                            \
      auto fn = TypedCall<decltype(&exec_entry)>(rt, kCudart_##exec_entry); \
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);    \
      return fn(exec, node, __VA_ARGS__);                                   \
    }                                                                       \
    auto fn = TypedCall<decltype(&plain)>(rt, kCudart_##plain);             \
    if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);      \
    return fn(node, __VA_ARGS__);                                           \
  } while (0)
  switch (NodeTypeOf(*p)) {
    case cudaGraphNodeTypeKernel:
      CUDYN_SET(cudaGraphKernelNodeSetParams, cudaGraphExecKernelNodeSetParams,
                typed.as<const cudaKernelNodeParams>());
    case cudaGraphNodeTypeMemcpy: {
      if (!MemcpyNodeFlagsZero(p->memcpy)) return cudaErrorInvalidValue;
      CUDYN_SET(cudaGraphMemcpyNodeSetParams, cudaGraphExecMemcpyNodeSetParams,
                &p->memcpy.copyParams);
    }
    case cudaGraphNodeTypeMemset:
      CUDYN_SET(cudaGraphMemsetNodeSetParams, cudaGraphExecMemsetNodeSetParams,
                typed.as<const cudaMemsetParams>());
    case cudaGraphNodeTypeHost:
      CUDYN_SET(cudaGraphHostNodeSetParams, cudaGraphExecHostNodeSetParams,
                typed.as<const cudaHostNodeParams>());
    case cudaGraphNodeTypeWaitEvent:
      CUDYN_SET(cudaGraphEventWaitNodeSetEvent, cudaGraphExecEventWaitNodeSetEvent,
                p->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      CUDYN_SET(cudaGraphEventRecordNodeSetEvent, cudaGraphExecEventRecordNodeSetEvent,
                p->eventRecord.event);
    case cudaGraphNodeTypeExtSemaphoreSignal:
      CUDYN_SET(cudaGraphExternalSemaphoresSignalNodeSetParams,
                cudaGraphExecExternalSemaphoresSignalNodeSetParams,
                typed.as<const cudaExternalSemaphoreSignalNodeParams>());
    case cudaGraphNodeTypeExtSemaphoreWait:
      CUDYN_SET(cudaGraphExternalSemaphoresWaitNodeSetParams,
                cudaGraphExecExternalSemaphoresWaitNodeSetParams,
                typed.as<const cudaExternalSemaphoreWaitNodeParams>());
    case cudaGraphNodeTypeGraph: {
      // 13.0: cudaGraphNodeSetParams of a child graph node answers 801 (any ownership);
      // cudaGraphExecNodeSetParams updates it (cudaGraphExecChildGraphNodeSetParams).
      if (!kExec) return cudaErrorNotSupported;
      auto fn = TypedCall<decltype(&cudaGraphExecChildGraphNodeSetParams)>(
          rt, kCudart_cudaGraphExecChildGraphNodeSetParams);
      if (fn == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      return fn(exec, node, p->graph.graph);
    }
    case cudaGraphNodeTypeEmpty: {
      // Nothing to set (13.0: 0 for an empty node); a node of another type is a mismatch, 1 as
      // every typed setter answers it.
      auto get_type = TypedCall<decltype(&cudaGraphNodeGetType)>(rt, kCudart_cudaGraphNodeGetType);
      if (get_type == nullptr) return CannotExpress(rt, kIndex, kNoTypedCall);
      cudaGraphNodeType type = cudaGraphNodeTypeCount;
      const cudaError_t rc = get_type(node, &type);
      if (rc != cudaSuccess) return rc;
      return type == cudaGraphNodeTypeEmpty ? cudaSuccess : cudaErrorInvalidValue;
    }
    case cudaGraphNodeTypeMemAlloc:
    case cudaGraphNodeTypeMemFree:
      // "Modifying parameters is not supported" for memory nodes: 13.0 answers 801 from both.
      return cudaErrorNotSupported;
    case cudaGraphNodeTypeConditional: {
      CUgraphNodeParams cu;
      if (kExec) {
        using Fn = int (*)(CUgraphExec, CUgraphNode, CUgraphNodeParams*);
        auto set = reinterpret_cast<Fn>(ConditionalDriverEntry(kEntry_cuGraphExecNodeSetParams));
        if (set == nullptr) return cudaErrorInsufficientDriver;
        const cudaError_t rc = ConditionalForDriver(rt, *p, &cu);
        if (rc != cudaSuccess) return rc;
        return CudaErrorFromDriver(
            set(reinterpret_cast<CUgraphExec>(exec), reinterpret_cast<CUgraphNode>(node), &cu));
      }
      using Fn = int (*)(CUgraphNode, CUgraphNodeParams*);
      auto set = reinterpret_cast<Fn>(ConditionalDriverEntry(kEntry_cuGraphNodeSetParams));
      if (set == nullptr) return cudaErrorInsufficientDriver;
      const cudaError_t rc = ConditionalForDriver(rt, *p, &cu);
      if (rc != cudaSuccess) return rc;
      return CudaErrorFromDriver(set(reinterpret_cast<CUgraphNode>(node), &cu));
    }
    default: return cudaErrorInvalidValue;  // no node type 13.0 knows
  }
#undef CUDYN_SET
}
template <int I>
cudaError_t GraphNodeSetParamsComposed(cudaGraphNode_t node, cudaGraphNodeParams* nodeParams) {
  return Served<I>(NodeSetParamsImpl<I, false>(nullptr, node, nodeParams));
}
template <int I>
cudaError_t GraphExecNodeSetParamsComposed(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                           cudaGraphNodeParams* nodeParams) {
  return Served<I>(NodeSetParamsImpl<I, true>(graphExec, node, nodeParams));
}

// The older runtime functions each adapter can work with (it is bound if any is present).
struct AdapterRow {
  CudartAdapter adapter;
  const char* needs;  // NUL-separated names, ending with an empty one
  void* instances[kMaxCudartInstances];
};


#define CUDYN_INSTANCES(fn) \
  {reinterpret_cast<void*>(&fn<0>), reinterpret_cast<void*>(&fn<1>), \
   reinterpret_cast<void*>(&fn<2>), reinterpret_cast<void*>(&fn<3>), \
   reinterpret_cast<void*>(&fn<4>), reinterpret_cast<void*>(&fn<5>), \
   reinterpret_cast<void*>(&fn<6>), reinterpret_cast<void*>(&fn<7>)}
// `needs`: "a" or "a\0b"; the extra "\0" ends the list.
#define CUDYN_ROW(name, needs) {CudartAdapter::k##name, needs "\0", CUDYN_INSTANCES(name)}

const AdapterRow kAdapterRows[] = {
    CUDYN_ROW(MemAdviseLocation, "cudaMemAdvise"),
    CUDYN_ROW(MemPrefetchLocation, "cudaMemPrefetchAsync"),
    CUDYN_ROW(MemPrefetchLocationPtsz, "cudaMemPrefetchAsync_ptsz"),
    CUDYN_ROW(GraphInstantiateFlags, "cudaGraphInstantiate"),
    CUDYN_ROW(GraphExecUpdateResultInfo, "cudaGraphExecUpdate"),
    CUDYN_ROW(StreamGetCaptureInfoNoEdges,
              "cudaStreamGetCaptureInfo_v2\0"
              "cudaStreamGetCaptureInfo"),
    CUDYN_ROW(StreamGetCaptureInfoNoEdgesPtsz,
              "cudaStreamGetCaptureInfo_v2_ptsz\0"
              "cudaStreamGetCaptureInfo_ptsz"),
    // Before 11.3 the driver's (cudaFree: the runtime's initialisation first).
    CUDYN_ROW(StreamUpdateCaptureDependenciesNoEdges,
              "cudaStreamUpdateCaptureDependencies\0"
              "cudaFree"),
    CUDYN_ROW(StreamUpdateCaptureDependenciesNoEdgesPtsz,
              "cudaStreamUpdateCaptureDependencies_ptsz\0"
              "cudaFree"),
    CUDYN_ROW(GraphAddDependenciesNoEdges, "cudaGraphAddDependencies"),
    CUDYN_ROW(GraphRemoveDependenciesNoEdges, "cudaGraphRemoveDependencies"),
    CUDYN_ROW(GraphGetEdgesNoEdges, "cudaGraphGetEdges"),
    CUDYN_ROW(GraphNodeGetDependenciesNoEdges, "cudaGraphNodeGetDependencies"),
    CUDYN_ROW(GraphNodeGetDependentNodesNoEdges, "cudaGraphNodeGetDependentNodes"),
    // Before 11.3 (no cudaGetDriverEntryPoint) the driver answers: bound on any runtime.
    CUDYN_ROW(GetDriverEntryPointStatus, "cudaGetDriverEntryPoint\0cudaRuntimeGetVersion"),
    CUDYN_ROW(GetDriverEntryPointStatusPtsz, "cudaGetDriverEntryPoint_ptsz\0cudaRuntimeGetVersion"),
    CUDYN_ROW(DevicePropConvert,
              "cudaGetDeviceProperties_v2\0"
              "cudaGetDeviceProperties"),
    CUDYN_ROW(ChooseDevicePropConvert, "cudaChooseDevice"),
    CUDYN_ROW(CreateTextureObjectConvert,
              "cudaCreateTextureObject_v2\0"
              "cudaCreateTextureObject"),
    CUDYN_ROW(CreateSurfaceObjectConvert, "cudaCreateSurfaceObject"),
    CUDYN_ROW(GetTextureObjectResourceDescConvert, "cudaGetTextureObjectResourceDesc"),
    CUDYN_ROW(GetSurfaceObjectResourceDescConvert, "cudaGetSurfaceObjectResourceDesc"),
    CUDYN_ROW(InitDeviceComposed, "cudaSetDeviceFlags"),
    // Registration and the driver answer these: bound on any runtime.
    CUDYN_ROW(FuncGetNameRegistered, "cudaRuntimeGetVersion"),
    CUDYN_ROW(GetDriverEntryPointByVersionDriver, "cudaRuntimeGetVersion"),
    CUDYN_ROW(GetDriverEntryPointByVersionDriverPtsz, "cudaRuntimeGetVersion"),
    // The driver answers (after the runtime's own cudaGetFuncBySymbol, 11.0+).
    CUDYN_ROW(FuncGetParamInfoDriver, "cudaGetFuncBySymbol"),
    CUDYN_ROW(KernelSetAttributeForDeviceDriver, "cudaRuntimeGetVersion"),
    // Before 11.8: the runtime's own launch, or its cudaGetFuncBySymbol and the driver's entry.
    CUDYN_ROW(LaunchKernelExCDriver, "cudaLaunchKernel"),
    CUDYN_ROW(LaunchKernelExCDriverPtsz, "cudaLaunchKernel_ptsz"),
    CUDYN_ROW(OccupancyMaxPotentialClusterSizeDriver, "cudaGetFuncBySymbol"),
    CUDYN_ROW(OccupancyMaxActiveClustersDriver, "cudaGetFuncBySymbol"),
    CUDYN_ROW(GraphConditionalHandleCreateDriver, "cudaFree"),
    // The runtime's typed node calls (each node type checks its own at the call).
    CUDYN_ROW(GraphAddNodeComposed, "cudaGraphAddEmptyNode"),
    CUDYN_ROW(GraphNodeSetParamsComposed, "cudaGraphKernelNodeSetParams"),
    CUDYN_ROW(GraphExecNodeSetParamsComposed, "cudaGraphExecKernelNodeSetParams"),
// The generated zero-tail adapters, after the hand-written ones.
#define CUDYN_CUDART_ZERO_TAIL(name, ret, params, args, olds, zero_outs) CUDYN_ROW(name, olds),
#include "version_tables/generated_cudart/cudart_zero_tail.inc"
#undef CUDYN_CUDART_ZERO_TAIL
// The generated driver-served entries: bound on any runtime (whether the driver has the entry
// is decided at each call: 35 without it).
#define CUDYN_CUDART_SERVED(name, index, ret, params, args, driver_symbol, init) \
  CUDYN_ROW(name, "cudaRuntimeGetVersion"),
#include "version_tables/generated_cudart/cudart_served.inc"
#undef CUDYN_CUDART_SERVED
};
#undef CUDYN_ROW
#undef CUDYN_INSTANCES
#undef CUDYN_EXPAND

// Every adapter the facts name has a row here, and nothing else: the build fails otherwise.
constexpr int kGeneratedAdapterCount = 0
#define CUDYN_CUDART_ADAPTER(name, index, symbol) +1
#include "version_tables/generated_cudart/cudart_adapters.inc"
#undef CUDYN_CUDART_ADAPTER
    ;
static_assert(sizeof(kAdapterRows) / sizeof(kAdapterRows[0]) == kGeneratedAdapterCount,
              "cudart_adapters.tsv and loader/cudart_adapters.cc disagree");
#endif  // CUDYN_CUDART_ADAPTERS

// Under a clamp the chosen runtime reaches the real driver (stubs/shim.cc says why), so its own
// cudaDriverGetVersion reports the real version; the program is told the clamped one. Errors and
// a NULL argument are the runtime's own answers.
template <int I>
cudaError_t ClampedDriverGetVersion(int* driverVersion) {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return static_cast<cudaError_t>(kCudartErrorInitFailed);
  using Fn = cudaError_t (*)(int*);
  auto fn = reinterpret_cast<Fn>(rt->Symbol("cudaDriverGetVersion"));
  if (fn == nullptr) return static_cast<cudaError_t>(kCudartErrorSymbolNotFound);
  const cudaError_t rc = fn(driverVersion);
  if (rc == cudaSuccess && driverVersion != nullptr && rt->driver_version() > 0 &&
      *driverVersion > rt->driver_version()) {
    *driverVersion = rt->driver_version();
  }
  return rc;
}

// cudaGetLastError / cudaPeekAtLastError over the overlay: the runtime's own last error when it
// has one — RecordOverlay cleared it when cudyn recorded its own, so this one came later — else
// cudyn's. Get clears both (a sticky error of cudyn's stays, as the runtime's own would).
template <int I, bool kReset>
cudaError_t LastErrorWithOverlay() {
  Runtime* rt = CudartAdapterRuntime(I);
  if (rt == nullptr) return static_cast<cudaError_t>(kCudartErrorInitFailed);
  using Fn = cudaError_t (*)();
  auto fn = reinterpret_cast<Fn>(rt->Symbol(kReset ? "cudaGetLastError" : "cudaPeekAtLastError"));
  if (fn == nullptr) return static_cast<cudaError_t>(kCudartErrorSymbolNotFound);
  const cudaError_t own = fn();
  OverlayError* o = Overlay(I);
  const int mine = o != nullptr ? o->error : cudaSuccess;
  if (kReset && o != nullptr && !IsStickyError(mine)) o->error = cudaSuccess;
  return own != cudaSuccess ? own : static_cast<cudaError_t>(mine);
}

}  // namespace

void* CudartLastErrorFunction(bool reset, int id) {
  static_assert(kMaxCudartInstances == 8, "one instance per id below");
#define CUDYN_LAST_ERROR_INSTANCES(R)                                                      \
  {reinterpret_cast<void*>(&LastErrorWithOverlay<0, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<1, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<2, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<3, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<4, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<5, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<6, R>),                                   \
   reinterpret_cast<void*>(&LastErrorWithOverlay<7, R>)}
  void* const get[kMaxCudartInstances] = CUDYN_LAST_ERROR_INSTANCES(true);
  void* const peek[kMaxCudartInstances] = CUDYN_LAST_ERROR_INSTANCES(false);
#undef CUDYN_LAST_ERROR_INSTANCES
  if (id < 0 || id >= kMaxCudartInstances) return nullptr;
  return reset ? get[id] : peek[id];
}

void* CudartClampedDriverGetVersion(int id) {
  static_assert(kMaxCudartInstances == 8, "one instance per id below");
  void* const instances[kMaxCudartInstances] = {
      reinterpret_cast<void*>(&ClampedDriverGetVersion<0>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<1>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<2>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<3>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<4>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<5>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<6>),
      reinterpret_cast<void*>(&ClampedDriverGetVersion<7>)};
  return id >= 0 && id < kMaxCudartInstances ? instances[id] : nullptr;
}

int AcquireCudartAdapterInstance(Runtime* runtime) {
  const int id = g_cudart_instances.Acquire(runtime);
  // A new Runtime of this id: what an earlier one left in any thread's overlay is forgotten.
  if (id >= 0) g_overlay_epoch[id].fetch_add(1, std::memory_order_acq_rel);
  return id;
}

void RecordCudartServedError(Runtime* runtime, int error) noexcept {
  if (runtime != nullptr) RecordOverlay(runtime, runtime->adapter_instance(), error);
}

void ReleaseCudartAdapterInstance(int id) { g_cudart_instances.Release(id); }

Runtime* CudartAdapterRuntime(int id) { return g_cudart_instances.Get(id); }

void* CudartAdapterFunction(int adapter, int id, const Runtime& runtime) {
  if (id < 0 || id >= kMaxCudartInstances) return nullptr;
#if !CUDYN_CUDART_ADAPTERS
  return nullptr;
#else
  for (const AdapterRow& row : kAdapterRows) {
    if (static_cast<int>(row.adapter) != adapter) continue;
    for (const char* need = row.needs; *need != '\0'; need += std::strlen(need) + 1) {
      if (runtime.Symbol(need) != nullptr) return row.instances[id];
    }
    return nullptr;
  }
  return nullptr;
#endif
}

}  // namespace internal

void NoteCudartMissingAnswer(int result) noexcept {
  internal::RecordCudartServedError(&DefaultRuntime(), result);
}

// ---- host stub -> device name, as nvcc's registration code gives them to the drop-in ----
// A plain array under a pthread mutex: nothing here can throw or end the process
// (//tests/hardening:no_abort_test), and registration and unregistration run from the program's
// constructors and exit handlers, in any order with static destructors (this has none).
namespace {
struct RegisteredFunction {
  void** module;
  const void* host_function;
  const char* device_name;
};
pthread_mutex_t g_registry_mutex = PTHREAD_MUTEX_INITIALIZER;
RegisteredFunction* g_registry = nullptr;
size_t g_registry_size = 0, g_registry_capacity = 0;
}  // namespace

void NoteCudartFunction(void** module, const void* host_function,
                        const char* device_name) noexcept {
  if (host_function == nullptr || device_name == nullptr) return;
  pthread_mutex_lock(&g_registry_mutex);
  if (g_registry_size == g_registry_capacity) {
    const size_t capacity = g_registry_capacity == 0 ? 64 : 2 * g_registry_capacity;
    void* grown = std::realloc(g_registry, capacity * sizeof(RegisteredFunction));
    if (grown != nullptr) {
      g_registry = static_cast<RegisteredFunction*>(grown);
      g_registry_capacity = capacity;
    }
  }
  // Out of memory: cudaFuncGetName then answers as for an unregistered function.
  if (g_registry_size < g_registry_capacity) {
    g_registry[g_registry_size++] = RegisteredFunction{module, host_function, device_name};
  }
  pthread_mutex_unlock(&g_registry_mutex);
}

void ForgetCudartModule(void** module) noexcept {
  pthread_mutex_lock(&g_registry_mutex);
  size_t kept = 0;
  for (size_t i = 0; i < g_registry_size; ++i) {
    if (g_registry[i].module != module) g_registry[kept++] = g_registry[i];
  }
  g_registry_size = kept;
  pthread_mutex_unlock(&g_registry_mutex);
}

const char* RegisteredCudartFunctionName(const void* host_function) noexcept {
  const char* name = nullptr;
  pthread_mutex_lock(&g_registry_mutex);
  // Newest first: a host stub registered again (a module reloaded) answers its latest name.
  for (size_t i = g_registry_size; i > 0 && name == nullptr; --i) {
    if (g_registry[i - 1].host_function == host_function) name = g_registry[i - 1].device_name;
  }
  pthread_mutex_unlock(&g_registry_mutex);
  return name;
}

}  // namespace cudyn
