// graph: stream capture into a CUDA graph, then graph editing, instantiation and launch.
//
//   capture   cuStreamBeginCapture (_v2), two kernels, cuStreamGetCaptureInfo (_v3 under the CUDA 13.0
//             headers: status, id, graph, dependencies, edge data), cuStreamEndCapture
//   edit      cuGraphGetNodes, cuGraphGetEdges (_v2), cuGraphAddNode (_v2: a third kernel node),
//             cuGraphAddDependencies (_v2: last captured kernel -> new node)
//   run       cuGraphInstantiate (= cuGraphInstantiateWithFlags), cuGraphLaunch twice, check x
//
// On old drivers (or under CUDYN_MAX_CUDA_VERSION) cudyn adapts the _v2/_v3 edge-data variants to
// the older ones (default edges only). What a CUDA 10.1 driver cannot do at all is reported as "not
// available at this driver version", and the example uses what that driver has instead, so the
// numeric result is the same on every driver:
//   * dependency outputs of cuStreamGetCaptureInfo need CUDA 11.3 (only status and id before);
//   * cuGraphAddNode needs CUDA 12.2: the node is added with cuGraphAddKernelNode instead;
//   * cuGraphInstantiateWithFlags needs CUDA 11.4: cuGraphInstantiate with the CUDA 10.0 signature,
//     obtained through cuGetProcAddress, instead.
#include <cuda.h>

#include <vector>

#include "common/example.h"

namespace {

// The CUDA 10.0 prototype of cuGraphInstantiate (the 13.0 headers only declare it internally).
typedef CUresult(CUDAAPI* GraphInstantiateV10000)(CUgraphExec* exec, CUgraph graph,
                                                   CUgraphNode* error_node, char* log,
                                                   size_t log_size);

struct Step {
  float scale;
  float offset;
};
// x = x * scale + offset, three times per graph launch: two captured kernels, one added node.
constexpr Step kSteps[3] = {{2.0f, 1.0f}, {0.5f, 3.0f}, {2.0f, -4.0f}};
constexpr int kLaunches = 2;

void LaunchStep(CUfunction kernel, CUstream stream, CUdeviceptr x, int n, const Step& step) {
  float scale = step.scale, offset = step.offset;
  void* params[] = {&x, &scale, &offset, &n};
  CU_CHECK(cuLaunchKernel(kernel, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1, 0,
                          stream, params, nullptr));
}

size_t NodeCount(CUgraph graph) {
  size_t count = 0;
  CU_CHECK(cuGraphGetNodes(graph, nullptr, &count));
  return count;
}

}  // namespace

