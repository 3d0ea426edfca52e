// The fatbin reader against programs built by the real CUDA 13.0 nvcc
// (//tools/fatbin:nvcc_programs) and the toolkit's own libraries. Expected facts come from the nvcc
// options, not from the reader's output.
#include "tools/fatbin/fatbin_reader.h"
#include "tests/util/file_bytes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace cudyn {
namespace fatbin {
namespace {

std::string Program(const std::string& name) { return "tools/fatbin/nvcc/" + name; }
std::string TestData(const std::string& name) { return "tools/fatbin/testdata/" + name; }

std::string CudaLib(const std::string& name) {
  const char* cp = std::getenv("CUDA_PATH");
  return std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64/" + name;
}

std::vector<uint8_t> Slurp(const std::string& path) {
  return cudyn::testing::ReadFileBytes<std::vector<uint8_t>>(path);
}

FatbinInfo MustRead(const std::string& path) {
  FatbinResult r = ReadFatbins(path);
  EXPECT_TRUE(r.ok) << path << ": " << r.error;
  return r.info;
}

// (kind, arch name) of every entry, as a set.
std::set<std::string> Images(const FatbinInfo& info) {
  std::set<std::string> s;
  for (const auto& e : info.entries) s.insert(e.ArchName());
  return s;
}

const Entry* FindEntry(const FatbinInfo& info, EntryKind kind, int arch) {
  for (const auto& e : info.entries) {
    if (e.kind == kind && e.arch == arch) return &e;
  }
  return nullptr;
}

std::string Decode(const std::string& path, const Entry& e) {
  const std::vector<uint8_t> bytes = Slurp(path);
  std::string out, err;
  EXPECT_TRUE(DecodeEntry(bytes.data(), bytes.size(), e, &out, &err)) << err;
  return out;
}

TEST(FatbinReader, DefaultBuildIsSm75SassAndCompressedPtx) {
  // nvcc 13.0 without -arch: sm_75 SASS + compute_75 PTX, PTX compressed with the default mode.
  const FatbinInfo info = MustRead(Program("default"));
  ASSERT_TRUE(info.is_elf);
  EXPECT_EQ(Images(info), (std::set<std::string>{"sm_75", "compute_75"}));
  for (const auto& c : info.containers) EXPECT_EQ(c.where, ".nv_fatbin");
  const Entry* ptx = FindEntry(info, EntryKind::kPtx, 75);
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->version_major, 9);  // PTX ISA 9.0 is CUDA 13.0's
  EXPECT_EQ(ptx->version_minor, 0);
  EXPECT_EQ(ptx->compression, Compression::kZstd);
  EXPECT_LT(ptx->payload_size, ptx->uncompressed_size);
  const std::string text = Decode(Program("default"), *ptx);
  EXPECT_EQ(text.size(), ptx->uncompressed_size);
  int ma = 0, mi = 0;
  ASSERT_TRUE(ParsePtxVersion(text, &ma, &mi)) << text.substr(0, 400);
  EXPECT_EQ(ma, 9);
  EXPECT_EQ(mi, 0);
  EXPECT_NE(text.find(".target sm_75"), std::string::npos);
  // 13.0's PTX carries no "Cuda compilation tools" header comment; its cubins do (below).
  // The SASS entries are uncompressed cubins whose e_flags carry the same arch (bits 8..15).
  for (const auto& e : info.entries) {
    if (e.kind != EntryKind::kCubin) continue;
    EXPECT_EQ(e.compression, Compression::kNone);
    const std::string cubin = Decode(Program("default"), e);
    ASSERT_GE(cubin.size(), 64u);
    EXPECT_EQ(cubin.compare(0, 4,
                            "\x7f"
                            "ELF"),
              0);
    uint32_t e_flags;
    std::memcpy(&e_flags, cubin.data() + 0x30, 4);
    EXPECT_EQ(static_cast<int>((e_flags >> 8) & 0xff), 75);
    EXPECT_EQ(FindToolkitRelease(reinterpret_cast<const uint8_t*>(cubin.data()), cubin.size()),
              13000);
  }
}

TEST(FatbinReader, UncompressedPtxIsPlainText) {
  const FatbinInfo info = MustRead(Program("uncompressed"));
  const Entry* ptx = FindEntry(info, EntryKind::kPtx, 75);
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->compression, Compression::kNone);
  EXPECT_EQ(ptx->flags & (kFlagLz4 | kFlagZstd), 0u);
  const std::string text = Decode(Program("uncompressed"), *ptx);
  int ma = 0, mi = 0;
  ASSERT_TRUE(ParsePtxVersion(text, &ma, &mi));
  EXPECT_EQ(ma * 10 + mi, ptx->version_major * 10 + ptx->version_minor);
}

