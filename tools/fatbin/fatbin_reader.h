// cudyn fatbin reader: every CUDA fatbin (device code container) an ELF file or a raw .fatbin
// holds, and what each of its entries is (SASS cubin or PTX, GPU arch, PTX ISA, compression).
//
// Layout (measured on files produced by the CUDA 13.0 nvcc/fatbinary, all little-endian):
//   container header (16 bytes, 8-byte aligned):
//     +0 u32 magic 0xBA55ED50   +4 u16 version (1)   +6 u16 header size (16)   +8 u64 payload size
//   entries follow the container header back to back, each:
//     +0x00 u16 kind (1 PTX, 2 ELF cubin)   +0x02 u16 (0x0101)   +0x04 u32 entry header size
//     +0x08 u64 payload size (padded to 8)  +0x10 u32 compressed size (0 when not compressed)
//     +0x14 u32 (0 or 0x40)                 +0x18 u16 minor  +0x1a u16 major  (PTX: ISA version,
//                                                                       cubin: 1.8, the cubin ABI)
//     +0x1c u32 arch (75, 90, 100, ...)     +0x20 u32/u32 name offset/length (0 from nvcc)
//     +0x28 u64 flags                       +0x30 u64 (0)   +0x38 u64 uncompressed size
//     (headers of 0x50..0x70 bytes carry further data after +0x40; the payload starts at
//      entry + header size)
//   flags: 0x1 64-bit, 0x10 Linux host, 0x2000 LZ4 (raw block, --compress-mode=speed),
//          0x8000 Zstandard frame (--compress-mode=default|balance|size), 0x100000 arch-specific
//          ("a": sm_90a), 0x200000 family-specific ("f": sm_100f), 0x1000000 on sm_100+ cubins.
//   The cubin's own e_flags (arch in bits 8..15) do not distinguish sm_100 from sm_100a/sm_100f
//   in 13.0 output, so the variant comes from the entry flags.
//
// Where fatbins are found in an ELF (section headers, any class): `.nv_fatbin`, `__nv_relfatbin`
// and `.nvFatBinSegment` (16/24-byte wrappers, magic 0x466243B1, whose second word points at a
// fatbin by virtual address), plus a scan at 8-byte alignment of every other allocated, non-code
// PROGBITS section (.rodata, .data, .data.rel.ro, .lrodata, ...), where libraries embed fatbins
// themselves. A file without section headers (or not an ELF at all, e.g. a `.fatbin` from
// `nvcc -fatbin`) is scanned whole at 8-byte alignment.
//
// Contract: Parse* never read outside [data, data + size), never throw, never abort; loops are
// bounded by the input size. Corrupt containers are skipped with a warning; a container whose
// entries run past its end keeps the complete entries and warns. ReadFatbins maps the file
// (mmap, MAP_PRIVATE, PROT_READ); only headers are touched, payloads are never copied, so the
// cost grows with the number of entries, not with the file size.
#ifndef CUDYN_TOOLS_FATBIN_FATBIN_READER_H_
#define CUDYN_TOOLS_FATBIN_FATBIN_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loader/kernel_rule.h"

namespace cudyn {
namespace fatbin {

// The format constants and the entry-header decoder are the shared ones (loader/kernel_rule.h),
// which the loader's driver emulation reads images with too.
constexpr uint32_t kFatbinMagic = kernel_rule::kFatbinMagic;
constexpr uint32_t kWrapperMagic = kernel_rule::kFatbinWrapperMagic;

constexpr uint64_t kFlagLz4 = kernel_rule::kFatbinFlagLz4;
constexpr uint64_t kFlagZstd = kernel_rule::kFatbinFlagZstd;
constexpr uint64_t kFlagArchSpecific = kernel_rule::kFatbinFlagArchSpecific;
constexpr uint64_t kFlagFamily = kernel_rule::kFatbinFlagFamily;

enum class EntryKind { kPtx, kCubin, kUnknown };
enum class Compression { kNone, kLz4, kZstd, kUnknown };

struct Entry {
  EntryKind kind = EntryKind::kUnknown;
  uint16_t kind_raw = 0;
  int arch = 0;           // 90 for sm_90 / compute_90
  char variant = '\0';    // '\0', 'a' (arch-specific) or 'f' (family-specific)
  int version_major = 0;  // PTX: ISA version (9.0); cubin: cubin ABI (1.8)
  int version_minor = 0;
  uint64_t flags = 0;
  Compression compression = Compression::kNone;
  uint64_t offset = 0;             // file offset of the entry header
  uint64_t payload_offset = 0;     // file offset of the payload
  uint64_t payload_size = 0;       // stored bytes (compressed size when compressed)
  uint64_t uncompressed_size = 0;  // bytes after decompression (== payload_size if not compressed)
  size_t container = 0;            // index into FatbinInfo::containers

  // "sm_90a", "compute_80" (PTX), "sm_100f".
  std::string ArchName() const;
};

struct Container {
  uint64_t offset = 0;  // file offset of the container header
  uint64_t size = 0;    // header + payload
  std::string where;    // section name it was found in ("" for a raw scan)
  size_t first_entry = 0;
  size_t entry_count = 0;
};

struct FatbinInfo {
  bool is_elf = false;
  std::vector<Container> containers;
  std::vector<Entry> entries;
  std::vector<std::string> warnings;
};

struct FatbinResult {
  bool ok = false;
  std::string error;  // when !ok: "cannot open: ...", "not a regular file", ...
  FatbinInfo info;
};

// Finds every fatbin in [data, data + size) (an ELF image or raw fatbin bytes).
FatbinResult ParseFatbins(const uint8_t* data, size_t size) noexcept;

// Maps `path` and parses it. Messages do not repeat the path.
FatbinResult ReadFatbins(const std::string& path) noexcept;

// Decompresses (or copies) an entry's payload. `data`/`size` is the same image the entry was
// read from. Fails (returns false, `error` set) on corrupt data, an unknown algorithm, or an
// uncompressed size above `max_size`.
bool DecodeEntry(const uint8_t* data, size_t size, const Entry& entry, std::string* out,
                 std::string* error, uint64_t max_size = uint64_t{1} << 30) noexcept;

// The `.version X.Y` directive of PTX text; false when absent.
bool ParsePtxVersion(const std::string& ptx, int* major, int* minor) noexcept;

// "release 13.0" from "Cuda compilation tools, release 13.0, V13.0.88" in decoded payloads
// (in 13.0 output: the cubins; 13.0 PTX has no such comment): 13000, else 0.
int FindToolkitRelease(const uint8_t* data, size_t size) noexcept;

// An ELF section header (ELF32/ELF64 little-endian), name resolved.
struct SectionInfo {
  std::string name;
  uint32_t type = 0;  // SHT_*: 1 PROGBITS, 8 NOBITS
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t name_offset = 0;
};

// The section headers of an ELF image; false when it has none usable. Sections whose bytes lie
// outside the image get type 0. Never reads outside [data, data + size).
bool ReadElfSections(const uint8_t* data, size_t size, std::vector<SectionInfo>* out) noexcept;

const char* KindName(EntryKind kind);
const char* CompressionName(Compression c);

}  // namespace fatbin
}  // namespace cudyn

#endif  // CUDYN_TOOLS_FATBIN_FATBIN_READER_H_
