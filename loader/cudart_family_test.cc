// The runtime family rule against the published facts: the SONAMEs of the real runtimes
// (11.2/11.8 "libcudart.so.11.0", 12.4/12.5 ".12", 13.0 ".13", 10.x one per release) and the
// driver each family needs (minor-version compatibility from 11.0 on).
#include "loader/cudart_family.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cudyn {
namespace {

TEST(CudartFamily, SonameFamilyAndMinor) {
  struct Case {
    const char* soname;
    int family, minor;
  } cases[] = {
      {"libcudart.so.10.2", 10, 2},    {"libcudart.so.11.0", 11, 0}, {"libcudart.so.12", 12, -1},
      {"libcudart.so.13", 13, -1},     {"libcudart.so.9.2", 9, 2},   {"libcudart.so.10.-3", 10, -1},
      {"libcudart.so.10.999999999", 10, -1}, {"libcudart.so.10.100", 10, -1},
      {"libcudart.so.12.5.39", 12, 5},  // a file name, not a SONAME: family and minor still hold
      {"libcudart.so.100", 0, -1},     {"libcudart.so.12abc", 0, -1}, {"libcudart.so.0", 0, -1},
      {"libcudart.so.x", 0, -1},       {"libcudart.so.", 0, -1},      {"libcudart.so", 0, -1},
      {"libcuda.so.1", 0, -1},         {"", 0, -1},
  };
  for (const Case& c : cases) {
    int family = -2, minor = -2;
    ParseCudartSoname(c.soname, &family, &minor);
    EXPECT_EQ(family, c.family) << c.soname;
    EXPECT_EQ(minor, c.minor) << c.soname;
  }
}

TEST(CudartFamily, OldestDriverPerSoname) {
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.13"), 13000);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.12"), 12000);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.11.0"), 11000);  // 11.8's too
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.10.2"), 10020);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.10.1"), 10010);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.10.0"), 10000);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.9.2"), 9020);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so"), 0);
  EXPECT_EQ(CudartSonameMinDriver("libcuda.so.1"), 0);
  EXPECT_EQ(CudartSonameMinDriver("libcudart.so.x"), 0);
  EXPECT_EQ(CudartFamilyMinDriver(12, 8), 12000);  // minor-version compatibility
  EXPECT_EQ(CudartFamilyMinDriver(10, -1), 10000);
  EXPECT_EQ(CudartFamilyMinDriver(0, -1), 0);
}

TEST(CudartFamily, OldestDriverPerRuntimeVersion) {
  EXPECT_EQ(RuntimeVersionMinDriver(13000), 13000);
  EXPECT_EQ(RuntimeVersionMinDriver(12030), 12000);  // cuBLAS 12.5's embedded runtime
  EXPECT_EQ(RuntimeVersionMinDriver(11080), 11000);
  EXPECT_EQ(RuntimeVersionMinDriver(10020), 10020);  // before 11: that release or newer
  EXPECT_EQ(RuntimeVersionMinDriver(10000), 10000);
  EXPECT_EQ(RuntimeVersionMinDriver(0), 0);
  EXPECT_EQ(RuntimeVersionMinDriver(-5), 0);
}

TEST(CudartFamily, NewestFamilyPerDriver) {
  // The real drivers: 418 (10.1), 450 (11.0), 470 (11.4), 535 (12.2), 580 (13.0).
  EXPECT_EQ(NewestRuntimeFamilyFor(10010), 10);
  EXPECT_EQ(NewestRuntimeFamilyFor(11000), 11);
  EXPECT_EQ(NewestRuntimeFamilyFor(11040), 11);
  EXPECT_EQ(NewestRuntimeFamilyFor(12020), 12);
  EXPECT_EQ(NewestRuntimeFamilyFor(13000), 13);
  EXPECT_EQ(NewestRuntimeFamilyFor(9020), 0);
  EXPECT_EQ(NewestRuntimeFamilyFor(0), 0);
}

TEST(CudartFamily, SonamesPerDriver) {
  using V = std::vector<std::string>;
  EXPECT_EQ(CudartSonamesForDriver(13000),
            (V{"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so.10.2",
               "libcudart.so.10.1", "libcudart.so.10.0"}));
  EXPECT_EQ(CudartSonamesForDriver(11040),
            (V{"libcudart.so.11.0", "libcudart.so.10.2", "libcudart.so.10.1", "libcudart.so.10.0"}));
  EXPECT_EQ(CudartSonamesForDriver(10010), (V{"libcudart.so.10.1", "libcudart.so.10.0"}));
  EXPECT_EQ(CudartSonamesForDriver(9020), V{});
  // Every listed name parses back to a family the same driver runs.
  for (const std::string& name : CudartSonamesForDriver(12020)) {
    EXPECT_GT(CudartSonameMinDriver(name), 0) << name;
    EXPECT_LE(CudartSonameMinDriver(name), 12020) << name;
  }
}

}  // namespace
}  // namespace cudyn
