// The static runtime drop-in (//stubs:cudyn_cudart) linked into a program in place of
// libcudart: plain cuda* calls reach the runtime CUDYN_CUDART_PATH names (a fake, recording
// arguments), through adapters where the family needs them, and missing entries answer 35 (the
// driver is older than the first that runs a runtime with the entry; none here) or 801.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <string>

#include "gtest/gtest.h"
#include "loader/cudart_c.h"
#include "tests/util/runfiles.h"

namespace {

// Set before the first call opens the default runtime (argv[1] names the fake's version).
std::string g_version;

std::string FakePath() {
  const std::string major = g_version.substr(0, 2);
  std::string soname = major == "10"   ? "libcudart.so." + g_version
                       : major == "11" ? "libcudart.so.11.0"
                                       : "libcudart.so." + major;
  return cudyn::testing::Runfile("tests/fake_runtime/" + g_version + "/" + soname);
}

template <typename Fn>
Fn Control(const char* name) {
  void* h = dlopen(FakePath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr);
  return reinterpret_cast<Fn>(dlsym(h, name));
}

TEST(StaticDropin, CallsReachTheChosenRuntime) {
  ASSERT_EQ(cudynCudartInit(), 0);
  EXPECT_EQ(std::string(cudynCudartPath()), FakePath());
  int version = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  const int expect = std::stoi(g_version.substr(0, 2)) * 1000 + std::stoi(g_version.substr(3)) * 10;
  EXPECT_EQ(version, expect);
  EXPECT_EQ(cudynCudartVersion(), expect);

  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 1;
  const void* p = reinterpret_cast<const void*>(0x1000);
  ASSERT_EQ(cudaMemAdvise(p, 64, cudaMemAdviseSetReadMostly, loc), cudaSuccess);
  auto last_arg = Control<int (*)(const char*, int, void*, size_t)>("fake_cudart_last_arg");
  const int index = cudynCudartFindEntry("cudaMemAdvise");
  ASSERT_GE(index, 0);
  if (g_version.compare(0, 2, "11") == 0 || g_version.compare(0, 2, "10") == 0) {
    int device = -7;
    ASSERT_EQ(last_arg("cudaMemAdvise", 3, &device, sizeof(device)), 4);
    EXPECT_EQ(device, 1);
    EXPECT_STREQ(cudynCudartEntryStatus(index), "adapter");
  } else {
    EXPECT_STREQ(cudynCudartEntryStatus(index), "native");
    char symbol[64];
    ASSERT_GT(cudynCudartEntryRuntimeSymbol(index, symbol, sizeof(symbol)), 0);
    EXPECT_EQ(std::string(symbol), g_version == "13.0" ? "cudaMemAdvise" : "cudaMemAdvise_v2");
  }

  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(std::string(prop.name), "cudyn fake runtime " + g_version);
  EXPECT_EQ(prop.multiProcessorCount, 132);
}

// Declared by cuda_gl_interop.h / cuda_vdpau_interop.h (which need the GL and VDPAU headers);
// the drop-in forwards them untyped, by name. Here with the integer types they take.
extern "C" cudaError_t cudaGLSetGLDevice(int device);
extern "C" cudaError_t cudaGraphicsGLRegisterBuffer(cudaGraphicsResource_t* resource,
                                                    unsigned int buffer, unsigned int flags);

TEST(StaticDropin, GraphicsInteropIsForwardedByName) {
  ASSERT_EQ(cudynCudartInit(), 0);
  auto calls = Control<int (*)(const char*)>("fake_cudart_call_count");
  auto last_arg = Control<int (*)(const char*, int, void*, size_t)>("fake_cudart_last_arg");
  auto set_result = Control<void (*)(const char*, int)>("fake_cudart_set_result");
  // The first call goes through the binding thunk, which must keep every argument register.
  cudaGraphicsResource_t resource = nullptr;
  set_result("cudaGraphicsGLRegisterBuffer", 999);
  EXPECT_EQ(static_cast<int>(cudaGraphicsGLRegisterBuffer(&resource, 0xb0ff, 0x2)), 999);
  EXPECT_EQ(calls("cudaGraphicsGLRegisterBuffer"), 1);
  long reg[3] = {};
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(last_arg("cudaGraphicsGLRegisterBuffer", k, &reg[k], sizeof(long)), 8);
  }
  EXPECT_EQ(reg[0], reinterpret_cast<long>(&resource));
  EXPECT_EQ(static_cast<unsigned>(reg[1]), 0xb0ffu);
  EXPECT_EQ(static_cast<unsigned>(reg[2]), 0x2u);
  // Later calls: the slot holds the runtime's function itself.
  EXPECT_EQ(static_cast<int>(cudaGraphicsGLRegisterBuffer(&resource, 7, 1)), 999);
  EXPECT_EQ(calls("cudaGraphicsGLRegisterBuffer"), 2);
  ASSERT_EQ(last_arg("cudaGraphicsGLRegisterBuffer", 1, &reg[1], sizeof(long)), 8);
  EXPECT_EQ(static_cast<unsigned>(reg[1]), 7u);
  EXPECT_EQ(cudaGLSetGLDevice(3), cudaSuccess);
  ASSERT_EQ(last_arg("cudaGLSetGLDevice", 0, &reg[0], sizeof(long)), 8);
  EXPECT_EQ(static_cast<int>(reg[0]), 3);
}

TEST(StaticDropin, EntriesNewerThanTheRuntimeAnswer35Or801) {
  // cudaGetKernel arrived in 12.0: nothing on 10.x/11.x can serve it (a cudaKernel_t is a
  // CUkernel of a library; these runtimes load per-context modules); 12.x has it. A runtime
  // serving it needs a 12.0 driver: below that (no driver in the test sandbox) 35, else 801; the
  // last error says which.
  cudaKernel_t kernel = nullptr;
  static int host_stub;
  const int rc = cudaGetKernel(&kernel, &host_stub);
  if (g_version.compare(0, 2, "11") == 0 || g_version.compare(0, 2, "10") == 0) {
    EXPECT_TRUE(rc == 35 || rc == 801) << rc;
    char text[1024];
    cudynCudartLastError(text, sizeof(text));
    EXPECT_NE(std::string(text).find("cudaGetKernel"), std::string::npos) << text;
    EXPECT_NE(std::string(text).find("returning " + std::to_string(rc)), std::string::npos)
        << text;
    // Reported as the runtime's last error (the fake's own is cudaSuccess): peek keeps it, get
    // returns it once.
    EXPECT_EQ(static_cast<int>(cudaPeekAtLastError()), rc);
    EXPECT_EQ(static_cast<int>(cudaPeekAtLastError()), rc);
    EXPECT_EQ(static_cast<int>(cudaGetLastError()), rc);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
    // The runtime's own error comes first.
    auto set_result = Control<void (*)(const char*, int)>("fake_cudart_set_result");
    EXPECT_EQ(static_cast<int>(cudaGetKernel(&kernel, &host_stub)), rc);
    set_result("cudaGetLastError", cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    set_result("cudaGetLastError", cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  } else {
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: static_dropin_test FAKE_VERSION\n");
    return 2;
  }
  g_version = argv[1];
  setenv("CUDYN_CUDART_PATH", FakePath().c_str(), 1);
  return RUN_ALL_TESTS();
}
