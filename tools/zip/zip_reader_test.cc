// The zip reader against archives written by Python's zipfile (//tools/zip:test_zips, see
// testdata/make_zips.py). Expected member bytes come from the rules the script writes them by
// (Pattern, MemberBytes below), never from the reader's output.
#include "tools/zip/zip_reader.h"
#include "tests/util/file_bytes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace cudyn {
namespace zip {
namespace {

using Bytes = std::vector<uint8_t>;

// make_zips.py: pattern(n, seed).
Bytes Pattern(size_t n, unsigned seed) {
  Bytes b(n);
  for (size_t j = 0; j < n; ++j) b[j] = static_cast<uint8_t>((seed + j * 7 + j / 13) % 251);
  return b;
}

// make_zips.py: member_bytes(i), member i of many.zip.
Bytes MemberBytes(size_t i) {
  Bytes b(1000 + i);
  for (size_t j = 0; j < b.size(); ++j) b[j] = static_cast<uint8_t>((i * 7 + j) % 251);
  return b;
}

Bytes Text(const std::string& s) { return Bytes(s.begin(), s.end()); }

const char kStoredText[] = "stored member of a wheel\n";
// make_zips.py: PREFIX.
constexpr size_t kPrefixSize = 47 + 512;

Bytes Slurp(const std::string& name) {
  Bytes bytes;
  EXPECT_TRUE(cudyn::testing::ReadFileBytes("tools/zip/zips/" + name, &bytes)) << name;
  return bytes;
}

std::vector<ZipEntry> MustRead(const Bytes& zip) {
  std::vector<ZipEntry> entries;
  std::string error;
  EXPECT_TRUE(ReadZipDirectory(zip.data(), zip.size(), &entries, &error)) << error;
  EXPECT_EQ(error, "");
  return entries;
}

const ZipEntry* Find(const std::vector<ZipEntry>& entries, const std::string& name) {
  for (const auto& e : entries) {
    if (e.name == name) return &e;
  }
  ADD_FAILURE() << "no entry " << name;
  return nullptr;
}

Bytes MustExtract(const Bytes& zip, const ZipEntry& e) {
  Bytes out;
  std::string error;
  EXPECT_TRUE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error)) << e.name << ": "
                                                                           << error;
  return out;
}

// What ExtractZipEntry says about the entry `name` of `zip`, which must fail.
std::string ExtractError(const Bytes& zip, const std::string& name,
                         uint64_t max_size = uint64_t{1} << 34) {
  const std::vector<ZipEntry> entries = MustRead(zip);
  const ZipEntry* e = Find(entries, name);
  if (e == nullptr) return "";
  Bytes out{1, 2, 3};
  std::string error;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), *e, &out, &error, max_size)) << name;
  EXPECT_TRUE(out.empty());
  EXPECT_NE(error, "");
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  return error;
}

std::string ReadError(const Bytes& zip) {
  std::vector<ZipEntry> entries(1);
  std::string error;
  EXPECT_FALSE(ReadZipDirectory(zip.data(), zip.size(), &entries, &error));
  EXPECT_TRUE(entries.empty());
  EXPECT_NE(error, "");
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  return error;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The members of basic.zip (and of its copies with a prefix, a comment, data descriptors).
void ExpectBasic(const Bytes& zip) {
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 5u);
  const char* names[] = {"pkg/", "pkg/stored.txt", "pkg/deflated.bin", "pkg/empty",
                         "pkg/empty.z"};
  const uint16_t methods[] = {0, 0, 8, 0, 8};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(entries[i].name, names[i]);
    EXPECT_EQ(entries[i].method, methods[i]) << names[i];
    EXPECT_EQ(entries[i].is_directory(), i == 0) << names[i];
  }
  EXPECT_EQ(MustExtract(zip, entries[0]), Bytes());
  EXPECT_EQ(entries[1].uncompressed_size, sizeof kStoredText - 1);
  EXPECT_EQ(entries[1].compressed_size, sizeof kStoredText - 1);
  EXPECT_EQ(MustExtract(zip, entries[1]), Text(kStoredText));
  EXPECT_EQ(entries[2].uncompressed_size, 20000u);
  EXPECT_LT(entries[2].compressed_size, 20000u);
  EXPECT_EQ(MustExtract(zip, entries[2]), Pattern(20000, 1));
  EXPECT_EQ(MustExtract(zip, entries[3]), Bytes());
  EXPECT_EQ(MustExtract(zip, entries[4]), Bytes());
}