TEST(FatbinReader, SpeedModeIsLz4) {
  const FatbinInfo info = MustRead(Program("speed_lz4"));
  const Entry* ptx = FindEntry(info, EntryKind::kPtx, 75);
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->compression, Compression::kLz4);
  const std::string text = Decode(Program("speed_lz4"), *ptx);
  int ma = 0, mi = 0;
  ASSERT_TRUE(ParsePtxVersion(text, &ma, &mi));
  EXPECT_EQ(ma, 9);
  EXPECT_EQ(mi, 0);
}

TEST(FatbinReader, PtxOnlyCompute80) {
  const FatbinInfo info = MustRead(Program("ptx_compute80"));
  EXPECT_EQ(Images(info), (std::set<std::string>{"compute_80"}));
  ASSERT_EQ(info.entries.size(), 1u);
  EXPECT_EQ(info.entries[0].kind, EntryKind::kPtx);
  EXPECT_EQ(info.entries[0].version_major, 9);
  EXPECT_EQ(info.entries[0].variant, '\0');
}

TEST(FatbinReader, SassOnlySm80) {
  const FatbinInfo info = MustRead(Program("sass_sm80"));
  EXPECT_EQ(Images(info), (std::set<std::string>{"sm_80"}));
}

TEST(FatbinReader, ArchSpecificSm90a) {
  const FatbinInfo info = MustRead(Program("sass_sm90a"));
  EXPECT_EQ(Images(info), (std::set<std::string>{"sm_90a"}));
  for (const auto& e : info.entries) {
    EXPECT_EQ(e.arch, 90);
    EXPECT_EQ(e.variant, 'a');
    EXPECT_NE(e.flags & kFlagArchSpecific, 0u);
  }
}

TEST(FatbinReader, SeveralGencodes) {
  const FatbinInfo info = MustRead(Program("multi"));
  EXPECT_EQ(Images(info), (std::set<std::string>{"sm_75", "sm_90", "compute_90", "sm_100f"}));
  const Entry* f = FindEntry(info, EntryKind::kCubin, 100);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->variant, 'f');
}

TEST(FatbinReader, RelocatableObject) {
  // nvcc -rdc=true -c: the fatbin is in __nv_relfatbin, and even the cubin is compressed.
  const FatbinInfo info = MustRead(Program("rdc_object"));
  EXPECT_EQ(Images(info), (std::set<std::string>{"sm_80", "compute_80"}));
  ASSERT_FALSE(info.containers.empty());
  for (const auto& c : info.containers) EXPECT_EQ(c.where, "__nv_relfatbin");
  const Entry* cubin = FindEntry(info, EntryKind::kCubin, 80);
  ASSERT_NE(cubin, nullptr);
  EXPECT_EQ(cubin->compression, Compression::kZstd);
  const std::string elf = Decode(Program("rdc_object"), *cubin);
  EXPECT_EQ(elf.size(), cubin->uncompressed_size);
  EXPECT_EQ(elf.compare(0, 4,
                        "\x7f"
                        "ELF"),
            0);
}

TEST(FatbinReader, NoDeviceCode) { EXPECT_TRUE(MustRead(Program("cudart_none")).entries.empty()); }

TEST(FatbinReader, RawFatbinFiles) {
  // nvcc -fatbin outputs (checked in): not ELF, scanned whole.
  FatbinInfo lz4 = MustRead(TestData("lz4_sm80_compute80.fatbin"));
  EXPECT_FALSE(lz4.is_elf);
  EXPECT_EQ(Images(lz4), (std::set<std::string>{"sm_80", "compute_80"}));
  EXPECT_EQ(FindEntry(lz4, EntryKind::kPtx, 80)->compression, Compression::kLz4);
  FatbinInfo multi = MustRead(TestData("zstd_multi.fatbin"));
  EXPECT_EQ(Images(multi),
            (std::set<std::string>{"sm_75", "sm_90a", "compute_90a", "compute_100f"}));
  FatbinInfo plain = MustRead(TestData("plain_sm86_compute86.fatbin"));
  EXPECT_EQ(FindEntry(plain, EntryKind::kPtx, 86)->compression, Compression::kNone);
  FatbinInfo elf = MustRead(TestData("shared_sm80_compute80.elf"));
  EXPECT_TRUE(elf.is_elf);
  EXPECT_EQ(Images(elf), (std::set<std::string>{"sm_80", "compute_80"}));
}

