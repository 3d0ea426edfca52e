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
//   - Entries must not share bytes: sorted by local header offset, each entry's local header and
//     compressed data must end before the next one's local header (and the last one's before the
//     central directory). Two directory entries naming the same data are the classic non-recursive
//     zip bomb (one deflated kernel reported as thousands of members); the whole archive is then
//     refused (kOverlappingEntries).
//
// Hostile archives (zip bombs): extraction is bounded by ZipLimits, checked before anything is
// inflated where the directory already tells (declared size, declared ratio) and again while
// inflating (the declared size is never trusted: output grows with what inflate produces, never
// allocated up front):
//   - one member: at most kMaxMemberSize bytes (kMemberTooLarge);
//   - ratio: over a whole archive, the bytes inflated may exceed kMaxCompressionRatio times the
//     compressed bytes consumed by at most kRatioAllowance (kCompressionRatio); a member whose
//     declared sizes break that is refused without inflating;
//   - one archive: at most kMaxArchiveOutput bytes inflated in all (kArchiveOutputLimit).
// EntryReader inflates only as far as asked: Peek(4) decides "is it ELF?" from the first bytes.
//
// Contract: no function reads outside [data, data + size), throws or aborts; failures return
// false with a one-line message and a ZipErrorKind (callers decide by the kind, the message is for
// people); std::bad_alloc is reported as kOutOfMemory. Loops are bounded by the input size.
// Thread-compatible: no global state.
#ifndef CUDYN_TOOLS_ZIP_ZIP_READER_H_
#define CUDYN_TOOLS_ZIP_ZIP_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cudyn {
namespace zip {

constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;

// The largest member extracted. The member is held in memory whole (the ELF and fatbin readers
// need random access), so this is also the memory bound. The largest CUDA libraries shipped in
// wheels are a few hundred MB (libcublasLt.so.13: 542 MB, libcufft.so.12: 287 MB); an x86-64
// shared object cannot grow much past 2 GiB anyway, because the default (small) code model
// reaches its own code and data through 32-bit PC-relative offsets.
constexpr uint64_t kMaxMemberSize = uint64_t{2} << 30;
// Inflated bytes per compressed byte. Measured with zlib level 9 on every shared object of the
// CUDA 13.0 toolkit, cuDNN 9, libc, libstdc++, LLVM and ICU data: 1.07:1 (libcudnn_adv) to
// 4.45:1 (libnvrtc-builtins), and never above 32:1 at any point while inflating. Zeros deflate
// at about 1030:1, so a bomb is stopped after about a MiB of output.
constexpr uint64_t kMaxCompressionRatio = 100;
// Output an archive may produce beyond the ratio: small members (a linker script, a tiny
// library with page padding) are not held to it.
constexpr uint64_t kRatioAllowance = uint64_t{1} << 20;
// Bytes one archive may inflate in all (peeks, members, refused ones): four members of the
// maximum size. Bounds the work of archives whose members each stay under the other limits.
constexpr uint64_t kMaxArchiveOutput = uint64_t{8} << 30;

// Why the reader refused an archive or a member.
enum class ZipErrorKind {
  kNone = 0,
  kMalformed,           // structure: end records, central directory, local header, bounds
  kUnsupported,         // compression method, encryption, multi-disk archive
  kCorruptData,         // bad deflate stream, size or CRC-32 other than the directory says
  kOverlappingEntries,  // entries share bytes (a non-recursive zip bomb): archive refused
  kMemberTooLarge,      // a member above ZipLimits::max_member_size
  kCompressionRatio,    // more output than ZipLimits::max_ratio allows (a zip bomb)
  kArchiveOutputLimit,  // the archive's members inflate to more than max_archive_output in all
  kOutOfMemory,
  kInternal,            // bad arguments, unexpected exception
};
// "malformed", "unsupported", "corrupt_data", "overlapping_entries", "member_too_large",
// "compression_ratio", "archive_output_limit", "out_of_memory", "internal", "" for kNone.
const char* ZipErrorKindName(ZipErrorKind kind) noexcept;
// The kinds a safety bound produces (an archive that may be hostile, not merely broken).
bool IsZipLimit(ZipErrorKind kind) noexcept;

struct ZipError {
  ZipErrorKind kind = ZipErrorKind::kNone;
  std::string message;  // one line, naming the entry and, for a limit, the bound
};

struct ZipLimits {
  uint64_t max_member_size = kMaxMemberSize;
  uint64_t max_ratio = kMaxCompressionRatio;
  uint64_t ratio_allowance = kRatioAllowance;
  uint64_t max_archive_output = kMaxArchiveOutput;
};

// What extracting from one archive has cost so far; shared by every EntryReader over it, so that
// the limits hold for the archive as a whole and not only per member.
struct ArchiveBudget {
  ZipLimits limits;
  uint64_t output_bytes = 0;       // inflated (or, stored, copied) so far, refused members included
  uint64_t input_bytes = 0;        // compressed bytes consumed so far
  uint64_t peak_buffer_bytes = 0;  // largest output buffer of one member (grown in place)
};

struct ZipEntry {
  std::string name;  // as stored (UTF-8, '/' separators)
  uint16_t method = 0;  // 0 stored, 8 deflate; others are reported unsupported by Extract
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;  // offset in `data`, data before the archive accounted for
  // Where the next entry's local header (or the central directory) starts: this entry's data
  // must end by then (set by ReadZipDirectory; the maximum means unknown).
  uint64_t data_limit = UINT64_MAX;
  bool is_directory() const;         // name ends with '/'
};

// True if data starts like a zip (local header "PK\3\4") or is an empty zip ("PK\5\6").
bool LooksLikeZip(const uint8_t* data, size_t size) noexcept;

// Reads the central directory of the archive in [data, data + size) into *entries (in directory
// order; replaced on success, left empty on failure). False + *error on malformed input, e.g.
// "not a zip file: no end of central directory record", "truncated central directory", and for
// entries that share bytes (kOverlappingEntries).
bool ReadZipDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                      ZipError* error) noexcept;
// The same with the message only.
bool ReadZipDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                      std::string* error) noexcept;