TEST(ZipReader, LooksLikeZip) {
  for (const char* name : {"basic.zip", "empty.zip", "many.zip", "zip64_manual.zip"}) {
    const Bytes zip = Slurp(name);
    EXPECT_TRUE(LooksLikeZip(zip.data(), zip.size())) << name;
  }
  for (const char* name : {"not_a_zip.bin", "prefix_concat.zip"}) {
    const Bytes b = Slurp(name);
    EXPECT_FALSE(LooksLikeZip(b.data(), b.size())) << name;
  }
  const uint8_t pk[] = {'P', 'K', 3, 4};
  for (size_t n = 0; n < 4; ++n) EXPECT_FALSE(LooksLikeZip(pk, n)) << n;
  EXPECT_TRUE(LooksLikeZip(pk, 4));
  EXPECT_FALSE(LooksLikeZip(nullptr, 0));
}

TEST(ZipReader, StoredDeflatedAndDirectoryEntries) { ExpectBasic(Slurp("basic.zip")); }

TEST(ZipReader, EmptyArchive) {
  const Bytes zip = Slurp("empty.zip");
  EXPECT_TRUE(MustRead(zip).empty());
}

TEST(ZipReader, HundredMembers) {
  const Bytes zip = Slurp("many.zip");
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 100u);
  for (size_t i = 0; i < entries.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "many/%03zu.bin", i);
    EXPECT_EQ(entries[i].name, name);
    EXPECT_EQ(entries[i].method, i % 2 ? kMethodDeflate : kMethodStored) << name;
    EXPECT_EQ(entries[i].uncompressed_size, 1000 + i) << name;
    EXPECT_EQ(MustExtract(zip, entries[i]), MemberBytes(i)) << name;
  }
}

// zipfile's force_zip64: ZIP64 extra fields in the local headers only.
TEST(ZipReader, Zip64ForcedByZipfile) {
  const Bytes zip = Slurp("zip64_forced.zip");
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "z64/stored.bin");
  EXPECT_EQ(MustExtract(zip, entries[0]), Pattern(5000, 2));
  EXPECT_EQ(entries[1].name, "z64/deflated.bin");
  EXPECT_EQ(entries[1].method, kMethodDeflate);
  EXPECT_EQ(MustExtract(zip, entries[1]), Pattern(50000, 3));
}

// More than 65535 members: zipfile writes a ZIP64 end record and locator.
TEST(ZipReader, Zip64EndRecordForManyMembers) {
  const Bytes zip = Slurp("zip64_many.zip");
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 65537u);
  for (size_t i : {size_t{0}, size_t{1}, size_t{65534}, size_t{65535}, size_t{65536}}) {
    char name[32];
    std::snprintf(name, sizeof name, "e/%05zu", i);
    EXPECT_EQ(entries[i].name, name);
    EXPECT_EQ(MustExtract(zip, entries[i]), Bytes{static_cast<uint8_t>(i % 251)}) << name;
  }
}

// Every 32-bit field saturated: sizes and offset from the central ZIP64 extra field, counts and
// the directory's place from the ZIP64 end record.
TEST(ZipReader, Zip64ExtraFieldsAndEndRecord) {
  const Bytes zip = Slurp("zip64_manual.zip");
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "big/zip64.bin");
  EXPECT_EQ(entries[0].compressed_size, 3000u);
  EXPECT_EQ(entries[0].uncompressed_size, 3000u);
  EXPECT_EQ(entries[0].local_header_offset, 0u);
  EXPECT_EQ(MustExtract(zip, entries[0]), Pattern(3000, 64));
}

