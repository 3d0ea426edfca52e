// Two shared objects that each embed cudyn statically (//stubs:cudyn_cuda_embed), loaded into one
// process that also has a driver-like libcuda.so.1 (a CUDA 13.0 fake) and the shared drop-in
// libcudyn_cuda.so in its global scope. CUDYN_DRIVER_PATH names a different driver, a CUDA 11.4
// fake. If any embedded cu* reference leaked to the global scope, calls would reach the 13.0 fake
// or the shared drop-in; instead each copy must open the 11.4 fake itself, adapt cuMemAdvise_v2
// there, and keep its own binding state.
#include <dlfcn.h>
#include <stdlib.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/util/runfiles.h"

namespace {

using cudyn::testing::Runfile;

void* MustOpen(const std::string& path, int flags) {
  void* handle = dlopen(path.c_str(), flags);
  EXPECT_NE(handle, nullptr) << path << ": " << dlerror();
  return handle;
}

template <class Fn>
Fn MustSym(void* handle, const char* name) {
  void* fn = handle != nullptr ? dlsym(handle, name) : nullptr;
  EXPECT_NE(fn, nullptr) << name;
  return reinterpret_cast<Fn>(fn);
}

struct EmbedClient {
  explicit EmbedClient(const std::string& name) {
    void* h = MustOpen(Runfile("tests/embed/libembed_" + name + ".so"), RTLD_NOW | RTLD_LOCAL);
    driver_version = MustSym<int (*)()>(h, ("embed_" + name + "_driver_version").c_str());
    init = MustSym<int (*)()>(h, ("embed_" + name + "_init").c_str());
    mem_advise_host = MustSym<int (*)()>(h, ("embed_" + name + "_mem_advise_host").c_str());
    entry_status = MustSym<int (*)(const char*)>(h, ("embed_" + name + "_entry_status").c_str());
  }
  int (*driver_version)() = nullptr;
  int (*init)() = nullptr;
  int (*mem_advise_host)() = nullptr;
  int (*entry_status)(const char*) = nullptr;
};

constexpr int kAdapter = 2;  // embed_*_entry_status

TEST(Embedding, TwoEmbeddedCopiesBesideLibcudaAndTheSharedDropIn) {
  const std::string fake114 = Runfile("tests/fake_driver/cuda_11040/libcuda.so.1");
  const std::string fake130 = Runfile("tests/fake_driver/cuda_13000/libcuda.so.1");
  ASSERT_FALSE(fake114.empty());
  ASSERT_FALSE(fake130.empty());
  // The process already has "the real libcuda" and another cudyn, both in the global scope.
  void* global_driver = MustOpen(fake130, RTLD_NOW | RTLD_GLOBAL);
  void* shared_dropin = MustOpen(Runfile("stubs/libcudyn_cuda.so"), RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(global_driver, nullptr);
  ASSERT_NE(shared_dropin, nullptr);
  CudynFakeApi global_fake;
  ASSERT_TRUE(cudynFakeBind(global_driver, &global_fake));
  global_fake.reset();
  setenv("CUDYN_DRIVER_PATH", fake114.c_str(), 1);

  EmbedClient a("a"), b("b");
  ASSERT_NE(a.driver_version, nullptr);
  ASSERT_NE(b.driver_version, nullptr);

  EXPECT_EQ(a.driver_version(), 11040);
  EXPECT_EQ(a.init(), 100);  // the fake's CUDA_ERROR_NO_DEVICE, through copy a
  EXPECT_EQ(a.mem_advise_host(), 0);
  EXPECT_EQ(a.entry_status("cuMemAdvise_v2"), kAdapter);
  EXPECT_EQ(b.driver_version(), 11040);
  EXPECT_EQ(b.mem_advise_host(), 0);
  EXPECT_EQ(b.entry_status("cuMemAdvise_v2"), kAdapter);

  // Both went to the 11.4 fake (cudyn opened it by path) through the adapter, with CU_DEVICE_CPU.
  void* fake114_handle = dlopen(fake114.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(fake114_handle, nullptr) << "the embedded copies should have loaded the 11.4 fake";
  CudynFakeApi fake;
  ASSERT_TRUE(cudynFakeBind(fake114_handle, &fake));
  int advises = 0, version_queries = 0, advise_lookups = 0;
  for (int i = 0; i < fake.call_count(); ++i) {
    const CudynFakeCall* call = fake.call(i);
    std::string symbol = call->symbol;
    if (symbol == "cuDriverGetVersion") ++version_queries;
    if (symbol == "cuGetProcAddress" && std::string(call->requested) == "cuMemAdvise") {
      ++advise_lookups;
    }
    if (symbol != "cuMemAdvise") continue;
    ++advises;
    EXPECT_EQ(static_cast<int>(call->args[call->arg_word[3]]), -1);  // CU_DEVICE_CPU
  }
  EXPECT_EQ(advises, 2);
  // Two independent copies: each opened the driver (one version query each) and bound
  // cuMemAdvise itself. One shared cudyn (leaked symbols, or the shared drop-in serving both)
  // would have opened and bound once.
  EXPECT_EQ(version_queries, 2);
  EXPECT_EQ(advise_lookups, 2);
  dlclose(fake114_handle);

  // Nothing reached the globally loaded driver.
  EXPECT_EQ(global_fake.call_count(), 0);
}

}  // namespace
