// Test helper: zip archives built in memory, including the zip bombs of
// tools/zip/testdata/make_bombs.py (the same shapes, any size), for the zip reader's tests and
// the CLI's. Sizes up to 4 GiB - 1 per member (no ZIP64).
#ifndef CUDYN_TOOLS_ZIP_TESTING_ZIP_BOMBS_H_
#define CUDYN_TOOLS_ZIP_TESTING_ZIP_BOMBS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cudyn {
namespace zip {
namespace testing {

using Bytes = std::vector<uint8_t>;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// A member as it sits in an archive: its stored bytes and what the headers say about them.
struct Member {
  std::string name;
  uint16_t method = 8;     // 0 stored, 8 deflate
  Bytes data;              // the bytes in the archive (the raw deflate stream, or the member)
  uint32_t crc = 0;        // of the uncompressed member
  uint64_t uncompressed_size = 0;
};

// `bytes` deflated (raw, level 9).
Member DeflatedMember(const std::string& name, const Bytes& bytes);
Member StoredMember(const std::string& name, const Bytes& bytes);
// `head` then zeros, `total` bytes in all, deflated without deflating them all: one 1 MiB block
// flushed with Z_FULL_FLUSH (byte-aligned, no reference to earlier data) repeated, then an
// empty final block. About 1 KiB per MiB.
Member ZerosMember(const std::string& name, const Bytes& head, uint64_t total);

// Builds an archive: local headers and data in the order added, then the central directory.
class ZipWriter {
 public:
  // Appends the member's local header and data; returns its local header offset.
  uint64_t Add(const Member& member);
  // Appends bytes that belong to no entry (or that a stored member quotes).
  void AddRaw(const Bytes& bytes);
  // A central-directory entry for `member` whose local header is at `offset` (several entries
  // may name the same offset: that is the overlapping bomb).
  void AddDirectoryEntry(const Member& member, uint64_t offset);
  // Add() + AddDirectoryEntry().
  void AddEntry(const Member& member);
  Bytes Finish() const;
  uint64_t size() const { return body_.size(); }

 private:
  Bytes body_;
  Bytes directory_;
  uint16_t entries_ = 0;
};

// The bombs (make_bombs.py):
// one member lib/libzeros.so of `total` zeros;
Bytes ZerosBomb(uint64_t total);
// one member lib/libelf.so: the ELF magic, then zeros up to `total`;
Bytes ElfZerosBomb(uint64_t total);
// `count` members lib/libNN.so of `each` zeros;
Bytes ManyZerosBomb(int count, uint64_t each);
// `count` directory entries lib/libNN.so naming one local header: the ELF magic + zeros;
Bytes OverlapBomb(int count, uint64_t each);
// a stored member lib/libouter.so whose data is the local header and data of lib/libinner.so
// (the ELF magic + zeros), both in the directory.
Bytes QuotedOverlapBomb(uint64_t each);

// The first four bytes of every ELF file.
Bytes ElfMagic();

}  // namespace testing
}  // namespace zip
}  // namespace cudyn

#endif  // CUDYN_TOOLS_ZIP_TESTING_ZIP_BOMBS_H_