// Supported: data in front of the archive, with offsets relative to the archive (cat) or to the
// file (zipfile mode "a").
TEST(ZipReader, DataBeforeTheArchive) {
  for (const char* name : {"prefix_concat.zip", "prefix_append.zip"}) {
    SCOPED_TRACE(name);
    const Bytes zip = Slurp(name);
    ExpectBasic(zip);
    for (const ZipEntry& e : MustRead(zip)) EXPECT_GE(e.local_header_offset, kPrefixSize);
  }
  // ZIP64: the locator's (relative) offset misses the end record, found right before it.
  Bytes zip64 = Slurp("zip64_manual.zip");
  zip64.insert(zip64.begin(), 1000, 'x');
  const std::vector<ZipEntry> entries = MustRead(zip64);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].local_header_offset, 1000u);
  EXPECT_EQ(MustExtract(zip64, entries[0]), Pattern(3000, 64));
}

TEST(ZipReader, DataDescriptors) { ExpectBasic(Slurp("descriptor.zip")); }

TEST(ZipReader, CommentWithAFakeEndRecord) { ExpectBasic(Slurp("comment.zip")); }

TEST(ZipReader, NotAZip) {
  EXPECT_EQ(ReadError(Slurp("not_a_zip.bin")),
            "not a zip file: no end of central directory record");
  EXPECT_EQ(ReadError(Bytes()), "not a zip file: no end of central directory record");
  std::vector<ZipEntry> entries;
  std::string error;
  EXPECT_FALSE(ReadZipDirectory(nullptr, 0, &entries, &error));
  EXPECT_FALSE(ReadZipDirectory(nullptr, 0, &entries, static_cast<std::string*>(nullptr)));
}

TEST(ZipReader, Truncated) {
  EXPECT_EQ(ReadError(Slurp("truncated.zip")),
            "not a zip file: no end of central directory record");
  // Every shorter prefix of basic.zip fails cleanly.
  const Bytes zip = Slurp("basic.zip");
  for (size_t n = 0; n < zip.size(); ++n) {
    std::vector<ZipEntry> entries;
    std::string error;
    EXPECT_FALSE(ReadZipDirectory(zip.data(), n, &entries, &error)) << n;
  }
}

// The central directory cut short (entries declared but missing) or moved.
TEST(ZipReader, TruncatedCentralDirectory) {
  Bytes zip = Slurp("basic.zip");
  const size_t end = zip.size() - 22;
  // Declare more entries than the directory holds.
  Bytes more = zip;
  more[end + 8] = more[end + 10] = 6;
  EXPECT_TRUE(Contains(ReadError(more), "truncated central directory")) << ReadError(more);
  // A directory size larger than what precedes the end record.
  Bytes big = zip;
  big[end + 14] = 0x7f;
  EXPECT_TRUE(Contains(ReadError(big), "truncated central directory")) << ReadError(big);
  // Drop the front of the file: the directory offset now points past its start.
  Bytes cut(zip.begin() + 100, zip.end());
  EXPECT_NE(ReadError(cut), "");
}

TEST(ZipReader, CrcMismatch) {
  const Bytes zip = Slurp("bad_crc.zip");
  for (const char* name : {"pkg/stored.txt", "pkg/deflated.bin"}) {
    const std::string error = ExtractError(zip, name);
    EXPECT_TRUE(Contains(error, "CRC-32 mismatch")) << error;
    EXPECT_TRUE(Contains(error, name)) << error;
  }
  // The other members are intact.
  const std::vector<ZipEntry> entries = MustRead(zip);
  EXPECT_EQ(MustExtract(zip, *Find(entries, "pkg/empty")), Bytes());
}

TEST(ZipReader, MaxSize) {
  const Bytes zip = Slurp("basic.zip");
  const std::string error = ExtractError(zip, "pkg/deflated.bin", 19999);
  EXPECT_EQ(error,
            "entry 'pkg/deflated.bin': declared size 20000 bytes exceeds the limit of 19999 "
            "bytes");
  const std::vector<ZipEntry> entries = MustRead(zip);
  const ZipEntry* e = Find(entries, "pkg/deflated.bin");
  ASSERT_NE(e, nullptr);
  Bytes out;
  std::string err;
  EXPECT_TRUE(ExtractZipEntry(zip.data(), zip.size(), *e, &out, &err, 20000)) << err;
  EXPECT_EQ(out, Pattern(20000, 1));
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), *Find(entries, "pkg/stored.txt"), &out,
                               &err, 3));
}

