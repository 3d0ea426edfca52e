// The zip reader against zip bombs built at test time (tools/zip/testing/zip_bombs.h, the shapes
// of testdata/make_bombs.py at full size: 2 GiB of zeros in 2 MB, ...). Every bomb must be
// refused with a typed error (ZipErrorKind, never the message text), after inflating next to
// nothing (ArchiveBudget::output_bytes, EntryReader::inflated_bytes) and with a bounded output
// buffer (ArchiveBudget::peak_buffer_bytes: the reader's output allocation, recorded each time
// it grows); one test also watches the process's peak RSS. Real-looking members must still
// extract.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/zip/testing/zip_bombs.h"
#include "tools/zip/zip_reader.h"

namespace cudyn {
namespace zip {
namespace {

using testing::Bytes;
using testing::ElfMagic;
using testing::kGiB;
using testing::kMiB;
using testing::Member;
using testing::ZipWriter;

std::vector<ZipEntry> MustRead(const Bytes& zip) {
  std::vector<ZipEntry> entries;
  ZipError error;
  EXPECT_TRUE(ReadZipDirectory(zip.data(), zip.size(), &entries, &error)) << error.message;
  EXPECT_EQ(error.kind, ZipErrorKind::kNone);
  return entries;
}

// Pseudo-random bytes (deflate cannot shrink them): a real library's worst case for memory.
Bytes Noise(size_t n, uint32_t seed) {
  Bytes b(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    b[i] = static_cast<uint8_t>(x >> 24);
  }
  return b;
}

// Like a shared object: the ELF magic, then noise and runs of zeros (deflates about 2:1, within
// the 1.07:1 .. 4.45:1 measured on real CUDA libraries).
Bytes LibraryLike(size_t n, uint32_t seed) {
  Bytes b = Noise(n, seed);
  for (size_t i = 0; i + 64 <= n; i += 128) std::fill(b.begin() + i, b.begin() + i + 64, 0);
  const Bytes magic = ElfMagic();
  std::copy(magic.begin(), magic.end(), b.begin());
  return b;
}

long MaxRssKiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// One member of each bomb is refused before a byte is inflated: the directory declares sizes
// no real library has (about 1030:1).
TEST(ZipBomb, DeclaredBombsAreRefusedWithoutInflating) {
  struct Case {
    const char* what;
    Bytes zip;
    size_t members;
  };
  const Case cases[] = {
      {"2 GiB of zeros", testing::ZerosBomb(2 * kGiB), 1},
      {"the ELF magic, then 1 GiB of zeros", testing::ElfZerosBomb(kGiB), 1},
      {"64 members of 64 MiB of zeros", testing::ManyZerosBomb(64, 64 * kMiB), 64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_LT(c.zip.size(), 5 * kMiB);  // the bombs are small ...
    const std::vector<ZipEntry> entries = MustRead(c.zip);
    ASSERT_EQ(entries.size(), c.members);
    ArchiveBudget budget;
    for (const ZipEntry& e : entries) {
      EXPECT_GE(e.uncompressed_size, 64 * kMiB);  // ... and say so
      EntryReader reader(c.zip.data(), c.zip.size(), e, &budget);
      ZipError error;
      EXPECT_FALSE(reader.Peek(4, &error)) << e.name;
      EXPECT_EQ(error.kind, ZipErrorKind::kCompressionRatio) << error.message;
      EXPECT_TRUE(IsZipLimit(error.kind));
      EXPECT_EQ(reader.size(), 0u);
      ZipError again;
      EXPECT_FALSE(reader.ReadAll(&again));  // a failure is final
      EXPECT_EQ(again.kind, ZipErrorKind::kCompressionRatio);
      EXPECT_EQ(reader.inflated_bytes(), 0u);
    }
    EXPECT_EQ(budget.output_bytes, 0u);
    EXPECT_EQ(budget.peak_buffer_bytes, 0u);
  }
}

// Deciding "is it ELF?" inflates four bytes, whatever the member declares: with the ratio check
// out of the way, a 2 GiB member of zeros costs four bytes of output.
TEST(ZipBomb, PeekInflatesOnlyWhatItIsAskedFor) {
  const Bytes zip = testing::ZerosBomb(2 * kGiB);
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 1u);
  ArchiveBudget budget;
  budget.limits.max_ratio = uint64_t{1} << 40;  // let the member through to the peek
  EntryReader reader(zip.data(), zip.size(), entries[0], &budget);
  ZipError error;
  ASSERT_TRUE(reader.Peek(4, &error)) << error.message;
  ASSERT_EQ(reader.size(), 4u);
  EXPECT_EQ(Bytes(reader.data(), reader.data() + 4), Bytes(4, 0));  // not ELF: stop here
  EXPECT_EQ(reader.inflated_bytes(), 4u);
  EXPECT_EQ(budget.output_bytes, 4u);
  EXPECT_LE(budget.peak_buffer_bytes, 64u << 10);
}

// A member whose declared sizes look plausible (its compressed size padded with junk after the
// deflate stream) is stopped while inflating, within about a MiB, by the ratio of what inflate
// has consumed; peak RSS does not follow the 1 GiB it would inflate to.
TEST(ZipBomb, PlausibleDeclarationIsStoppedWhileInflating) {
  Member m = testing::ZerosMember("lib/libelf.so", ElfMagic(), kGiB);
  const Bytes junk = Noise(11 * kMiB, 7);
  m.data.insert(m.data.end(), junk.begin(), junk.end());
  ZipWriter w;
  w.AddEntry(m);
  const Bytes zip = w.Finish();
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_LT(entries[0].uncompressed_size, kMaxCompressionRatio * entries[0].compressed_size);

  const long rss_before = MaxRssKiB();
  ArchiveBudget budget;
  EntryReader reader(zip.data(), zip.size(), entries[0], &budget);
  ZipError error;
  ASSERT_TRUE(reader.Peek(4, &error)) << error.message;
  EXPECT_EQ(Bytes(reader.data(), reader.data() + 4), ElfMagic());
  EXPECT_FALSE(reader.ReadAll(&error));
  EXPECT_EQ(error.kind, ZipErrorKind::kCompressionRatio) << error.message;
  EXPECT_EQ(reader.size(), 0u);
  EXPECT_LE(budget.output_bytes, 2 * kMiB);
  EXPECT_LE(budget.peak_buffer_bytes, 4 * kMiB);
  EXPECT_LE(MaxRssKiB() - rss_before, 64 * 1024);  // KiB
}

// The ratio is the archive's, not each member's: thousands of members that each stay under the
// allowance share it, so the total work stays near the first member's.
TEST(ZipBomb, ManySmallMembersShareOneBudget) {
  Member m = testing::ZerosMember("", ElfMagic(), kMiB);
  ZipWriter w;
  for (int i = 0; i < 2000; ++i) {
    m.name = "lib/lib" + std::to_string(i) + ".so";
    w.AddEntry(m);
  }
  const Bytes zip = w.Finish();
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 2000u);
  ArchiveBudget budget;
  size_t refused = 0;
  for (const ZipEntry& e : entries) {
    EntryReader reader(zip.data(), zip.size(), e, &budget);
    ZipError error;
    if (!reader.ReadAll(&error)) {
      EXPECT_EQ(error.kind, ZipErrorKind::kCompressionRatio) << error.message;
      ++refused;
    }
  }
  EXPECT_GE(refused, 1990u);
  // The budget's rule, with each member allowed one small step past it; 2000 MiB without it.
  EXPECT_LE(budget.output_bytes, kRatioAllowance + kMaxCompressionRatio * budget.input_bytes +
                                     entries.size() * (4u << 10));
  EXPECT_LE(budget.output_bytes, 32 * kMiB);
  EXPECT_LE(budget.peak_buffer_bytes, 4 * kMiB);
}

// Two directory entries naming the same local data, or one entry's data holding another's
// header and data: the archive is refused as a whole.
TEST(ZipBomb, OverlappingEntriesRefuseTheArchive) {
  for (const Bytes& zip : {testing::OverlapBomb(64, 64 * kMiB),
                           testing::QuotedOverlapBomb(64 * kMiB)}) {
    std::vector<ZipEntry> entries(3);
    ZipError error;
    EXPECT_FALSE(ReadZipDirectory(zip.data(), zip.size(), &entries, &error));
    EXPECT_EQ(error.kind, ZipErrorKind::kOverlappingEntries) << error.message;
    EXPECT_TRUE(IsZipLimit(error.kind));
    EXPECT_TRUE(entries.empty());
  }
  // Entries handed over with the limit of a directory read: data past the next local header.
  const Bytes zip = testing::QuotedOverlapBomb(kMiB);
  ZipEntry e;
  e.name = "lib/libouter.so";
  e.method = kMethodStored;
  e.local_header_offset = 0;
  e.compressed_size = e.uncompressed_size = 200;
  e.data_limit = 100;
  EntryReader reader(zip.data(), zip.size(), e, nullptr);
  ZipError error;
  EXPECT_FALSE(reader.Peek(4, &error));
  EXPECT_EQ(error.kind, ZipErrorKind::kOverlappingEntries) << error.message;
}

TEST(ZipBomb, MemberAndArchiveSizeLimits) {
  // Declared above kMaxMemberSize: refused before the ratio is even looked at.
  const Bytes big = testing::ZerosBomb(3 * kGiB);
  ArchiveBudget budget;
  const std::vector<ZipEntry> entries = MustRead(big);
  ASSERT_EQ(entries.size(), 1u);
  EntryReader reader(big.data(), big.size(), entries[0], &budget);
  ZipError error;
  EXPECT_FALSE(reader.Peek(4, &error));
  EXPECT_EQ(error.kind, ZipErrorKind::kMemberTooLarge) << error.message;
  EXPECT_EQ(budget.output_bytes, 0u);

  // Smaller limits, library-like members: one member over max_member_size; the archive's
  // members in all over max_archive_output (refused from the declared size, not inflated).
  ZipWriter w;
  for (int i = 0; i < 3; ++i) {
    w.AddEntry(testing::DeflatedMember("lib/lib" + std::to_string(i) + ".so",
                                       LibraryLike(2 * kMiB, i)));
  }
  const Bytes zip = w.Finish();
  const std::vector<ZipEntry> three = MustRead(zip);
  ASSERT_EQ(three.size(), 3u);
  ArchiveBudget small;
  small.limits.max_member_size = kMiB;
  EntryReader too_big(zip.data(), zip.size(), three[0], &small);
  EXPECT_FALSE(too_big.ReadAll(&error));
  EXPECT_EQ(error.kind, ZipErrorKind::kMemberTooLarge);
  ArchiveBudget total;
  total.limits.max_archive_output = 5 * kMiB;
  std::vector<ZipErrorKind> kinds;
  for (const ZipEntry& e : three) {
    EntryReader r(zip.data(), zip.size(), e, &total);
    ZipError err;
    r.ReadAll(&err);
    kinds.push_back(err.kind);
  }
  EXPECT_EQ(kinds, (std::vector<ZipErrorKind>{ZipErrorKind::kNone, ZipErrorKind::kNone,
                                              ZipErrorKind::kArchiveOutputLimit}));
  EXPECT_EQ(total.output_bytes, 4 * kMiB);
}

// Members like real libraries still extract whole, with the output grown from what inflate
// produced (never more than the declared size + 1 byte), and stored members are read in place.
TEST(ZipBomb, LibraryLikeMembersStillExtract) {
  const Bytes library = LibraryLike(24 * kMiB, 3);
  const Bytes noise = Noise(3 * kMiB, 4);
  ZipWriter w;
  w.AddEntry(testing::DeflatedMember("lib/liblike.so", library));
  w.AddEntry(testing::DeflatedMember("lib/libnoise.so", noise));
  w.AddEntry(testing::StoredMember("lib/libstored.so", noise));
  const Bytes zip = w.Finish();
  const std::vector<ZipEntry> entries = MustRead(zip);
  ASSERT_EQ(entries.size(), 3u);
  ASSERT_GT(entries[0].uncompressed_size, entries[0].compressed_size * 3 / 2);  // compressible
  ArchiveBudget budget;
  {
    EntryReader reader(zip.data(), zip.size(), entries[0], &budget);
    ZipError error;
    ASSERT_TRUE(reader.Peek(4, &error)) << error.message;
    EXPECT_EQ(Bytes(reader.data(), reader.data() + 4), ElfMagic());
    ASSERT_TRUE(reader.ReadAll(&error)) << error.message;
    EXPECT_EQ(Bytes(reader.data(), reader.data() + reader.size()), library);
    EXPECT_EQ(reader.inflated_bytes(), library.size());
    // Doubling from 64 KiB, capped at the declared size + 1.
    EXPECT_LE(budget.peak_buffer_bytes, library.size() + 1);
  }
  std::vector<uint8_t> out;
  ZipError error;
  ASSERT_TRUE(ExtractZipEntry(zip.data(), zip.size(), entries[1], &out, &error, &budget))
      << error.message;
  EXPECT_EQ(out, noise);
  const uint64_t peak = budget.peak_buffer_bytes;
  EntryReader stored(zip.data(), zip.size(), entries[2], &budget);
  ASSERT_TRUE(stored.ReadAll(&error)) << error.message;
  EXPECT_GE(stored.data(), zip.data());  // in the archive, not copied
  EXPECT_LE(stored.data() + stored.size(), zip.data() + zip.size());
  EXPECT_EQ(Bytes(stored.data(), stored.data() + stored.size()), noise);
  EXPECT_EQ(budget.peak_buffer_bytes, peak);
  EXPECT_EQ(budget.output_bytes, library.size() + 2 * noise.size());
}

}  // namespace
}  // namespace zip
}  // namespace cudyn
