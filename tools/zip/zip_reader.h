// cudyn zip reader: the members of a ZIP archive held in memory (a Python wheel, .whl), listed
// from its central directory and extracted one at a time, without unpacking anything to disk.
//
// Layout (APPNOTE.TXT, all little-endian):
//   end of central directory record (EOCD, 22 bytes + comment, at the end of the file):
//     +0 u32 0x06054b50 "PK\5\6"  +4 u16 disk  +6 u16 disk of the central directory
//     +8 u16 entries on this disk  +10 u16 total entries  +12 u32 central directory size
//     +16 u32 central directory offset  +20 u16 comment length
//   ZIP64 end of central directory locator (20 bytes, right before the EOCD):
//     +0 u32 0x07064b50  +4 u32 disk  +8 u64 offset of the ZIP64 end record  +16 u32 disks
//   ZIP64 end of central directory record (56 bytes + extensible data, right before the locator):
//     +0 u32 0x06064b50  +4 u64 record size - 12  +12 u16/u16 versions  +16 u32/u32 disks
//     +24 u64 entries on this disk  +32 u64 total entries  +40 u64 central directory size
//     +48 u64 central directory offset
//   central directory header (46 bytes + name + extra + comment):
//     +0 u32 0x02014b50  +8 u16 flags  +10 u16 method  +16 u32 CRC-32  +20 u32 compressed size
//     +24 u32 uncompressed size  +28 u16 name length  +30 u16 extra length  +32 u16 comment length
//     +34 u16 disk  +42 u32 local header offset
//   local file header (30 bytes + name + extra, then the member's data):
//     +0 u32 0x04034b50  +6 u16 flags  +8 u16 method  +26 u16 name length  +28 u16 extra length
//   ZIP64 extra field (id 0x0001, in the central header's extra): u64 uncompressed size, u64
//     compressed size, u64 local header offset, u32 disk, each present only when the 32-bit (16-bit
//     for the disk) field of the header holds 0xFFFFFFFF (0xFFFF).
//
// What is read:
//   - The EOCD is searched backwards within the last 64 KiB + 22 bytes (a record whose comment
//     ends exactly at the end of the data first, else the last one whose comment fits). The ZIP64
//     end record is used whenever its locator precedes the EOCD (its values then win; a locator
//     without a record is an error only when EOCD fields are 0xFFFF/0xFFFFFFFF); the record is
//     found at the locator's offset, else right before the locator. Every count, offset and size is
//     bounds-checked against `size`; a count that cannot fit the central directory is an error.
//   - Data before the archive (a self-extracting stub, `cat stub.sh x.zip`) is supported: the
//     central directory is taken to end where the (ZIP64) end record starts, and the difference
//     to its recorded offset + size is added to every offset, like Info-ZIP and Python's zipfile.
//     Archives whose offsets were already adjusted (`zip -A`, zipfile's mode 'a') get 0 added.
//     LooksLikeZip is false for such files (they do not start with "PK").
//   - Sizes and the CRC-32 always come from the central directory, so members written with a data
//     descriptor (flag bit 3, zeros in the local header) extract normally; the descriptor itself
//     is never read.
//   - Methods: 0 (stored) and 8 (deflate). Others (bzip2 12, LZMA 14, zstd 93, xz 95, ...),
//     encrypted members (flag bit 0 or 6 in the local header) and multi-disk archives are
//     reported as unsupported. Names are returned as stored (no check of UTF-8, '..' or '/').
//
// Contract: no function reads outside [data, data + size), throws or aborts; failures return
// false with a one-line message in *error (which may be null); std::bad_alloc is reported as "out
// of memory". Loops are bounded by the input size. ExtractZipEntry grows its output as inflate
// produces it (never beyond the declared size), so a lying header cannot make it allocate more
// than the real data expands to. Thread-compatible: no global state.
#ifndef CUDYN_TOOLS_ZIP_ZIP_READER_H_
#define CUDYN_TOOLS_ZIP_ZIP_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudyn {
namespace zip {

constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;

struct ZipEntry {
  std::string name;  // as stored (UTF-8, '/' separators)
  uint16_t method = 0;  // 0 stored, 8 deflate; others are reported unsupported by Extract
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;  // offset in `data`, data before the archive accounted for
  bool is_directory() const;         // name ends with '/'
};

// True if data starts like a zip (local header "PK\3\4") or is an empty zip ("PK\5\6").
bool LooksLikeZip(const uint8_t* data, size_t size) noexcept;

// Reads the central directory of the archive in [data, data + size) into *entries (in directory
// order; replaced on success, left empty on failure). False + *error on malformed input, e.g.
// "not a zip file: no end of central directory record", "truncated central directory".
bool ReadZipDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                      std::string* error) noexcept;

// Decompresses one entry (from ReadZipDirectory over the same bytes) into *out: stored members
// are copied, deflated ones inflated (raw deflate). Checks the local header (signature, bounds;
// its own name/extra lengths), that the data ends where it should with the declared uncompressed
// size, and the CRC-32. Refuses entries whose declared uncompressed size exceeds `max_size`.
// False + *error (naming the entry) on any problem; *out is then empty.
bool ExtractZipEntry(const uint8_t* data, size_t size, const ZipEntry& entry,
                     std::vector<uint8_t>* out, std::string* error,
                     uint64_t max_size = uint64_t{1} << 34) noexcept;

// "stored", "deflate", "bzip2", ... or "unknown" (for messages).
const char* MethodName(uint16_t method) noexcept;

}  // namespace zip
}  // namespace cudyn

#endif  // CUDYN_TOOLS_ZIP_ZIP_READER_H_
