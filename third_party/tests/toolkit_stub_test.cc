// The CUDA toolkit's stub libcuda.so (@cuda//:toolkit_stub) answers every call with 34
// (CUDA_ERROR_STUB_LIBRARY) — the reason cudyn must load libcuda.so.1 and recognize the stub.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tools/cpp/runfiles/runfiles.h"

using bazel::tools::cpp::runfiles::Runfiles;

TEST(ToolkitStub, ReturnsStubLibraryError) {
  std::string error;
  std::unique_ptr<Runfiles> rf(Runfiles::CreateForTest(&error));
  ASSERT_NE(rf, nullptr) << error;
  std::string stub = rf->Rlocation("cuda/stubs/libcuda.so");
  void* h = dlopen(stub.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  auto fn = reinterpret_cast<int (*)(int*)>(dlsym(h, "cuDriverGetVersion"));
  ASSERT_NE(fn, nullptr);
  int version = -1;
  EXPECT_EQ(fn(&version), 34);
}
