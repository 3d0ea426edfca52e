// A CUDA 13.0 program written the ordinary way (runtime API, <<<...>>> kernels, managed memory,
// a captured graph), built by nvcc with `-cudart none` and linked with cudyn's runtime drop-in
// instead of libcudart. It prints `key=value` lines that must be identical on every runtime cudyn
// can choose (tests/gpu/run_cudart.sh compares them) and exits non-zero on any failed call.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t rc_ = (call);                                                        \
    if (rc_ != cudaSuccess) {                                                        \
      std::printf("FAIL %s = %d (%s) at line %d\n", #call, static_cast<int>(rc_),   \
                  cudaGetErrorName(rc_), __LINE__);                                  \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

__global__ void Fill(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 2.0f * i + 1.0f;
}

__global__ void AddScale(float* a, int n, float add, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = (a[i] + add) * scale;
}

__device__ int g_counter;
__managed__ int g_managed_flag;

__global__ void Count(int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) g_managed_flag = 7;
  atomicAdd(&g_counter, n);
}

double Sum(const float* a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}

int main() {
  int runtime = 0, driver = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  // Runtime-specific lines start with "info:" so the comparison can leave them out.
  std::printf("info: runtime=%d driver=%d\n", runtime, driver);

  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  std::printf("devices=%d\n", count);
  cudaDeviceProp prop;
  std::memset(&prop, 0, sizeof(prop));
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("name=%s\nsm_count=%d\ncc=%d.%d\ntotal_mem=%zu\nwarp=%d\nmax_threads=%d\n"
              "l2=%d\nconcurrent_managed=%d\n",
              prop.name, prop.multiProcessorCount, prop.major, prop.minor, prop.totalGlobalMem,
              prop.warpSize, prop.maxThreadsPerBlock, prop.l2CacheSize,
              prop.concurrentManagedAccess);
  int chosen = -1;
  CHECK(cudaChooseDevice(&chosen, &prop));
  std::printf("chosen=%d\n", chosen);

  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  float* a = nullptr;
  CHECK(cudaMallocManaged(&a, bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaMemLocation device{};
  device.type = cudaMemLocationTypeDevice;
  device.id = 0;
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  CHECK(cudaMemAdvise(a, bytes, cudaMemAdviseSetPreferredLocation, device));
  CHECK(cudaMemAdvise(a, bytes, cudaMemAdviseSetAccessedBy, host));
  CHECK(cudaMemPrefetchAsync(a, bytes, device, 0, stream));
  Fill<<<(n + 255) / 256, 256, 0, stream>>>(a, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemPrefetchAsync(a, bytes, host, 0, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("fill_sum=%.1f a[12345]=%.1f\n", Sum(a, n), a[12345]);

  // Capture two launches into a graph, inspect the capture, instantiate, launch three times.
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  AddScale<<<(n + 255) / 256, 256, 0, stream>>>(a, n, 1.0f, 0.5f);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  CHECK(cudaStreamGetCaptureInfo(stream, &status, &id, nullptr, nullptr, nullptr, nullptr));
  std::printf("capture_status=%d\n", static_cast<int>(status));
  // The capture's graph and dependencies: 11.2 cannot say (no cudaStreamGetCaptureInfo_v2
  // before 11.3), so cudyn answers 801 there: an info line.
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  size_t ndeps = 0;
  cudaGraph_t capturing = nullptr;
  cudaError_t info_rc =
      cudaStreamGetCaptureInfo(stream, &status, &id, &capturing, &deps, &edges, &ndeps);
  if (info_rc == cudaSuccess) {
    std::printf("info: capture_deps=%zu default_edges=%d\n", ndeps,
                edges != nullptr && ndeps == 1 && edges[0].type == 0 && edges[0].from_port == 0);
  } else if (info_rc == cudaErrorNotSupported) {
    std::printf("info: capture_deps=not supported by this runtime (801)\n");
  } else {
    CHECK(info_rc);
  }
  AddScale<<<(n + 255) / 256, 256, 0, stream>>>(a, n, -1.0f, 2.0f);
  CHECK(cudaStreamEndCapture(stream, &graph));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  size_t nedges = 0;
  CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &nedges));
  std::printf("graph_nodes=%zu graph_edges=%zu\n", nodes, nedges);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("graph_sum=%.1f a[12345]=%.1f\n", Sum(a, n), a[12345]);
  cudaGraphExecUpdateResultInfo info;
  std::memset(&info, 0xff, sizeof(info));
  CHECK(cudaGraphExecUpdate(exec, graph, &info));
  std::printf("exec_update_result=%d\n", static_cast<int>(info.result));

  Count<<<4, 32>>>(5);
  CHECK(cudaDeviceSynchronize());
  int counter = 0;
  CHECK(cudaMemcpyFromSymbol(&counter, g_counter, sizeof(counter)));
  std::printf("counter=%d managed_flag=%d\n", counter, g_managed_flag);

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  CHECK(cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &query));
  std::printf("entry_point_found=%d\n", fn != nullptr && query == cudaDriverEntryPointSuccess);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(a));
  std::printf("ok\n");
  return 0;
}
