// Entries of the 13.0 runtime headers that older runtimes lack, called by an unchanged nvcc-13
// program (-cudart shared): run directly (the real 13.0 runtime) and through
// `cudyn run --runtime <older>` they must answer alike where cudyn serves them (from the driver,
// or composed from the older runtime's own calls: version_tables/CUDART_SERVED.md), and with the
// documented clean error (801 / 35) where nothing can. One `key=value` line per fact; the kernel
// results are checked (exit 1 if wrong), the rest is compared by tests/gpu/run_served.sh.
//
//   nvcc -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart shared -o served_probe \
//        tests/gpu/served_probe.cu -lcuda
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "probe_util.h"

__global__ void FillSeven(int* out) { out[threadIdx.x] = 7 + threadIdx.x; }
__global__ void FillFrom(int* out, int base) { out[threadIdx.x] = base + threadIdx.x; }

// Each block writes its cluster's size and its rank in the cluster (sm_90).
__global__ void ClusterShape(int* out) {
  unsigned size = 0, rank = 0;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = static_cast<int>(size);
    out[2 * blockIdx.x + 1] = static_cast<int>(rank);
  }
}

// Not a kernel: no module registers it.
void NotAKernel(int*) {}

namespace {

// Hand-written PTX (ISA 7.8: every driver since 11.8 JITs it): out[0] = 42.
const char kPtx[] =
    ".version 7.8\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry FortyTwo(.param .u64 p)\n"
    "{\n"
    "  .reg .b64 %rd<3>;\n"
    "  .reg .b32 %r<2>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, 42;\n"
    "  st.global.u32 [%rd2], %r1;\n"
    "  ret;\n"
    "}\n";

int g_bad = 0;

// Callers make the call first: an argument list does not order the call before the detail.
void Line(const char* key, cudaError_t rc, const std::string& detail = "") {
  std::printf("%s=%d%s%s\n", key, static_cast<int>(rc), detail.empty() ? "" : " ", detail.c_str());
}

std::string MappedRuntimes() {
  std::set<std::string> names;
  for (const std::string& file : probe::MappedFiles("cudart")) {
    names.insert(file.substr(file.rfind('/') + 1));
  }
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// Whether out[0..31] is base + i and out[32..63] is fill, read back from the device.
bool Holds(const int* device_out, int base, int fill) {
  int host[64] = {};
  if (cudaMemcpy(host, device_out, sizeof(host), cudaMemcpyDeviceToHost) != cudaSuccess) {
    return false;
  }
  for (int i = 0; i < 64; ++i) {
    if (host[i] != (i < 32 ? base + i : fill)) return false;
  }
  return true;
}

// cudaGraphAddNode with typed parameters (on 11.x runtimes composed from their typed node calls):
// memset src (64 ints = fill) -> kernel (src[0..31] = base + i) -> memcpy src to dst. Then
// cudaGraphNodeSetParams on the kernel before instantiation, cudaGraphExecNodeSetParams on all
// three after it (a new base, fill and destination), each launch's result checked.
void GraphNodesThroughTypedParams(cudaStream_t stream) {
  int *src = nullptr, *dst = nullptr, *dst2 = nullptr;
  constexpr size_t kBytes = 64 * sizeof(int);
  if (cudaMalloc(&src, kBytes) != cudaSuccess || cudaMalloc(&dst, kBytes) != cudaSuccess ||
      cudaMalloc(&dst2, kBytes) != cudaSuccess) {
    g_bad = 1;
    return;
  }
  cudaMemset(dst, 0, kBytes);
  cudaMemset(dst2, 0, kBytes);
  cudaGraph_t graph = nullptr;
  cudaGraphCreate(&graph, 0);
  int base = 100;
  void* kernel_args[] = {&src, &base};
  auto memset_params = [&](unsigned int fill) {
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = src;
    p.memset.value = fill;
    p.memset.elementSize = sizeof(int);
    p.memset.width = 64;
    p.memset.height = 1;
    return p;
  };
  auto kernel_params = [&]() {
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = reinterpret_cast<void*>(FillFrom);
    p.kernel.gridDim = dim3(1, 1, 1);
    p.kernel.blockDim = dim3(32, 1, 1);
    p.kernel.kernelParams = kernel_args;
    return p;
  };
  auto memcpy_params = [&](int* to) {
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeMemcpy;
    p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(src, kBytes, kBytes, 1);
    p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(to, kBytes, kBytes, 1);
    p.memcpy.copyParams.extent = make_cudaExtent(kBytes, 1, 1);
    p.memcpy.copyParams.kind = cudaMemcpyDeviceToDevice;
    return p;
  };
  cudaGraphNode_t set_node = nullptr, kernel_node = nullptr, copy_node = nullptr;
  cudaGraphNodeParams p = memset_params(5);
  Line("graph_add_memset", cudaGraphAddNode(&set_node, graph, nullptr, nullptr, 0, &p));
  p = kernel_params();
  Line("graph_add_kernel", cudaGraphAddNode(&kernel_node, graph, &set_node, nullptr, 1, &p));
  p = memcpy_params(dst);
  Line("graph_add_memcpy", cudaGraphAddNode(&copy_node, graph, &kernel_node, nullptr, 1, &p));
  if (set_node == nullptr || kernel_node == nullptr || copy_node == nullptr) return;
  base = 200;  // kernelParams are copied at the call: the node still has 100 until it is set
  p = kernel_params();
  Line("graph_node_set_kernel", cudaGraphNodeSetParams(kernel_node, &p));
  cudaGraphExec_t exec = nullptr;
  Line("graph_nodes_instantiate", cudaGraphInstantiate(&exec, graph, 0));
  if (exec == nullptr) {
    g_bad = 1;
    return;
  }
  Line("graph_nodes_launch", cudaGraphLaunch(exec, stream));
  cudaStreamSynchronize(stream);
  const bool first = Holds(dst, 200, 5);
  std::printf("graph_nodes_ok=%d\n", first);
  base = 300;
  p = kernel_params();
  Line("graph_exec_set_kernel", cudaGraphExecNodeSetParams(exec, kernel_node, &p));
  p = memset_params(9);
  Line("graph_exec_set_memset", cudaGraphExecNodeSetParams(exec, set_node, &p));
  p = memcpy_params(dst2);
  Line("graph_exec_set_memcpy", cudaGraphExecNodeSetParams(exec, copy_node, &p));
  Line("graph_exec_launch", cudaGraphLaunch(exec, stream));
  cudaStreamSynchronize(stream);
  // The new destination holds the new values; the first one kept the first launch's.
  const bool second = Holds(dst2, 300, 9) && Holds(dst, 200, 5);
  std::printf("graph_exec_set_ok=%d\n", second);
  if (!first || !second) g_bad = 1;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(src);
  cudaFree(dst);
  cudaFree(dst2);
}

}  // namespace

int main() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::printf("runtime_version=%d\ndriver_version=%d\n", runtime, driver);

