// Facts from the real sources (CUDA 11.2/11.8/13.0 headers, drivers 418..580) that the generated
// table must reproduce. Each expectation here was read off the headers or a driver, not off the
// generator's output.
#include "version_tables/api_table.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace cudyn {
namespace {

int Find(const char* symbol) {
  int index = FindEntry(symbol);
  EXPECT_GE(index, 0) << symbol << " missing from the table";
  return index;
}

int FirstRealDriver(int index) {
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (RealDriverExports(kRealDrivers[k].major, index)) return kRealDrivers[k].major;
  }
  return 0;
}

TEST(ApiTable, MemAdviseV2IsCuda122AndFirstIn535) {
  int i = Find("cuMemAdvise_v2");
  ASSERT_GE(i, 0);
  EXPECT_EQ(kEntries[i].abi_version, 12020);
  EXPECT_EQ(FirstRealDriver(i), 535);
  EXPECT_EQ(EntryBase(i), "cuMemAdvise");
  EXPECT_EQ(kEntries[i].adapter, AdapterKind::kCustom);
  EXPECT_EQ(EntrySymbol(kEntries[i].fallback), "cuMemAdvise");
  int v1 = Find("cuMemAdvise");
  EXPECT_EQ(kEntries[v1].abi_version, 8000);
}

TEST(ApiTable, CtxCreateVariants) {
  EXPECT_EQ(kEntries[Find("cuCtxCreate")].abi_version, 2000);
  EXPECT_EQ(kEntries[Find("cuCtxCreate_v2")].abi_version, 3020);
  EXPECT_EQ(kEntries[Find("cuCtxCreate_v3")].abi_version, 11040);
  EXPECT_EQ(kEntries[Find("cuCtxCreate_v4")].abi_version, 12050);
  EXPECT_EQ(FirstRealDriver(Find("cuCtxCreate_v4")), 580);
  EXPECT_EQ(FirstRealDriver(Find("cuCtxCreate_v3")), 470);
}

TEST(ApiTable, StreamBeginCaptureV2IsCuda101AndIn418) {
  int i = Find("cuStreamBeginCapture_v2");
  EXPECT_EQ(kEntries[i].abi_version, 10010);
  EXPECT_TRUE(RealDriverExports(418, i));
  EXPECT_EQ(kEntries[Find("cuStreamBeginCapture")].abi_version, 10000);
  int ptsz = Find("cuStreamBeginCapture_v2_ptsz");
  EXPECT_EQ(kEntries[ptsz].stream, StreamClass::kPtsz);
  EXPECT_EQ(EntryBase(ptsz), "cuStreamBeginCapture");
}

TEST(ApiTable, GetProcAddressFirstAppearsIn470) {
  int i = Find("cuGetProcAddress");
  EXPECT_EQ(FirstRealDriver(i), 470);
  EXPECT_FALSE(RealDriverExports(460, i));
  int v2 = Find("cuGetProcAddress_v2");
  EXPECT_EQ(kEntries[v2].abi_version, 12000);
  EXPECT_EQ(FirstRealDriver(v2), 535);
}

TEST(ApiTable, PerThreadVariants) {
  int ptds = Find("cuMemcpyHtoD_v2_ptds");
  EXPECT_EQ(kEntries[ptds].stream, StreamClass::kPtds);
  EXPECT_EQ(kEntries[ptds].abi_version, 7000);
  EXPECT_EQ(kEntries[Find("cuMemcpyHtoD_v2")].abi_version, 3020);
  EXPECT_EQ(kEntries[Find("cuMemcpyHtoD_v2")].stream, StreamClass::kLegacy);
}

TEST(ApiTable, SameSignatureAndCtxSynchronizeV2) {
  int i = Find("cuEventElapsedTime_v2");
  EXPECT_EQ(kEntries[i].adapter, AdapterKind::kSameSignature);
  EXPECT_EQ(EntrySymbol(kEntries[i].fallback), "cuEventElapsedTime");
  int sync = Find("cuCtxSynchronize_v2");
  EXPECT_EQ(kEntries[sync].abi_version, 13000);
  EXPECT_EQ(kEntries[sync].adapter, AdapterKind::kCustom);
}

TEST(ApiTable, DlsymOnlySymbols) {
  EXPECT_FALSE(kEntries[Find("cuMemGetAttribute")].gpa_reachable);
  EXPECT_TRUE(kEntries[Find("cuMemAlloc_v2")].gpa_reachable);
}