TEST(FatbinReader, SameEntriesWithoutSectionHeaders) {
  // Zero e_shoff: the reader falls back to a whole-file scan and must find the same entries.
  std::vector<uint8_t> bytes = Slurp(Program("multi"));
  const FatbinResult with = ParseFatbins(bytes.data(), bytes.size());
  std::memset(bytes.data() + 0x28, 0, 8);  // e_shoff
  const FatbinResult without = ParseFatbins(bytes.data(), bytes.size());
  ASSERT_TRUE(with.ok && without.ok);
  ASSERT_EQ(with.info.entries.size(), without.info.entries.size());
  for (size_t i = 0; i < with.info.entries.size(); ++i) {
    EXPECT_EQ(with.info.entries[i].offset, without.info.entries[i].offset);
  }
}

TEST(FatbinReader, TruncatedAndCorruptInputs) {
  std::vector<uint8_t> bytes = Slurp(TestData("zstd_multi.fatbin"));
  ASSERT_GT(bytes.size(), 100u);
  // Cut in the middle of the container: it is skipped with a warning.
  FatbinResult cut = ParseFatbins(bytes.data(), bytes.size() / 2);
  ASSERT_TRUE(cut.ok);
  EXPECT_TRUE(cut.info.entries.empty());
  EXPECT_FALSE(cut.info.warnings.empty());
  // An absurd entry size: complete entries before it are kept, the rest warned about.
  const FatbinResult whole = ParseFatbins(bytes.data(), bytes.size());
  ASSERT_GE(whole.info.entries.size(), 2u);
  std::vector<uint8_t> bad = bytes;
  const uint64_t huge = ~uint64_t{0} - 7;
  std::memcpy(bad.data() + whole.info.entries[1].offset + 8, &huge, 8);
  FatbinResult r = ParseFatbins(bad.data(), bad.size());
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.info.entries.size(), 1u);
  EXPECT_FALSE(r.info.warnings.empty());
  // Corrupt compressed data: decoding fails cleanly.
  const Entry* ptx = FindEntry(whole.info, EntryKind::kPtx, 90);
  ASSERT_NE(ptx, nullptr);
  ASSERT_EQ(ptx->compression, Compression::kZstd);
  std::vector<uint8_t> garbled = bytes;
  for (uint64_t i = 0; i < ptx->payload_size; ++i) garbled[ptx->payload_offset + i] ^= 0x5a;
  std::string out, err;
  EXPECT_FALSE(DecodeEntry(garbled.data(), garbled.size(), *ptx, &out, &err));
  EXPECT_FALSE(err.empty());
  // Nothing at all / not a file.
  EXPECT_TRUE(ParseFatbins(nullptr, 0).ok);
  EXPECT_FALSE(ReadFatbins("/nonexistent/file").ok);
  EXPECT_EQ(ReadFatbins("/").error, "path is a directory");
}

TEST(FatbinReader, RuntimeLibraryHasNoDeviceCode) {
  EXPECT_TRUE(MustRead(CudaLib("libcudart.so.13")).entries.empty());
}

TEST(FatbinReader, Cublas) {
  const std::string path = CudaLib("libcublas.so.13");
  ASSERT_EQ(access(path.c_str(), R_OK), 0) << path;
  const FatbinInfo info = MustRead(path);
  EXPECT_GT(info.containers.size(), 100u);
  EXPECT_GT(info.entries.size(), 100u);
  std::set<int> archs;
  size_t ptx = 0;
  for (const auto& e : info.entries) {
    EXPECT_NE(e.kind, EntryKind::kUnknown);
    archs.insert(e.arch);
    if (e.kind == EntryKind::kPtx) ++ptx;
  }
  // CUDA 13.0 supports sm_75 and newer; cuBLAS ships SASS for several of them.
  EXPECT_GE(*archs.begin(), 75);
  EXPECT_GE(archs.size(), 3u);
  EXPECT_TRUE(info.warnings.empty()) << info.warnings.front();
}

}  // namespace
}  // namespace fatbin
}  // namespace cudyn
