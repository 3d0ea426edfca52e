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

namespace {

TEST(CudaHeaders, DefaultToolkitIsNew) {
  // $CUDA_PATH / /usr/local/cuda: 13.0 on the CI machines.
  EXPECT_GE(CUDA_VERSION, 12000);
  // cudaTypedefs.h provides the per-ABI PFN typedefs the version tables are built from.
  PFN_cuDriverGetVersion_v2020 pfn = nullptr;
  EXPECT_EQ(pfn, nullptr);
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_STUB_LIBRARY), 34);
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
