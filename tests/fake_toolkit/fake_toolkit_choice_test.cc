// The NVRTC and cuBLAS choice rules on releases cudyn has no real library of (the generated fakes
// of this package): a 12.2 NVRTC is what a 12.2 driver gets when the real 12.4 one beside it
// emits PTX the driver cannot JIT, and a 12.2 cuBLAS is taken or refused by its CUDA major alone.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cublas.h"
#include "loader/nvrtc.h"
#include "tests/util/runfiles.h"

namespace cudyn {
namespace {

std::string Dir(const std::string& file) { return file.substr(0, file.rfind('/')); }

std::string FakeNvrtc() { return testing::Runfile("tests/fake_toolkit/nvrtc_12.2/libnvrtc.so.12"); }
std::string FakeCublas() {
  return testing::Runfile("tests/fake_toolkit/cublas_12.2/libcublas.so.12");
}
std::string RealNvrtc124() { return testing::Runfile("cuda_nvrtc/12.4/libnvrtc.so.12"); }

// The real 12.4 NVRTC's directory is searched first, the fake 12.2's second.
ToolkitOptions NvrtcSearch(int driver_version) {
  ToolkitOptions options;
  options.driver_version = driver_version;
  options.search_paths = std::vector<std::string>{Dir(RealNvrtc124()), Dir(FakeNvrtc())};
  return options;
}

TEST(FakeNvrtcTest, TwelveTwoDriverRefusesRealTwelveFourAndTakesTheFake) {
  auto nvrtc = Toolkit::Open(kNvrtcTraits, NvrtcSearch(12020));
  ASSERT_TRUE(nvrtc);
  ASSERT_TRUE(nvrtc->ok()) << nvrtc->last_error();
  EXPECT_EQ(nvrtc->version(), 12020);
  EXPECT_EQ(nvrtc->path(), FakeNvrtc());
  EXPECT_EQ(nvrtc->found_by(), ToolkitSource::kSearchPath);
  ASSERT_EQ(nvrtc->candidates().size(), 2u);
  const ToolkitCandidate& refused = nvrtc->candidates()[0];
  EXPECT_EQ(refused.rejection, ToolkitRejection::kDriverTooOld);
  EXPECT_EQ(refused.version, 12040);
  // Why: the ISA its release emits, and that this driver is too old to JIT it.
  EXPECT_NE(refused.reason.find("emits PTX ISA 8.4"), std::string::npos) << refused.reason;
  EXPECT_NE(refused.reason.find("the driver (CUDA 12.2) is too old for it"), std::string::npos)
      << refused.reason;
  EXPECT_TRUE(nvrtc->candidates()[1].accepted());
  // The fake binds by the 11.8 facts (the newest known at or below 12.2) and exports their names.
  EXPECT_LT(nvrtc->BindAll(), kNvrtcEntryCount);
}

TEST(FakeNvrtcTest, ClampToTwelveTwoOnANewerDriverTakesTheFake) {
  ToolkitOptions options = NvrtcSearch(12080);
  options.max_cuda_version = 12020;
  auto nvrtc = Toolkit::Open(kNvrtcTraits, options);
  ASSERT_TRUE(nvrtc && nvrtc->ok()) << (nvrtc ? nvrtc->last_error() : "null");
  EXPECT_EQ(nvrtc->driver_version(), 12020);
  EXPECT_EQ(nvrtc->version(), 12020);
  // Without the clamp the 12.8 driver JITs 12.4's PTX: the real one, searched first, is taken.
  auto unclamped = Toolkit::Open(kNvrtcTraits, NvrtcSearch(12080));
  ASSERT_TRUE(unclamped && unclamped->ok());
  EXPECT_EQ(unclamped->version(), 12040);
}

TEST(FakeNvrtcTest, TwelveOneDriverRefusesBoth) {
  auto nvrtc = Toolkit::Open(kNvrtcTraits, NvrtcSearch(12010));
  ASSERT_TRUE(nvrtc);
  EXPECT_FALSE(nvrtc->ok());
  EXPECT_EQ(nvrtc->error(), kNvrtcNoLibrary);
  EXPECT_EQ(nvrtc->missing_result(), kNvrtcNoLibrary);
  ASSERT_EQ(nvrtc->candidates().size(), 2u);
  for (const ToolkitCandidate& c : nvrtc->candidates()) {
    EXPECT_EQ(c.rejection, ToolkitRejection::kDriverTooOld) << c.path << ": " << c.reason;
  }
  EXPECT_EQ(nvrtc->candidates()[1].version, 12020);
  EXPECT_NE(nvrtc->last_error().find(FakeNvrtc()), std::string::npos) << nvrtc->last_error();
}

ToolkitOptions CublasSearch(int driver_version) {
  ToolkitOptions options;
  options.driver_version = driver_version;
  options.search_paths = std::vector<std::string>{Dir(FakeCublas())};
  return options;
}

TEST(FakeCublasTest, TwelveZeroDriverTakesTheFake) {
  auto cublas = Toolkit::Open(kCublasTraits, CublasSearch(12000));
  ASSERT_TRUE(cublas && cublas->ok()) << (cublas ? cublas->last_error() : "null");
  EXPECT_EQ(cublas->version(), 120205);
  EXPECT_EQ(cublas->path(), FakeCublas());
  ASSERT_EQ(cublas->candidates().size(), 1u);
  EXPECT_EQ(cublas->candidates()[0].runtime_version, 12020);
  EXPECT_LT(cublas->BindAll(), kCublasEntryCount);
}

TEST(FakeCublasTest, ClampBelowTwelveRefusesTheFakeWithTheReason) {
  ToolkitOptions options = CublasSearch(12020);
  options.max_cuda_version = 11080;
  auto cublas = Toolkit::Open(kCublasTraits, options);
  ASSERT_TRUE(cublas);
  EXPECT_FALSE(cublas->ok());
  EXPECT_EQ(cublas->error(), kCublasNoLibrary);
  ASSERT_EQ(cublas->candidates().size(), 1u);
  const ToolkitCandidate& c = cublas->candidates()[0];
  EXPECT_EQ(c.rejection, ToolkitRejection::kDriverTooOld);
  // Refused by its SONAME (libcublas.so.12: a CUDA 12 runtime inside) without being loaded: no
  // version was read, the driver it needs is known.
  EXPECT_EQ(c.version, 0);
  EXPECT_EQ(c.min_driver, 12000);
  EXPECT_NE(c.reason.find("too old"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("not loaded"), std::string::npos) << c.reason;
  EXPECT_EQ(cublas->Resolve(0), nullptr);
}

// An explicit path is taken even when the rule refuses it, with a warning.
TEST(FakeCublasTest, ExplicitPathOnTooOldDriverIsTakenWithAWarning) {
  ToolkitOptions options;
  options.driver_version = 11080;
  options.path = FakeCublas();
  auto cublas = Toolkit::Open(kCublasTraits, options);
  ASSERT_TRUE(cublas && cublas->ok()) << (cublas ? cublas->last_error() : "null");
  ASSERT_FALSE(cublas->warnings().empty());
  EXPECT_NE(cublas->warnings()[0].find("explicit cuBLAS taken although"), std::string::npos);
}

// The default search's candidates are bare names (dlopen("libnvrtc.so.12")): with a driver they
// are judged by that name, which is the SONAME the dynamic linker matches, before anything is
// loaded — whatever this machine's default search would find. Under an 11.8 driver both libraries
// refuse their 13 and 12 names through the core's one hook, recorded as for a file (no version,
// the driver they need, "not loaded"). Fails if the default search's names are dlopen'ed to be
// judged (then "dlopen_failed", or a loaded file's path and version).
TEST(DefaultSearchTest, NamesTheDriverCannotUseAreRefusedUnloaded) {
  ToolkitOptions nvrtc_options;
  nvrtc_options.driver_version = 11080;
  auto nvrtc = Toolkit::Open(kNvrtcTraits, nvrtc_options);
  ASSERT_TRUE(nvrtc);
  ToolkitOptions cublas_options;
  cublas_options.driver_version = 11080;
  auto cublas = Toolkit::Open(kCublasTraits, cublas_options);
  ASSERT_TRUE(cublas);
  const struct {
    std::string name;
    int min_driver;
  } nvrtc_names[] = {{"libnvrtc.so.13", 13000}, {"libnvrtc.so.12", 12000}},
    cublas_names[] = {{"libcublas.so.13", 13000}, {"libcublas.so.12", 12000}};
  for (const auto& want : nvrtc_names) {
    SCOPED_TRACE(want.name);
    const ToolkitCandidate* found = nullptr;
    for (const ToolkitCandidate& c : nvrtc->candidates()) {
      if (c.path == want.name && c.source == ToolkitSource::kDefaultSearch) found = &c;
    }
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->rejection, ToolkitRejection::kDriverTooOld) << found->reason;
    EXPECT_EQ(found->version, 0);
    EXPECT_EQ(found->min_driver, want.min_driver);
    EXPECT_NE(found->reason.find("not loaded"), std::string::npos) << found->reason;
  }
  for (const auto& want : cublas_names) {
    SCOPED_TRACE(want.name);
    const ToolkitCandidate* found = nullptr;
    for (const ToolkitCandidate& c : cublas->candidates()) {
      if (c.path == want.name && c.source == ToolkitSource::kDefaultSearch) found = &c;
    }
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->rejection, ToolkitRejection::kDriverTooOld) << found->reason;
    EXPECT_EQ(found->version, 0);
    EXPECT_EQ(found->min_driver, want.min_driver);
    EXPECT_NE(found->reason.find("(not loaded)"), std::string::npos) << found->reason;
  }
}

}  // namespace
}  // namespace cudyn
