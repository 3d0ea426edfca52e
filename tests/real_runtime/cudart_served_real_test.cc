// The runtime entries served from the driver (version_tables/inputs/cudart_served.tsv) on the real
// runtimes before 13.0 (11.2, 11.8, 12.4, 12.5) with the real 535 driver (CUDA 12.2): how many
// 13.0 entries still bind as missing, each served entry bound, and their answers where no GPU is
// present: the runtime's own initialisation error (cudaFree(NULL): 100) for context entries, the
// driver's cuInit answer translated (100 CUDA_ERROR_NO_DEVICE -> cudaErrorNoDevice) for
// context-free ones, 35 for entries the 12.2 driver lacks (cuLibraryGetKernelCount 12.4,
// cuFuncGetParamInfo 12.4, cuMemcpyBatchAsync 12.8, cuLogs* 12.9, cuMemGetDefaultMemPool 13.0).
// A served entry's error is the thread's last error (cudaGetLastError / cudaPeekAtLastError through
// cudyn), ordered against the runtime's own. Each runtime runs in its own process (this binary re-executed with --served), the driver's
// directory on LD_LIBRARY_PATH and in CUDYN_DRIVER_PATH.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gtest/gtest.h"
#include "loader/cudart.h"
#include "loader/cudyn.h"
#include "tests/real_runtime/real_lists.h"
#include "tests/util/runfiles.h"

extern char** environ;

// The real driver's cuInit keeps allocations it never frees (its own state, not cudyn's): the
// children report them under --config=asan unless suppressed, as real_driver_test does.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcuda.so\n"; }

