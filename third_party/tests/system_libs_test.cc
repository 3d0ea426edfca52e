// Smoke test for the offline Bazel setup: CUDA 13 headers from @cuda, header-only spdlog + fmt,
// gtest + gmock from Debian.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

#define CUDYN_STRINGIFY_TEXT(x) #x
#define CUDYN_STRINGIFY(x) CUDYN_STRINGIFY_TEXT(x)

namespace {

TEST(CudaHeaders, DefaultToolkitIsNew) {
  // $CUDA_PATH / /usr/local/cuda: 13.0 on the CI machines.
  EXPECT_GE(CUDA_VERSION, 12000);
  EXPECT_EQ(CUDA_VERSION % 10, 0);  // 1000 * major + 10 * minor
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_STUB_LIBRARY), 34);
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED), 303);
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND), 302);
}

// cudaTypedefs.h's PFN_<name>_v<NNNNN> typedefs are what the version tables take each ABI
// variant's version and prototype from: they must be the very types of cuda.h's functions.
TEST(CudaHeaders, TypedefsMatchThePrototypes) {
  static_assert(std::is_same_v<PFN_cuDriverGetVersion_v2020, decltype(&cuDriverGetVersion)>);
  static_assert(std::is_same_v<PFN_cuInit_v2000, decltype(&cuInit)>);
#if CUDA_VERSION >= 12050
  // A signature change: 12.2+ headers map the public name to the _v2 variant (CUmemLocation),
  // whose typedef carries 12020; the old variant (a device ordinal) keeps 8000.
  static_assert(std::is_same_v<PFN_cuMemAdvise_v12020, decltype(&cuMemAdvise)>);
  static_assert(!std::is_same_v<PFN_cuMemAdvise_v8000, decltype(&cuMemAdvise)>);
  // The cuda.h macro renames the symbol itself (what an application linked with -lcuda imports).
  EXPECT_STREQ(CUDYN_STRINGIFY(cuMemAdvise), "cuMemAdvise_v2");
  EXPECT_STREQ(CUDYN_STRINGIFY(cuCtxCreate), "cuCtxCreate_v4");
#endif
}

TEST(Logging, SpdlogHeaderOnlyWithExternalFmt) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("cudyn-smoke", sink);
  logger.set_pattern("%l %v");
  logger.warn("driver {} reports {}", "libcuda.so.1", 12020);
  EXPECT_EQ(out.str(), "warning driver libcuda.so.1 reports 12020\n");
  EXPECT_EQ(fmt::format("{:#x}", 255), "0xff");
}

TEST(Gmock, Matchers) { EXPECT_THAT(std::string("cuMemAdvise_v2"), ::testing::StartsWith("cuMemAdvise")); }

}  // namespace