TEST(ApiTable, Every418ExportIsStillExportedBy580) {
  int n418 = 0;
  for (int i = 0; i < kEntryCount; ++i) {
    if (RealDriverExports(418, i)) {
      ++n418;
      EXPECT_TRUE(RealDriverExports(580, i)) << EntrySymbol(i);
    }
  }
  EXPECT_EQ(n418, 417);  // `nm -D` of libcuda.so.418.226.00: 417 cu* functions
}

TEST(ApiTable, CoversTheUnionOfAllDrivers) {
  std::set<std::string> bases;
  for (int i = 0; i < kEntryCount; ++i) {
    EXPECT_NE(kEntries[i].real_driver_mask, 0) << EntrySymbol(i) << " exported by no driver";
    bases.insert(std::string(EntryBase(i)));
  }
  EXPECT_EQ(kEntryCount, 674);
  EXPECT_EQ(static_cast<int>(bases.size()), kBaseCount);
  EXPECT_EQ(kBaseCount, 479);
}

// Each real driver as measured on the driver itself, not read back from the generator:
//   nm -D --defined-only libcuda.so.VERSION | awk '$2=="T" && $3 ~ /^cu[A-Z]/' | sort -u | wc -l
// and cuDriverGetVersion (the Debian packages' libraries on a CPU machine; 580 on the H100).
TEST(ApiTable, RealDriversMatchTheirMeasuredExportsAndVersions) {
  struct Measured {
    int major;
    const char* version;
    int cuda_version;
    int exported;
  };
  // version facts: checked against kRealDriverCount
  const Measured kMeasured[] = {
      {418, "418.226.00", 10010, 417}, {450, "450.248.02", 11000, 452},
      {460, "460.106.00", 11020, 500}, {470, "470.256.02", 11040, 524},
      {535, "535.261.03", 12020, 592}, {580, "580.159.04", 13000, 674},
  };
  ASSERT_EQ(kRealDriverCount, static_cast<int>(sizeof(kMeasured) / sizeof(kMeasured[0])));
  for (int k = 0; k < kRealDriverCount; ++k) {
    const Measured& m = kMeasured[k];
    SCOPED_TRACE(m.major);
    EXPECT_EQ(kRealDrivers[k].major, m.major);
    EXPECT_STREQ(kRealDrivers[k].driver_version, m.version);
    EXPECT_EQ(kRealDrivers[k].cuda_version, m.cuda_version);
    int n = 0;
    for (int i = 0; i < kEntryCount; ++i) n += RealDriverExports(m.major, i);
    EXPECT_EQ(n, m.exported);
    EXPECT_EQ(kRealDrivers[k].exported_count, m.exported);
  }
  // Symbols read off the drivers: 418 has no cuGetProcAddress (11.3) and no cuMemAdvise_v2;
  // 535 has both cuGetProcAddress variants; only 580 has cuCtxCreate_v4 (12.5).
  EXPECT_TRUE(RealDriverExports(418, Find("cuMemAdvise")));
  EXPECT_FALSE(RealDriverExports(418, Find("cuGetProcAddress")));
  EXPECT_FALSE(RealDriverExports(470, Find("cuMemAdvise_v2")));
  EXPECT_TRUE(RealDriverExports(535, Find("cuGetProcAddress_v2")));
  EXPECT_FALSE(RealDriverExports(535, Find("cuCtxCreate_v4")));
  EXPECT_TRUE(RealDriverExports(580, Find("cuCtxCreate_v4")));
}

TEST(ApiTable, FindEntryIsExact) {
  EXPECT_EQ(FindEntry("cuMemAdvise_v3"), -1);
  EXPECT_EQ(FindEntry(""), -1);
  EXPECT_EQ(FindEntry("cuMemAdvis"), -1);
  for (int i = 0; i < kEntryCount; ++i) ASSERT_EQ(FindEntry(EntrySymbol(i)), i);
}

TEST(ApiTable, GraphInstantiateRedirectIsADistinctBase) {
  int i = Find("cuGraphInstantiateWithFlags");
  EXPECT_EQ(EntryBase(i), "cuGraphInstantiateWithFlags");
  EXPECT_EQ(kEntries[i].abi_version, 11040);
}

}  // namespace
}  // namespace cudyn