namespace {

using cudyn_real::kRealRuntimes;
using cudyn_real::RealRuntime;

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

bool IsServed(int index, int family) {
  return std::strncmp(cudyn::CudartAdapterName(cudyn::CudartRuleFor(index, family).adapter),
                      "Driver_", 7) == 0;
}

// The composed entries (inputs/cudart_adapters.tsv) added with the clean-error answer.
constexpr int kComposed[] = {cudyn::kCudart_cudaInitDevice,
                             cudyn::kCudart_cudaFuncGetName,
                             cudyn::kCudart_cudaGetDriverEntryPointByVersion,
                             cudyn::kCudart_cudaGetDriverEntryPointByVersion_ptsz,
                             cudyn::kCudart_cudaFuncGetParamInfo,
                             cudyn::kCudart_cudaKernelSetAttributeForDevice,
                             cudyn::kCudart_cudaGraphConditionalHandleCreate,
                             cudyn::kCudart_cudaGraphAddNode,
                             cudyn::kCudart_cudaGraphNodeSetParams,
                             cudyn::kCudart_cudaGraphExecNodeSetParams};
// Composed where the runtime lacks them (11.2; 11.8 has its own): the launch with a
// cudaLaunchConfig_t and the cluster occupancy calls.
constexpr int kComposedBefore118[] = {cudyn::kCudart_cudaLaunchKernelExC,
                                      cudyn::kCudart_cudaLaunchKernelExC_ptsz,
                                      cudyn::kCudart_cudaOccupancyMaxPotentialClusterSize,
                                      cudyn::kCudart_cudaOccupancyMaxActiveClusters};

const char* StatusName(cudyn::EntryStatus status) {
  return status == cudyn::EntryStatus::kNative    ? "native"
         : status == cudyn::EntryStatus::kAdapter ? "adapter"
                                                  : "other";
}

// --served DIR: opens the runtime in DIR for the environment's driver, prints key=value lines.
int Served(char** argv) {
  cudyn::RuntimeOptions options;
  options.use_environment = true;
  options.search_paths = std::vector<std::string>{argv[2]};
  auto rt = cudyn::Runtime::Open(options);
  if (rt == nullptr || !rt->ok()) return 2;
  std::printf("family=%d\nversion=%d\ndriver=%d\n", rt->family(), rt->version(),
              rt->driver_version());
  const int missing = rt->BindAll();
  // served: entries the family's rule serves from the driver; served_bound: bound to that path
  // here; served_native: bound to the runtime's own symbol instead (a later minor of the family,
  // 11.8, exports what 11.2 lacks).
  int served = 0, served_bound = 0, served_native = 0;
  for (int i = 0; i < cudyn::kCudartEntryCount; ++i) {
    if (rt->status(i) == cudyn::EntryStatus::kMissing) {
      std::printf("missing.%s=1\n", std::string(cudyn::CudartSymbol(i)).c_str());
    }
    if (IsServed(i, rt->family())) {
      ++served;
      if (rt->status(i) == cudyn::EntryStatus::kAdapter) ++served_bound;
      if (rt->status(i) == cudyn::EntryStatus::kNative) ++served_native;
    }
  }
  std::printf("served_native=%d\n", served_native);
  int composed = 0;
  for (int i : kComposed) {
    if (rt->status(i) == cudyn::EntryStatus::kAdapter) ++composed;
  }
  int composed_before_118 = 0;
  for (int i : kComposedBefore118) {
    if (rt->status(i) == cudyn::EntryStatus::kAdapter) ++composed_before_118;
    std::printf("status.%s=%s\n", std::string(cudyn::CudartSymbol(i)).c_str(),
                StatusName(rt->status(i)));
  }
  std::printf("status.cudaGraphDebugDotPrint=%s\n",
              StatusName(rt->status(cudyn::kCudart_cudaGraphDebugDotPrint)));
  std::printf("missing=%d\nserved=%d\nserved_bound=%d\ncomposed=%d\ncomposed_before_118=%d\n",
              missing, served, served_bound, composed, composed_before_118);
  // Entries no path serves: 35 below the first driver that runs a runtime with them, else 801.
  std::printf("missing_rc.cudaGetKernel=%d\nmissing_rc.cudaKernelSetAttributeForDevice=%d\n",
              rt->missing_result(cudyn::kCudart_cudaGetKernel),
              rt->missing_result(cudyn::kCudart_cudaKernelSetAttributeForDevice));
  // Composed entries, no GPU here.
  const char* name = nullptr;
  static int not_a_kernel;
  auto func_name = reinterpret_cast<int (*)(const char**, const void*)>(
      rt->Resolve(cudyn::kCudart_cudaFuncGetName));
  std::printf("func_get_name_rc=%d\n", func_name != nullptr ? func_name(&name, &not_a_kernel) : -1);
  void* entry = nullptr;
  int status = 7;
  auto by_version = reinterpret_cast<int (*)(const char*, void**, unsigned, unsigned long long,
                                             int*)>(
      rt->Resolve(cudyn::kCudart_cudaGetDriverEntryPointByVersion));
  const int by_version_rc =
      by_version != nullptr ? by_version("cuMemAlloc", &entry, 12000, 0, &status) : -1;
  std::printf("by_version_rc=%d\nby_version_status=%d\nby_version_found=%d\n", by_version_rc,
              status, entry != nullptr ? 1 : 0);
  auto init_device = reinterpret_cast<int (*)(int, unsigned, unsigned)>(
      rt->Resolve(cudyn::kCudart_cudaInitDevice));
  std::printf("init_device_rc=%d\n", init_device != nullptr ? init_device(0, 0, 0) : -1);
  // cudaKernelSetAttributeForDevice: cuKernelSetAttribute is in the 12.2 driver; cuInit answers
  // first (no GPU: 100). cudaFuncGetParamInfo: the 12.2 driver lacks cuFuncGetParamInfo (12.4): 35.
  auto set_attr = reinterpret_cast<int (*)(void*, int, int, int)>(
      rt->Resolve(cudyn::kCudart_cudaKernelSetAttributeForDevice));
  std::printf("kernel_set_attribute_rc=%d\n",
              set_attr != nullptr ? set_attr(nullptr, 8, 1024, 0) : -1);
  static int not_a_stub;
  size_t param_offset = 0, param_size = 0;
  auto param_info = reinterpret_cast<int (*)(const void*, size_t, size_t*, size_t*)>(
      rt->Resolve(cudyn::kCudart_cudaFuncGetParamInfo));
  std::printf("param_info_rc=%d\n",
              param_info != nullptr ? param_info(&not_a_stub, 0, &param_offset, &param_size) : -1);
  // cudaGraphAddNode: a NULL nodeParams is refused before any call (13.0: 1); an empty node is
  // what the runtime's own cudaGraphAddEmptyNode answers for the same arguments (asked first).
  auto add_node =
      reinterpret_cast<decltype(&cudaGraphAddNode)>(rt->Resolve(cudyn::kCudart_cudaGraphAddNode));
  auto add_empty =
      reinterpret_cast<decltype(&cudaGraphAddEmptyNode)>(rt->Symbol("cudaGraphAddEmptyNode"));
  cudaGraphNode_t graph_node = nullptr;
  alignas(cudaGraphNodeParams) unsigned char node_storage[sizeof(cudaGraphNodeParams)] = {};
  auto* node_params = reinterpret_cast<cudaGraphNodeParams*>(node_storage);
  node_params->type = cudaGraphNodeTypeEmpty;
  std::printf("add_empty_direct_rc=%d\n",
              add_empty != nullptr ? add_empty(&graph_node, nullptr, nullptr, 0) : -1);
  std::printf(
      "add_node_empty_rc=%d\n",
      add_node != nullptr ? add_node(&graph_node, nullptr, nullptr, nullptr, 0, node_params) : -1);
  std::printf(
      "add_node_null_rc=%d\n",
      add_node != nullptr ? add_node(&graph_node, nullptr, nullptr, nullptr, 0, nullptr) : -1);
  // What the runtime and the driver answer themselves.
  auto runtime_free = reinterpret_cast<int (*)(void*)>(rt->Symbol("cudaFree"));
  std::printf("runtime_free_rc=%d\n", runtime_free != nullptr ? runtime_free(nullptr) : -1);
  auto cu_init = reinterpret_cast<int (*)(unsigned)>(dlsym(cudyn::DefaultDriver().handle(),
                                                          "cuInit"));
  std::printf("driver_init_rc=%d\n", cu_init != nullptr ? cu_init(0) : -1);
  // Served entries.
  unsigned long long id = 0;
  auto get_id = reinterpret_cast<int (*)(void*, unsigned long long*)>(
      rt->Resolve(cudyn::kCudart_cudaStreamGetId));
  std::printf("stream_get_id_rc=%d\n", get_id != nullptr ? get_id(nullptr, &id) : -1);
  auto unload = reinterpret_cast<int (*)(void*)>(rt->Resolve(cudyn::kCudart_cudaLibraryUnload));
  std::printf("library_unload_rc=%d\n", unload != nullptr ? unload(nullptr) : -1);
  unsigned int n = 0;
  auto count = reinterpret_cast<int (*)(unsigned*, void*)>(
      rt->Resolve(cudyn::kCudart_cudaLibraryGetKernelCount));
  std::printf("kernel_count_rc=%d\n", count != nullptr ? count(&n, nullptr) : -1);
  unsigned int it = 0;
  auto logs = reinterpret_cast<int (*)(unsigned*, unsigned)>(
      rt->Resolve(cudyn::kCudart_cudaLogsCurrent));
  std::printf("logs_current_rc=%d\n", logs != nullptr ? logs(&it, 0) : -1);
  void* pool = nullptr;
  int location[2] = {1, 0};  // cudaMemLocationTypeDevice, device 0
  auto default_pool = reinterpret_cast<int (*)(void**, int*, int)>(
      rt->Resolve(cudyn::kCudart_cudaMemGetDefaultMemPool));
  std::printf("default_pool_rc=%d\n",
              default_pool != nullptr ? default_pool(&pool, location, 1) : -1);
  auto batch = reinterpret_cast<int (*)(void* const*, const void* const*, const size_t*, size_t,
                                        void*, size_t*, size_t, void*)>(
      rt->Resolve(cudyn::kCudart_cudaMemcpyBatchAsync));
  std::printf("memcpy_batch_rc=%d\n",
              batch != nullptr ? batch(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr)
                               : -1);
  // Graph entries of 12.x runtimes served from the driver before 12.0 (issue 22 item 3).
  void* exec = nullptr;
  unsigned long long params[4] = {};  // cudaGraphInstantiateParams: 32 B
  auto with_params = reinterpret_cast<int (*)(void**, void*, void*)>(
      rt->Resolve(cudyn::kCudart_cudaGraphInstantiateWithParams));
  std::printf("with_params_rc=%d\n",
              with_params != nullptr ? with_params(&exec, nullptr, params) : -1);
  auto to_graph = reinterpret_cast<int (*)(void*, void*, void*, void*, size_t, int)>(
      rt->Resolve(cudyn::kCudart_cudaStreamBeginCaptureToGraph));
  std::printf("capture_to_graph_rc=%d\n",
              to_graph != nullptr ? to_graph(nullptr, nullptr, nullptr, nullptr, 0, 0) : -1);
  unsigned long long handle = 0;
  auto conditional = reinterpret_cast<int (*)(unsigned long long*, void*, unsigned, unsigned)>(
      rt->Resolve(cudyn::kCudart_cudaGraphConditionalHandleCreate));
  std::printf("conditional_rc=%d\n",
              conditional != nullptr ? conditional(&handle, nullptr, 0, 0) : -1);
  void* callback = nullptr;
  auto notify = reinterpret_cast<int (*)(int, void*, void*, void**)>(
      rt->Resolve(cudyn::kCudart_cudaDeviceRegisterAsyncNotification));
  std::printf("async_register_rc=%d\n",
              notify != nullptr ? notify(0, nullptr, nullptr, &callback) : -1);
  // An 11.3+ entry: the runtime's own on 11.8, the driver's cuUserObjectCreate (11.3) on 11.2.
  void* object = nullptr;
  static int payload;
  auto user_object = reinterpret_cast<int (*)(void**, void*, void (*)(void*), unsigned, unsigned)>(
      rt->Resolve(cudyn::kCudart_cudaUserObjectCreate));
  std::printf("user_object_native=%d\nuser_object_rc=%d\n",
              rt->status(cudyn::kCudart_cudaUserObjectCreate) == cudyn::EntryStatus::kNative,
              user_object != nullptr ? user_object(&object, &payload, [](void*) {}, 1, 1) : -1);
  // 11.8+ entries (11.2 composes or serves them): a launch with and without a cluster attribute,
  // both cluster occupancy calls, a graph's dot file.
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = 2;
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2, 1, 1);
  config.blockDim = dim3(32, 1, 1);
  config.attrs = cluster;
  config.numAttrs = 1;
  static int stub;
  void* args[1] = {&stub};
  auto launch = reinterpret_cast<decltype(&cudaLaunchKernelExC)>(
      rt->Resolve(cudyn::kCudart_cudaLaunchKernelExC));
  auto launch_ptsz = reinterpret_cast<decltype(&cudaLaunchKernelExC)>(
      rt->Resolve(cudyn::kCudart_cudaLaunchKernelExC_ptsz));
  std::printf("launch_cluster_rc=%d\n", launch != nullptr ? launch(&config, &stub, args) : -1);
  std::printf("launch_cluster_ptsz_rc=%d\n",
              launch_ptsz != nullptr ? launch_ptsz(&config, &stub, args) : -1);
  auto potential = reinterpret_cast<decltype(&cudaOccupancyMaxPotentialClusterSize)>(
      rt->Resolve(cudyn::kCudart_cudaOccupancyMaxPotentialClusterSize));
  auto active = reinterpret_cast<decltype(&cudaOccupancyMaxActiveClusters)>(
      rt->Resolve(cudyn::kCudart_cudaOccupancyMaxActiveClusters));
  int clusters = 0;
  std::printf("potential_cluster_rc=%d\n",
              potential != nullptr ? potential(&clusters, &stub, &config) : -1);
  std::printf("active_clusters_rc=%d\n",
              active != nullptr ? active(&clusters, &stub, &config) : -1);
  config.numAttrs = 0;
  config.attrs = nullptr;
  std::printf("launch_plain_rc=%d\n", launch != nullptr ? launch(&config, &stub, args) : -1);
  auto runtime_launch = reinterpret_cast<int (*)(const void*, dim3, dim3, void**, size_t, void*)>(
      rt->Symbol("cudaLaunchKernel"));
  std::printf("runtime_launch_rc=%d\n",
              runtime_launch != nullptr
                  ? runtime_launch(&stub, config.gridDim, config.blockDim, args, 0, nullptr)
                  : -1);
  auto dot = reinterpret_cast<decltype(&cudaGraphDebugDotPrint)>(
      rt->Resolve(cudyn::kCudart_cudaGraphDebugDotPrint));
  std::printf("dot_print_rc=%d\n", dot != nullptr ? dot(nullptr, "unused.dot", 0) : -1);
  return 0;
}

