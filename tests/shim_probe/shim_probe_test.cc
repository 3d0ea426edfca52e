// A client that loads libcudyn_cuda.so in place of libcuda.so.1 (as the CUDA runtime and most
// bindings do) and probes entry points by name: on a driver older than the client's headers many
// answers are "not found", which is normal driver behaviour and must stay silent at the default
// log level. Calling an entry that is missing is a problem, and logs exactly once.
//
// Run once per driver: argv[1] = the shared drop-in, argv[2] = the driver (runfiles-relative),
// CUDYN_MAX_CUDA_VERSION may clamp (set by the BUILD file).
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace {

std::string g_shim, g_driver;

using GetProcAddressV1 = int (*)(const char*, void**, int, unsigned long long);
using GetProcAddressV2 = int (*)(const char*, void**, int, unsigned long long, int*);
using EntryCount = int (*)();
using EntryText = const char* (*)(int);
using NoArgs = int (*)();

// Everything written to fd 2 between Start() and Stop().
class StderrCapture {
 public:
  void Start() {
    fflush(stderr);
    char name[] = "/tmp/cudyn_probe_stderr.XXXXXX";
    int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    unlink(name);
    saved_ = dup(2);
    dup2(fd, 2);
    file_ = fd;
  }
  std::string Stop() {
    fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    std::string text;
    char buf[4096];
    lseek(file_, 0, SEEK_SET);
    for (ssize_t n; (n = read(file_, buf, sizeof(buf))) > 0;) text.append(buf, n);
    close(file_);
    return text;
  }

 private:
  int saved_ = -1, file_ = -1;
};

std::string Absolute(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? buf : "";
}

TEST(ShimProbe, ProbingEverySymbolIsSilentAndCallingAMissingOneLogsOnce) {
  ASSERT_EQ(getenv("CUDYN_LOG"), nullptr) << "the default log level is under test";
  std::string driver = Absolute(g_driver);
  ASSERT_FALSE(driver.empty()) << g_driver;
  setenv("CUDYN_DRIVER_PATH", driver.c_str(), 1);

  StderrCapture capture;
  capture.Start();
  void* shim = dlopen(Absolute(g_shim).c_str(), RTLD_NOW | RTLD_LOCAL);
  auto v1 = reinterpret_cast<GetProcAddressV1>(dlsym(shim, "cuGetProcAddress"));
  auto v2 = reinterpret_cast<GetProcAddressV2>(dlsym(shim, "cuGetProcAddress_v2"));
  auto count = reinterpret_cast<EntryCount>(dlsym(shim, "cudynEntryCount"));
  auto symbol = reinterpret_cast<EntryText>(dlsym(shim, "cudynEntrySymbol"));
  auto status = reinterpret_cast<EntryText>(dlsym(shim, "cudynEntryStatus"));
  auto version = reinterpret_cast<int (*)()>(dlsym(shim, "cudynEffectiveCudaVersion"));
  int found = 0, not_found = 0;
  if (shim != nullptr && v1 && v2 && count && symbol && status && version) {
    for (int i = 0; i < count(); ++i) {
      for (unsigned long long flags : {0ull, 2ull}) {
        void* fn = nullptr;
        int symbol_status = -1;
        // The probe a 13.0 runtime makes. 13.x semantics: above the (effective) driver version
        // the shim answers INVALID_VALUE, like the real 13.0 driver; below 13.0 not-found.
        int rc = v2(symbol(i), &fn, 13000, flags, &symbol_status);
        (rc == 0 && symbol_status == 0 && fn != nullptr) ? ++found : ++not_found;
        rc = v1(symbol(i), &fn, 13000, flags);
        (rc == 0 && fn != nullptr) ? ++found : ++not_found;
      }
    }
  }
  std::string probe_output = capture.Stop();
  ASSERT_NE(shim, nullptr) << dlerror();
  ASSERT_TRUE(v1 && v2 && count && symbol && status && version);
  EXPECT_EQ(probe_output, "") << "probing wrote to stderr at the default log level";
  // The probes asked for suffixed names too (never found) and for bases the driver lacks.
  EXPECT_GT(not_found, 0);
  if (version() < 13000) {
    EXPECT_GT(found, 0);
  }

  // An entry the probes found missing: its call returns 302 and logs one line naming it.
  int missing = -1;
  for (int i = 0; i < count() && missing < 0; ++i) {
    if (std::string(status(i)) == "missing" && dlsym(shim, symbol(i)) != nullptr) missing = i;
  }
  ASSERT_GE(missing, 0) << "this driver/clamp must lack some entry (the BUILD file picks them)";
  // The bind thunk reads no arguments before it finds the entry missing.
  auto call = reinterpret_cast<NoArgs>(dlsym(shim, symbol(missing)));
  capture.Start();
  int first = call();
  int second = call();
  std::string call_output = capture.Stop();
  EXPECT_EQ(first, 302);  // CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND
  EXPECT_EQ(second, 302);
  EXPECT_NE(call_output.find(symbol(missing)), std::string::npos) << call_output;
  EXPECT_NE(call_output.find("warning"), std::string::npos) << call_output;
  size_t lines = 0;
  for (char c : call_output) lines += c == '\n';
  EXPECT_EQ(lines, 1u) << "a missing entry logs once, not per call:\n" << call_output;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIBCUDYN_CUDA_SO LIBCUDA_SO_1\n", argv[0]);
    return 2;
  }
  g_shim = argv[1];
  g_driver = argv[2];
  return RUN_ALL_TESTS();
}
