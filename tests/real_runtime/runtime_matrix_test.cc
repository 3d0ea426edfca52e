// The runtime-family rule cudyn-check's runtime layer applies (a CUDA runtime of family F runs on
// a driver of CUDA F.0 or newer: 11.x -> 11.0, 12.x -> 12.0, 13.x -> 13.0), proven against the real
// thing: every real runtime (third_party/cuda_runtimes.bzl, and the 13.0 toolkit's) on every real
// driver (third_party/nvidia_drivers.bzl) and on none. Each pair runs in its own process (this
// binary, re-executed with --probe and the driver's directory on LD_LIBRARY_PATH, so the runtime's
// dlopen("libcuda.so.1") finds that driver and only that one). This machine has no GPU, so a runtime
// that accepts the driver answers cudaGetDeviceCount with 100 (cudaErrorNoDevice) and one that
// refuses it with 35 (cudaErrorInsufficientDriver) — except where measured otherwise (below).
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudart_family.h"
#include "tests/real_runtime/real_lists.h"
#include "tests/util/runfiles.h"
#include "tools/layers/runtime_layer.h"

extern char** environ;

namespace {

using cudyn_real::kRealDrivers;
using cudyn_real::kRealRuntimes;
using cudyn_real::RealDriver;
using cudyn_real::RealRuntime;

// --probe RUNTIME: prints "<cudaRuntimeGetVersion rc> <version> <cudaGetDeviceCount rc>".
int Probe(const char* runtime) {
  void* h = dlopen(runtime, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::printf("dlopen failed: %s\n", dlerror());
    return 2;
  }
  using IntOut = int (*)(int*);
  auto get_version = reinterpret_cast<IntOut>(dlsym(h, "cudaRuntimeGetVersion"));
  auto get_count = reinterpret_cast<IntOut>(dlsym(h, "cudaGetDeviceCount"));
  if (get_version == nullptr || get_count == nullptr) return 2;
  int version = -1, count = -1;
  const int version_rc = get_version(&version);
  const int count_rc = get_count(&count);
  std::printf("%d %d %d\n", version_rc, version, count_rc);
  return 0;
}

struct Answer {
  int version_rc = -1, version = -1, count_rc = -1;
};

// Runs this binary with --probe in a fresh process; driver_dir "" = no driver on the search path.
Answer RunPair(const std::string& runtime, const std::string& driver_dir) {
  int fds[2];
  Answer a;
  if (pipe(fds) != 0) return a;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0) env.push_back(*e);
  }
  env.push_back("LD_LIBRARY_PATH=" + (driver_dir.empty() ? std::string("/nonexistent") : driver_dir));
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", flag = "--probe", rt = runtime;
  char* argv[] = {&self[0], &flag[0], &rt[0], nullptr};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execve("/proc/self/exe", argv, envp.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[256] = {0};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (n > 0) std::sscanf(buf, "%d %d %d", &a.version_rc, &a.version, &a.count_rc);
  return a;
}

std::string SonameOf(const std::string& path) { return path.substr(path.rfind('/') + 1); }

TEST(RuntimeOnDriver, FamilyRuleHoldsOnEveryRealPair) {
  std::vector<std::pair<std::string, std::string>> runtimes;  // version, path
  for (const RealRuntime& r : kRealRuntimes) {
    runtimes.emplace_back(r.version, cudyn::testing::Runfile(r.path));
  }
  const char* cp = std::getenv("CUDA_PATH");
  runtimes.emplace_back("13.0", std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") +
                                    "/lib64/libcudart.so.13");
  ASSERT_EQ(runtimes.size(), 5u);
  int pairs = 0;
  for (const auto& [version, path] : runtimes) {
    const int family_min = cudyn::CudartSonameMinDriver(SonameOf(path));
    ASSERT_GT(family_min, 0) << path;
    for (const RealDriver& d : kRealDrivers) {
      SCOPED_TRACE("runtime " + version + " on driver " + d.major);
      const std::string dir =
          cudyn::testing::Runfile(std::string("nvidia_drivers/") + d.major + "/libcuda.so.1");
      const Answer a = RunPair(path, dir.substr(0, dir.rfind('/')));
      // Measured: the 11.2 runtime calls cuInit before it compares versions, so without a GPU
      // its refusal of the 418 driver surfaces as cuInit's 100; 11.8, 12.x and 13.0 compare first.
      const bool init_first = version == "11.2";
      EXPECT_EQ(a.count_rc, d.cuda >= family_min || init_first ? 100 : 35);
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 25);
}

// Without any driver: every runtime refuses to count devices (35); 11.x also refuses to say its
// version (35, nothing written), 12.x and 13.0 answer it (1000 * major + 10 * minor).
TEST(RuntimeOnDriver, NoDriverAtAll) {
  for (const RealRuntime& r : kRealRuntimes) {
    SCOPED_TRACE(r.version);
    const Answer a = RunPair(cudyn::testing::Runfile(r.path), "");
    EXPECT_EQ(a.count_rc, 35);
    const std::string v = r.version;
    const int want = std::stoi(v.substr(0, v.find('.'))) * 1000 + std::stoi(v.substr(v.find('.') + 1)) * 10;
    if (v.compare(0, 3, "11.") == 0) {
      EXPECT_EQ(a.version_rc, 35);
      EXPECT_EQ(a.version, -1);  // untouched
    } else {
      EXPECT_EQ(a.version_rc, 0);
      EXPECT_EQ(a.version, want);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--probe") == 0) return Probe(argv[2]);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