int main() {
  CUdevice device = 0;
  if (int code = example::Start("graph", &device)) return code;

  CUcontext context = nullptr;
  CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cuCtxSetCurrent(context));
  CUmodule module = example::LoadKernels();
  CUfunction scale_offset = example::GetKernel(module, "scale_offset");
  CUstream stream = nullptr;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  int n = 1 << 20;
  size_t bytes = sizeof(float) * n;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000);
  CUdeviceptr dx = 0;
  CU_CHECK(cuMemAlloc(&dx, bytes));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), bytes));

  // --- capture ---------------------------------------------------------------------------------
  CU_CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
  LaunchStep(scale_offset, stream, dx, n, kSteps[0]);
  LaunchStep(scale_offset, stream, dx, n, kSteps[1]);

  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t capture_id = 0;
  CU_CHECK(cuStreamGetCaptureInfo(stream, &status, &capture_id, nullptr, nullptr, nullptr, nullptr));
  if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    example::Fail("cuStreamGetCaptureInfo: status %d while capturing, expected ACTIVE", status);
  }
  CUgraph capturing_graph = nullptr;
  const CUgraphNode* capture_deps = nullptr;
  const CUgraphEdgeData* capture_edges = nullptr;
  size_t num_capture_deps = 0;
  CUresult rc = cuStreamGetCaptureInfo(stream, &status, &capture_id, &capturing_graph, &capture_deps,
                                       &capture_edges, &num_capture_deps);
  CUgraphNode captured_last = nullptr;  // the capture's current dependency: the second kernel
  if (!example::NotAvailable("capture_dependencies", "cuStreamGetCaptureInfo(graph, dependencies)",
                             rc, 11030)) {
    if (capturing_graph == nullptr || num_capture_deps != 1 || capture_deps == nullptr) {
      example::Fail("cuStreamGetCaptureInfo: graph %p, %zu dependencies, expected a graph and 1",
                    static_cast<void*>(capturing_graph), num_capture_deps);
    }
    if (capture_edges != nullptr && capture_edges[0].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT) {
      example::Fail("cuStreamGetCaptureInfo: edge type %d, expected a default edge",
                    static_cast<int>(capture_edges[0].type));
    }
    captured_last = capture_deps[0];
    example::PartRan("capture_dependencies");
  }
  CUgraph graph = nullptr;
  CU_CHECK(cuStreamEndCapture(stream, &graph));
  CU_CHECK(cuStreamGetCaptureInfo(stream, &status, &capture_id, nullptr, nullptr, nullptr, nullptr));
  if (status != CU_STREAM_CAPTURE_STATUS_NONE) {
    example::Fail("cuStreamGetCaptureInfo: status %d after cuStreamEndCapture, expected NONE", status);
  }
  if (NodeCount(graph) != 2) example::Fail("captured graph has %zu nodes, expected 2", NodeCount(graph));
  example::PartRan("capture");

  // --- edit --------------------------------------------------------------------------------------
  CUgraphNode from[2] = {}, to[2] = {};
  CUgraphEdgeData edge_data[2] = {};
  size_t num_edges = 2;
  CU_CHECK(cuGraphGetEdges(graph, from, to, edge_data, &num_edges));
  if (num_edges != 1) example::Fail("captured graph has %zu edges, expected 1", num_edges);
  if (captured_last != nullptr && captured_last != to[0]) {
    example::Fail("cuStreamGetCaptureInfo's dependency is not the captured graph's last node");
  }
  CUgraphNode last = to[0];

  float scale = kSteps[2].scale, offset = kSteps[2].offset;
  void* params[] = {&dx, &scale, &offset, &n};
  CUgraphNodeParams node_params = {};
  node_params.type = CU_GRAPH_NODE_TYPE_KERNEL;
  node_params.kernel.func = scale_offset;
  node_params.kernel.gridDimX = example::BlocksFor(n);
  node_params.kernel.gridDimY = node_params.kernel.gridDimZ = 1;
  node_params.kernel.blockDimX = example::kThreadsPerBlock;
  node_params.kernel.blockDimY = node_params.kernel.blockDimZ = 1;
  node_params.kernel.kernelParams = params;
  CUgraphNode added = nullptr;
  rc = cuGraphAddNode(&added, graph, nullptr, nullptr, 0, &node_params);
  if (!example::NotAvailable("graph_add_node", "cuGraphAddNode", rc, 12020, "cuGraphAddKernelNode")) {
    example::PartRan("graph_add_node");
  } else {
    CUDA_KERNEL_NODE_PARAMS kernel_params = {};
    kernel_params.func = scale_offset;
    kernel_params.gridDimX = example::BlocksFor(n);
    kernel_params.gridDimY = kernel_params.gridDimZ = 1;
    kernel_params.blockDimX = example::kThreadsPerBlock;
    kernel_params.blockDimY = kernel_params.blockDimZ = 1;
    kernel_params.kernelParams = params;
    CU_CHECK(cuGraphAddKernelNode(&added, graph, nullptr, 0, &kernel_params));
  }
  CU_CHECK(cuGraphAddDependencies(graph, &last, &added, nullptr, 1));
  num_edges = 2;
  CU_CHECK(cuGraphGetEdges(graph, from, to, edge_data, &num_edges));
  if (NodeCount(graph) != 3 || num_edges != 2) {
    example::Fail("edited graph has %zu nodes and %zu edges, expected 3 and 2", NodeCount(graph),
                  num_edges);
  }
  example::PartRan("graph_edit");

  // --- instantiate and launch --------------------------------------------------------------------
  CUgraphExec exec = nullptr;
  rc = cuGraphInstantiate(&exec, graph, 0);
  if (!example::NotAvailable("graph_instantiate_with_flags", "cuGraphInstantiateWithFlags", rc, 11040,
                             "cuGraphInstantiate (CUDA 10.0 signature) from cuGetProcAddress")) {
    example::PartRan("graph_instantiate_with_flags");
  } else {
    void* function = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CU_CHECK(cuGetProcAddress("cuGraphInstantiate", &function, 10000, 0, &found));
    if (function == nullptr || found != CU_GET_PROC_ADDRESS_SUCCESS) {
      example::Fail("cuGetProcAddress(\"cuGraphInstantiate\", 10000): status %d", static_cast<int>(found));
    }
    char log[256] = {0};
    CUgraphNode error_node = nullptr;
    CU_CHECK(reinterpret_cast<GraphInstantiateV10000>(function)(&exec, graph, &error_node, log,
                                                                sizeof(log)));
  }
  for (int i = 0; i < kLaunches; ++i) CU_CHECK(cuGraphLaunch(exec, stream));
  CU_CHECK(cuStreamSynchronize(stream));
  CU_CHECK(cuMemcpyDtoH(x.data(), dx, bytes));

  for (int i = 0; i < n; ++i) {
    float want = static_cast<float>(i % 1000);
    for (int launch = 0; launch < kLaunches; ++launch) {
      for (const Step& step : kSteps) want = want * step.scale + step.offset;
    }
    if (x[i] != want) example::Fail("graph: x[%d] = %g, expected %g", i, x[i], want);
  }
  example::PartRan("graph_launch");
  example::PrintChecksum("graph_launch", x.data(), bytes);

  CU_CHECK(cuGraphExecDestroy(exec));
  CU_CHECK(cuGraphDestroy(graph));
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuDevicePrimaryCtxRelease(device));
  return example::Finish();
}