// One entry (from ReadZipDirectory over the same bytes), inflated on demand and only as far as
// asked: Peek(n) for the first bytes (to decide whether the rest is wanted), ReadAll() for the
// whole member. Checks the local header (signature, bounds; its own name/extra lengths), the
// limits of `budget`, that the data ends where it should with the declared uncompressed size,
// and the CRC-32 (ReadAll). Stored members are not copied: data() points into the archive.
// `data`, `entry` and `budget` must outlive the reader. A failure is final: later calls return
// false with the same error, and the output is freed.
class EntryReader {
 public:
  EntryReader(const uint8_t* data, size_t size, const ZipEntry& entry,
              ArchiveBudget* budget) noexcept;
  ~EntryReader();
  EntryReader(const EntryReader&) = delete;
  EntryReader& operator=(const EntryReader&) = delete;

  // Makes at least the first min(n, declared size) bytes available.
  bool Peek(size_t n, ZipError* error) noexcept;
  // Makes the whole member available and checks its size and CRC-32.
  bool ReadAll(ZipError* error) noexcept;
  // The bytes available so far (valid until the next call or the reader's end).
  const uint8_t* data() const noexcept;
  size_t size() const noexcept;
  // Bytes inflated for this entry so far (stored members: 0).
  uint64_t inflated_bytes() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Extracts one entry into *out (copied) with EntryReader::ReadAll under `budget`'s limits.
// False + *error (naming the entry) on any problem; *out is then empty.
bool ExtractZipEntry(const uint8_t* data, size_t size, const ZipEntry& entry,
                     std::vector<uint8_t>* out, ZipError* error, ArchiveBudget* budget) noexcept;
// The same with a budget of its own (default limits, max_member_size = `max_size`) and the
// message only.
bool ExtractZipEntry(const uint8_t* data, size_t size, const ZipEntry& entry,
                     std::vector<uint8_t>* out, std::string* error,
                     uint64_t max_size = kMaxMemberSize) noexcept;

// "stored", "deflate", "bzip2", ... or "unknown" (for messages).
const char* MethodName(uint16_t method) noexcept;

}  // namespace zip
}  // namespace cudyn

#endif  // CUDYN_TOOLS_ZIP_ZIP_READER_H_
