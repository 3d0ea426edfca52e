// The runtime loader (loader/cudart.h) against the real thing: the five real CUDA runtimes
// (11.2, 11.8, 12.4, 12.5 from Debian, 13.0 from the toolkit) offered together, on every real
// driver (and on none). For each driver: which runtime is chosen, the version it reports, what
// binds natively / through an adapter / not at all, and that calls pass the runtime's own errors
// through (no GPU here: 100 where the runtime accepts the driver). Each driver runs in its own
// process: this binary re-executed with --choose, the driver's directory on LD_LIBRARY_PATH (the
// runtime's own dlopen of libcuda.so.1 must find that driver) and CUDYN_DRIVER_PATH (cudyn's).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudart.h"
#include "tests/real_runtime/real_lists.h"
#include "tests/util/runfiles.h"

extern char** environ;

namespace {

using cudyn_real::kRealDrivers;
using cudyn_real::kRealRuntimes;
using cudyn_real::RealDriver;
using cudyn_real::RealRuntime;

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

// The runtimes' directories, newest first (12.5 before 12.4: both are libcudart.so.12).
std::vector<std::string> RuntimeDirs() {
  std::vector<std::string> dirs;
  const char* cp = std::getenv("CUDA_PATH");
  dirs.push_back(std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64");
  for (int i = sizeof(kRealRuntimes) / sizeof(kRealRuntimes[0]) - 1; i >= 0; --i) {
    dirs.push_back(Dir(cudyn::testing::Runfile(kRealRuntimes[i].path)));
  }
  return dirs;
}

// --choose DIR...: opens a Runtime over DIRs for the environment's driver and prints key=value
// lines.
int Choose(int argc, char** argv) {
  cudyn::RuntimeOptions options;
  options.use_environment = true;
  options.search_paths = std::vector<std::string>(argv + 2, argv + argc);
  auto rt = cudyn::Runtime::Open(options);
  if (rt == nullptr) return 2;
  std::printf("ok=%d\nerror=%d\nfamily=%d\nversion=%d\ndriver=%d\npath=%s\n", rt->ok(),
              rt->error(), rt->family(), rt->version(), rt->driver_version(), rt->path().c_str());
  const int missing = rt->BindAll();
  std::printf("missing=%d\n", missing);
  for (int index : {cudyn::kCudart_cudaMemAdvise, cudyn::kCudart_cudaGraphAddNode,
                    cudyn::kCudart_cudaGetKernel, cudyn::kCudart_cudaGetDeviceProperties,
                    cudyn::kCudart_cudaMemcpy, cudyn::kCudart_cudaGraphInstantiate,
                    // Texture / surface descriptors: converted between layouts on 11.x / 12.x.
                    cudyn::kCudart_cudaCreateTextureObject, cudyn::kCudart_cudaCreateSurfaceObject,
                    cudyn::kCudart_cudaGetTextureObjectResourceDesc,
                    cudyn::kCudart_cudaGetSurfaceObjectResourceDesc,
                    cudyn::kCudart_cudaGetTextureObjectResourceViewDesc,
                    cudyn::kCudart_cudaGetTextureObjectTextureDesc}) {
    std::printf("status.%s=%s\nbound.%s=%s\n", std::string(cudyn::CudartSymbol(index)).c_str(),
                cudyn::EntryStatusName(rt->status(index)),
                std::string(cudyn::CudartSymbol(index)).c_str(), rt->bound_symbol(index).c_str());
  }
  using CountFn = int (*)(int*);
  auto count = reinterpret_cast<CountFn>(rt->Resolve(cudyn::kCudart_cudaGetDeviceCount));
  int n = -1;
  std::printf("count_rc=%d\n", count != nullptr ? count(&n) : rt->missing_result());
  // An adapter over the real 11.x function: the runtime's own answer comes back.
  using PropFn = int (*)(void*, int);
  auto props = reinterpret_cast<PropFn>(rt->Resolve(cudyn::kCudart_cudaGetDeviceProperties));
  alignas(16) unsigned char prop[4096];
  std::printf("props_rc=%d\n", props != nullptr ? props(prop, 0) : rt->missing_result());
  return 0;
}

std::map<std::string, std::string> RunChoose(const std::string& driver, const std::string& clamp,
                                             const std::vector<std::string>& dirs = RuntimeDirs()) {
  int fds[2];
  std::map<std::string, std::string> out;
  if (pipe(fds) != 0) return out;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 && std::strncmp(*e, "CUDYN_", 6) != 0) {
      env.push_back(*e);
    }
  }
  env.push_back("LD_LIBRARY_PATH=" + (driver.empty() ? std::string("/nonexistent") : Dir(driver)));
  env.push_back("CUDYN_DRIVER_PATH=" + (driver.empty() ? std::string("/nonexistent/libcuda.so.1")
                                                       : driver));
  env.push_back("CUDYN_LOG=off");
  if (!clamp.empty()) env.push_back("CUDYN_MAX_CUDA_VERSION=" + clamp);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::vector<std::string> args = {"/proc/self/exe", "--choose"};
  for (const std::string& d : dirs) args.push_back(d);
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

std::string DriverPath(const char* major) {
  return cudyn::testing::Runfile(std::string("nvidia_drivers/") + major + "/libcuda.so.1");
}

TEST(CudartOnRealDrivers, TheNewestRuntimeEachDriverRuns) {
  ASSERT_EQ(sizeof(kRealDrivers) / sizeof(kRealDrivers[0]), 5u);
  for (const RealDriver& d : kRealDrivers) {
    SCOPED_TRACE(std::string("driver ") + d.major);
    auto r = RunChoose(DriverPath(d.major), "");
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(r["driver"], std::to_string(d.cuda));
    if (d.cuda < 11000) {
      // 418 is CUDA 10.1: no runtime offered here is old enough.
      EXPECT_EQ(r["ok"], "0");
      EXPECT_EQ(r["error"], "303");
      EXPECT_EQ(r["count_rc"], "303");
      continue;
    }
    ASSERT_EQ(r["ok"], "1");
    const bool twelve = d.cuda >= 12000;
    EXPECT_EQ(r["family"], twelve ? "12" : "11");
    EXPECT_EQ(r["version"], twelve ? "12050" : "11080");
    EXPECT_NE(r["path"].find(twelve ? "/12.5/" : "/11.8/"), std::string::npos) << r["path"];
    EXPECT_EQ(r["status.cudaMemAdvise"], twelve ? "native" : "adapter");
    EXPECT_EQ(r["bound.cudaMemAdvise"], twelve ? "cudaMemAdvise_v2" : "");
    // cudaGraphAddNode: composed from the runtime's typed node calls on 11.x; cudaGetKernel is
    // still missing there.
    EXPECT_EQ(r["status.cudaGraphAddNode"], twelve ? "native" : "adapter");
    EXPECT_EQ(r["status.cudaGetKernel"], twelve ? "native" : "missing");
    EXPECT_EQ(r["status.cudaGetDeviceProperties"], "adapter");
    EXPECT_EQ(r["status.cudaMemcpy"], "native");
    EXPECT_EQ(r["bound.cudaMemcpy"], "cudaMemcpy");
    EXPECT_EQ(r["status.cudaGraphInstantiate"], twelve ? "native" : "adapter");
    // 11.8 still lacks an entry no path serves (cudaGetKernel); 12.5 has none left since
    // the batch copies are served from the driver and cudaKernelSetAttributeForDevice is composed.
    EXPECT_EQ(r["missing"] == "0", twelve) << r["missing"];
    // No GPU on this machine: the runtime accepted the driver and found no device.
    EXPECT_EQ(r["count_rc"], "100");
    EXPECT_EQ(r["props_rc"], "100");
  }
}

// The texture / surface entries whose descriptors changed layout in 13.0 (cudaResourceDesc 64 ->
// 144 B, cudaResourceViewDesc 48 -> 112 B, 11.x cudaTextureDesc 68 -> 72 B) are served by the
// layout-converting adapters on every real runtime before 13.0, not missing.
TEST(CudartOnRealDrivers, TextureAndSurfaceEntriesAreAdaptersOnEveryOlderRuntime) {
  const RealDriver* newest_driver = &kRealDrivers[0];
  for (const RealDriver& d : kRealDrivers) {
    if (d.cuda > newest_driver->cuda) newest_driver = &d;
  }
  const RealDriver& newest = *newest_driver;
  int older = 0;
  for (const RealRuntime& runtime : kRealRuntimes) {
    if (std::string(runtime.version) >= "13") continue;
    SCOPED_TRACE(std::string("runtime ") + runtime.version + " on driver " + newest.major);
    auto r = RunChoose(DriverPath(newest.major), "",
                       {Dir(cudyn::testing::Runfile(runtime.path))});
    ASSERT_EQ(r["ok"], "1");
    EXPECT_EQ(r["family"], runtime.version[1] == '2' ? "12" : "11");
    for (const char* entry :
         {"cudaCreateTextureObject", "cudaCreateSurfaceObject", "cudaGetTextureObjectResourceDesc",
          "cudaGetSurfaceObjectResourceDesc", "cudaGetTextureObjectResourceViewDesc"}) {
      EXPECT_EQ(r[std::string("status.") + entry], "adapter") << entry;
    }
    // 12.x's cudaTextureDesc is 13.0's: native there.
    EXPECT_EQ(r["status.cudaGetTextureObjectTextureDesc"],
              runtime.version[1] == '2' ? "native" : "adapter");
    ++older;
  }
  EXPECT_GE(older, 4);  // 11.2, 11.8, 12.4, 12.5
}

TEST(CudartOnRealDrivers, ClampChoosesFamily11On535) {
  auto r = RunChoose(DriverPath("535"), "11040");
  ASSERT_EQ(r["ok"], "1");
  EXPECT_EQ(r["driver"], "11040");
  EXPECT_EQ(r["family"], "11");
  EXPECT_EQ(r["version"], "11080");
  EXPECT_EQ(r["count_rc"], "100");  // 11.8 runs on the 12.2 driver
}

TEST(CudartOnRealDrivers, NoDriverTakesTheNewestAndPassesItsErrorThrough) {
  auto r = RunChoose("", "");
  ASSERT_EQ(r["ok"], "1");
  EXPECT_EQ(r["driver"], "0");
  EXPECT_EQ(r["family"], "13");
  EXPECT_EQ(r["version"], "13000");  // 13.0 answers cudaRuntimeGetVersion without a driver
  EXPECT_EQ(r["missing"], "0");      // every entry of the 13.0 headers is the 13.0 runtime's
  EXPECT_EQ(r["status.cudaGetDeviceProperties"], "native");
  EXPECT_EQ(r["count_rc"], "35");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--choose") == 0) return Choose(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