// --last-error DIR: a served entry's own answer (35: the 12.2 driver lacks cuLibraryGetKernelCount,
// nothing runs first) and cudaGetLastError / cudaPeekAtLastError through cudyn, in a fresh process,
// then the runtime's own error (its cudaFree: 100). Without a GPU the runtime's first call fails
// its initialisation, and that error (100) is its last error from then on: its cudaGetLastError
// does not clear it (measured with 11.2, 11.8, 12.4, 12.5 on 535). A runtime error recorded after
// cudyn's wins, so through cudyn too every answer is 100, never the served 35 beneath it.
int LastError(char** argv) {
  cudyn::RuntimeOptions options;
  options.use_environment = true;
  options.search_paths = std::vector<std::string>{argv[2]};
  auto rt = cudyn::Runtime::Open(options);
  if (rt == nullptr || !rt->ok()) return 2;
  auto get_last = reinterpret_cast<int (*)()>(rt->Resolve(cudyn::kCudart_cudaGetLastError));
  auto peek_last = reinterpret_cast<int (*)()>(rt->Resolve(cudyn::kCudart_cudaPeekAtLastError));
  auto count = reinterpret_cast<int (*)(unsigned*, void*)>(
      rt->Resolve(cudyn::kCudart_cudaLibraryGetKernelCount));
  auto runtime_free = reinterpret_cast<int (*)(void*)>(rt->Symbol("cudaFree"));
  if (get_last == nullptr || peek_last == nullptr || count == nullptr || runtime_free == nullptr) {
    return 3;
  }
  unsigned n = 0;
  std::printf("last.before=%d\n", get_last());
  std::printf("last.served_rc=%d\n", count(&n, nullptr));
  std::printf("last.peek=%d\n", peek_last());
  std::printf("last.peek_again=%d\n", peek_last());
  std::printf("last.get=%d\n", get_last());
  std::printf("last.get_again=%d\n", get_last());
  std::printf("last.served_rc2=%d\n", count(&n, nullptr));
  std::printf("last.runtime_rc=%d\n", runtime_free(nullptr));
  std::printf("last.peek_after_runtime=%d\n", peek_last());
  std::printf("last.get_after_runtime=%d\n", get_last());
  return 0;
}