  // cudaInitDevice: initialises device 0 without making it current for the caller's device.
  Line("cudaInitDevice", cudaInitDevice(0, 0, 0));
  // It initialises the device's primary context without making it current (13.0's behaviour).
  CUcontext current = nullptr;
  const CUresult current_rc = cuCtxGetCurrent(&current);
  std::printf("context_after_init=%d %s\n", static_cast<int>(current_rc), current ? "current" : "none");
  int device = -1;
  cudaError_t rc = cudaGetDevice(&device);
  Line("cudaGetDevice", rc, std::to_string(device));

  int* d = nullptr;
  Line("cudaMalloc", cudaMalloc(&d, 64 * sizeof(int)));
  FillSeven<<<1, 32>>>(d);
  int host[32] = {};
  Line("kernel", cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) {
    if (host[i] != 7 + i) g_bad = 1;
  }
  std::printf("kernel_ok=%d\n", g_bad == 0);

  // cudaFuncGetName: from the registration cudyn saw.
  const char* name = nullptr;
  rc = cudaFuncGetName(&name, reinterpret_cast<const void*>(FillSeven));
  Line("cudaFuncGetName", rc, name ? name : "(null)");
  Line("cudaFuncGetName_unregistered",
       cudaFuncGetName(&name, reinterpret_cast<const void*>(&MappedRuntimes)));