TEST(ZipReader, UnsupportedMethod) {
  const Bytes zip = Slurp("bzip2.zip");
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(MustExtract(zip, entries[0]), Text(kStoredText));
  EXPECT_EQ(entries[1].method, 12);
  EXPECT_EQ(ExtractError(zip, "a/bzip2.bin"),
            "entry 'a/bzip2.bin': unsupported compression method 12 (bzip2)");
}

TEST(ZipReader, Encrypted) {
  const Bytes zip = Slurp("encrypted.zip");
  EXPECT_EQ(ExtractError(zip, "pkg/stored.txt"),
            "entry 'pkg/stored.txt': encrypted entries are not supported");
  EXPECT_EQ(MustExtract(zip, *Find(MustRead(zip), "pkg/deflated.bin")), Pattern(20000, 1));
}

// Entries that do not match the data: made up, or from another archive.
TEST(ZipReader, BogusEntries) {
  const Bytes zip = Slurp("basic.zip");
  std::vector<ZipEntry> entries = MustRead(zip);
  ZipEntry e = entries[2];
  std::string error;
  Bytes out;
  e.local_header_offset = zip.size() - 10;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "past the end")) << error;
  e = entries[2];
  e.local_header_offset += 1;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "no local header signature")) << error;
  e = entries[2];
  e.compressed_size = zip.size();
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "run past the end")) << error;
  e = entries[2];
  e.compressed_size -= 5;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "truncated deflate data")) << error;
  e = entries[2];
  e.uncompressed_size = 19000;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "more than the declared")) << error;
  e = entries[2];
  e.uncompressed_size = uint64_t{1} << 20;  // a lie: only 20000 bytes come out
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "inflates to 20000 bytes")) << error;
  e.uncompressed_size = uint64_t{1} << 33;  // a lie no real member tells: refused up front
  ZipError typed;
  ArchiveBudget budget;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &typed, &budget));
  EXPECT_EQ(typed.kind, ZipErrorKind::kMemberTooLarge);
  EXPECT_EQ(budget.output_bytes, 0u);
  e = entries[1];
  e.uncompressed_size += 1;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), e, &out, &error));
  EXPECT_TRUE(Contains(error, "stored entry")) << error;
  EXPECT_FALSE(ExtractZipEntry(zip.data(), zip.size(), entries[1], nullptr, &error));
  EXPECT_FALSE(ExtractZipEntry(nullptr, 0, entries[1], &out, nullptr));
  EXPECT_FALSE(ReadZipDirectory(zip.data(), zip.size(), nullptr, &error));
}

// Reads and extracts everything in `zip`; must never crash (ASan checks the memory accesses).
void ReadAndExtractAll(const Bytes& zip) {
  std::vector<ZipEntry> entries;
  std::string error;
  if (!ReadZipDirectory(zip.data(), zip.size(), &entries, &error)) {
    EXPECT_NE(error, "");
    return;
  }
  for (const ZipEntry& e : entries) {
    Bytes out;
    if (!ExtractZipEntry(zip.data(), zip.size(), e, &out, &error, uint64_t{1} << 24)) {
      EXPECT_NE(error, "");
      EXPECT_TRUE(out.empty());
    }
  }
}

// Every byte from the start of the central directory to the end, set to 0xFF one at a time
// (and, for the small archives, every byte of the file).
TEST(ZipReader, MutatedArchivesNeverCrash) {
  for (const char* name : {"basic.zip", "zip64_manual.zip", "zip64_forced.zip",
                           "prefix_concat.zip", "descriptor.zip", "many.zip"}) {
    SCOPED_TRACE(name);
    const Bytes zip = Slurp(name);
    const std::vector<ZipEntry> entries = MustRead(zip);
    ASSERT_FALSE(entries.empty());
    // The central directory follows the last member's local header.
    size_t from = 0;
    for (const ZipEntry& e : entries) {
      from = std::max<size_t>(from, e.local_header_offset + 30 + e.compressed_size);
    }
    if (zip.size() < 4096) from = 0;
    Bytes mutated = zip;
    for (size_t i = from; i < zip.size(); ++i) {
      mutated[i] = 0xFF;
      ReadAndExtractAll(mutated);
      mutated[i] = 0x00;
      ReadAndExtractAll(mutated);
      mutated[i] = zip[i];
    }
  }
}

}  // namespace
}  // namespace zip
}  // namespace cudyn
