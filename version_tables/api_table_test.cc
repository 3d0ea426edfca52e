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
  // Each real driver's count matches its export list.
  for (int k = 0; k < kRealDriverCount; ++k) {
    int n = 0;
    for (int i = 0; i < kEntryCount; ++i) n += RealDriverExports(kRealDrivers[k].major, i);
    EXPECT_EQ(n, kRealDrivers[k].exported_count) << kRealDrivers[k].major;
  }
  EXPECT_EQ(kRealDrivers[0].cuda_version, 10010);
  EXPECT_EQ(kRealDrivers[kRealDriverCount - 1].cuda_version, 13000);
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