  cudaStream_t stream = nullptr;
  Line("cudaStreamCreate", cudaStreamCreate(&stream));
  unsigned long long id = 0;
  rc = cudaStreamGetId(stream, &id);
  Line("cudaStreamGetId", rc, id != 0 ? "nonzero" : "zero");
  int stream_device = -1;
  rc = cudaStreamGetDevice(stream, &stream_device);
  Line("cudaStreamGetDevice", rc, std::to_string(stream_device));

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  rc = cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault, &status);
  Line("cudaGetDriverEntryPointByVersion", rc,
       std::string("status=") + std::to_string(static_cast<int>(status)) +
           (fn ? " found" : " null"));
  fn = nullptr;
  rc = cudaGetDriverEntryPointByVersion("cuNoSuchEntry", &fn, 12000, cudaEnableDefault, &status);
  Line("cudaGetDriverEntryPointByVersion_absent", rc,
       std::string("status=") + std::to_string(static_cast<int>(status)));

  cudaMemPool_t pool = nullptr;
  cudaMemLocation location = {};
  location.type = cudaMemLocationTypeDevice;
  location.id = 0;
  rc = cudaMemGetDefaultMemPool(&pool, &location, cudaMemAllocationTypePinned);
  Line("cudaMemGetDefaultMemPool", rc, pool ? "pool" : "null");

  // A captured graph, instantiated: its flags.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  FillSeven<<<1, 32, 0, stream>>>(d);
  Line("capture", cudaStreamEndCapture(stream, &graph));
  Line("cudaGraphInstantiate", cudaGraphInstantiate(&exec, graph, 0));
  unsigned long long flags = 99;
  rc = cudaGraphExecGetFlags(exec, &flags);
  Line("cudaGraphExecGetFlags", rc, std::to_string(flags));

  // The library API: load PTX, find its kernel, launch it through the driver (the handle is a
  // CUkernel on every driver that has cuLibrary*).
  cudaLibrary_t library = nullptr;
  Line("cudaLibraryLoadData",
       cudaLibraryLoadData(&library, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel = nullptr;
  if (library) {
    Line("cudaLibraryGetKernel", cudaLibraryGetKernel(&kernel, library, "FortyTwo"));
  }
  if (kernel) {
    CUfunction function = nullptr;
    CUresult r = cuKernelGetFunction(&function, reinterpret_cast<CUkernel>(kernel));
    void* args[] = {&d};
    if (r == CUDA_SUCCESS) r = cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
    int first = 0;
    cudaMemcpy(&first, d, sizeof(first), cudaMemcpyDeviceToHost);
    std::printf("library_kernel=%d value=%d\n", static_cast<int>(r), first);
    if (r == CUDA_SUCCESS && first != 42) g_bad = 1;
    // Not servable from the driver before 12.5 runtimes on this driver: the clean answer.
    Line("cudaKernelSetAttributeForDevice",
         cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 0, 0));
  }
  if (library) Line("cudaLibraryUnload", cudaLibraryUnload(library));

  // cudaGraphAddNode: typed node parameters (12.2 runtimes); an empty node.
  cudaGraph_t empty_graph = nullptr;
  cudaGraphCreate(&empty_graph, 0);
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeEmpty;
  cudaGraphNode_t node = nullptr;
  Line("cudaGraphAddNode", cudaGraphAddNode(&node, empty_graph, nullptr, nullptr, 0, &params));
  Line("cudaGetLastError", cudaGetLastError());
  GraphNodesThroughTypedParams(stream);

  // ---- issue 22 item 3, the 12.x graph entries served from the driver on 11.x runtimes ----
  // cudaGraphInstantiateWithParams with an upload: the driver fills result_out / errNode_out.
  cudaGraphInstantiateParams ip = {};
  ip.flags = cudaGraphInstantiateFlagUpload;
  ip.uploadStream = stream;
  ip.result_out = cudaGraphInstantiateError;
  ip.errNode_out = reinterpret_cast<cudaGraphNode_t>(&ip);  // must come back NULL
  cudaGraphExec_t exec_params = nullptr;
  rc = cudaGraphInstantiateWithParams(&exec_params, graph, &ip);
  Line("cudaGraphInstantiateWithParams", rc,
       std::string("result_out=") + std::to_string(static_cast<int>(ip.result_out)) +
           (ip.errNode_out == nullptr ? " errNode=null" : " errNode=set"));
  if (rc == cudaSuccess) {
    cudaMemset(d, 0, 32 * sizeof(int));
    Line("graph_with_params_launch", cudaGraphLaunch(exec_params, stream));
    cudaStreamSynchronize(stream);
    int out[32] = {};
    cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < 32; ++i) ok = ok && out[i] == 7 + i;
    std::printf("graph_with_params_ok=%d\n", ok);
    if (!ok) g_bad = 1;
    cudaGraphExecDestroy(exec_params);
  }
  // cudaStreamBeginCaptureToGraph: capture into an existing graph, after a node already there.
  cudaGraph_t into = nullptr;
  cudaGraphCreate(&into, 0);
  cudaGraphNode_t first = nullptr;
  cudaGraphAddEmptyNode(&first, into, nullptr, 0);
  rc = cudaStreamBeginCaptureToGraph(stream, into, &first, nullptr, 1, cudaStreamCaptureModeGlobal);
  Line("cudaStreamBeginCaptureToGraph", rc);
  if (rc == cudaSuccess) {
    FillSeven<<<1, 32, 0, stream>>>(d);
    cudaGraph_t captured = nullptr;
    Line("capture_to_graph_end", cudaStreamEndCapture(stream, &captured));
    size_t nodes = 0;
    cudaGraphGetNodes(into, nullptr, &nodes);
    std::printf("capture_to_graph_nodes=%zu same_graph=%d\n", nodes, captured == into);
  }
  // cudaGraphConditionalHandleCreate: a handle of the runtime's context.
  cudaGraphConditionalHandle handle = 0;
  rc = cudaGraphConditionalHandleCreate(&handle, into, 1, cudaGraphCondAssignDefault);
  Line("cudaGraphConditionalHandleCreate", rc);
  if (rc == cudaSuccess) {
    // An IF node over that handle (its default 1: the body runs), added by cudaGraphAddNode: on
    // the 11.x/12.x runtimes cudyn hands the runtime's conditional params to the driver's
    // cuGraphAddNode (cudart_to_driver.inc). Its body: FillFrom(body_out, 40); the whole graph
    // instantiated and launched, the body's output read back.
    cudaGraphNodeParams cond = {};
    cond.type = cudaGraphNodeTypeConditional;
    cond.conditional.handle = handle;
    cond.conditional.type = cudaGraphCondTypeIf;
    cond.conditional.size = 1;
    cudaGraphNode_t cond_node = nullptr;
    rc = cudaGraphAddNode(&cond_node, into, nullptr, nullptr, 0, &cond);
    const bool has_body = rc == cudaSuccess && cond.conditional.phGraph_out != nullptr &&
                          cond.conditional.phGraph_out[0] != nullptr;
    Line("cudaGraphAddNode_conditional", rc, has_body ? "body" : "no_body");
    if (has_body) {
      int* body_out = nullptr;
      cudaMalloc(&body_out, 32 * sizeof(int));
      cudaMemset(body_out, 0, 32 * sizeof(int));
      int base = 40;
      void* body_args[] = {&body_out, &base};
      cudaKernelNodeParams kp = {};
      kp.func = reinterpret_cast<void*>(FillFrom);
      kp.gridDim = dim3(1);
      kp.blockDim = dim3(32);
      kp.kernelParams = body_args;
      cudaGraphNode_t body_kernel = nullptr;
      Line("conditional_body_kernel",
           cudaGraphAddKernelNode(&body_kernel, cond.conditional.phGraph_out[0], nullptr, 0, &kp));
      cudaGraphExec_t cond_exec = nullptr;
      Line("conditional_instantiate", cudaGraphInstantiate(&cond_exec, into, 0));
      Line("conditional_launch", cudaGraphLaunch(cond_exec, stream));
      Line("conditional_sync", cudaStreamSynchronize(stream));
      int host[32] = {};
      cudaMemcpy(host, body_out, sizeof(host), cudaMemcpyDeviceToHost);
      bool ok = true;
      for (int i = 0; i < 32; ++i) ok = ok && host[i] == 40 + i;
      std::printf("conditional_body_ran=%d\n", ok);
      if (!ok) g_bad = 1;
      cudaGraphExecDestroy(cond_exec);
      cudaFree(body_out);
    }
  }
  // The async notifications: register, then unregister the handle the driver gave back.
  cudaAsyncCallbackHandle_t callback = nullptr;
  rc = cudaDeviceRegisterAsyncNotification(
      0, [](cudaAsyncNotificationInfo_t*, void*, cudaAsyncCallbackHandle_t) {}, nullptr,
      &callback);
  Line("cudaDeviceRegisterAsyncNotification", rc, callback != nullptr ? "handle" : "null");
  if (rc == cudaSuccess) {
    Line("cudaDeviceUnregisterAsyncNotification", cudaDeviceUnregisterAsyncNotification(0, callback));
  }
  // 11.3-11.6 entries (from the driver on 11.2): a graph memory node pair and a user object.
  cudaGraph_t mem_graph = nullptr;
  cudaGraphCreate(&mem_graph, 0);
  cudaMemAllocNodeParams alloc = {};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.poolProps.location.id = 0;
  alloc.bytesize = 1 << 20;
  cudaGraphNode_t alloc_node = nullptr, free_node = nullptr;
  rc = cudaGraphAddMemAllocNode(&alloc_node, mem_graph, nullptr, 0, &alloc);
  Line("cudaGraphAddMemAllocNode", rc, alloc.dptr != nullptr ? "dptr" : "null");
  if (rc == cudaSuccess) {
    Line("cudaGraphAddMemFreeNode",
         cudaGraphAddMemFreeNode(&free_node, mem_graph, &alloc_node, 1, alloc.dptr));
    cudaMemAllocNodeParams back = {};
    rc = cudaGraphMemAllocNodeGetParams(alloc_node, &back);
    Line("cudaGraphMemAllocNodeGetParams", rc,
         std::string(back.dptr == alloc.dptr ? "same_dptr" : "other_dptr") + " bytes=" +
             std::to_string(back.bytesize));
    cudaGraphExec_t mem_exec = nullptr;
    Line("mem_graph_instantiate", cudaGraphInstantiate(&mem_exec, mem_graph, 0));
    Line("mem_graph_launch", cudaGraphLaunch(mem_exec, stream));
    Line("mem_graph_sync", cudaStreamSynchronize(stream));
    unsigned long long used_high = 0;
    rc = cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &used_high);
    Line("cudaDeviceGetGraphMemAttribute", rc, used_high >= (1u << 20) ? ">=1MiB" : "<1MiB");
    cudaGraphExecDestroy(mem_exec);
    Line("cudaDeviceGraphMemTrim", cudaDeviceGraphMemTrim(0));
  }
  cudaUserObject_t object = nullptr;
  static int destroyed = 0;
  rc = cudaUserObjectCreate(&object, &destroyed, [](void* p) { ++*static_cast<int*>(p); }, 1,
                            cudaUserObjectNoDestructorSync);
  Line("cudaUserObjectCreate", rc);
  if (rc == cudaSuccess) {
    Line("cudaGraphRetainUserObject",
         cudaGraphRetainUserObject(mem_graph, object, 1, cudaGraphUserObjectMove));
    cudaGraphDestroy(mem_graph);  // releases the moved reference: the destructor runs
    cudaDeviceSynchronize();
    std::printf("user_object_destroyed=%d\n", destroyed);
  }
  // ---- 11.8+ entries (composed or served on 11.2): cudaLaunchKernelExC, cluster occupancy,
  // cudaGraphDebugDotPrint ----
  // A cluster launch: 4 blocks in clusters of 2, each block's cluster size and rank checked.
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = 2;
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4, 1, 1);
  config.blockDim = dim3(32, 1, 1);
  config.stream = stream;
  config.attrs = cluster;
  config.numAttrs = 1;
  void* launch_args[] = {&d};
  cudaMemset(d, 0, 64 * sizeof(int));
  rc = cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(ClusterShape), launch_args);
  Line("cudaLaunchKernelExC_cluster", rc);
  if (rc == cudaSuccess) {
    cudaStreamSynchronize(stream);
    int shape[8] = {};
    cudaMemcpy(shape, d, sizeof(shape), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int b = 0; b < 4; ++b) ok = ok && shape[2 * b] == 2 && shape[2 * b + 1] == b % 2;
    std::printf("cluster_launch_ok=%d\n", ok);
    if (!ok) g_bad = 1;
  }
  // Without attributes, on the per-thread default stream: the runtime's own launch.
  config.numAttrs = 0;
  config.attrs = nullptr;
  config.stream = cudaStreamPerThread;
  cudaMemset(d, 0, 64 * sizeof(int));
  rc = cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(FillSeven), launch_args);
  Line("cudaLaunchKernelExC_plain", rc);
  if (rc == cudaSuccess) {
    int out[32] = {};
    cudaStreamSynchronize(cudaStreamPerThread);
    cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < 32; ++i) ok = ok && out[i] == 7 + i;
    std::printf("plain_launch_ok=%d\n", ok);
    if (!ok) g_bad = 1;
  }
  // A host function no module registered (13.0, H100: 400 with or without attributes).
  Line("cudaLaunchKernelExC_unregistered",
       cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(NotAKernel), launch_args));
  config.attrs = cluster;
  config.numAttrs = 1;
  Line("cudaLaunchKernelExC_unregistered_cluster",
       cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(NotAKernel), launch_args));
  cudaGetLastError();
  // Cluster occupancy: the driver's numbers, with the cluster attribute and without.
  config.stream = stream;
  int cluster_size = -1, clusters = -1;
  rc = cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(ClusterShape),
                                      &config);
  Line("cudaOccupancyMaxActiveClusters", rc, std::to_string(clusters));
  config.numAttrs = 0;
  rc = cudaOccupancyMaxPotentialClusterSize(
      &cluster_size, reinterpret_cast<const void*>(ClusterShape), &config);
  Line("cudaOccupancyMaxPotentialClusterSize", rc, std::to_string(cluster_size));
  Line("cudaOccupancyMaxActiveClusters_unregistered",
       cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(NotAKernel),
                                      &config));
  cudaGetLastError();
  // The captured graph's dot file (13.0 writes what the driver writes with the same flags).
  char dot_path[] = "/tmp/served_probe_dot_XXXXXX";
  const int dot_fd = mkstemp(dot_path);
  if (dot_fd >= 0) {
    close(dot_fd);
    rc = cudaGraphDebugDotPrint(graph, dot_path, cudaGraphDebugDotFlagsVerbose);
    char head[8] = {};
    if (FILE* f = std::fopen(dot_path, "r")) {
      const size_t got = std::fread(head, 1, 7, f);
      head[got] = '\0';
      std::fclose(f);
    }
    Line("cudaGraphDebugDotPrint", rc, std::strcmp(head, "digraph") == 0 ? "digraph" : "other");
    unlink(dot_path);
  }

  // Edge data before 12.3: all-default edges are what NULL means (accepted, one edge). Other
  // edges, between empty nodes and between kernel nodes: 13.0 answers for itself, an older runtime
  // cannot express a valid one (801 through cudyn) and answers 13.0's error for an invalid one.
  {
    cudaGraph_t g = nullptr;
    cudaGraphCreate(&g, 0);
    cudaGraphNode_t a = nullptr, b = nullptr, c = nullptr, k1 = nullptr, k2 = nullptr;
    cudaGraphAddEmptyNode(&a, g, nullptr, 0);
    cudaGraphAddEmptyNode(&b, g, nullptr, 0);
    cudaGraphAddEmptyNode(&c, g, nullptr, 0);
    int* out = nullptr;
    cudaMalloc(&out, 64 * sizeof(int));
    void* args[] = {&out};
    cudaKernelNodeParams kp = {};
    kp.func = reinterpret_cast<void*>(FillSeven);
    kp.gridDim = dim3(1, 1, 1);
    kp.blockDim = dim3(32, 1, 1);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&k1, g, nullptr, 0, &kp);
    cudaGraphAddKernelNode(&k2, g, nullptr, 0, &kp);
    cudaGraphEdgeData edge = {};
    rc = cudaGraphAddDependencies(g, &a, &b, &edge, 1);
    size_t edges = 0;
    cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
    Line("graph_add_dependencies_default_edge", rc, "edges " + std::to_string(edges));
    Line("graph_remove_dependencies_default_edge", cudaGraphRemoveDependencies(g, &a, &b, &edge, 1));
    struct EdgeCase {
      const char* key;
      unsigned char from_port, to_port, type, reserved0;
    };
    const EdgeCase cases[] = {
        {"edge_programmatic_type", 0, 0, cudaGraphDependencyTypeProgrammatic, 0},
        {"edge_programmatic_port", cudaGraphKernelNodePortProgrammatic, 0, 0, 0},
        {"edge_completion_port", cudaGraphKernelNodePortLaunchCompletion, 0, 0, 0},
        {"edge_port_3", 3, 0, 0, 0},
        {"edge_to_port_1", 0, 1, 0, 0},
        {"edge_type_7", 0, 0, 7, 0},
        {"edge_reserved", 0, 0, 0, 1},
    };
    for (const EdgeCase& e : cases) {
      cudaGraphEdgeData d = {};
      d.from_port = e.from_port;
      d.to_port = e.to_port;
      d.type = e.type;
      d.reserved[0] = e.reserved0;
      const std::string key = e.key;
      Line((key + "_empty").c_str(), cudaGraphAddDependencies(g, &b, &c, &d, 1));
      cudaGetLastError();
      Line((key + "_kernels").c_str(), cudaGraphAddDependencies(g, &k1, &k2, &d, 1));
      cudaGetLastError();
      Line((key + "_kernels_remove").c_str(), cudaGraphRemoveDependencies(g, &k1, &k2, &d, 1));
      cudaGetLastError();
    }
    // A default edge k1 -> k2 exists now: removing it with programmatic data (no such edge).
    cudaGraphEdgeData plain = {};
    cudaGraphAddDependencies(g, &k1, &k2, &plain, 1);
    cudaGraphEdgeData programmatic = {};
    programmatic.type = cudaGraphDependencyTypeProgrammatic;
    Line("edge_remove_mismatched", cudaGraphRemoveDependencies(g, &k1, &k2, &programmatic, 1));
    cudaGetLastError();
    Line("edge_remove_plain", cudaGraphRemoveDependencies(g, &k1, &k2, &plain, 1));
    cudaGetLastError();
    cudaGraphDestroy(g);
    cudaFree(out);
  }

  // The last-error overlay: an error of a cudyn-served path (a NULL graph: the driver's 1 on an
  // 11.x runtime) is what cudaPeekAtLastError / cudaGetLastError see, and Get clears it.
  cudaGetLastError();
  cudaGraphExec_t no_exec = nullptr;
  cudaGraphInstantiateParams none = {};
  Line("served_error", cudaGraphInstantiateWithParams(&no_exec, nullptr, &none));
  Line("peek_after_served_error", cudaPeekAtLastError());
  Line("get_after_served_error", cudaGetLastError());
  Line("get_again", cudaGetLastError());

  std::printf("mapped=%s\n", MappedRuntimes().c_str());
  std::printf("result=%s\n", g_bad ? "WRONG" : "ok");
  return g_bad;
}