std::map<std::string, std::string> RunServed(const std::string& driver, const std::string& dir,
                                             const char* mode = "--served",
                                             const char* clamp = nullptr) {
  int fds[2];
  std::map<std::string, std::string> out;
  if (pipe(fds) != 0) return out;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 && std::strncmp(*e, "CUDYN_", 6) != 0) {
      env.push_back(*e);
    }
  }
  env.push_back("LD_LIBRARY_PATH=" + Dir(driver));
  env.push_back("CUDYN_DRIVER_PATH=" + driver);
  env.push_back("CUDYN_LOG=off");
  if (clamp != nullptr) env.push_back(std::string("CUDYN_MAX_CUDA_VERSION=") + clamp);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::vector<std::string> args = {"/proc/self/exe", mode, dir};
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(&s[0]);
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execve("/proc/self/exe", argv.data(), envp.data());
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

TEST(CudartServedOn535, MissingCountsAndServedAnswers) {
  const std::string driver = cudyn::testing::Runfile("nvidia_drivers/535/libcuda.so.1");
  int older = 0;
  for (const RealRuntime& runtime : kRealRuntimes) {
    if (std::string(runtime.version) >= "13") continue;
    SCOPED_TRACE(std::string("runtime ") + runtime.version);
    auto r = RunServed(driver, Dir(cudyn::testing::Runfile(runtime.path)));
    ASSERT_FALSE(r.empty());
    ASSERT_EQ(r["driver"], "12020");
    const bool twelve = r["family"] == "12";
    const int missing = std::atoi(r["missing"].c_str());
    const int served = std::atoi(r["served_bound"].c_str());
    const int composed =
        std::atoi(r["composed"].c_str()) + std::atoi(r["composed_before_118"].c_str());
    // Every entry bound to a driver-served or composed path was missing before (the generator
    // serves only where the runtime has no native symbol and no adapter; the loader tries the
    // runtime's symbols first), so before = missing now + served + composed.
    std::printf("runtime %s (%s) on 535: missing with no driver-served entries %d, before the "
                "composed entries %d, now %d (%d served from the driver, %d composed)\n",
                runtime.version, r["version"].c_str(), missing + served + composed,
                missing + composed, missing, served, composed);
    // Composed: cudaInitDevice, cudaFuncGetName (11.x), cudaGetDriverEntryPointByVersion(_ptsz)
    // (before 12.5), cudaFuncGetParamInfo (11.x), cudaKernelSetAttributeForDevice (before 13.0).
    // With the batch copies served from the driver and the last two composed (issue 22 item 3):
    // 11.2 42 -> 36, 11.8 17 -> 11, 12.4 5 -> 0, 12.5 5 -> 0. Then 7 entries of 12.x runtimes
    // from 12.x drivers on both 11.x (cudaStreamBeginCaptureToGraph(_ptsz),
    // cudaGraphInstantiateWithParams(_ptsz), cudaDevice(Un)RegisterAsyncNotification served,
    // cudaGraphConditionalHandleCreate composed) and on 11.2 the 18 entries of 11.3-11.6 runtimes
    // it lacks served from the driver (11.4 at most, all in 535), and its
    // cudaStreamUpdateCaptureDependencies(_ptsz) adapter bound (the driver's 11.3 entry where the
    // runtime has none): 11.2 36 -> 9, 11.8 11 -> 4. Then cudaGraphAddNode,
    // cudaGraphNodeSetParams and cudaGraphExecNodeSetParams composed from the runtime's typed
    // node calls: 11.2 9 -> 6, 11.8 4 -> 1 (cudaGetKernel); and on 11.2 what 11.8 has: the
    // driver's cuGraphDebugDotPrint (11.3) served, cudaLaunchKernelExC(_ptsz) and the two cluster
    // occupancy calls composed: 11.2 6 -> 1.
    const std::string v = runtime.version;
    EXPECT_EQ(missing, v == "11.2" ? 36 - 7 - 18 - 2 - 3 - 1 - 4 : v == "11.8" ? 11 - 7 - 3 : 0);
    EXPECT_EQ(composed, v == "11.2" ? 10 + 4 : v == "11.8" ? 10 : v == "12.4" ? 3 : 1);
    // The composed cudaGraphAddNode answers 1 for a NULL nodeParams (13.0 measured) and, for an
    // empty node, what the runtime's own cudaGraphAddEmptyNode answers (no GPU: its failed
    // initialisation).
    if (!twelve) {
      EXPECT_EQ(r["add_node_null_rc"], "1");
      EXPECT_EQ(r["add_node_empty_rc"], r["add_empty_direct_rc"]);
      EXPECT_NE(r["add_empty_direct_rc"], "-1");
      EXPECT_NE(r["add_empty_direct_rc"], "0");
    }
    // 535 is CUDA 12.2: an entry of 12.x runtimes answers 801 (a runtime with it runs here, the
    // chosen one lacks it); a 13.0-only entry would answer 35 (none is left unserved: the table's
    // answer for cudaKernelSetAttributeForDevice, composed now).
    if (!twelve) {
      EXPECT_EQ(r["missing_rc.cudaGetKernel"], "801");
    }
    EXPECT_EQ(r["missing_rc.cudaKernelSetAttributeForDevice"], "35");
    // Composed: a host function no module registered (13.0: 400); the driver's entry point at
    // 12.0 (found: status 0) before 12.5; the runtime's own initialisation error (no GPU: 100).
    if (!twelve) {
      EXPECT_EQ(r["func_get_name_rc"], "400");
      EXPECT_EQ(r["init_device_rc"], "100");
      EXPECT_EQ(r["param_info_rc"], "35");  // the 12.2 driver has no cuFuncGetParamInfo (12.4)
    }
    if (v != "12.5") {
      EXPECT_EQ(r["by_version_rc"], "0");
      EXPECT_EQ(r["by_version_status"], "0");
      EXPECT_EQ(r["by_version_found"], "1");
    }
    // cuInit's answer (no GPU: 100) before cuKernelSetAttribute (in the 12.2 driver), every family.
    EXPECT_EQ(r["kernel_set_attribute_rc"], "100");
    for (const auto& kv : r) {
      if (kv.first.rfind("missing.", 0) == 0) std::printf("  still missing: %s\n", kv.first.c_str() + 8);
    }
    // 12.x: 31 rows; 11.x: those 31, the 3 entries 12.x runtimes have (cudaStreamGetId(_ptsz),
    // cudaGraphExecGetFlags), the 6 served graph / notification entries, and on 11.2 the 18 and
    // cudaGraphDebugDotPrint.
    EXPECT_EQ(served, twelve ? 31 : v == "11.8" ? 31 + 3 + 6 : 31 + 3 + 6 + 18 + 1);
    // Each rule bound, to the driver or to the runtime's own symbol, none missing.
    EXPECT_EQ(std::atoi(r["served"].c_str()), served + std::atoi(r["served_native"].c_str()));
    EXPECT_EQ(r["served_native"], v == "11.8" ? "19" : "0");
    // 11.2 lacks what 11.8 has: composed (the launch, the cluster occupancy) or served (the dot
    // file); every other runtime binds its own. No GPU: the runtime's initialisation (100) answers
    // first on both paths (535 has cuLaunchKernelEx, the cluster occupancy entries and
    // cuGraphDebugDotPrint), and a launch without attributes is the runtime's own cudaLaunchKernel.
    const char* own = v == "11.2" ? "adapter" : "native";
    for (const char* entry : {"cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
                              "cudaOccupancyMaxPotentialClusterSize",
                              "cudaOccupancyMaxActiveClusters", "cudaGraphDebugDotPrint"}) {
      EXPECT_EQ(r[std::string("status.") + entry], own) << entry;
      EXPECT_EQ(r.count(std::string("missing.") + entry), 0u) << entry;
    }
    for (const char* answer : {"launch_cluster_rc", "launch_cluster_ptsz_rc",
                               "potential_cluster_rc", "active_clusters_rc", "dot_print_rc"}) {
      EXPECT_EQ(r[answer], "100") << answer;
    }
    EXPECT_EQ(r["runtime_launch_rc"], "100");
    EXPECT_EQ(r["launch_plain_rc"], r["runtime_launch_rc"]);
    for (const char* entry : {"cudaStreamGetId", "cudaLibraryLoadData", "cudaLogsCurrent",
                              "cudaMemcpyBatchAsync", "cudaMemcpy3DBatchAsync_ptsz",
                              "cudaFuncGetParamInfo", "cudaKernelSetAttributeForDevice"}) {
      EXPECT_EQ(r.count(std::string("missing.") + entry), 0u) << entry;
    }
    // No GPU here: the runtime's initialisation answers 100 and is the served entry's answer.
    EXPECT_EQ(r["runtime_free_rc"], "100");
    EXPECT_EQ(r["stream_get_id_rc"], r["runtime_free_rc"]);
    // Context-free entries: the driver's cuInit answer, translated (100 -> cudaErrorNoDevice).
    EXPECT_EQ(r["driver_init_rc"], "100");
    EXPECT_EQ(r["library_unload_rc"], r["driver_init_rc"]);
    // The 12.2 driver lacks cuLibraryGetKernelCount (12.4) and cuLogsCurrent (12.9): 35.
    EXPECT_EQ(r["kernel_count_rc"], "35");
    EXPECT_EQ(r["logs_current_rc"], "35");
    EXPECT_EQ(r["default_pool_rc"], "35");  // cuMemGetDefaultMemPool: 13.0
    EXPECT_EQ(r["memcpy_batch_rc"], "35");  // cuMemcpyBatchAsync: 12.8
    if (!twelve) {
      // cuGraphInstantiateWithParams is in the 12.2 driver: the runtime's initialisation answers.
      EXPECT_EQ(r["with_params_rc"], r["runtime_free_rc"]);
      // The 12.2 driver lacks cuStreamBeginCaptureToGraph, cuGraphConditionalHandleCreate (12.3)
      // and cuDeviceRegisterAsyncNotification (12.4): 35, what 13.0 answers there.
      EXPECT_EQ(r["capture_to_graph_rc"], "35");
      EXPECT_EQ(r["conditional_rc"], "35");
      EXPECT_EQ(r["async_register_rc"], "35");
      EXPECT_EQ(r["user_object_native"], v == "11.8" ? "1" : "0");
      // 11.2: cuUserObjectCreate (11.3, in 535) after the runtime's initialisation, which fails.
      if (v == "11.2") EXPECT_EQ(r["user_object_rc"], r["runtime_free_rc"]);
      // Under a clamp to CUDA 11.2 the driver is one without cuGraphInstantiateWithParams (12.0)
      // and cuUserObjectCreate (11.3): 35 before anything runs, what a real 11.2 driver gives.
      auto c = RunServed(driver, Dir(cudyn::testing::Runfile(runtime.path)), "--served", "11020");
      ASSERT_FALSE(c.empty());
      EXPECT_EQ(c["driver"], "11020");
      EXPECT_EQ(c["with_params_rc"], "35");
      if (v == "11.2") EXPECT_EQ(c["user_object_rc"], "35");
      EXPECT_EQ(c["missing_rc.cudaGetKernel"], "35");  // 12.x runtimes need a 12.0 driver
      if (v == "11.2") {
        // Nor cuLaunchKernelEx (11.8), the cluster occupancy entries (11.8) or
        // cuGraphDebugDotPrint (11.3): 35, nothing run; a launch without attributes is still
        // the runtime's own.
        for (const char* answer : {"launch_cluster_rc", "launch_cluster_ptsz_rc",
                                   "potential_cluster_rc", "active_clusters_rc", "dot_print_rc"}) {
          EXPECT_EQ(c[answer], "35") << answer;
        }
        EXPECT_EQ(c["launch_plain_rc"], c["runtime_launch_rc"]);
        EXPECT_EQ(c["runtime_launch_rc"], "100");
      }
    }
    // The runtime's failed initialisation (100, no GPU) is its last error from its first call
    // on and is never cleared; it stays the answer through cudyn after the served entry's 35 —
    // cudyn's overlay never hides the runtime's own, more recent, error.
    auto l = RunServed(driver, Dir(cudyn::testing::Runfile(runtime.path)), "--last-error");
    ASSERT_FALSE(l.empty());
    EXPECT_EQ(l["last.before"], "100");
    EXPECT_EQ(l["last.served_rc"], "35");
    for (const char* k : {"last.peek", "last.peek_again", "last.get", "last.get_again",
                          "last.peek_after_runtime", "last.get_after_runtime"}) {
      EXPECT_EQ(l[k], "100") << k;
    }
    EXPECT_EQ(l["last.served_rc2"], "35");
    EXPECT_EQ(l["last.runtime_rc"], "100");
    ++older;
  }
  EXPECT_EQ(older, 4);  // 11.2, 11.8, 12.4, 12.5
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--served") == 0) return Served(argv);
  if (argc >= 3 && std::strcmp(argv[1], "--last-error") == 0) return LastError(argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
